"""Run an MCP ``Server`` over stdio or Streamable HTTP until its client goes (or Ctrl-C).

The two transports of the MCP specification, for every server the course ships:

- **stdio** (the default): the client starts this process and speaks JSON-RPC, one message per
  line, on its stdin and stdout. stdout therefore carries nothing but protocol messages; the
  server stops when its stdin closes, which is how a client says goodbye.
- **Streamable HTTP** (``--http``): one endpoint, ``http://HOST:PORT/mcp``, that takes each
  message as a POST and may answer with a stream of server-sent events. It binds loopback by
  default, where the SDK also turns on its DNS-rebinding protection (the ``Host`` and ``Origin``
  headers must name this machine), and it runs on uvicorn, as ``serve-model`` does.

On both, the SDK serves protocol revision 2026-07-28 (no handshake: each request carries its
revision and the client's capabilities in ``_meta``, ``server/discover`` says what the server
speaks, and over HTTP the ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` headers must
match the body) and a client that opens with 2025-11-25's ``initialize`` (over HTTP with an
``Mcp-Session-Id`` session, ended by ``DELETE``), on the same endpoint. ``guards`` answers the
malformed messages the SDK would leave unanswered or misroute.

Both exit with status 0 on Ctrl-C and on SIGTERM, after finishing what is in flight.
"""

from __future__ import annotations

import argparse
import gc
import signal
import sys

import anyio
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from course_lib.listening import LOOPBACK, bind, serve_until_interrupted
from course_lib.mcp_servers.guards import EnvelopeHeaderGuard, answer_unreadable_lines

ENDPOINT = "/mcp"  # the SDK's default path for the MCP endpoint
GRACEFUL_SECONDS = 3  # a client still streaming after this long is cut off on shutdown
MESSAGES = {
    "serving_http": "Serving {what} over MCP (Streamable HTTP) at {url} (Ctrl-C to stop)",
    "public": "Warning: listening beyond this machine; anyone who can reach it may call its tools.",
    "cannot_listen": "cannot listen on {host}:{port}: {reason}. Pick another port with --port.",
    "stopped": "Stopped.",
}


def serve(server: Server, args: argparse.Namespace, *, what: str) -> int:
    """Serve ``server`` as ``args`` say (``options.add_transport_options``); the exit status."""
    # What the process has imported and built (the SDK, pydantic's models, the tools) lives as
    # long as the process does: once what the imports left over is freed, the collector need not
    # walk it again, neither in its full collections nor at exit, where that walk took the
    # server 1.5-2 s after its client closed stdin on a loaded machine (0.05 s now), while the
    # client waited (the SDK's stdio_client waits 2 s for a server to exit, then kills it).
    gc.collect()
    gc.freeze()
    # SIGTERM (what process managers send) stops the server like Ctrl-C: cleanly, status 0.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if args.http:
        return serve_http(server, args.host, args.port, what=what)
    return serve_stdio(server)


def serve_stdio(server: Server) -> int:
    """Answer the client on stdin/stdout until stdin closes. Prints nothing: stdout is the wire."""

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            to_server, server_read = anyio.create_memory_object_stream[SessionMessage](0)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(answer_unreadable_lines, read_stream, write_stream, to_server)
                options = server.create_initialization_options()
                await server.run(server_read, write_stream, options)

    try:
        anyio.run(run)
    except KeyboardInterrupt:
        pass
    return 0


def http_app(server: Server, host: str) -> EnvelopeHeaderGuard:
    """The SDK's Streamable HTTP app for ``server`` at ``/mcp``, behind ``EnvelopeHeaderGuard``."""
    app = server.streamable_http_app(streamable_http_path=ENDPOINT, host=host)
    manager = server.session_manager
    return EnvelopeHeaderGuard(
        app,
        path=ENDPOINT,
        security=manager.security_settings,
        max_body_size=manager.max_request_body_size,
    )


def serve_http(server: Server, host: str, port: int, *, what: str) -> int:
    """Serve ``server`` at ``http://host:port/mcp`` until Ctrl-C or SIGTERM."""
    try:
        sock = bind(host, port)
    except OSError as error:
        reason = error.strerror or error
        message = MESSAGES["cannot_listen"].format(host=host, port=port, reason=reason)
        print(message, file=sys.stderr)
        return 1
    bound_host, bound_port = sock.getsockname()[:2]
    shown_host = f"[{bound_host}]" if ":" in bound_host else bound_host
    url = f"http://{shown_host}:{bound_port}{ENDPOINT}"
    config = uvicorn.Config(
        http_app(server, host),
        loop="asyncio",
        lifespan="on",  # the app's lifespan runs the SDK's session manager
        ws="none",
        log_config=None,  # a library must not reconfigure its host's logging
        log_level="warning",
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    print(MESSAGES["serving_http"].format(what=what, url=url), flush=True)
    if host not in LOOPBACK:
        print(MESSAGES["public"], flush=True)
    serve_until_interrupted(lambda: uvicorn.Server(config).run(sockets=[sock]), sock.close)
    print(MESSAGES["stopped"], flush=True)
    return 0
