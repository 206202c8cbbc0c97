"""Our MCP client (``mcp_tools_to_openai``, ``run_agent_with_mcp``) against servers we did not
write: the SDK's high-level ``MCPServer``, with its own schemas (pydantic's), its own results
(text blocks and ``structuredContent``) and its own ``isError`` answers, started over stdio as
a desktop client would start it, and spoken to in each protocol revision (every test runs
twice: 2026-07-28 after ``server/discover``, 2025-11-25 after ``initialize``)."""

from __future__ import annotations

import json
import textwrap

import anyio
import pytest
from mcp import MCPError

from course_lib.local_model import MODEL, HeuristicPolicy, ScriptedPolicy, call, make_client
from course_lib.mcp_servers.connect import connect_stdio
from course_lib.reference.mcp_client import mcp_tools_to_openai, run_agent_with_mcp

# A to-do server in the SDK's own style: decorated functions, a dotted name, a tool that raises.
SDK_SERVER = '''
from typing import Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("sdk-todo")
TODOS = {1: "买牛奶 (buy milk)", 2: "Book the train to 上海"}


@server.tool(name="todo.add")
def add(text: str, priority: Literal["low", "high"] = "low") -> dict:
    """Add a to-do item and return it with its number."""
    number = max(TODOS) + 1
    TODOS[number] = text
    return {"number": number, "text": text, "priority": priority}


@server.tool()
def find_todos(keyword: str) -> list[str]:
    """Find to-do items that contain a keyword, e.g. 上海."""
    return [f"#{n} {text}" for n, text in TODOS.items() if keyword in text]


@server.tool()
def finish(number: int) -> str:
    """Mark a to-do item done by its number."""
    if number not in TODOS:
        raise ToolError(f"no to-do #{number}; the numbers are {sorted(TODOS)}")
    return f"done: {TODOS.pop(number)}"


@server.tool()
def share(number: int, email: str) -> str:
    """Share a to-do item by email (this server cannot send mail: it always crashes)."""
    raise ConnectionError("smtp.example.internal refused the password hunter2")


if __name__ == "__main__":
    server.run()
'''


# The same kind of server, but of the handshake era only: the SDK's 2025 serving loop, which
# knows nothing of server/discover or of requests that carry their revision in _meta.
LEGACY_ONLY_SERVER = '''
import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server

server = MCPServer("sdk-todo-2025")


@server.tool(name="todo.find")
def find(keyword: str) -> list[str]:
    """Find to-do items that contain a keyword, e.g. 上海."""
    return [todo for todo in ["Book the train to 上海", "买牛奶"] if keyword in todo]


async def main():
    async with stdio_server() as (read_stream, write_stream):
        await serve_loop(server._lowlevel_server, read_stream, write_stream, lifespan_state={})


anyio.run(main)
'''


@pytest.fixture(scope="module")
def server_script(tmp_path_factory):
    path = tmp_path_factory.mktemp("sdk_server") / "todo_server.py"
    path.write_text(textwrap.dedent(SDK_SERVER), encoding="utf-8")
    return str(path)


PROTOCOLS = ["2026-07-28", "2025-11-25"]


@pytest.fixture(params=PROTOCOLS)
def protocol(request):
    return request.param


def with_session(script, body, protocol):
    async def main():
        with anyio.fail_after(120):
            async with connect_stdio(script, protocol=protocol) as session:
                assert session.protocol_version == protocol
                return await body(session)

    return anyio.run(main)


class Shared:
    """A session on one SDK server, kept open on a loop of its own (an anyio blocking portal)
    for the tests whose calls leave the server's to-dos as they are: a listing, and calls it
    answers with isError or refuses. Starting the server is most of such a test's time; a
    test that adds or finishes a to-do starts its own (``with_session``)."""

    def __init__(self, portal, session):
        self.portal, self.session = portal, session

    def run(self, body):
        async def main():
            with anyio.fail_after(120):
                return await body(self.session)

        return self.portal.call(main)


@pytest.fixture(scope="module", params=PROTOCOLS)
def shared(request, server_script):
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal() as portal:
        connection = connect_stdio(server_script, protocol=request.param)
        with portal.wrap_async_context_manager(connection) as session:
            assert session.protocol_version == request.param
            yield Shared(portal, session)


