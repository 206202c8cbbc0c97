"""serve-model's HTTP round trip and concurrency, against the server it replaced, in one run.

Run: ``.venv/bin/python benchmarks/bench_http_server.py [--rounds R] [--requests N] [--clients C]``

Three servers answer the same Chat Completions request through the real ``openai`` SDK:

- ``serve-model``: uvicorn (httptools), the model on a thread pool
  (``course_lib.local_model.server``);
- ``stdlib``: the server it replaced, the standard library's ``ThreadingHTTPServer`` with
  hand-written framing around the same ``LocalEndpoint`` (kept here only as the baseline);
- ``trivial``: uvicorn with the same connection class, answering a canned reply without running
  the model: what the SDK, the loopback and the server cost with no model at all.

Latency rounds alternate between the servers (so a load spike on a shared machine hits all of
them alike) and report medians in ms and ratios. Then ``--clients`` threads, each with its own
client, send ``--per-client`` requests at once to each server; every reply is checked and errors
are counted. Target: serve-model's plain HTTP median <= 4 ms, and 0 errors at 200 clients.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import openai
import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from course_lib.local_model import HeuristicPolicy  # noqa: E402
from course_lib.local_model.endpoint import LocalEndpoint, Reply  # noqa: E402
from course_lib.local_model.server import LocalModelServer, running, serve  # noqa: E402

REQUEST = dict(
    model="local-toy",
    messages=[{"role": "user", "content": "What's the weather in Beijing and 上海?"}],
    tools=[
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Get the current weather for a city.",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "City name"}},
                    "required": ["city"],
                },
            },
        }
    ],
)


class CannedEndpoint(LocalEndpoint):
    """Answers every request with one frozen reply, without reading it: the trivial handler."""

    def __init__(self) -> None:
        super().__init__(HeuristicPolicy())
        raw = json.dumps(REQUEST).encode()
        self.plain = super().handle("POST", "/v1/chat/completions", raw).body
        streamed = json.dumps({**REQUEST, "stream": True}).encode()
        self.stream = list(super().handle("POST", "/v1/chat/completions", streamed).body)

    def handle(self, method: str, path: str, body: bytes, *headers: Any) -> Reply:
        if b'"stream": true' in body or b'"stream":true' in body:
            return Reply(200, "text/event-stream; charset=utf-8", iter(self.stream))
        return Reply(200, "application/json", self.plain)


class StdlibHandler(BaseHTTPRequestHandler):
    """The replaced server's framing: Content-Length bodies, chunked streams, keep-alive."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    endpoint = LocalEndpoint(HeuristicPolicy())

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        reply = self.endpoint.handle("POST", self.path, body)
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        if isinstance(reply.body, bytes):
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for piece in reply.body:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def stdlib_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StdlibHandler)
    server.daemon_threads = True
    server.request_queue_size = 128  # as the replaced server had
    server.handle_error = lambda *args: None  # clients hanging up at the end of a run
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def trivial_server() -> Iterator[str]:
    from course_lib.local_model.http_limits import ServerLimits

    bound = LocalModelServer(("127.0.0.1", 0), CannedEndpoint(), limits=ServerLimits())
    with running(bound) as server:
        yield server.base_url


def client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(api_key="unused", base_url=base_url, max_retries=0, timeout=120)


def round_trip(remote: openai.OpenAI, stream: bool) -> bool:
    """One request; True when the reply holds the two expected tool calls."""
    if not stream:
        reply = remote.chat.completions.create(**REQUEST)
        return len(reply.choices[0].message.tool_calls or []) == 2
    calls = set()
    for chunk in remote.chat.completions.create(**REQUEST, stream=True):
        for choice in chunk.choices:
            calls.update(f.index for f in choice.delta.tool_calls or [])
    return len(calls) == 2


def latencies(urls: dict[str, str], stream: bool, rounds: int, per_round: int) -> dict:
    """Median ms per server. Each round opens new connections: on a loaded machine some
    connections stay slow for their whole life, so one connection per server is a lottery."""
    samples: dict[str, list[float]] = {name: [] for name in urls}
    for index in range(rounds):
        for name, url in urls.items():
            remote = client(url)
            for _ in range(5 if index else 20):  # warm up: the connection, caches
                assert round_trip(remote, stream)
            for _ in range(per_round):
                start = time.perf_counter()
                assert round_trip(remote, stream)
                samples[name].append((time.perf_counter() - start) * 1000)
            remote.close()
    return {name: statistics.median(values) for name, values in samples.items()}


def concurrent(base_url: str, clients: int, per_client: int) -> tuple:
    """(requests, errors, requests per second, p99 ms, first error) with ``clients`` threads."""
    barrier = threading.Barrier(clients)
    times: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def worker(_: int) -> None:
        remote = client(base_url)
        barrier.wait()
        for _ in range(per_client):
            start = time.perf_counter()
            try:
                ok, reason = round_trip(remote, False), "wrong reply"
            except Exception as error:  # counted, not raised: the point is to see them
                ok, reason = False, repr(error)
            with lock:
                times.append((time.perf_counter() - start) * 1000)
                if not ok:
                    errors.append(reason)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        list(pool.map(worker, range(clients)))
    seconds = time.perf_counter() - start
    ordered = sorted(times)
    first = errors[0] if errors else ""
    return len(times), len(errors), len(times) / seconds, ordered[int(len(ordered) * 0.99)], first


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="alternating latency rounds")
    parser.add_argument("--requests", type=int, default=50, help="requests per server per round")
    parser.add_argument("--clients", type=int, default=200, help="concurrent clients")
    parser.add_argument("--per-client", type=int, default=5, help="requests per client")
    args = parser.parse_args()
    print(
        f"Python {platform.python_version()}, openai {openai.__version__}, uvicorn "
        f"{uvicorn.__version__}; {args.rounds} x {args.requests} requests per server and road\n"
    )
    with ExitStack() as stack:
        urls = {
            "serve-model": stack.enter_context(serve()).base_url,
            "stdlib": stack.enter_context(stdlib_server()),
            "trivial": stack.enter_context(trivial_server()),
        }
        print(f"{'median ms':<12}" + "".join(f"{n:>13}" for n in urls) + f"{'vs stdlib':>11}")
        plain = {}
        for stream in (False, True):
            medians = latencies(urls, stream, args.rounds, args.requests)
            plain = plain or medians
            ratio = medians["serve-model"] / medians["stdlib"]
            row = "".join(f"{medians[n]:>13.2f}" for n in urls)
            print(f"{'stream' if stream else 'plain':<12}{row}{ratio:>10.2f}x")
        print(f"\n{args.clients} concurrent clients x {args.per_client} requests")
        failed = False
        for name in ("serve-model", "stdlib"):
            total, errors, rate, p99, first = concurrent(urls[name], args.clients, args.per_client)
            print(
                f"  {name:<12} {total} requests {rate:6.0f} req/s  p99 {p99:7.1f} ms  "
                f"errors {errors}" + (f" (first: {first})" if first else "")
            )
            failed = failed or (name == "serve-model" and errors > 0)
    verdict = "meets" if plain["serve-model"] <= 4.0 else "MISSES"
    print(f"\ntarget: serve-model plain median {plain['serve-model']:.2f} ms {verdict} <= 4 ms")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
