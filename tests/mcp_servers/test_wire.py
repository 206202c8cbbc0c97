"""``serve-mcp`` on the wire, written by hand: what the 2026-07-28 specification asks of a
server for every message, well formed or not, over stdio and Streamable HTTP, and the 2025-11-25
session (``initialize``, ``Mcp-Session-Id``, ``DELETE``) on the same endpoint.

A malformed message gets the specification's error (the JSON-RPC code, and over HTTP the
status), never silence, and the server goes on answering. Every wait is bounded generously
(``servers.BOUND``); nothing here measures time.
"""

from __future__ import annotations

import base64
import json
import signal
import sys

import httpx2
import pytest
from servers import BOUND, StdioWire, http_server

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="sends signals")

MODERN, LEGACY, NOBODYS = "2026-07-28", "2025-11-25", "2099-01-01"
HEADER_MISMATCH, MISSING_CAPABILITY, UNSUPPORTED_VERSION = -32020, -32021, -32022
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def envelope(version: str = MODERN) -> dict:
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "by-hand", "version": "0.1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }


def request(method: str, params: dict | None = None, *, id: int = 7, version: str = MODERN):
    """A 2026-07-28 request: its revision and capabilities in ``params._meta``."""
    return {
        "jsonrpc": "2.0",
        "id": id,
        "method": method,
        "params": {**(params or {}), "_meta": envelope(version)},
    }


WEATHER_CALL = request("tools/call", {"name": "get_weather", "arguments": {"city": "北京"}})


def routing(method: str | None = "tools/call", name: str | None = "get_weather", **more) -> dict:
    """The routing headers of a 2026-07-28 POST (``None`` leaves one out)."""
    headers = {"mcp-protocol-version": MODERN, "mcp-method": method, "mcp-name": name, **more}
    return {key: value for key, value in headers.items() if value is not None}


def post(url: str, body, headers: dict) -> httpx2.Response:
    content = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
    return httpx2.post(url, content=content, headers={**ACCEPT, **headers}, timeout=BOUND)


def rpc(response: httpx2.Response) -> dict:
    """The JSON-RPC message of a response, sent as JSON or as one server-sent event."""
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


@pytest.fixture(scope="module")
def url():
    """One ``serve-mcp --http`` for the module: it must survive every test below, then stop
    with status 0 and no traceback."""
    with http_server() as (server, url):
        yield url
        answer = post(url, WEATHER_CALL, routing())
        assert answer.status_code == 200, "the server no longer answers a good request"
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=BOUND) == 0
        assert "Traceback" not in server.stderr.read()


# -- Streamable HTTP, 2026-07-28 -------------------------------------------------------------------


def test_a_2026_request_with_its_headers_is_answered_without_a_session(url):
    answer = post(url, WEATHER_CALL, routing())
    assert answer.status_code == 200
    assert "mcp-session-id" not in answer.headers
    result = rpc(answer)["result"]
    assert result["resultType"] == "complete"
    assert result["structuredContent"] == {"city": "北京", "temperature": 31, "unit": "c"}
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "course-tools"


def test_server_discover_names_the_revision_capabilities_and_caching_hints(url):
    answer = post(url, request("server/discover"), routing("server/discover", None))
    result = rpc(answer)["result"]
    assert result["supportedVersions"] == [MODERN]
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert (result["ttlMs"], result["cacheScope"]) == (0, "private")


def test_a_tool_listing_carries_output_schemas_and_its_caching_hints(url):
    answer = post(url, request("tools/list"), routing("tools/list", None))
    result = rpc(answer)["result"]
    schemas = {tool["name"]: tool.get("outputSchema") for tool in result["tools"]}
    assert schemas == {
        "get_weather": {"type": "object"},
        "search_notes": {
            "type": "object",
            "properties": {"result": {"type": "array", "items": {"type": "string"}}},
            "required": ["result"],
            "additionalProperties": False,
        },
        "find_colleague": None,
    }
    assert result["ttlMs"] == 0  # the registry is read live: a listing is stale at once


def test_a_tool_name_outside_ascii_travels_base64_in_mcp_name(url):
    name = "天气"
    call = request("tools/call", {"name": name, "arguments": {}})
    encoded = "=?base64?" + base64.b64encode(name.encode()).decode() + "?="
    answer = post(url, call, routing(name=encoded))
    result = rpc(answer)["result"]  # the registry's answer: no such tool, as a tool error
    assert result["isError"] and "unknown tool '天气'" in result["content"][0]["text"]


