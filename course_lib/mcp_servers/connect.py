"""A ready ``ClientSession`` on an MCP server: in memory, over stdio, or over Streamable HTTP.

Every connection is the same three steps, which lesson 08 first writes out in full: open the
transport (a pair of streams), start a ``ClientSession`` on it, and agree on a protocol
revision. ``protocol`` picks the revision:

- ``"2026-07-28"``, the SDK's newest: ``session.discover()`` asks the server which revisions it
  speaks and what it can do (``server/discover``); every later request carries the revision and
  the client's capabilities in its own ``_meta``, and there is no session to end.
- ``"2025-11-25"``: ``session.initialize()``, the handshake of that revision (protocol version,
  capabilities, server name, then ``notifications/initialized``); over HTTP the server gives
  the session an ``Mcp-Session-Id``, and the client ends it with ``DELETE`` on exit.
- ``"auto"`` (the default): 2026-07-28 when the server speaks it, 2025-11-25 otherwise, as the
  specification asks of a client that speaks both ("Backward Compatibility" of its stdio and
  Streamable HTTP pages): probe with ``server/discover``; any error but a modern one means a
  server of the handshake era, so fall back to ``initialize``.

The course's servers speak both, as the SDK's servers do, so ``"auto"`` gets 2026-07-28 there.
These context managers do the three steps and undo them on exit: the session ends, the
transport closes, and a stdio server, which stops when its stdin closes, is waited for (and
killed if it does not stop), so no process is left behind::

    async with connect_stdio("-m", "course_lib.mcp_servers.notes") as session:
        listing = await session.list_tools()
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, TextIO

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.shared.memory import create_client_server_memory_streams
from mcp_types import REQUEST_TIMEOUT, UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION

NOTES_SERVER = ("-m", "course_lib.mcp_servers.notes")
COURSE_TOOLS_SERVER = ("-m", "course_lib", "serve-mcp")
AUTO = "auto"
PROTOCOLS = (AUTO, LATEST_MODERN_VERSION, LATEST_HANDSHAKE_VERSION)
DISCOVER_ATTEMPTS = 6  # probes of server/discover before a timeout counts (see ``agree``)
MESSAGES = {
    "protocol": (
        "protocol={protocol!r}: the SDK's client opens {choices} ('auto': the newest the "
        "server speaks); pick one of them."
    ),
}


def check_protocol(protocol: str) -> None:
    """Refuse a revision the SDK's client cannot open, before any server is started."""
    if protocol not in PROTOCOLS:
        choices = " or ".join(repr(choice) for choice in PROTOCOLS)
        raise ValueError(MESSAGES["protocol"].format(protocol=protocol, choices=choices))


async def agree(session: ClientSession, protocol: str = AUTO) -> None:
    """Agree on ``protocol`` with the server: ``discover()`` for 2026-07-28, the
    ``initialize()`` handshake for 2025-11-25, the first and then the second for ``"auto"``.

    The SDK gives each ``server/discover`` probe a fixed time (``DISCOVER_TIMEOUT_SECONDS``), and
    a stdio server on a busy machine can take longer than that to start. Such a probe is not
    lost: the server reads it once it runs, and answers the next one at once. So, for
    ``"2026-07-28"``, a probe that timed out is asked again (``DISCOVER_ATTEMPTS`` in all); for
    ``"auto"`` a timeout means falling back to ``initialize`` (the specification's rule), which
    waits as long as the session does, and an ``initialize`` refused with ``-32022`` (an earlier
    probe got there first: the server now serves 2026-07-28) probes once more, as the SDK's
    own ``Client`` does."""
    if protocol == LATEST_HANDSHAKE_VERSION:
        await session.initialize()
        return
    for attempt in range(1, DISCOVER_ATTEMPTS + 1):
        try:
            await session.discover()  # on -32022 it already retried with a version both speak
            return
        except MCPError as error:
            if protocol != AUTO and error.code == REQUEST_TIMEOUT and attempt < DISCOVER_ATTEMPTS:
                continue  # a server still starting: it answers the next probe
            if protocol != AUTO or error.code == UNSUPPORTED_PROTOCOL_VERSION:
                raise  # a modern server that shares no revision with us: falling back cannot help
        except RuntimeError:
            if protocol != AUTO:
                raise  # it answers server/discover but names no 2026 revision
        break
    try:
        await session.initialize()  # a server of the handshake era
    except MCPError as error:
        if error.code != UNSUPPORTED_PROTOCOL_VERSION:
            raise
        await session.discover()  # an earlier probe reached it: it serves 2026-07-28


