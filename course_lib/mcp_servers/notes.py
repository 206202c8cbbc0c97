"""The course's notes server: ``python -m course_lib.mcp_servers.notes [--http --port N]``.

Lesson 08 connects its agent loop to this server. It is written with the SDK's low-level
``Server``, like the learner's ``serve_registry``: one handler answers ``tools/list`` from the
book's tool table, one answers ``tools/call`` with one text block per line of the answer. The
notes live in memory, so every start begins with the same four notes (see ``notes_book``).

An unknown tool name is answered the way the MCP specification asks, with a JSON-RPC error
(``-32602``, invalid params); a client sees it as ``mcp.MCPError``. Everything the tool itself
reports (a missing note, arguments that do not fit) is an ``isError`` result instead.

``tags.list`` answers with data, so it lists an ``outputSchema`` and its results carry
``structuredContent`` beside the text. The tool listing never changes while the server runs,
so its results say they stay fresh for five minutes (``ttlMs``, revision 2026-07-28's caching
hint) and may be shared between users (``cacheScope: "public"``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from course_lib.mcp_servers.notes_book import SCHEMAS, NotesBook, UnknownTool
from course_lib.mcp_servers.options import add_transport_options
from course_lib.mcp_servers.serving import serve

SERVER_NAME = "course-notes"
SERVER_VERSION = "1.0"
INSTRUCTIONS = "A small notebook in English and Chinese: search, read, add and delete notes."
FIVE_MINUTES = CacheHint(ttl_ms=5 * 60 * 1000, scope="public")


def build_notes_server(book: NotesBook | None = None) -> Server:
    """An MCP server over ``book`` (a fresh ``NotesBook`` by default)."""
    book = NotesBook() if book is None else book

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in book.tools()])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            answer = book.call(params.name, params.arguments)
        except UnknownTool as unknown:
            raise MCPError(code=types.INVALID_PARAMS, message=str(unknown)) from None
        blocks = [types.TextContent(type="text", text=text) for text in answer.blocks]
        return types.CallToolResult(
            content=blocks, structured_content=answer.data, is_error=answer.is_error
        )

    return Server(
        SERVER_NAME,
        version=SERVER_VERSION,
        instructions=INSTRUCTIONS,
        cache_hints={"tools/list": FIVE_MINUTES, "server/discover": FIVE_MINUTES},
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=SCHEMAS.get,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m course_lib.mcp_servers.notes",
        description="The course's notes server over MCP (stdio by default).",
    )
    add_transport_options(parser)
    args = parser.parse_args(argv)
    return serve(build_notes_server(), args, what="the course's notes")


if __name__ == "__main__":
    sys.exit(main())
