"""Exercise 08.1, ``serve_registry(registry) -> Server``: a registry served over MCP.

Beside the learner's code, a snippet builds a registry from source text, passes it to
``serve_registry``, connects a real ``ClientSession`` to the returned server in memory, lists
its tools and makes the case's calls (``kernel_side.serve_and_ask``). The session speaks revision
2025-11-25 on purpose: there an exception a handler raises reaches the client with its message,
which the hints quote, where 2026-07-28 says only "Internal server error" (the lesson says so,
and ``tests/checks/lesson08/test_protocol_claims.py`` states both). Only what the session saw
comes back; the check compares it with the registry it builds from the same text. Rules, the
case that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import json
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail, first_difference, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, raise_learner_error, raised_with
from course_lib.checks.lesson08._kernel_bridge import NOTEBOOK, kernel_helper, said_message
from course_lib.checks.lesson08.serve_registry.cases import (
    RegistryCase,
    expected_listing,
    expected_text,
    hidden_cases,
    visible_case,
)
from course_lib.reference.mcp_server import is_error_text

SERVE_CASE = "serve_registry(registry)"
LIST_CASE = "tools/list"

TEXTS = Catalog() | {
    "call_case": "tools/call {name}({arguments})",
    "a_server": "a Server from mcp.server.lowlevel",
    "one_text_block": "one text block holding registry.call's text",
    "a_result": "a CallToolResult",
    "is_error": "isError: {value}",
    "summary": "{count} registries, {calls} calls",
}
text = TEXTS.text


def call_case(name: str, arguments: Any) -> str:
    shown = "None" if arguments is None else json.dumps(arguments, ensure_ascii=False)
    return text("call_case", name=name, arguments=shown)


CALL_WEATHER = call_case("get_weather", {"city": "北京"})
CALL_SEARCH = call_case("search_notes", {"keyword": "上海"})
CALL_EXPLAIN = call_case("explain_error", {"code": 404})
CALL_COLLEAGUE = call_case("find_colleague", {"name": "王五"})
CALL_UNKNOWN = call_case("get_wether", {"city": "上海"})

RULES = (
    Rule("server", "return `Server(name, on_list_tools=..., on_call_tool=...)` from "
         "`mcp.server.lowlevel` (any name)", case=SERVE_CASE, hint="mcpserver"),
    Rule("async", "both handlers are `async def handler(ctx, params)`", case=LIST_CASE,
         hint="not_async"),
    Rule("every_tool", "`tools/list` returns `types.ListToolsResult(tools=[...])`: one "
         "`types.Tool` per registered tool, in registration order", case=LIST_CASE, hint="order"),
    Rule("name", "each `Tool`'s `name` is the registered name", case=LIST_CASE, hint="name"),
    Rule("description", "its `description` the registered description", case=LIST_CASE,
         hint="description"),
    Rule("schema", "its `input_schema` the registry's parameters schema, unchanged "
         "(`registry.schemas()` holds all three under `\"function\"`)", case=LIST_CASE,
         hint="schema"),
    Rule("call", "`tools/call` answers with the text "
         "`registry.call(params.name, params.arguments)` returns, unchanged", case=CALL_WEATHER,
         hint="same_json"),
    Rule("text_block", 'as exactly one block: '
         '`types.CallToolResult(content=[types.TextContent(type="text", text=text)], '
         'is_error=...)`', case=CALL_SEARCH, hint="text_block"),
    Rule("only_errors", '`is_error` is `False` for every text that is not an error object, even '
         '`"Error 404 means: Not Found"`', case=CALL_EXPLAIN, hint="only_errors"),
    Rule("flag_errors", '`is_error` is `True` when the text is a JSON object with an `"error"` key',
         case=CALL_COLLEAGUE, hint="flag_errors"),
    Rule("never_raise", "a handler never raises: an unknown tool is answered by `registry.call` "
         "like any other call", case=CALL_UNKNOWN, hint="protocol_error"),
)  # fmt: skip

HINTS = Catalog() | {
    "not_server": (
        "serve_registry must return the low-level server, Server(name, on_list_tools=..., "
        "on_call_tool=...) from mcp.server.lowlevel; it returned a {kind}."
    ),
    "mcpserver": (
        "MCPServer reflects each function itself, so its schemas and descriptions are its own, "
        "not the registry's: build the low-level Server from mcp.server.lowlevel with the two "
        "handlers."
    ),
    "connect": (
        "A client could not even connect to the server ({message}): build it as "
        "Server(name, on_list_tools=..., on_call_tool=...) and return it without running it."
    ),
    "not_async": "The SDK awaits every handler: write both as async def handler(ctx, params).",
    "list_result": (
        "The tools/list handler must return types.ListToolsResult(tools=[...]), not a bare list."
    ),
    "no_list_handler": "The server answers tools/list only when Server(...) gets on_list_tools=.",
    "no_call_handler": "The server answers tools/call only when Server(...) gets on_call_tool=.",
    "list_raised": "The tools/list handler raised ({message}); it must return the listing.",
    "tool_count": "List one Tool per registered tool: {expected} tools, not {got}.",
    "order": (
        "List the tools in the registry's order, the order they were registered in, as "
        "registry.schemas() gives them."
    ),
    "name": (
        "List each tool under the name it was registered with, which is not always its "
        "function's name ({registered}, not {function})."
    ),
    "description": "Each Tool's description is the registry's description of it, unchanged.",
    "schema": (
        "Each Tool's input_schema is the registry's parameters schema, unchanged: take it from "
        "registry.schemas() (function.parameters) instead of building one."
    ),
    "protocol_error": (
        "The call came back as a protocol error because the handler raised ({message}): answer "
        "with registry.call's text in a CallToolResult (is_error=True for an error); never raise."
    ),
    "unreadable_result": (
        "The client could not read the handler's answer ({message}): return "
        "types.CallToolResult(content=[...], is_error=...)."
    ),
    "text_block": (
        'Answer with exactly one text block, content=[TextContent(type="text", text=text)], '
        "holding registry.call's whole text, whatever the tool returned."
    ),
    "double_encoded": (
        "The text was JSON-encoded a second time: registry.call already returns text, so put "
        "it in the TextContent as it is."
    ),
    "same_json": (
        "The same JSON, written differently: send registry.call's text unchanged (it keeps "
        "北京 readable and validates the arguments) instead of encoding a result yourself."
    ),
    "call": "The text must be what registry.call(params.name, params.arguments) returns.",
    "flag_errors": (
        'registry.call answered with an error object ({{"error": ...}}): set is_error=True so '
        "the client knows the call failed."
    ),
    "error_key_later": (
        'This text is a JSON object with an "error" key, though not as its first key: parse it '
        '(json.loads) and set is_error=True when it is a dict holding "error".'
    ),
    "only_errors": (
        "This answer is not an error, although it mentions one: set is_error=True only when the "
        'text is a JSON object with an "error" key.'
    ),
    "error_key_empty": (
        'This text is a JSON object whose "error" key holds {value}: it is still an error object. '
        'Set is_error=True whenever the dict holds the key "error", whatever its value: test '
        '"error" in value, not value.get("error").'
    ),
}


hint = HINTS.hint


EXCEPTION_HINTS = [(raised_with("AttributeError", "list_tools"), hint("not_async"))]
ASK = "report = serve_and_ask(serve_registry(registry), calls)"


@exercise("08.1", notebook=NOTEBOOK, title="serve_registry", points=3, rules=RULES, hints=HINTS)
def check_serve_registry(learner: Learner) -> str:
    cases = [visible_case(), *hidden_cases(hidden_rng("08.1"))]
    for case in cases:
        reply = learner.run(
            ASK,
            result="report",
            bind={
                "serve_and_ask": kernel_helper("serve_and_ask"),
                "serve_registry": learner.target("serve_registry"),
                "registry": learner.source("registry", setup=case.setup),
                "calls": case.calls,
            },
        )
        if reply.raised:
            raise_learner_error(SERVE_CASE, reply, EXCEPTION_HINTS)
        judge_server(reply.value)
        judge_listing(case, reply.value.get("listing") or {})
        for (name, arguments), got in zip(case.calls, reply.value.get("calls") or [], strict=False):
            judge_call(case, name, arguments, got)
    calls = sum(len(case.calls) for case in cases)
    return text("summary", count=len(cases), calls=calls)


def judge_server(report: dict[str, Any]) -> None:
    __tracebackhide__ = True
    if not report.get("is_server"):
        kind = str(report.get("server_type", ""))
        chosen = hint("mcpserver") if kind.endswith("MCPServer") else hint("not_server", kind=kind)
        fail(SERVE_CASE, Plain(text("a_server")), Plain(kind), chosen)
    if "connect_error" in report:
        message = str(said_message(report["connect_error"].get("message", "")))
        fail(SERVE_CASE, Plain(text("a_server")), Plain(message), hint("connect", message=message))


def answer_of(label: str, expected: Any, outcome: dict[str, Any], *, listing: bool) -> Any:
    """The result of one request (``kernel_side.outcome``); else ``label`` fails on the exception
    the client raised (it could not read the answer) or the protocol error the server sent."""
    __tracebackhide__ = True
    if "raised" in outcome:
        message = str(said_message(outcome["raised"].get("message", "")))
        key = "list_raised" if listing else "unreadable_result"
        fail(label, expected, Plain(message), hint(key, message=message))
    error = outcome.get("protocol_error")
    if error is None:
        return outcome.get("result")
    message = str(error.get("message", ""))
    if "await" in message and "expression" in message:
        chosen = hint("not_async")
    elif error.get("code") == -32601:
        chosen = hint("no_list_handler" if listing else "no_call_handler")
    elif listing and "returned list" in message:
        chosen = hint("list_result")
    else:
        chosen = hint("list_raised" if listing else "protocol_error", message=message)
    fail(label, expected, Plain(message), chosen)


def judge_listing(case: RegistryCase, listing: dict[str, Any]) -> None:
    __tracebackhide__ = True
    expected = expected_listing(case.setup)
    got = [
        {key: tool[key] for key in ("name", "description", "inputSchema") if key in tool}
        for tool in answer_of(LIST_CASE, expected, listing, listing=True) or []
    ]
    difference = first_difference(expected, got)
    if difference is None:
        return
    fail(LIST_CASE, expected, got, listing_hint(case, expected, got), where=difference)


def listing_hint(case: RegistryCase, expected: list[dict], got: list[dict]):
    names = [tool["name"] for tool in expected]
    got_names = [tool.get("name") for tool in got]
    functions = [case.function_names[name] for name in names]
    if got_names == functions or (sorted(map(str, got_names)) == sorted(functions) != names):
        renamed = next(n for n, f in zip(names, functions, strict=True) if n != f)
        return hint("name", registered=renamed, function=case.function_names[renamed])
    if len(got) != len(expected):
        return hint("tool_count", expected=len(expected), got=len(got))
    if sorted(map(str, got_names)) == sorted(names) and got_names != names:
        return hint("order")
    by_name = {tool.get("name"): tool for tool in got}
    for want in expected:
        have = by_name.get(want["name"], {})
        if have.get("description") != want["description"]:
            return hint("description")
        if first_difference(want["inputSchema"], have.get("inputSchema")) is not None:
            return hint("schema")
    return None


def judge_call(case: RegistryCase, name: str, arguments: Any, got: dict[str, Any]) -> None:
    __tracebackhide__ = True
    label = call_case(name, arguments)
    expected_answer = expected_text(case.setup, name, arguments)
    expected = {
        "content": [{"type": "text", "text": expected_answer}],
        "isError": is_error_text(expected_answer),
    }
    result = answer_of(label, expected, got, listing=False) or {}
    shown = {"content": result.get("content"), "isError": result.get("isError", False)}
    content = result.get("content")
    where = first_difference(expected["content"], content)
    if where is not None:
        fail(label, expected, shown, content_hint(expected_answer, content), where=where)
    if shown["isError"] != expected["isError"]:
        key = "flag_errors" if expected["isError"] else "only_errors"
        if expected["isError"] and not expected_answer.startswith('{"error"'):
            key = "error_key_later"
        chosen = hint(key)
        error = json.loads(expected_answer)["error"] if expected["isError"] else None
        if expected["isError"] and not error:  # {"error": null}: a truth test says no error
            chosen = hint("error_key_empty", value=json.dumps(error, ensure_ascii=False))
        where = text("is_error", value=json.dumps(expected["isError"]))
        fail(label, expected, shown, chosen, where=where)


def content_hint(expected_answer: str, content: Any):
    if not isinstance(content, list) or len(content) != 1:
        return hint("text_block")
    block = content[0] if isinstance(content[0], dict) else {}
    got_text = block.get("text")
    if block.get("type") != "text" or not isinstance(got_text, str):
        return hint("text_block")
    if got_text in (json.dumps(expected_answer), json.dumps(expected_answer, ensure_ascii=False)):
        return hint("double_encoded")
    try:
        if json.loads(got_text) == json.loads(expected_answer):
            return hint("same_json")
    except ValueError:
        pass
    return hint("call")
