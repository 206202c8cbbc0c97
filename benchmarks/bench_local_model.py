"""Round-trip latency of the local model through the real ``openai`` and ``anthropic`` SDKs.

Run: ``.venv/bin/python benchmarks/bench_local_model.py [--requests N] [--clients N]``

Three APIs (Chat Completions, Responses, Anthropic Messages), each also with the reasoning model
(``local-toy-reasoning``: reasoning tokens, a reasoning item with summary and encrypted content,
a signed thinking block), each on two roads (in process through an httpx2 transport, and over
HTTP on loopback through ``serve()``), plain and streaming: every road is timed as one SDK call
(for streams: until the last event is read), and every reply is checked: the two expected calls
(names and arguments, in order) and, on the reasoning model's roads, its reasoning (reasoning
tokens, a reasoning item with summary and encrypted content, a thinking block whose signature
arrives), so a broken road cannot pass for a fast one. Then ``--clients`` threads, each with its
own client and taking the requests in turn, hit the HTTP server at once; every reply is checked
the same way and errors are counted.

Each road is compared with a *trivial handler* on the same road in the same run, one request to
each per round, in an order drawn per round from a seeded random generator (``--seed``; the
run prints the seed it used), so that a preemption under load does not always land on the same
side: a transport or server that returns the same reply, frozen, without
reading the request. The trivial road is the SDK alone (and, over HTTP, the SDK's HTTP stack and
a do-nothing server): the floor no model can go under. The ratio of the medians is what the
local model itself costs on top of it; the target (issue 23) is at most 1.3x on every road, and
0 errors under concurrency. A second ratio, of the medians of the process's CPU time per round
trip, says the same without the time spent waiting for a CPU, which is most of the wall time on
a busy machine.

Three breakdowns follow, to say where the time goes:

* in process, each SDK call cut in three at the transport: the SDK building and sending the
  request, the transport answering (the local model, or the frozen reply), the SDK reading the
  reply into its typed objects;
* the model alone (``LocalEndpoint.handle``, no SDK): a request seen before (its memories of
  plans and checked schemas full, as in the timed roads), a new question with the same tools
  (the policy's plans bypassed) and a request with nothing kept (every memory bypassed);
* the HTTP server alone: the same request posted with ``http.client`` on one kept-alive
  connection, to ``serve()`` and to the trivial server (no SDK on either side).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import platform
import random
import secrets
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anthropic
import httpx2
import openai

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from course_lib.local_model import make_anthropic_client, make_client, memo  # noqa: E402
from course_lib.local_model.client import local_endpoint  # noqa: E402
from course_lib.local_model.server import serve  # noqa: E402
from course_lib.local_model.transport import LocalTransport  # noqa: E402

WEATHER = {
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["c", "f"]},
        },
        "required": ["city"],
    },
}
NOTES = {
    "name": "search_notes",
    "description": "Search the user's notes by keyword.",
    "parameters": {
        "type": "object",
        "properties": {"keyword": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["keyword"],
    },
}
QUESTION = "What's the weather in Beijing and 上海?"
REQUESTS = {
    "chat": (
        "/v1/chat/completions",
        dict(
            model="local-toy",
            messages=[{"role": "user", "content": QUESTION}],
            tools=[{"type": "function", "function": f} for f in (WEATHER, NOTES)],
        ),
    ),
    "responses": (
        "/v1/responses",
        dict(
            model="local-toy",
            input=QUESTION,
            tools=[{"type": "function", **f} for f in (WEATHER, NOTES)],
        ),
    ),
    "anthropic": (
        "/v1/messages",
        dict(
            model="local-toy",
            max_tokens=1024,
            messages=[{"role": "user", "content": QUESTION}],
            tools=[
                {
                    "name": f["name"],
                    "description": f["description"],
                    "input_schema": f["parameters"],
                }
                for f in (WEATHER, NOTES)
            ],
        ),
    ),
}
REASONING = "local-toy-reasoning"
REASONING_ROADS = ("chat-reasoning", "responses-reasoning", "anthropic-thinking")
# The reasoning model's roads: the same question, with its reasoning tokens (Chat), a reasoning
# item with a summary and encrypted content (Responses), a signed thinking block (Anthropic).
REQUESTS["chat-reasoning"] = (
    "/v1/chat/completions",
    {**REQUESTS["chat"][1], "model": REASONING, "reasoning_effort": "high"},
)
REQUESTS["responses-reasoning"] = (
    "/v1/responses",
    {
        **REQUESTS["responses"][1],
        "model": REASONING,
        "reasoning": {"effort": "high", "summary": "auto"},
        "include": ["reasoning.encrypted_content"],
    },
)
REQUESTS["anthropic-thinking"] = (
    "/v1/messages",
    {
        **REQUESTS["anthropic"][1],
        "model": REASONING,
        "max_tokens": 2048,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
    },
)
APIS = list(REQUESTS)
# What every reply must hold, whatever the road: the two calls, in this order.
EXPECTED_CALLS = [("get_weather", "Beijing"), ("get_weather", "上海")]
TARGET_RATIO = 1.3  # the model's round trip at most this many times the trivial handler's


def request_body(api: str, stream: bool) -> dict:
    """The body of one road's request. A Chat stream of the reasoning model asks for its usage
    chunk, the only place a stream says how many reasoning tokens there were."""
    body = REQUESTS[api][1]
    if not stream:
        return body
    if api == "chat-reasoning":
        return {**body, "stream": True, "stream_options": {"include_usage": True}}
    return {**body, "stream": True}


def frozen_replies() -> dict[tuple[str, bool, bool], tuple[str, bytes]]:
    """A real reply to each request, frozen: the trivial handlers send these bytes back unread.
    Keyed by path, whether the reasoning model was asked, and whether it streams."""
    endpoint = local_endpoint()
    frozen = {}
    for api, (path, body) in REQUESTS.items():
        for stream in (False, True):
            raw = json.dumps(request_body(api, stream)).encode()
            reply = endpoint.handle("POST", path, raw)
            raw = reply.body if isinstance(reply.body, bytes) else b"".join(reply.body)
            frozen[(path, body["model"] == REASONING, stream)] = (reply.content_type, raw)
    return frozen


FROZEN = frozen_replies()


def canned(path: str, raw: bytes) -> tuple[str, bytes]:
    stream = b'"stream": true' in raw or b'"stream":true' in raw
    key = next(p for p, _ in REQUESTS.values() if path.rstrip("/").endswith(p.removeprefix("/v1")))
    return FROZEN[(key, REASONING.encode() in raw, stream)]


class TrivialTransport(httpx2.BaseTransport):
    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        kind, body = canned(request.url.path, request.read())
        return httpx2.Response(200, headers={"content-type": kind}, content=body, request=request)


class TrivialHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_POST(self) -> None:  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        kind, body = canned(self.path, raw)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


class TrivialServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address) -> None:
        pass  # clients hanging up at the end of a run


@contextmanager
def trivial_server() -> Iterator[str]:
    server = TrivialServer(("127.0.0.1", 0), TrivialHandler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


class CutTransport(httpx2.BaseTransport):
    """Another transport, with the moments each request entered and left it kept."""

    def __init__(self, inner: httpx2.BaseTransport) -> None:
        self.inner = inner
        self.entered = self.left = 0.0

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.entered = time.perf_counter()
        try:
            return self.inner.handle_request(request)
        finally:
            self.left = time.perf_counter()


def clients_at(base_url: str | None, transport: httpx2.BaseTransport | None = None) -> dict:
    """An OpenAI and an Anthropic client for a base URL (``.../v1``) or an in-process transport."""
    if transport is not None:
        http = httpx2.Client(transport=transport)
        return {
            "openai": openai.OpenAI(
                api_key="x", base_url="http://t.invalid/v1", http_client=http, max_retries=0
            ),
            "anthropic": anthropic.Anthropic(
                api_key="x", base_url="http://t.invalid", http_client=http, max_retries=0
            ),
        }
    assert base_url is not None
    return {
        "openai": openai.OpenAI(api_key="x", base_url=base_url, max_retries=0),
        "anthropic": anthropic.Anthropic(
            api_key="x", base_url=base_url.removesuffix("/v1"), max_retries=0
        ),
    }


@dataclass
class Seen:
    """What one reply held: its calls (name, city) in order, and whether the reasoning model's
    part was there (reasoning tokens, a reasoning item with summary and encrypted content, a
    signed thinking block)."""

    calls: list[tuple[str, str]] = field(default_factory=list)
    reasoning: bool = False


def _city(arguments: str | dict) -> str:
    value = json.loads(arguments) if isinstance(arguments, str) else arguments
    return value.get("city") if isinstance(value, dict) else None


def check_reply(api: str, seen: Seen) -> None:
    """Raise unless the reply is the real one: the expected calls, and the reasoning model's
    part exactly on its roads (so a broken road cannot pass for a fast one)."""
    if seen.calls != EXPECTED_CALLS:
        raise AssertionError(f"{api}: calls {seen.calls}, expected {EXPECTED_CALLS}")
    wanted = api in REASONING_ROADS
    if seen.reasoning != wanted:
        part = "reasoning" if wanted else "no reasoning"
        raise AssertionError(f"{api}: expected {part}, got {'some' if seen.reasoning else 'none'}")


def one_round_trip(clients: dict, api: str, stream: bool) -> Seen:
    """One request through the SDK, read to its end; returns what the reply held."""
    body = request_body(api, stream)
    kind = api.split("-")[0]  # the reasoning model's roads go the same way
    if kind == "chat":
        return _chat(clients["openai"], body, stream)
    if kind == "responses":
        client = clients["openai"]
        if not stream:
            reply = client.responses.create(**body)
        else:
            reply = [e for e in client.responses.create(**body)][-1].response
        calls = [(i.name, _city(i.arguments)) for i in reply.output if i.type == "function_call"]
        reasoning = [i for i in reply.output if i.type == "reasoning"]
        shown = bool(reasoning) and bool(reasoning[0].summary and reasoning[0].encrypted_content)
        return Seen(calls, shown)
    return _messages(clients["anthropic"], body, stream)


def _chat(client: openai.OpenAI, body: dict, stream: bool) -> Seen:
    if not stream:
        reply = client.chat.completions.create(**body)
        calls = reply.choices[0].message.tool_calls or []
        seen = Seen([(c.function.name, _city(c.function.arguments)) for c in calls])
        seen.reasoning = bool(reply.usage.completion_tokens_details.reasoning_tokens)
        return seen
    names: dict[int, str] = {}
    arguments: dict[int, str] = {}
    seen = Seen()
    for chunk in client.chat.completions.create(**body):
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or []:
                if delta.function.name:
                    names[delta.index] = delta.function.name
                arguments[delta.index] = arguments.get(delta.index, "") + (
                    delta.function.arguments or ""
                )
        if chunk.usage is not None:
            seen.reasoning = bool(chunk.usage.completion_tokens_details.reasoning_tokens)
    seen.calls = [(names[i], _city(arguments[i])) for i in sorted(names)]
    return seen


def _messages(client: anthropic.Anthropic, body: dict, stream: bool) -> Seen:
    if not stream:
        reply = client.messages.create(**body)
        calls = [(b.name, _city(b.input)) for b in reply.content if b.type == "tool_use"]
        first = reply.content[0]
        return Seen(calls, first.type == "thinking" and bool(first.thinking and first.signature))
    names: dict[int, str] = {}
    arguments: dict[int, str] = {}
    thinking = signed = False
    for event in client.messages.create(**body):
        if event.type == "content_block_start" and event.content_block.type == "tool_use":
            names[event.index] = event.content_block.name
        elif event.type == "content_block_start" and event.content_block.type == "thinking":
            thinking = event.index == 0
        elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
            arguments[event.index] = arguments.get(event.index, "") + event.delta.partial_json
        elif event.type == "content_block_delta" and event.delta.type == "signature_delta":
            signed = bool(event.delta.signature)
    calls = [(names[i], _city(arguments[i])) for i in sorted(names)]
    return Seen(calls, thinking and signed)


def in_turn(rng: random.Random, count: int = 2) -> list[int]:
    """The sides of one round (0 the local model, 1 the trivial handler, ...) in the order
    ``rng`` draws: neither side is always first, so neither always takes what a busy machine
    does to the first (or the second) request of a round."""
    order = list(range(count))
    rng.shuffle(order)
    return order


def timings(
    local: dict, trivial: dict, api: str, stream: bool, n: int, rng: random.Random
) -> tuple[list, list]:
    """``n`` timed requests on each side, one of each per round in an order ``rng`` draws, so
    both see the same load; every reply checked (inside the timing, the same work on both
    sides). Each sample is (wall ms, CPU ms of the whole process: the client and, over HTTP,
    the server's threads)."""
    for _ in range(20):  # warm up
        for clients in (local, trivial):
            check_reply(api, one_round_trip(clients, api, stream))
    out: tuple[list[tuple[float, float]], list[tuple[float, float]]] = ([], [])
    sides = (local, trivial)
    for _ in range(n):
        for side in in_turn(rng):
            clients = sides[side]
            start, cpu = time.perf_counter(), time.process_time()
            check_reply(api, one_round_trip(clients, api, stream))
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            out[side].append((wall * 1000, cpu * 1000))
    return out


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def cut_timings(
    api: str, stream: bool, n: int, rng: random.Random
) -> dict[str, list[tuple[float, float, float]]]:
    """In process, ``n`` calls per side (in an order ``rng`` draws per round): (SDK before the
    transport, in the transport, SDK after it), each in ms."""
    sides = {
        "local": CutTransport(LocalTransport(local_endpoint())),
        "trivial": CutTransport(TrivialTransport()),
    }
    clients = {side: clients_at(None, transport) for side, transport in sides.items()}
    parts: dict[str, list[tuple[float, float, float]]] = {side: [] for side in sides}
    names = list(sides)
    for round_number in range(n + 20):
        for side in (names[index] for index in in_turn(rng)):
            transport = sides[side]
            start = time.perf_counter()
            check_reply(api, one_round_trip(clients[side], api, stream))
            end = time.perf_counter()
            if round_number >= 20:  # the first ones warm up
                cut = (transport.entered - start, transport.left - transport.entered)
                parts[side].append((cut[0] * 1000, cut[1] * 1000, (end - transport.left) * 1000))
    return parts


def model_alone(api: str, n: int, rng: random.Random) -> tuple[float, float, float]:
    """Median ms of ``LocalEndpoint.handle`` for the plain request (in an order ``rng`` draws
    per round): memories full
    (a request seen before), the policy's plans bypassed (a new question with tools seen
    before), every memory bypassed (nothing seen before)."""
    path, body = REQUESTS[api]
    raw = json.dumps(body).encode()
    headers = {"anthropic-version": "2023-06-01"}
    endpoint = local_endpoint()
    endpoint.handle("POST", path, raw, headers)
    ways = [contextlib.nullcontext, lambda: memo.bypassed(endpoint.policy.plans), memo.bypassed]
    samples: list[list[float]] = [[] for _ in ways]
    for _ in range(n):
        for index in in_turn(rng, len(ways)):
            way, timed = ways[index], samples[index]
            with way():
                start = time.perf_counter()
                endpoint.handle("POST", path, raw, headers)
                timed.append((time.perf_counter() - start) * 1000)
    full, new_question, nothing_kept = (statistics.median(timed) for timed in samples)
    return full, new_question, nothing_kept


def server_alone(
    urls: tuple[str, str], api: str, n: int, rng: random.Random
) -> tuple[float, float]:
    """Median ms of the plain request posted with ``http.client`` (no SDK) on one kept-alive
    connection to each server (``.../v1`` URLs), in an order ``rng`` draws per round."""
    path, body = REQUESTS[api]
    raw = json.dumps(body).encode()
    headers = {"content-type": "application/json", "anthropic-version": "2023-06-01"}
    connections = [http.client.HTTPConnection(*url.split("/")[2].split(":")) for url in urls]
    samples: tuple[list[float], list[float]] = ([], [])
    try:
        for round_number in range(n + 20):
            for side in in_turn(rng):
                connection = connections[side]
                start = time.perf_counter()
                connection.request("POST", path, body=raw, headers=headers)
                reply = connection.getresponse()
                reply.read()
                assert reply.status == 200
                if round_number >= 20:
                    samples[side].append((time.perf_counter() - start) * 1000)
    finally:
        for connection in connections:
            connection.close()
    return statistics.median(samples[0]), statistics.median(samples[1])


def print_breakdowns(urls: tuple[str, str], n: int, rng: random.Random) -> None:
    print("\nin process, each call cut at the transport (medians in ms):")
    print(f"{'road':<30}{'side':>8}{'SDK before':>12}{'transport':>11}{'SDK after':>11}")
    for api in APIS:
        for stream in (False, True):
            name = f"in-process {api} {'stream' if stream else 'plain'}"
            for side, parts in cut_timings(api, stream, n, rng).items():
                before, inside, after = (statistics.median(p) for p in zip(*parts, strict=True))
                print(f"{name:<30}{side:>8}{before:>12.2f}{inside:>11.2f}{after:>11.2f}")
    print("\nthe model alone, LocalEndpoint.handle without an SDK (medians in ms):")
    print(f"{'request':<30}{'seen before':>13}{'new question':>14}{'nothing kept':>14}")
    for api in APIS:
        full, new_question, nothing_kept = model_alone(api, n, rng)
        print(f"{api + ' plain':<30}{full:>13.3f}{new_question:>14.3f}{nothing_kept:>14.3f}")
    print("\nthe HTTP servers alone, http.client without an SDK (medians in ms):")
    print(f"{'request':<30}{'serve()':>10}{'trivial':>10}{'ratio':>8}")
    for api in APIS:
        ours, trivial = server_alone(urls, api, n, rng)
        print(f"{api + ' plain':<30}{ours:>10.2f}{trivial:>10.2f}{ours / trivial:>8.2f}")


def concurrent(make: Callable[[], dict], clients: int, per_client: int) -> tuple:
    """``clients`` threads with their own clients each, taking the APIs in turn; returns
    (latencies, errors, seconds)."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(clients)

    def worker(index: int) -> None:
        own = make()
        barrier.wait()
        for step in range(per_client):
            api = APIS[(index + step) % len(APIS)]
            start = time.perf_counter()
            try:
                check_reply(api, one_round_trip(own, api, False))
            except Exception as error:  # counted, not raised: the point is to see them
                reason: str | None = f"{api}: {error!r}"
            else:
                reason = None
            with lock:
                latencies.append((time.perf_counter() - start) * 1000)
                if reason is not None:
                    errors.append(reason)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        list(pool.map(worker, range(clients)))
    return latencies, errors, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="timed requests per road")
    parser.add_argument("--clients", type=int, default=200, help="concurrent HTTP clients")
    parser.add_argument("--per-client", type=int, default=6, help="requests per concurrent client")
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of each round's order (default: drawn anew)"
    )
    parser.add_argument(
        "--no-breakdowns", action="store_true", help="skip the three breakdowns (a shorter run)"
    )
    args = parser.parse_args()
    seed = secrets.randbelow(2**32) if args.seed is None else args.seed
    rng = random.Random(seed)
    print(
        f"Python {platform.python_version()}, openai {openai.__version__}, anthropic "
        f"{anthropic.__version__}, {args.requests} requests per road (medians and p99 in ms), "
        f"each round's order drawn with --seed {seed}\n"
    )
    header = f"{'road':<38}{'local median':>13}{'p99':>8}{'trivial median':>16}{'p99':>8}"
    print(header + f"{'ratio':>8}{'CPU ratio':>11}")
    in_process = {"openai": make_client(), "anthropic": make_anthropic_client()}
    trivial_in_process = clients_at(None, TrivialTransport())
    ratios: dict[str, tuple[float, float]] = {}  # wall, CPU
    with serve() as server, trivial_server() as trivial_url:
        roads = {
            "in-process": (in_process, trivial_in_process),
            "http": (clients_at(server.base_url), clients_at(trivial_url)),
        }
        for road, (local, trivial) in roads.items():
            for api in APIS:
                for stream in (False, True):
                    name = f"{road} {api} {'stream' if stream else 'plain'}"
                    local_samples, trivial_samples = timings(
                        local, trivial, api, stream, args.requests, rng
                    )
                    local_ms, trivial_ms = (
                        summary([wall for wall, _ in samples])
                        for samples in (local_samples, trivial_samples)
                    )
                    local_cpu, trivial_cpu = (
                        statistics.median(cpu for _, cpu in samples)
                        for samples in (local_samples, trivial_samples)
                    )
                    ratios[name] = (local_ms[0] / trivial_ms[0], local_cpu / trivial_cpu)
                    print(
                        f"{name:<38}{local_ms[0]:>13.2f}{local_ms[1]:>8.2f}"
                        f"{trivial_ms[0]:>16.2f}{trivial_ms[1]:>8.2f}"
                        f"{ratios[name][0]:>8.2f}{ratios[name][1]:>11.2f}"
                    )
        if not args.no_breakdowns:
            print_breakdowns((server.base_url, trivial_url), args.requests, rng)
        total = args.clients * args.per_client
        print(
            f"\n{args.clients} concurrent HTTP clients x {args.per_client} requests ({total} total,"
            " the three APIs in turn)"
        )
        failed = False
        for label, url in (("local model", server.base_url), ("trivial", trivial_url)):
            latencies, errors, seconds = concurrent(
                lambda url=url: clients_at(url), args.clients, args.per_client
            )
            median, p99 = summary(latencies)
            print(
                f"  {label:<12} median {median:7.2f} ms  p99 {p99:7.2f} ms  "
                f"{total / seconds:7.0f} req/s  errors {len(errors)}"
                + (f" (first: {errors[0]})" if errors else "")
            )
            failed = failed or (label == "local model" and bool(errors))
    print()
    over = [name for name, (wall, _) in ratios.items() if wall > TARGET_RATIO]
    worst = max(ratios, key=lambda name: ratios[name][0])
    print(
        f"target: every road within {TARGET_RATIO}x of the trivial handler: "
        + (f"MISSED by {', '.join(over)}" if over else "met")
        + f" (highest {worst}: {ratios[worst][0]:.2f}x, CPU {ratios[worst][1]:.2f}x)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
