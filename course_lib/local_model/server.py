"""The local model over HTTP, for any OpenAI-compatible client, ``curl`` or another language.

It runs on **uvicorn** (HTTP/1.1 parsed by ``httptools``, the C parser ``llhttp``; uvicorn's
pure-Python h11 parser cost a quarter of the server's time on a small request): a well-kept server
that reads chunked request bodies, keeps HTTP/1.1 connections alive, ends HTTP/1.0 streams by
closing, and leaves the request's meaning to a small ASGI application (``http_app.py``) on an event
loop, with the CPU-bound model on a thread pool (a small request to the built-in policy is answered
on the loop itself: its work costs less than the trip to a thread). We also measured tornado (it
comes with JupyterLab; see ``benchmarks/compare_http_servers.py``): it has header and body timeouts
built in, but it answers every malformed request, including a body over its size limit, with a bare
400 without a body, and closes timed-out and oversized-header connections without a reply, all
inside one long method with no hook to change it. uvicorn lets us answer each of those in JSON by
overriding one connection class (``http_protocol.py``, with ``http_heads.py`` for the status of a
malformed head), which also adds the header limit and the header and idle timeouts uvicorn lacks.
Round trips cost about the same on both (and on the stdlib server this one replaced, which failed
requests at 200 concurrent clients where this one fails none; see
``benchmarks/bench_http_server.py``). uvicorn also comes with the ``mcp`` SDK that lesson 08 uses,
so the course needs it anyway.

Limits (``ServerLimits``): bodies up to 4 MB (413 above), 10 s for a request's headers and 30 s
for its body (408 after), 30 s idle between requests, 8 model threads. Every reply is JSON in the
shape the client's SDK parses, CORS allows browser clients, and ``serve()`` runs it all in a
background thread for a ``with`` block.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import uvicorn

from course_lib.listening import BACKLOG, DEFAULT_HOST, bind
from course_lib.local_model.client import model_name
from course_lib.local_model.endpoint import LocalEndpoint
from course_lib.local_model.http_app import EndpointApp
from course_lib.local_model.http_limits import ServerLimits
from course_lib.local_model.http_protocol import LocalModelProtocol
from course_lib.local_model.policy import HeuristicPolicy
from course_lib.local_model.turns import Policy

DEFAULT_PORT = 8000
MESSAGES = {"not_started": "The local model server did not start within 10 seconds."}


class LocalModelServer:
    """A bound server: ``serve_forever()`` answers until ``shutdown()`` (or Ctrl-C)."""

    def __init__(
        self,
        address: tuple[str, int],
        endpoint: LocalEndpoint,
        *,
        limits: ServerLimits,
        verbose: bool = False,
    ) -> None:
        self.endpoint = endpoint
        self.limits = limits
        self.verbose = verbose
        self.socket = bind(*address)
        self.server_address = self.socket.getsockname()[:2]
        self.pool = ThreadPoolExecutor(limits.workers, thread_name_prefix="local-model")
        config = uvicorn.Config(
            EndpointApp(endpoint, limits, self.pool),
            http=functools.partial(LocalModelProtocol, limits=limits),
            loop="asyncio",
            lifespan="off",
            ws="none",
            interface="asgi3",
            proxy_headers=False,
            server_header=False,
            log_config=None,  # a library must not reconfigure its host's logging
            backlog=BACKLOG,
            timeout_keep_alive=limits.idle_timeout,  # type: ignore[arg-type]
            timeout_graceful_shutdown=limits.header_timeout,  # type: ignore[arg-type]
        )
        self.uvicorn = uvicorn.Server(config)
        self.running = threading.Event()
        self.stopped = threading.Event()

    @property
    def base_url(self) -> str:
        host, port = self.server_address
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}/v1"

    def serve_forever(self) -> None:
        """Answer requests until :meth:`shutdown`. In the main thread Ctrl-C stops it too:
        uvicorn finishes the replies in flight, then ``KeyboardInterrupt`` is raised here."""
        if self.verbose:
            log_requests_to_stderr()
        self.running.set()
        try:
            self.uvicorn.run(sockets=[self.socket])
        finally:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.stopped.set()

    def wait_until_serving(self, timeout: float = 10.0) -> bool:
        """Block until ``serve_forever`` (in another thread) accepts connections."""
        deadline = time.monotonic() + timeout
        while not self.uvicorn.started and not self.stopped.is_set():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return self.uvicorn.started

    def shutdown(self) -> None:
        """Stop ``serve_forever`` (called from another thread) and wait until it has returned."""
        self.uvicorn.should_exit = True
        if self.running.is_set():
            self.stopped.wait()

    def server_close(self) -> None:
        self.socket.close()
        self.pool.shutdown(wait=True)


def log_requests_to_stderr() -> None:
    """``--verbose``: one line per request (uvicorn's access log) and our notes, on stderr."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    for name in ("uvicorn.access", "course_lib.local_model"):
        logger = logging.getLogger(name)
        if not logger.handlers:
            logger.addHandler(handler)
            logger.setLevel(logging.INFO)


def make_server(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    *,
    policy: Policy | None = None,
    seed: int = 0,
    verbose: bool = False,
    limits: ServerLimits | None = None,
) -> LocalModelServer:
    """A bound (not yet running) server; port 0 picks a free port (see ``.base_url``)."""
    endpoint = LocalEndpoint(policy or HeuristicPolicy(), seed=seed, model_name=model_name())
    return LocalModelServer(
        (host, port), endpoint, limits=limits or ServerLimits(), verbose=verbose
    )


@contextlib.contextmanager
def serve(
    host: str = DEFAULT_HOST,
    port: int = 0,
    *,
    policy: Policy | None = None,
    seed: int = 0,
    limits: ServerLimits | None = None,
) -> Iterator[LocalModelServer]:
    """Run the server in a background thread for the duration of a ``with`` block::

    with serve() as server:
        client = openai.OpenAI(api_key="unused", base_url=server.base_url)
    """
    with running(make_server(host, port, policy=policy, seed=seed, limits=limits)) as server:
        yield server


@contextlib.contextmanager
def running(server: LocalModelServer) -> Iterator[LocalModelServer]:
    """Serve a bound server from a background thread; on exit stop it and join every thread."""
    thread = threading.Thread(target=server.serve_forever, name="local-model-server", daemon=True)
    thread.start()
    try:
        if not server.wait_until_serving():
            raise RuntimeError(MESSAGES["not_started"])
        yield server
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
