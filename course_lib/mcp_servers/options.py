"""The command-line options every MCP server of the course shares (stdio, or ``--http``).

Kept apart from ``serving`` so that ``course --help`` does not load the MCP SDK.
"""

from __future__ import annotations

import argparse

from course_lib.listening import DEFAULT_HOST

DEFAULT_PORT = 8765


def add_transport_options(parser: argparse.ArgumentParser) -> None:
    """``--http``, ``--host`` and ``--port``, shared by every MCP server of the course."""
    parser.add_argument(
        "--http",
        action="store_true",
        help="serve over Streamable HTTP instead of stdio",
    )
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help="with --http: address to bind (default: loopback)"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help="with --http: port, 0 for any free one (default: %(default)s)",
    )
