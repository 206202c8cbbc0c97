"""``serve-mcp`` speaks MCP 2026-07-28 and still serves a client of 2025-11-25, over stdio and
Streamable HTTP, to the SDK's own client (``mcp.Client`` in each of its modes, and the
course's ``connect_*`` helpers) and to the OpenAI Agents SDK's MCP client.

Every wait is bounded generously (``servers.BOUND``); nothing here measures time.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from processes import course_servers
from servers import http_server, run

from course_lib import __version__
from course_lib.mcp_servers.connect import (
    COURSE_TOOLS_SERVER,
    NOTES_SERVER,
    connect_http,
    connect_in_memory,
    connect_stdio,
)
from course_lib.mcp_servers.course_tools import course_tools_server
from course_lib.mcp_servers.notes import build_notes_server

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc and sends signals")

# The SDK client's modes and the revision each one must end up speaking with serve-mcp.
MODES = {"2026-07-28": "2026-07-28", "auto": "2026-07-28", "legacy": "2025-11-25"}
NAMES = ["get_weather", "search_notes", "find_colleague"]
WEATHER = {"city": "北京", "temperature": 31, "unit": "c"}


@pytest.fixture(scope="module")
def url():
    """One ``serve-mcp --http`` for the module's HTTP tests, stopped (status 0) at the end."""
    with http_server() as (server, url):
        yield url
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=60) == 0
        assert "Traceback" not in server.stderr.read()


def stdio_servers_left() -> list[int]:
    """The course's servers this process started and did not stop, but the module's HTTP one."""
    return [
        pid
        for pid in course_servers()
        if b"--http" not in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    ]


def stdio_transport(*args: str):
    parameters = StdioServerParameters(command=sys.executable, args=list(args))
    return stdio_client(parameters, errlog=open(os.devnull, "w"))  # noqa: SIM115 (closed at exit)


async def sdk_client_round(server, mode: str) -> dict:
    """What the SDK's high-level client sees of serve-mcp when it connects in ``mode``."""
    async with Client(server, mode=mode, cache=None) as client:
        listing = await client.list_tools()
        return {
            "version": client.protocol_version,
            "server": client.server_info,
            "tools": {tool.name: tool.output_schema for tool in listing.tools},
            "weather": await client.call_tool("get_weather", {"city": "北京"}),
            "notes": await client.call_tool("search_notes", {"keyword": "豆腐"}),
            "nobody": await client.call_tool("find_colleague", {"name": "王五"}),
        }


def assert_served(seen: dict, mode: str) -> None:
    assert seen["version"] == MODES[mode]
    assert list(seen["tools"]) == NAMES
    assert seen["tools"]["find_colleague"] is None  # a str: no structured data promised
    weather, notes, nobody = seen["weather"], seen["notes"], seen["nobody"]
    assert (weather.is_error, weather.structured_content) == (False, WEATHER)
    assert notes.structured_content == {"result": ["Shopping: milk, 豆腐, rice"]}
    assert nobody.is_error and nobody.structured_content is None
    if mode != "2026-07-28":  # a pinned client skips server/discover, so it never asks who
        assert (seen["server"].name, seen["server"].version) == ("course-tools", __version__)


@pytest.mark.parametrize("mode", MODES)
def test_the_sdk_client_in_each_mode_lists_and_calls_serve_mcp_over_stdio(mode):
    seen = run(lambda: sdk_client_round(stdio_transport(*COURSE_TOOLS_SERVER), mode))
    assert_served(seen, mode)
    assert stdio_servers_left() == []


@pytest.mark.parametrize("mode", MODES)
def test_the_sdk_client_in_each_mode_lists_and_calls_serve_mcp_over_streamable_http(mode, url):
    assert_served(run(lambda: sdk_client_round(url, mode)), mode)


HELPER_PROTOCOLS = {"auto": "2026-07-28", "2026-07-28": "2026-07-28", "2025-11-25": "2025-11-25"}


@pytest.mark.parametrize("protocol", HELPER_PROTOCOLS)
def test_the_course_helpers_open_the_revision_asked_for_on_every_transport(protocol, url):
    async def main():
        seen = []
        connections = [
            connect_stdio(*NOTES_SERVER, protocol=protocol),
            connect_http(url, protocol=protocol),
            connect_in_memory(course_tools_server(), protocol=protocol),
        ]
        for connection in connections:
            async with connection as session:
                await session.list_tools()
                seen.append((session.protocol_version, session.server_info.name))
        return seen

    opened = HELPER_PROTOCOLS[protocol]
    assert run(main) == [
        (opened, "course-notes"),
        (opened, "course-tools"),
        (opened, "course-tools"),
    ]
    assert stdio_servers_left() == []


def test_a_revision_the_sdk_client_cannot_open_is_refused_before_a_server_starts():
    async def main():
        async with connect_stdio(*NOTES_SERVER, protocol="2025-06-18"):
            pass  # pragma: no cover

    with pytest.raises(ValueError, match=r"opens 'auto' or '2026-07-28' or '2025-11-25'"):
        run(main)
    assert stdio_servers_left() == []


def agents_round(server, call):
    async def main():
        async with server:
            names = [tool.name for tool in await server.list_tools()]
            return names, await server.call_tool(*call), server.session.protocol_version

    return run(main)


def test_the_openai_agents_sdk_speaks_2026_07_28_with_serve_mcp_over_stdio():
    agents_mcp = pytest.importorskip("agents.mcp")
    server = agents_mcp.MCPServerStdio(
        {"command": sys.executable, "args": list(COURSE_TOOLS_SERVER)},
        client_session_timeout_seconds=60,
    )
    names, result, version = agents_round(server, ("get_weather", {"city": "北京"}))
    assert (names, version) == (NAMES, "2026-07-28")
    assert result.structured_content == WEATHER
    assert stdio_servers_left() == []


def test_the_openai_agents_sdk_speaks_2026_07_28_with_serve_mcp_over_streamable_http(url):
    agents_mcp = pytest.importorskip("agents.mcp")
    server = agents_mcp.MCPServerStreamableHttp(
        {"url": url, "timeout": 60}, client_session_timeout_seconds=60
    )
    names, result, version = agents_round(server, ("search_notes", {"keyword": "上海"}))
    assert (names, version) == (NAMES, "2026-07-28")
    assert result.structured_content == {"result": ["Call Zhang San about 上海"]}
    assert result.content[0].text == '["Call Zhang San about 上海"]'


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25"])
def test_the_notes_server_sends_tag_counts_as_data_and_says_how_long_its_listing_stays_fresh(
    protocol,
):
    async def main():
        async with connect_in_memory(build_notes_server(), protocol=protocol) as session:
            listing = await session.list_tools()
            return listing, await session.call_tool("tags.list", {})

    listing, tags = run(main)
    schemas = {tool.name: tool.output_schema for tool in listing.tools}
    assert [name for name, schema in schemas.items() if schema] == ["tags.list"]
    assert tags.structured_content == {"home": 2, "reading": 1, "travel": 1, "work": 1}
    fresh = (300_000, "public") if protocol == "2026-07-28" else (0, "private")  # 2025: no hint
    assert (listing.ttl_ms, listing.cache_scope) == fresh
