"""A tool registry served over the Model Context Protocol: lesson 04's registry on the wire.

MCP's two tool methods are the registry's two questions, asked by another program:

| MCP                           | the registry                                        |
|-------------------------------|-----------------------------------------------------|
| ``tools/list``                | ``registry.schemas()``: name, description, schema   |
| a tool's ``inputSchema``      | its parameters schema (lesson 02), unchanged        |
| ``tools/call``                | ``registry.call(name, arguments)``                  |
| a result's ``isError: true``  | an ``{"error": ...}`` result: errors are data       |

The server is the SDK's low-level ``Server``: a handler per method, each ``async def (ctx,
params)``. ``tools/call`` never raises: every problem, an unknown tool included, comes back as
an ``isError`` result a model can read. (The MCP specification lists an unknown tool among the
protocol errors; the SDK's own high-level ``MCPServer`` answers it as ``isError`` too, and the
registry's answer names the closest tool, which a model can act on.)
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

from .registry import ToolRegistry

__all__ = ["call_result", "is_error_text", "listed_tools", "serve_registry"]

DEFAULT_SERVER_NAME = "course-tools"


def listed_tools(registry: ToolRegistry) -> list[types.Tool]:
    """The registry's tools as ``tools/list`` lists them, in registration order."""
    tools = []
    for tool in registry.schemas():
        function = tool["function"]
        tools.append(
            types.Tool(
                name=function["name"],
                description=function["description"],
                input_schema=function["parameters"],
            )
        )
    return tools


def is_error_text(text: str) -> bool:
    """Whether a registry result is an error: a JSON object with an ``"error"`` key.

    A result that merely mentions errors (``"Error handling notes: ..."``, ``{"error_count":
    0}``) is a result like any other, as lesson 04 showed."""
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and "error" in value


def call_result(text: str) -> types.CallToolResult:
    """One registry answer as a ``tools/call`` result: one text block, flagged when an error."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], is_error=is_error_text(text)
    )


def serve_registry(registry: ToolRegistry, *, name: str = DEFAULT_SERVER_NAME) -> Server:
    """An MCP server whose ``tools/list`` and ``tools/call`` are ``registry``'s.

    The listing is read from the registry on every request, so a tool registered after the
    server was built is listed too. Calls go through ``registry.acall``: async tools are
    awaited, plain ones run on a worker thread, so a slow tool does not stop the server from
    answering other requests.
    """

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed_tools(registry))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return call_result(await registry.acall(params.name, params.arguments))

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)
