"""``python -m course_lib serve-mcp [--http --port N]``: lesson 04's registry as an MCP server.

The reference registry with lesson 04's tools (``course_tools``), served by the reference
``serve_registry`` over stdio (what desktop clients start) or Streamable HTTP (``--http``).
"""

from __future__ import annotations

import argparse

from course_lib.mcp_servers.options import add_transport_options

WHAT = "lesson 04's tools"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve-mcp",
        help="serve lesson 04's tools as an MCP server (stdio, or --http)",
        description=(
            "Serve the reference registry with lesson 04's tools (get_weather, search_notes, "
            "find_colleague) over MCP: on stdin/stdout for a client that starts this command, "
            "or at http://HOST:PORT/mcp with --http. Stops when stdin closes, or on Ctrl-C."
        ),
    )
    add_transport_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from course_lib.mcp_servers.course_tools import course_tools_server
    from course_lib.mcp_servers.serving import serve

    return serve(course_tools_server(), args, what=WHAT)
