"""Why serve-model runs on uvicorn: tornado, uvicorn and serve-model side by side, in one run.

Run: ``.venv/bin/python benchmarks/compare_http_servers.py [--requests N]``

Each candidate serves the same canned Chat Completions reply with the limits its documentation
offers set to the same values (4 MB body, 2 s timeouts):

- ``tornado``: ``tornado.web`` on ``HTTPServer(max_body_size, idle_connection_timeout,
  body_timeout)``, as it comes with JupyterLab;
- ``uvicorn``: stock uvicorn (h11, ``timeout_keep_alive``) with a plain ASGI app;
- ``serve-model``: uvicorn with our connection class and app (``course_lib.local_model.server``).

First, hostile requests from raw sockets: the status each server answers and whether the reply
is JSON, plain text or empty, or whether it closes (or keeps) the connection without a word.
Then the median round trip through the real ``openai`` SDK, rounds alternating between servers,
each round on new connections (on a loaded machine some connections stay slow for their whole
life, so one connection per server would be a lottery).
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

import openai
import tornado.httpserver
import tornado.netutil
import tornado.web
import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_http_server import REQUEST, CannedEndpoint  # noqa: E402

from course_lib.local_model.http_limits import MEGABYTE, ServerLimits  # noqa: E402
from course_lib.local_model.server import LocalModelServer  # noqa: E402

CAP = 4 * MEGABYTE
TIMEOUT = 2.0
CANNED = CannedEndpoint().plain


def start_tornado() -> int:
    class Canned(tornado.web.RequestHandler):
        def post(self, *_: str) -> None:
            self.set_header("Content-Type", "application/json")
            self.write(CANNED)

    sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
    ready = threading.Event()

    async def main() -> None:
        app = tornado.web.Application([(r"/(.*)", Canned)])
        server = tornado.httpserver.HTTPServer(
            app, max_body_size=CAP, idle_connection_timeout=TIMEOUT, body_timeout=TIMEOUT
        )
        server.add_sockets(sockets)
        ready.set()
        await asyncio.Event().wait()

    threading.Thread(target=asyncio.run, args=(main(),), daemon=True).start()
    ready.wait()
    return sockets[0].getsockname()[1]


async def canned_asgi(scope, receive, send) -> None:
    if scope["type"] != "http":
        return
    more = True
    while more:
        more = (await receive()).get("more_body", False)
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(CANNED))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": CANNED})


def start_uvicorn() -> int:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        canned_asgi, http="h11", lifespan="off", log_config=None, timeout_keep_alive=TIMEOUT
    )
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return sock.getsockname()[1]


def start_serve_model() -> int:
    limits = ServerLimits(
        max_body_bytes=CAP, header_timeout=TIMEOUT, body_timeout=TIMEOUT, idle_timeout=TIMEOUT
    )
    server = LocalModelServer(("127.0.0.1", 0), CannedEndpoint(), limits=limits)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.wait_until_serving()
    return server.server_address[1]


def post(length: bytes, body: bytes = b"") -> bytes:
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " + length
    return head + b"\r\n\r\n" + body


CASES = {
    "garbage bytes": b"\x16\x03\x01\x00\xff" + bytes(range(200)) + b"\r\n\r\n",
    "Content-Length: lots": post(b"lots"),
    "Content-Length: 12 (full-width)": post("１２".encode()),
    "Content-Length: 10**30": post(b"1" + b"0" * 30),
    "5 MB body (cap 4 MB)": post(b"%d" % (5 * MEGABYTE), b"x" * (5 * MEGABYTE)),
    "HTTP/3.0 request line": b"GET /v1/models HTTP/3.0\r\nHost: x\r\n\r\n",
    "64 KB header": b"GET / HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 65536 + b"\r\n\r\n",
    "headers stall": b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n",
    "body stalls": post(b"100", b'{"model":'),
    "idle connection": b"",
}


def probe(port: int, data: bytes) -> str:
    """What the server answers: 'STATUS kind', or how the connection ended without a reply."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(TIMEOUT * 3)
    received = b""
    try:
        sock.sendall(data)
        while chunk := sock.recv(65536):
            received += chunk
    except TimeoutError:
        if not received:
            return "still open, no reply"
    except OSError:
        pass
    finally:
        sock.close()
    if not received:
        return "closed, no reply"
    head, _, body = received.partition(b"\r\n\r\n")
    status = head.split(b" ")[1].decode() if b" " in head else "?"
    kind = "json" if body.lstrip().startswith(b"{") else ("text" if body else "empty")
    return f"{status} {kind}"


def latency(ports: dict[str, int], requests: int, rounds: int = 10) -> dict[str, float]:
    """Median ms per server, each round on new connections."""
    samples: dict[str, list[float]] = {name: [] for name in ports}
    for index in range(rounds):
        for name, port in ports.items():
            remote = openai.OpenAI(
                api_key="unused", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0
            )
            for _ in range(5 if index else 20):  # warm up
                remote.chat.completions.create(**REQUEST)
            for _ in range(requests // rounds):
                start = time.perf_counter()
                remote.chat.completions.create(**REQUEST)
                samples[name].append((time.perf_counter() - start) * 1000)
            remote.close()
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500, help="timed requests per server")
    args = parser.parse_args()
    print(f"tornado {tornado.version}, uvicorn {uvicorn.__version__}, openai {openai.__version__}")
    ports = {"tornado": start_tornado(), "uvicorn": start_uvicorn()}
    ports["serve-model"] = start_serve_model()
    print(f"\n{'request':<34}" + "".join(f"{name:<24}" for name in ports))
    for name, data in CASES.items():
        print(f"{name:<34}" + "".join(f"{probe(port, data):<24}" for port in ports.values()))
    medians = latency(ports, args.requests)
    print(f"\n{'SDK round trip, median ms':<34}" + "".join(f"{medians[n]:<24.2f}" for n in ports))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
