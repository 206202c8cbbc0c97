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

A tool that returns data (its return annotation is an object or an array) also lists an
``outputSchema`` and answers with ``structuredContent`` beside its text (``mcp_structured``).
The SDK speaks both protocol revisions with the same handlers: 2026-07-28 (every request
carries its version in ``_meta``, no handshake) and 2025-11-25 (``initialize``, then requests).
"""

from __future__ import annotations

import json
import weakref
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

from course_lib import __version__

from .mcp_structured import ToolOutput, tool_output
from .registry import RegisteredTool, ToolRegistry

__all__ = ["call_result", "is_error_text", "listed_tools", "serve_registry"]

DEFAULT_SERVER_NAME = "course-tools"
_OUTPUTS: weakref.WeakKeyDictionary[RegisteredTool, ToolOutput | None] = weakref.WeakKeyDictionary()


def output_of(tool: RegisteredTool) -> ToolOutput | None:
    """What ``tool`` promises about its results, worked out once per registered tool."""
    if tool not in _OUTPUTS:
        _OUTPUTS[tool] = tool_output(tool.function)
    return _OUTPUTS[tool]


def listed_tools(registry: ToolRegistry) -> list[types.Tool]:
    """The registry's tools as ``tools/list`` lists them, in registration order."""
    tools = []
    for record, tool in zip(registry, registry.schemas(), strict=True):
        function = tool["function"]
        output = output_of(record)
        tools.append(
            types.Tool(
                name=function["name"],
                description=function.get("description"),
                input_schema=function["parameters"],
                output_schema=None if output is None else output.schema,
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


def call_result(
    text: str, *, name: str = "", output: ToolOutput | None = None
) -> types.CallToolResult:
    """One registry answer as a ``tools/call`` result: one text block, flagged when an error.

    With ``output`` (the promise of tool ``name``), a successful answer also carries its
    ``structuredContent``; one that cannot keep the promise becomes a tool error saying why.
    Error answers stay as they are.
    """
    is_error = is_error_text(text)
    structured = None
    if output is not None and not is_error:
        structured, problem = output.structured(name, text)
        if problem is not None:
            text, is_error = json.dumps({"error": problem, "tool": name}, ensure_ascii=False), True
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=is_error,
    )


def serve_registry(
    registry: ToolRegistry,
    *,
    name: str = DEFAULT_SERVER_NAME,
    version: str = __version__,
) -> Server:
    """An MCP server whose ``tools/list`` and ``tools/call`` are ``registry``'s.

    The listing is read from the registry on every request, so a tool registered after the
    server was built is listed too. Calls go through ``registry.acall``: async tools are
    awaited, plain ones run on a worker thread, so a slow tool does not stop the server from
    answering other requests.
    """

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed_tools(registry))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = await registry.acall(params.name, params.arguments)
        record = registry.get(params.name)
        output = None if record is None else output_of(record)
        return call_result(text, name=params.name, output=output)

    def input_schema(tool_name: str) -> dict[str, Any] | None:
        """Where the Streamable HTTP transport looks up a schema (for ``Mcp-Param-*``
        headers) without running the whole listing on every call."""
        record = registry.get(tool_name)
        return None if record is None else record.parameters

    return Server(
        name,
        version=version,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=input_schema,
    )
