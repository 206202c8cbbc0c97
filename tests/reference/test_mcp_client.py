"""The reference MCP client side: a listing as Chat Completions tools, and the loop on a server.

The oracles are the real SDK client and server (in memory), the local model, which validates
every request as the API does (names, duplicates, tool-call pairing), and the notes book.
"""

from __future__ import annotations

import json

import anyio
import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import MCPError
from mcp.server.lowlevel import Server

from course_lib.local_model import MODEL, HeuristicPolicy, ScriptedPolicy, call, make_client
from course_lib.local_model.tool_schemas import NAME_PATTERN
from course_lib.local_model.turns import ToolCall
from course_lib.mcp_servers.connect import connect_in_memory
from course_lib.mcp_servers.course_tools import course_tools_server
from course_lib.mcp_servers.notes import build_notes_server
from course_lib.reference.mcp_client import (
    MultiServerSession,
    mcp_tools_to_openai,
    openai_names,
    result_text,
    run_agent_with_mcp,
    tool_content,
)


def run(main):
    async def bounded():
        with anyio.fail_after(60):
            return await main()

    return anyio.run(bounded)


def test_names_are_made_valid_prefixed_cut_and_unique_in_order():
    assert openai_names(["tags.list", "笔记", "a b", "ok-1"]) == ["tags_list", "__", "a_b", "ok-1"]
    assert openai_names(["search"], prefix="my notes") == ["my_notes_search"]
    assert openai_names(["a.b", "a/b", "a_b", "a_b"]) == ["a_b", "a_b_2", "a_b_3", "a_b_4"]
    long = ["x" * 70 + "1", "x" * 70 + "2"]
    assert openai_names(long) == ["x" * 64, "x" * 62 + "_2"]


@given(st.lists(st.text(min_size=1, max_size=130), max_size=12), st.none() | st.text(max_size=20))
def test_any_listing_gets_names_every_provider_accepts_and_no_two_alike(names, prefix):
    converted = openai_names(names, prefix=prefix)
    assert len(converted) == len(names)
    assert all(NAME_PATTERN.fullmatch(name) and len(name) <= 64 for name in converted)
    assert len(set(converted)) == len(converted)


def test_two_servers_tools_together_are_a_request_the_api_accepts():
    async def main():
        async with (
            connect_in_memory(build_notes_server()) as notes,
            connect_in_memory(course_tools_server()) as course,
        ):
            return (await notes.list_tools()).tools, (await course.list_tools()).tools

    notes_tools, course_tools = run(main)
    tools = mcp_tools_to_openai(notes_tools, prefix="notes")
    tools += mcp_tools_to_openai(course_tools, prefix="course")
    reply = make_client().chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Which tags do I use?"}], tools=tools
    )
    assert reply.choices[0].message.tool_calls[0].function.name == "notes_tags_list"
    assert tools[3]["function"]["parameters"] == notes_tools[3].input_schema
    assert mcp_tools_to_openai([types.Tool(name="x", input_schema={"type": "object"})]) == [
        {
            "type": "function",
            "function": {"name": "x", "description": "", "parameters": {"type": "object"}},
        }
    ]


def text_result(*texts: str, is_error: bool = False) -> types.CallToolResult:
    blocks = [types.TextContent(type="text", text=text) for text in texts]
    return types.CallToolResult(content=blocks, is_error=is_error)


def test_the_model_reads_the_blocks_text_joined_and_errors_as_error_objects():
    image = types.ImageContent(type="image", data="AAAA", mime_type="image/png")
    assert result_text(text_result("#1 北京", "#2 上海")) == "#1 北京\n#2 上海"
    assert (
        result_text(
            types.CallToolResult(content=[image, types.TextContent(type="text", text="ok")])
        )
        == "ok"
    )
    assert tool_content(text_result("#1 北京")) == "#1 北京"
    assert json.loads(tool_content(text_result("没有 #9", is_error=True))) == {"error": "没有 #9"}
    assert "没有" in tool_content(text_result("没有 #9", is_error=True))


