"""What lesson 08 and its checks say about the two MCP revisions, stated against the pinned SDK
(``mcp`` 2.3): the behaviour the 08.1 check relies on when it asks a learner's server in
2025-11-25, and the behaviour 08.4's check relies on when it asks in 2026-07-28.
"""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from course_lib.checks.lesson08.kernel_side import LEARNER_SERVER_PROTOCOL, STRUCTURED_PROTOCOL
from course_lib.checks.lesson08.serve_registry.cases import built_registry, visible_case
from course_lib.mcp_servers.connect import connect_in_memory

from .notebook import solution

TOOL = types.Tool(name="read_notes", input_schema={"type": "object"})
SECRET = "cannot read /home/li/.notes/secret.db"


async def list_one(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[TOOL])


async def call_raising(ctx, params) -> types.CallToolResult:
    raise PermissionError(SECRET)


def error_seen(protocol: str) -> tuple[int, str]:
    """The protocol error a client of ``protocol`` sees when the handler raises."""
    server = Server("raising", on_list_tools=list_one, on_call_tool=call_raising)

    async def ask() -> tuple[int, str]:
        async with connect_in_memory(server, protocol=protocol) as session:
            try:
                await session.call_tool("read_notes", {})
            except MCPError as error:
                return error.code, error.message
        raise AssertionError("the call did not fail")

    return anyio.run(ask)  # the server logs the traceback; pytest keeps it out of sight


def test_a_2026_client_sees_only_internal_error_when_a_handler_raises():
    assert error_seen("2026-07-28") == (-32603, "Internal server error")


def test_a_2025_11_25_client_sees_the_exception_message_which_is_why_08_1_asks_in_it():
    assert LEARNER_SERVER_PROTOCOL == "2025-11-25"
    assert error_seen(LEARNER_SERVER_PROTOCOL) == (0, SECRET)


def test_the_solution_server_answers_both_revisions_alike():
    case = visible_case()
    server = solution("serve_registry")(built_registry(case.setup))

    async def exchange(protocol: str) -> list:
        async with connect_in_memory(server, protocol=protocol) as session:
            seen = [(await session.list_tools()).tools]
            for name, arguments in case.calls:
                result = await session.call_tool(name, arguments)
                seen.append((result.content, result.is_error, result.structured_content))
            return seen

    assert anyio.run(exchange, "2026-07-28") == anyio.run(exchange, "2025-11-25")


def test_a_2026_client_accepts_structured_content_of_any_json_type():
    assert STRUCTURED_PROTOCOL == "2026-07-28"
    values = {"words": ["milk", "豆腐"], "sky": "晴", "count": 0}
    tools = [
        types.Tool(name=name, input_schema={"type": "object"}, output_schema=schema)
        for name, schema in (
            ("words", {"type": "array", "items": {"type": "string"}}),
            ("sky", {"type": "string"}),
            ("count", {"type": "integer"}),
        )
    ]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params) -> types.CallToolResult:
        value = values[params.name]
        block = types.TextContent(type="text", text=str(value))
        return types.CallToolResult(content=[block], structured_content=value)

    server = Server("any", on_list_tools=list_tools, on_call_tool=call_tool)

    async def ask() -> dict:
        async with connect_in_memory(server, protocol=STRUCTURED_PROTOCOL) as session:
            await session.list_tools()
            return {name: (await session.call_tool(name, {})).structured_content for name in values}

    assert anyio.run(ask) == values