# id, body, headers, HTTP status, JSON-RPC code, the id the error carries
MALFORMED = [
    ("no Mcp-Method", WEATHER_CALL, routing(method=None), 400, HEADER_MISMATCH, 7),
    ("Mcp-Method of another method", WEATHER_CALL, routing("tools/list"), 400, HEADER_MISMATCH, 7),
    ("no Mcp-Name", WEATHER_CALL, routing(name=None), 400, HEADER_MISMATCH, 7),
    ("Mcp-Name of another tool", WEATHER_CALL, routing(name="find_colleague"), 400,
     HEADER_MISMATCH, 7),
    ("no MCP-Protocol-Version", WEATHER_CALL, routing(**{"mcp-protocol-version": None}), 400,
     HEADER_MISMATCH, 7),
    ("MCP-Protocol-Version of 2025 on a 2026 body", WEATHER_CALL,
     routing(**{"mcp-protocol-version": LEGACY}), 400, HEADER_MISMATCH, 7),
    ("a 2025 body version under a 2026 header",
     request("tools/list", version=LEGACY), routing("tools/list", None), 400, HEADER_MISMATCH, 7),
    ("a version nobody speaks", request("tools/list", version=NOBODYS),
     routing("tools/list", None, **{"mcp-protocol-version": NOBODYS}), 400, UNSUPPORTED_VERSION,
     7),
    ("a version nobody speaks, without its header", request("tools/list", version=NOBODYS),
     routing("tools/list", None, **{"mcp-protocol-version": None}), 400, HEADER_MISMATCH, 7),
    ("no _meta", {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}},
     routing("tools/list", None), 400, INVALID_PARAMS, 7),
    ("no client capabilities",
     {**request("tools/list"), "params": {"_meta": {"io.modelcontextprotocol/protocolVersion":
                                                      MODERN}}},
     routing("tools/list", None), 400, INVALID_PARAMS, 7),
    ("a method nobody serves", request("tools/fly"), routing("tools/fly", None), 404,
     METHOD_NOT_FOUND, 7),
    ("ping, removed in 2026-07-28", request("ping"), routing("ping", None), 404,
     METHOD_NOT_FOUND, 7),
    ("a body that is not JSON", b'{"jsonrpc": "2.0", "id": 7,', routing(), 400, PARSE_ERROR,
     None),
    ("a batch", [WEATHER_CALL], routing(), 400, INVALID_REQUEST, None),
    ("a JSON-RPC response", {"jsonrpc": "2.0", "id": 7, "result": {}}, routing(), 400,
     INVALID_REQUEST, None),
    ("a null id", {**WEATHER_CALL, "id": None}, routing(), 400, INVALID_REQUEST, None),
    ("JSON that is no JSON-RPC message, without headers", {"hello": 1}, {}, 400,
     INVALID_REQUEST, None),
    ("a body that is not JSON, without headers", b"{nope", {}, 400, PARSE_ERROR, None),
    ("a 2025 request without its session", {"jsonrpc": "2.0", "id": 7, "method": "tools/list"},
     {}, 400, INVALID_REQUEST, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("body", "headers", "status", "code", "error_id"),
    [case[1:] for case in MALFORMED],
    ids=[case[0] for case in MALFORMED],
)
def test_a_malformed_request_gets_the_specifications_error_and_no_session(
    url, body, headers, status, code, error_id
):
    answer = post(url, body, headers)
    assert (answer.status_code, answer.headers["content-type"]) == (status, "application/json")
    message = answer.json()
    assert (message["error"]["code"], message["id"]) == (code, error_id)
    assert "mcp-session-id" not in answer.headers


def test_an_unsupported_version_names_the_versions_the_server_speaks(url):
    headers = routing("tools/list", None, **{"mcp-protocol-version": NOBODYS})
    answer = post(url, request("tools/list", version=NOBODYS), headers)
    assert answer.json()["error"]["data"] == {"supported": [MODERN], "requested": NOBODYS}


def test_a_routing_header_sent_twice_is_a_header_mismatch(url):
    headers = [*ACCEPT.items(), *routing().items(), ("mcp-method", "tools/call")]
    answer = httpx2.post(
        url, content=json.dumps(WEATHER_CALL).encode(), headers=headers, timeout=BOUND
    )
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, HEADER_MISMATCH)


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_get_and_delete_without_a_session_are_not_allowed_in_2026(url, method):
    answer = httpx2.request(method, url, headers={**ACCEPT, **routing()}, timeout=BOUND)
    assert answer.status_code == 405


