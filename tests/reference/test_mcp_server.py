"""The reference ``serve_registry``: a registry over MCP, seen through the SDK's real client.

The oracle is the registry itself: what a ``ClientSession`` lists and gets back must be what
``registry.schemas()`` and ``registry.call()`` say, whatever the tool does.
"""

from __future__ import annotations

import json
import threading

import anyio
import mcp_types as types

from course_lib.mcp_servers.connect import connect_in_memory
from course_lib.mcp_servers.course_tools import course_registry
from course_lib.reference import ToolRegistry
from course_lib.reference.mcp_server import call_result, is_error_text, serve_registry


def run(main):
    """Run an async test body with a generous bound (a hung server fails, it does not hang)."""

    async def bounded():
        with anyio.fail_after(60):
            return await main()

    return anyio.run(bounded)


def test_the_listing_is_the_registrys_names_descriptions_and_schemas_in_order():
    registry = course_registry()

    async def main():
        async with connect_in_memory(serve_registry(registry)) as session:
            return (await session.list_tools()).tools

    tools = run(main)
    assert [(t.name, t.description, t.input_schema) for t in tools] == [
        (f["name"], f["description"], f["parameters"])
        for f in (tool["function"] for tool in registry.schemas())
    ]


def test_every_answer_is_one_text_block_with_the_registrys_text_and_errors_are_flagged():
    registry = course_registry()
    calls = [
        ("get_weather", {"city": "北京"}),
        ("search_notes", {"keyword": "豆腐"}),
        ("find_colleague", {"name": "王五"}),
        ("get_wether", {"city": "上海"}),
        ("get_weather", None),
        ("get_weather", {"city": 7}),
    ]

    async def main():
        async with connect_in_memory(serve_registry(registry)) as session:
            await session.list_tools()
            return [await session.call_tool(name, arguments) for name, arguments in calls]

    for (name, arguments), result in zip(calls, run(main), strict=True):
        text = registry.call(name, arguments)
        assert [block.model_dump(exclude_none=True) for block in result.content] == [
            {"type": "text", "text": text}
        ]
        assert result.is_error == ("error" in json.loads(text) if text.startswith("{") else False)


def test_a_tool_registered_after_the_server_was_built_is_listed_too():
    registry = ToolRegistry()
    server = serve_registry(registry)

    @registry.tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    async def main():
        async with connect_in_memory(server) as session:
            names = [tool.name for tool in (await session.list_tools()).tools]
            return names, await session.call_tool("ping")

    names, result = run(main)
    assert names == ["ping"] and result.content[0].text == "pong"


def test_a_slow_tool_does_not_stop_the_server_answering_other_calls():
    registry = ToolRegistry()
    release = threading.Event()

    @registry.tool
    def slow() -> str:
        """Wait until quick has run (a server that answered one call at a time never would)."""
        return "slow done" if release.wait(30) else "slow gave up"

    @registry.tool
    async def quick() -> str:
        """Answer at once."""
        release.set()
        return "quick done"

    async def main():
        finished = []
        async with connect_in_memory(serve_registry(registry)) as session:
            await session.list_tools()

            async def call(name):
                result = await session.call_tool(name)
                finished.append(result.content[0].text)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call, "slow")
                tasks.start_soon(call, "quick")
        return finished

    assert sorted(run(main)) == ["quick done", "slow done"]


def test_only_json_objects_with_an_error_key_are_errors():
    assert is_error_text('{"error": "no such city"}')
    assert not is_error_text("Error 404 means: Not Found")
    assert not is_error_text('{"errors": [], "error_count": 0}')
    assert not is_error_text('["error"]')
    assert call_result("北京") == types.CallToolResult(
        content=[types.TextContent(type="text", text="北京")], is_error=False
    )


def test_the_server_names_itself_with_the_course_version_in_both_revisions():
    from course_lib import __version__

    async def main(protocol):
        async with connect_in_memory(serve_registry(course_registry()), protocol=protocol) as s:
            return s.protocol_version, s.server_info.name, s.server_info.version

    for protocol in ("2026-07-28", "2025-11-25"):
        assert run(lambda p=protocol: main(p)) == (protocol, "course-tools", __version__)
