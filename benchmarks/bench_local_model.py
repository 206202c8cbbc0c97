"""Round-trip latency of the local model through the real ``openai`` SDK.

Run: ``.venv/bin/python benchmarks/bench_local_model.py [--requests N]``

Four roads, each timed as one ``client.chat.completions.create(...)`` call (for streams: until the
last chunk is read): in process (httpx2 transport) and over HTTP on loopback (stdlib
``ThreadingHTTPServer``), plain and streaming. Then 50 threads, each with its own client, hit the
HTTP server at once; every reply is checked and errors are counted.

Each road is compared with a *trivial handler* on the same road in the same run: a transport or
server that returns a canned completion without reading the request. The ratio is what the local
model itself costs on top of the SDK and the transport. Targets: in-process median <= 2 ms,
HTTP median <= 4 ms.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2
import openai

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from course_lib.local_model import HeuristicPolicy, make_client  # noqa: E402
from course_lib.local_model.endpoint import LocalEndpoint  # noqa: E402
from course_lib.local_model.server import serve  # noqa: E402

WEATHER = {
    "type": "function",
    "function": {
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
    },
}
NOTES = {
    "type": "function",
    "function": {
        "name": "search_notes",
        "description": "Search the user's notes by keyword.",
        "parameters": {
            "type": "object",
            "properties": {"keyword": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["keyword"],
        },
    },
}
REQUEST = dict(
    model="local-toy",
    messages=[{"role": "user", "content": "What's the weather in Beijing and 上海?"}],
    tools=[WEATHER, NOTES],
)


def canned_replies() -> tuple[bytes, bytes]:
    """A real reply to REQUEST, frozen: the trivial handlers send these bytes back unread."""
    endpoint = LocalEndpoint(HeuristicPolicy())
    plain = endpoint.handle("POST", "/v1/chat/completions", json.dumps(REQUEST).encode()).body
    stream = endpoint.handle(
        "POST", "/v1/chat/completions", json.dumps({**REQUEST, "stream": True}).encode()
    ).body
    return plain, b"".join(stream)


PLAIN, STREAM = canned_replies()


def canned(stream: bool) -> tuple[str, bytes]:
    return ("text/event-stream", STREAM) if stream else ("application/json", PLAIN)


class TrivialTransport(httpx2.BaseTransport):
    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        kind, body = canned(
            b'"stream": true' in request.content or b'"stream":true' in request.content
        )
        return httpx2.Response(200, headers={"content-type": kind}, content=body, request=request)


class TrivialHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_POST(self) -> None:  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        kind, body = canned(b'"stream": true' in raw or b'"stream":true' in raw)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


class TrivialServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # same backlog as the local model's server

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


def http_client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(api_key="unused", base_url=base_url, max_retries=0)


def one_round_trip(client: openai.OpenAI, stream: bool) -> int:
    """One request; returns the number of tool calls received (to check the reply is real)."""
    if not stream:
        reply = client.chat.completions.create(**REQUEST)
        return len(reply.choices[0].message.tool_calls or [])
    calls = set()
    for chunk in client.chat.completions.create(**REQUEST, stream=True):
        for choice in chunk.choices:
            calls.update(f.index for f in choice.delta.tool_calls or [])
    return len(calls)


def timings(client: openai.OpenAI, stream: bool, n: int) -> list[float]:
    for _ in range(20):  # warm up
        assert one_round_trip(client, stream) == 2
    out = []
    for _ in range(n):
        start = time.perf_counter()
        assert one_round_trip(client, stream) == 2
        out.append((time.perf_counter() - start) * 1000)
    return out


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def concurrent(make: Callable[[], openai.OpenAI], clients: int, per_client: int) -> tuple:
    """``clients`` threads with their own client each; returns (latencies, errors, seconds)."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(clients)

    def worker(_: int) -> None:
        client = make()
        barrier.wait()
        for _ in range(per_client):
            start = time.perf_counter()
            try:
                ok = one_round_trip(client, False) == 2
            except Exception as error:  # counted, not raised: the point is to see them
                ok, reason = False, repr(error)
            else:
                reason = "wrong reply"
            with lock:
                latencies.append((time.perf_counter() - start) * 1000)
                if not ok:
                    errors.append(reason)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        list(pool.map(worker, range(clients)))
    return latencies, errors, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="timed requests per road")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients")
    parser.add_argument("--per-client", type=int, default=20, help="requests per concurrent client")
    args = parser.parse_args()
    print(
        f"Python {platform.python_version()}, openai {openai.__version__}, "
        f"{args.requests} requests per road (medians and p99 in ms)\n"
    )
    print(f"{'road':<22}{'local median':>13}{'p99':>8}{'trivial median':>16}{'p99':>8}{'ratio':>8}")
    in_process = make_client()
    trivial_in_process = openai.OpenAI(
        api_key="unused",
        base_url="http://trivial.invalid/v1",
        http_client=httpx2.Client(transport=TrivialTransport()),
        max_retries=0,
    )
    results = {}
    with serve() as server, trivial_server() as trivial_url:
        roads = {
            "in-process": (in_process, trivial_in_process),
            "http": (http_client(server.base_url), http_client(trivial_url)),
        }
        for road, (local, trivial) in roads.items():
            for stream in (False, True):
                name = f"{road} {'stream' if stream else 'plain'}"
                local_ms = summary(timings(local, stream, args.requests))
                trivial_ms = summary(timings(trivial, stream, args.requests))
                results[name] = local_ms
                print(
                    f"{name:<22}{local_ms[0]:>13.2f}{local_ms[1]:>8.2f}"
                    f"{trivial_ms[0]:>16.2f}{trivial_ms[1]:>8.2f}"
                    f"{local_ms[0] / trivial_ms[0]:>8.2f}"
                )
        total = args.clients * args.per_client
        print(
            f"\n{args.clients} concurrent HTTP clients x {args.per_client} requests ({total} total)"
        )
        for label, url in (("local model", server.base_url), ("trivial", trivial_url)):
            latencies, errors, seconds = concurrent(
                lambda url=url: http_client(url), args.clients, args.per_client
            )
            median, p99 = summary(latencies)
            print(
                f"  {label:<12} median {median:7.2f} ms  p99 {p99:7.2f} ms  "
                f"{total / seconds:7.0f} req/s  errors {len(errors)}"
                + (f" (first: {errors[0]})" if errors else "")
            )
            if label == "local model" and errors:
                return 1
    targets = [("in-process plain", 2.0), ("http plain", 4.0)]
    print()
    for name, limit in targets:
        verdict = "meets" if results[name][0] <= limit else "MISSES"
        print(f"target: {name} median {results[name][0]:.2f} ms {verdict} <= {limit} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