def test_a_request_from_a_web_page_elsewhere_is_forbidden_before_its_headers_are_read(url):
    headers = {**routing(**{"mcp-protocol-version": None}), "origin": "http://evil.example"}
    answer = post(url, WEATHER_CALL, headers)
    assert answer.status_code == 403


# -- Streamable HTTP, 2025-11-25 -------------------------------------------------------------------


def legacy_initialize(version: str = LEGACY) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "by-hand", "version": "0.1"},
        },
    }


def test_a_2025_client_gets_a_session_uses_it_and_ends_it_with_delete(url):
    hello = post(url, legacy_initialize(), {})
    session = hello.headers["mcp-session-id"]
    assert rpc(hello)["result"]["protocolVersion"] == LEGACY
    headers = {"mcp-session-id": session, "mcp-protocol-version": LEGACY}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(url, initialized, headers).status_code == 202
    modern_meanwhile = post(url, WEATHER_CALL, routing())  # both eras on one endpoint at once
    assert rpc(modern_meanwhile)["result"]["isError"] is False
    listing = rpc(post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers))
    assert [tool["name"] for tool in listing["result"]["tools"]][0] == "get_weather"
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "get_weather", "arguments": {"city": "Paris"}}}  # fmt: skip
    result = rpc(post(url, call, headers))["result"]
    assert result["structuredContent"] == {"city": "Paris", "temperature": 18, "unit": "c"}
    assert httpx2.delete(url, headers={**ACCEPT, **headers}, timeout=BOUND).status_code == 200
    gone = post(url, {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, headers)
    assert gone.status_code == 404


def test_a_2025_client_offering_a_version_nobody_speaks_is_offered_2025_11_25(url):
    hello = rpc(post(url, legacy_initialize(NOBODYS), {}))
    assert hello["result"]["protocolVersion"] == LEGACY


# -- stdio -----------------------------------------------------------------------------------------


def test_stdio_answers_every_malformed_line_in_2026_and_keeps_serving():
    wire = StdioWire()
    try:
        listing = wire.ask(request("tools/list", id=1))  # the first request: 2026-07-28
        assert listing["result"]["resultType"] == "complete"
        assert wire.ask("{nope") == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": PARSE_ERROR,
                "message": "Parse error: a line must hold one JSON-RPC message as JSON.",
            },
        }
        for line in ("[1, 2]", '{"jsonrpc": "1.0", "id": 3, "method": "tools/list"}', '"hi"'):
            answer = wire.ask(line)
            assert (answer["id"], answer["error"]["code"]) == (None, INVALID_REQUEST), line
        unsupported = wire.ask(request("tools/list", id=4, version=NOBODYS))["error"]
        assert unsupported["code"] == UNSUPPORTED_VERSION
        assert unsupported["data"] == {"supported": [MODERN], "requested": NOBODYS}
        bare = {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN}}}  # fmt: skip
        assert wire.ask(bare)["error"]["code"] == INVALID_PARAMS
        assert wire.ask(request("ping", id=6))["error"]["code"] == METHOD_NOT_FOUND
        late_hello = wire.ask(legacy_initialize())["error"]
        assert (late_hello["code"], late_hello["data"]["supported"]) == (UNSUPPORTED_VERSION,
                                                                        [MODERN])  # fmt: skip
        discover = wire.ask(request("server/discover", id=8))["result"]
        assert discover["supportedVersions"] == [MODERN]
        weather = wire.ask({**WEATHER_CALL, "id": 9})
        assert weather["result"]["structuredContent"]["temperature"] == 31
    finally:
        status, err = wire.close()
    assert status == 0 and "Traceback" not in err


def test_stdio_serves_a_2025_client_that_opens_with_initialize():
    wire = StdioWire()
    try:
        hello = wire.ask(legacy_initialize(NOBODYS))["result"]
        assert (hello["protocolVersion"], hello["serverInfo"]["name"]) == (LEGACY, "course-tools")
        wire.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert wire.ask("not json")["error"]["code"] == PARSE_ERROR
        listing = wire.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"]
        assert "ttlMs" not in listing  # a 2026-07-28 field: not on a 2025-11-25 session
        enveloped = wire.ask(request("tools/list", id=3))["error"]
        assert enveloped["code"] == INVALID_REQUEST
        discover = wire.ask({"jsonrpc": "2.0", "id": 4, "method": "server/discover"})
        assert discover["error"]["code"] == METHOD_NOT_FOUND
    finally:
        status, err = wire.close()
    assert status == 0 and "Traceback" not in err