@asynccontextmanager
async def connect_in_memory(
    server: Server, *, protocol: str = AUTO, **session_options: Any
) -> AsyncIterator[ClientSession]:
    """A session on ``server`` running in this process: two in-memory streams, no subprocess.

    The server runs as a task beside the session and stops when the session's stream closes.
    """
    check_protocol(protocol)

    async def run_server(read_stream: Any, write_stream: Any) -> None:
        await server.run(read_stream, write_stream, server.create_initialization_options())

    with plain_errors():
        async with create_client_server_memory_streams() as (client_streams, server_streams):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(run_server, *server_streams)
                try:
                    async with ClientSession(*client_streams, **session_options) as session:
                        await agree(session, protocol)
                        yield session
                finally:
                    tasks.cancel_scope.cancel()


@contextmanager
def plain_errors() -> Iterator[None]:
    """Raise the one error inside an exception group as itself.

    The SDK runs its transports in anyio task groups, which wrap whatever the body of the
    ``async with`` raised (a ``KeyError`` in your loop, say) in an ``ExceptionGroup``, often
    nested twice. When the group holds a single error, that error is the story."""
    try:
        yield
    except BaseException as error:
        leaves = list(_leaves(error))
        if not _is_group(error) or len(leaves) != 1:
            raise
        raise leaves[0] from None


def _is_group(error: BaseException) -> bool:
    """An exception group: the builtin on 3.11+, anyio's ``exceptiongroup`` backport on 3.10
    (both carry their errors as a tuple in ``exceptions``; no import of the backport needed)."""
    return isinstance(getattr(error, "exceptions", None), tuple) and hasattr(error, "split")


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if _is_group(error):
        for inner in error.exceptions:  # type: ignore[attr-defined]
            yield from _leaves(inner)
    else:
        yield error


@contextmanager
def server_error_log() -> Iterator[TextIO]:
    """Where a stdio server's own messages (its stderr) go: this process's stderr when that is a
    real file, the null device otherwise. A Jupyter kernel's ``sys.stderr`` has no file
    descriptor a subprocess could inherit when the kernel runs under pytest (nbval, the grader),
    and the SDK's default, ``sys.stderr``, then fails to start the server at all."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both of the last
        with open(os.devnull, "w", encoding="utf-8") as devnull:
            yield devnull
        return
    yield sys.stderr


@asynccontextmanager
async def connect_stdio(
    *args: str,
    command: str = sys.executable,
    protocol: str = AUTO,
    **session_options: Any,
) -> AsyncIterator[ClientSession]:
    """A session on a server started as ``command args...`` (default: this Python), over stdio."""
    check_protocol(protocol)
    parameters = StdioServerParameters(command=command, args=list(args))
    with plain_errors(), server_error_log() as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read_stream, write_stream):
            async with ClientSession(read_stream, write_stream, **session_options) as session:
                await agree(session, protocol)
                yield session


@asynccontextmanager
async def connect_http(
    url: str, *, protocol: str = AUTO, **session_options: Any
) -> AsyncIterator[ClientSession]:
    """A session on the Streamable HTTP server at ``url`` (e.g. ``http://127.0.0.1:8765/mcp``)."""
    check_protocol(protocol)
    with plain_errors():
        async with streamable_http_client(url) as (read_stream, write_stream):
            async with ClientSession(read_stream, write_stream, **session_options) as session:
                await agree(session, protocol)
                yield session
