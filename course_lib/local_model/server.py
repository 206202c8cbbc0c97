"""The local model over HTTP, for any OpenAI-compatible client, ``curl`` or another language.

Built on the standard library's ``ThreadingHTTPServer`` (one thread per connection, HTTP/1.1
keep-alive, Nagle's algorithm off: small replies would otherwise wait ~40 ms for an ACK; a listen
backlog of 128: the default of 5 drops connections when 50 clients arrive at once). It serves
the same :class:`LocalEndpoint` as the in-process transport, so both behave identically; streamed
replies go out as chunked server-sent events, one event per chunk.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from course_lib.local_model.client import model_name
from course_lib.local_model.endpoint import LocalEndpoint, Reply
from course_lib.local_model.policy import HeuristicPolicy
from course_lib.local_model.protocol import ProtocolError
from course_lib.local_model.turns import Policy

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # StreamRequestHandler reads it per connection, from here
    server: LocalModelServer

    def do_POST(self) -> None:  # noqa: N802 (the stdlib's naming)
        self._answer("POST")

    def do_GET(self) -> None:  # noqa: N802
        self._answer("GET")

    def _answer(self, method: str) -> None:
        header = self.headers.get("Content-Length") or "0"
        if not header.isdigit():
            error = ProtocolError(
                f"Invalid Content-Length header {header!r}: send the body's length in bytes."
            )
            self.close_connection = True  # the body's end is unknown: this connection is spent
            reply = Reply.json(error.status, error.body())
        else:
            length = int(header)
            body = self.rfile.read(length) if length else b""
            reply = self.server.endpoint.handle(method, self.path, body)
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        if isinstance(reply.body, bytes):
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for piece in reply.body:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")

    def log_message(self, format: str, *args: object) -> None:
        if self.server.verbose:
            super().log_message(format, *args)


class LocalModelServer(ThreadingHTTPServer):
    """A threading HTTP server answering from one :class:`LocalEndpoint`."""

    daemon_threads = True
    request_queue_size = 128  # the default listen backlog (5) resets bursts of new connections

    def __init__(self, address: tuple[str, int], endpoint: LocalEndpoint, *, verbose=False):
        super().__init__(address, _Handler)
        self.endpoint = endpoint
        self.verbose = verbose

    def handle_error(self, request, client_address) -> None:
        """A client that hangs up (reset, broken pipe) is normal; anything else is reported."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/v1"


def make_server(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    *,
    policy: Policy | None = None,
    seed: int = 0,
    verbose: bool = False,
) -> LocalModelServer:
    """A bound (not yet running) server; port 0 picks a free port (see ``.base_url``)."""
    endpoint = LocalEndpoint(policy or HeuristicPolicy(), seed=seed, model_name=model_name())
    return LocalModelServer((host, port), endpoint, verbose=verbose)


@contextlib.contextmanager
def serve(
    host: str = DEFAULT_HOST,
    port: int = 0,
    *,
    policy: Policy | None = None,
    seed: int = 0,
) -> Iterator[LocalModelServer]:
    """Run the server in a background thread for the duration of a ``with`` block::

    with serve() as server:
        client = openai.OpenAI(api_key="unused", base_url=server.base_url)
    """
    server = make_server(host, port, policy=policy, seed=seed)
    thread = threading.Thread(
        target=server.serve_forever, args=(0.05,), name="local-model-server", daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
