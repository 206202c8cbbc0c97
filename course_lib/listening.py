"""A listening TCP socket, shared by ``serve-model`` and ``serve-mcp``.

Binding the socket ourselves (instead of handing uvicorn a host and port) lets a server report
the port it really got when asked for port 0, before it starts answering. This module imports
nothing else from the course, so an MCP server does not pay for loading the local model.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

DEFAULT_HOST = "127.0.0.1"
LOOPBACK = ("127.0.0.1", "localhost", "::1")  # a server on any other address is public
BACKLOG = 1024  # a burst of new connections waits in the kernel instead of being reset


def bind(host: str, port: int, *, backlog: int = BACKLOG) -> socket.socket:
    """A listening TCP socket; raises ``OSError`` when the address is taken or unknown."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    return sock


def serve_until_interrupted(serve: Callable[[], object], close: Callable[[], object]) -> None:
    """Run ``serve`` until it returns or Ctrl-C (or SIGTERM) interrupts it, then ``close``."""
    try:
        serve()
    except KeyboardInterrupt:
        pass
    finally:
        close()