def test_a_result_with_data_but_no_text_is_read_as_its_json_and_text_wins_when_both_come():
    data = {"城市": "北京", "temperature": 31}
    only_data = types.CallToolResult(content=[], structured_content=data)
    assert json.loads(result_text(only_data)) == data
    assert "北京" in result_text(only_data)  # readable, not \u escapes
    both = types.CallToolResult(
        content=[types.TextContent(type="text", text="31 degrees in 北京")],
        structured_content=data,
    )
    assert result_text(both) == "31 degrees in 北京"
    assert result_text(types.CallToolResult(content=[])) == ""


def test_the_loop_reads_a_2026_server_that_answers_with_data_alone():
    counts = {"home": 2, "work": 1}

    async def list_tools(ctx, params):
        tool = types.Tool(
            name="tag_counts",
            description="How many notes carry each tag.",
            input_schema={"type": "object", "properties": {}},
            output_schema={"type": "object", "additionalProperties": {"type": "integer"}},
        )
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx, params):
        return types.CallToolResult(content=[], structured_content=counts)

    server = Server("data-only", on_list_tools=list_tools, on_call_tool=call_tool)
    policy = ScriptedPolicy([call("tag_counts")], then=HeuristicPolicy())

    async def main():
        async with connect_in_memory(server) as session:
            assert session.protocol_version == "2026-07-28"
            return await run_agent_with_mcp(make_client(policy), session, "Tags?", model=MODEL)

    assert 'tag_counts(): {"home": 2, "work": 1}' in run(main)


def converse(policy, question, *, max_turns=6):
    async def main():
        async with connect_in_memory(build_notes_server()) as notes:
            return await run_agent_with_mcp(
                make_client(policy), notes, question, model=MODEL, max_turns=max_turns
            )

    return run(main)


def test_the_loop_maps_names_back_and_answers_from_the_servers_result():
    answer = converse(HeuristicPolicy(), "Which tags do I use?")
    assert 'tags_list(): {"home": 2, "reading": 1, "travel": 1, "work": 1}' in answer


def test_a_protocol_error_goes_back_to_the_model_which_corrects_the_name():
    policy = ScriptedPolicy([call("search_note", keyword="北京")], then=HeuristicPolicy())
    answer = converse(policy, "北京 notes, please")
    assert 'search_notes(keyword="北京"): #1 北京 trip' in answer


def test_arguments_that_are_not_json_are_answered_and_the_loop_goes_on():
    broken = ToolCall("read_note", '{"note_id": 2')
    answer = converse(ScriptedPolicy([broken, "Done."]), "Read note 2")
    assert answer == "Done."


def test_a_model_that_never_stops_calling_tools_ends_in_runtime_error():
    endless = ScriptedPolicy([call("search_notes", keyword=f"k{n}") for n in range(10)])
    with pytest.raises(RuntimeError, match="no answer after 3 model turns"):
        converse(endless, "Search forever", max_turns=3)


def test_several_servers_are_one_session_with_a_prefix_each():
    async def main():
        async with (
            connect_in_memory(build_notes_server()) as notes,
            connect_in_memory(course_tools_server()) as course,
        ):
            both = MultiServerSession({"notes": notes, "course": course})
            names = [tool.name for tool in (await both.list_tools()).tools]
            weather = await both.call_tool("course_get_weather", {"city": "上海"})
            with pytest.raises(MCPError, match="belongs to no server"):
                await both.call_tool("get_weather", {"city": "上海"})
            answer = await run_agent_with_mcp(
                make_client(), both, "Where does 李四 work?", model=MODEL
            )
            return names, weather, answer

    names, weather, answer = run(main)
    assert names[:1] == ["notes_search_notes"] and "course_search_notes" in names
    assert json.loads(weather.content[0].text)["temperature"] == 27
    assert "Sales, 北京 office" in answer


def test_a_server_whose_handler_raises_is_a_protocol_error_the_loop_survives():
    async def list_tools(ctx, params):
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name="boom",
                    description="Explode on 北京.",
                    input_schema={"type": "object", "properties": {}},
                )
            ]
        )

    async def call_tool(ctx, params):
        raise RuntimeError("kaboom")

    server = Server("boom", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main():
        async with connect_in_memory(server) as session:
            policy = ScriptedPolicy([call("boom"), "It failed."])
            return await run_agent_with_mcp(make_client(policy), session, "boom", model=MODEL)

    assert run(main) == "It failed."
