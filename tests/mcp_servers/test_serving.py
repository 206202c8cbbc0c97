"""``course serve-mcp`` and the notes server as real subprocesses: over stdio and Streamable
HTTP, listed and called with the SDK's client (and a third-party one), and gone afterwards.

Every wait is bounded generously; nothing here measures time.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from processes import course_servers
from servers import ENV, http_server, run

from course_lib.cli import build_parser
from course_lib.mcp_servers.connect import (
    COURSE_TOOLS_SERVER,
    NOTES_SERVER,
    connect_http,
    connect_stdio,
)

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc and sends signals")


def list_and_call(connect, *args):
    async def main():
        async with connect(*args) as session:
            names = [tool.name for tool in (await session.list_tools()).tools]
            weather = await session.call_tool("get_weather", {"city": "北京"})
            return names, json.loads(weather.content[0].text), weather.is_error

    return run(main)


def test_serve_mcp_over_stdio_lists_and_calls_lesson_04s_tools_and_leaves_no_process():
    names, weather, is_error = list_and_call(connect_stdio, *COURSE_TOOLS_SERVER)
    assert names == ["get_weather", "search_notes", "find_colleague"]
    assert (weather, is_error) == ({"city": "北京", "temperature": 31, "unit": "c"}, False)
    assert course_servers() == []


def test_the_stdio_server_exits_with_status_0_when_its_stdin_closes():
    server = subprocess.Popen(
        [sys.executable, *COURSE_TOOLS_SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    out, err = server.communicate(json.dumps(hello).encode() + b"\n", timeout=120)
    assert server.returncode == 0
    assert json.loads(out.splitlines()[0])["result"]["serverInfo"]["name"] == "course-tools"
    assert out.count(b"\n") == 1  # nothing but the protocol on stdout
    assert b"Traceback" not in err


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_serve_mcp_over_http_answers_on_loopback_and_stops_cleanly(stop):
    with http_server() as (server, url):
        names, weather, _ = list_and_call(connect_http, url)
        assert names == ["get_weather", "search_notes", "find_colleague"]
        assert weather["temperature"] == 31
        server.send_signal(stop)
        assert server.wait(timeout=60) == 0
        assert "Stopped." in server.stdout.read()
        assert "Traceback" not in server.stderr.read()


def test_a_port_in_use_is_refused_with_a_message_and_status_1():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, *COURSE_TOOLS_SERVER, "--http", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
            env=ENV,
        )
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr


def test_the_notes_server_runs_as_a_module_over_stdio():
    async def main():
        async with connect_stdio(*NOTES_SERVER) as session:
            names = [tool.name for tool in (await session.list_tools()).tools]
            found = await session.call_tool("search_notes", {"keyword": "豆腐"})
            return session.server_info.name, names, found.content[0].text

    name, names, found = run(main)
    assert name == "course-notes"
    assert names == [
        "search_notes",
        "read_note",
        "list_notes",
        "tags.list",
        "add_note",
        "delete_note",
    ]
    assert found == "#2 Shopping [home]: Milk, 豆腐, rice and green tea."
    assert course_servers() == []


def test_a_third_party_client_the_openai_agents_sdk_uses_serve_mcp():
    agents_mcp = pytest.importorskip("agents.mcp")

    async def main():
        server = agents_mcp.MCPServerStdio(
            {"command": sys.executable, "args": list(COURSE_TOOLS_SERVER)},
            client_session_timeout_seconds=60,
        )
        async with server:
            tools = await server.list_tools()
            result = await server.call_tool("find_colleague", {"name": "李四"})
        return [tool.name for tool in tools], result

    names, result = run(main)
    assert names == ["get_weather", "search_notes", "find_colleague"]
    assert result.content[0].text == "Sales, 北京 office"
    assert course_servers() == []


def test_a_third_party_client_the_openai_agents_sdk_uses_serve_mcp_over_streamable_http():
    agents_mcp = pytest.importorskip("agents.mcp")

    async def main(url):
        server = agents_mcp.MCPServerStreamableHttp(
            {"url": url, "timeout": 60}, client_session_timeout_seconds=60
        )
        async with server:
            tools = await server.list_tools()
            result = await server.call_tool("get_weather", {"city": "Paris", "unit": "f"})
        return [tool.name for tool in tools], result

    with http_server() as (server, url):
        names, result = run(lambda: main(url))
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=60) == 0
    assert names == ["get_weather", "search_notes", "find_colleague"]
    assert json.loads(result.content[0].text) == {"city": "Paris", "temperature": 64, "unit": "f"}


def docs_client_configuration() -> dict:
    """The ``mcpServers`` JSON block of docs/mcp.md, as a desktop client would read it."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "mcp.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", page, flags=re.S)
    found = [json.loads(block) for block in blocks if '"mcpServers"' in block]
    assert len(found) == 1, "docs/mcp.md shows one desktop client configuration"
    return found[0]["mcpServers"]["course-tools"]


def test_the_docs_desktop_client_configuration_starts_serve_mcp_from_any_folder(tmp_path):
    entry = docs_client_configuration()
    assert entry["command"].endswith("/.venv/bin/python")  # the placeholder the reader replaces
    parameters = StdioServerParameters(command=sys.executable, args=entry["args"], cwd=tmp_path)

    async def main():
        async with stdio_client(parameters) as streams:
            async with ClientSession(*streams) as session:
                hello = await session.initialize()
                found = await session.call_tool("search_notes", {"keyword": "豆腐"})
                return hello.server_info.name, json.loads(found.content[0].text)

    assert run(main) == ("course-tools", ["Shopping: milk, 豆腐, rice"])
    assert course_servers() == []


def test_serve_mcp_is_a_subcommand_that_loads_neither_the_grader_nor_the_sdk_to_parse():
    args = build_parser().parse_args(["serve-mcp", "--http", "--port", "0"])
    assert (args.http, args.port, args.host) == (True, 0, "127.0.0.1")
    probe = (
        "import sys; from course_lib.cli import build_parser; "
        "build_parser('serve-mcp').parse_args(['serve-mcp']); "
        "print(sorted(m for m in ('nbformat', 'mcp', 'course_lib.grading') if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert loaded.stdout.strip() == "[]", loaded.stderr