def test_an_sdk_servers_listing_becomes_tools_the_api_accepts_with_its_own_schemas(shared):
    async def body(session):
        return (await session.list_tools()).tools

    listing = shared.run(body)
    tools = mcp_tools_to_openai(listing)
    names = [tool["function"]["name"] for tool in tools]
    assert names == ["todo_add", "find_todos", "finish", "share"]
    for tool, mcp_tool in zip(tools, listing, strict=True):
        assert tool["function"]["parameters"] == mcp_tool.input_schema
        assert tool["function"]["description"] == mcp_tool.description
    add = tools[0]["function"]["parameters"]
    assert add["properties"]["priority"]["enum"] == ["low", "high"]
    reply = make_client().chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "Search my to-dos for 上海"}],
        tools=tools,
    )
    (chosen,) = reply.choices[0].message.tool_calls
    assert (chosen.function.name, json.loads(chosen.function.arguments)) == (
        "find_todos",
        {"keyword": "上海"},
    )


def test_the_loop_calls_a_dotted_sdk_tool_by_its_own_name_and_reads_its_result(
    server_script, protocol
):
    policy = ScriptedPolicy(
        [call("todo_add", text="Call 李四", priority="high")], then=HeuristicPolicy()
    )

    async def body(session):
        answer = await run_agent_with_mcp(make_client(policy), session, "Add a to-do", model=MODEL)
        found = await session.call_tool("find_todos", {"keyword": "李四"})
        return answer, found

    answer, found = with_session(server_script, body, protocol)
    assert '"number": 3' in answer and "Call 李四" in answer
    assert "#3 Call 李四" in found.content[0].text


class Recorded:
    """A policy that keeps every request's messages before its script answers."""

    def __init__(self, policy):
        self.policy, self.requests = policy, []

    def respond(self, request):
        self.requests.append(list(request.messages))
        return self.policy.respond(request)


def tool_errors(shared, tool_call):
    """What the model read for ``tool_call``, a call the SDK server answers with ``isError``
    (and so leaves its to-dos as they are)."""
    policy = Recorded(ScriptedPolicy([tool_call, "It failed."]))

    async def body(session):
        return await run_agent_with_mcp(make_client(policy), session, "Try it", model=MODEL)

    assert shared.run(body) == "It failed."
    (tool_message,) = [m for m in policy.requests[-1] if m["role"] == "tool"]
    return json.loads(tool_message["content"])


def test_a_tool_error_the_sdk_server_raises_reaches_the_model_with_its_text(shared):
    error = tool_errors(shared, call("finish", number=9))
    assert error == {"error": "Error executing tool finish: no to-do #9; the numbers are [1, 2]"}


def test_a_crash_in_an_sdk_tool_reaches_the_model_as_an_error_without_its_cause(shared):
    error = tool_errors(shared, call("share", number=1, email="a@example.com"))
    assert error == {"error": "Error executing tool share"}  # the password stays in the log


def test_arguments_an_sdk_tool_refuses_reach_the_model_as_an_error_naming_the_field(shared):
    error = tool_errors(shared, call("finish", number="two"))
    assert error["error"].startswith("Error executing tool finish:") and "number" in error["error"]


def test_an_unknown_tool_is_an_error_the_sdk_server_answers_and_the_loop_goes_on(shared):
    error = tool_errors(shared, call("todo_remove", number=1))
    assert "todo_remove" in error["error"]


@pytest.fixture(scope="module")
def legacy_script(tmp_path_factory):
    path = tmp_path_factory.mktemp("sdk_server_2025") / "todo_server_2025.py"
    path.write_text(textwrap.dedent(LEGACY_ONLY_SERVER), encoding="utf-8")
    return str(path)


def test_against_a_server_of_the_handshake_era_auto_falls_back_and_the_loop_runs(legacy_script):
    policy = ScriptedPolicy([call("todo_find", keyword="上海")], then=HeuristicPolicy())

    async def main():
        with anyio.fail_after(120):
            async with connect_stdio(legacy_script) as session:
                answer = await run_agent_with_mcp(
                    make_client(policy), session, "上海?", model=MODEL
                )
                return session.protocol_version, answer

    version, answer = anyio.run(main)
    assert version == "2025-11-25"
    assert answer == '工具返回的结果如下：\n- todo_find(keyword="上海")：Book the train to 上海'


def test_a_client_pinned_to_2026_07_28_fails_plainly_against_a_server_of_the_handshake_era(
    legacy_script,
):
    async def main():
        with anyio.fail_after(120):
            async with connect_stdio(legacy_script, protocol="2026-07-28"):
                pass  # pragma: no cover

    with pytest.raises(MCPError, match="Method not found"):
        anyio.run(main)
