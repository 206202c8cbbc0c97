"""How 08.3's check reads one conversation: every request the loop sent, then what it returned.

The requests are walked in order. Request 1 must hold the question alone; each later request
must hold everything before it plus the last reply (its assistant message, once) and one tool
message per call of that reply, with the call's id and the content the loop owes the model
(``cases.expected_answer``). The first thing that differs fails the case, with the
hint its shape points to.
"""

from __future__ import annotations

import json
import re
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail, first_difference
from course_lib.checks.learner import raise_learner_error
from course_lib.checks.lesson08._kernel_bridge import CHECK_MODEL, raised_reply
from course_lib.checks.lesson08.mcp_loop.cases import (
    MAX_TURNS,
    Conversation,
    ExpectedAnswer,
    expected_answer,
    expected_tools,
    server_name,
)
from course_lib.driver import said_value

TEXTS = Catalog() | {
    "a_request": "a request to the model",
    "no_request": "no request",
    "request": "request {number} of {count}",
    "message": "request {number}, message {index}",
    "roles": "request {number}: the roles of its messages",
    "no_tools": "no tools",
    "the_tools": "the notes server's tools, converted by mcp_tools_to_openai",
    "ok_reply": "a reply (HTTP 200)",
    "requests": "{count} request(s)",
    "raised": "RuntimeError after {count} requests",
    "an_answer": "the answer",
    "no_answer": "no answer after {count} requests",
}
text = TEXTS.text

HINTS = Catalog() | {
    "no_request": "Call client.chat.completions.create: the check's model saw no request.",
    "model": "Pass model=model to every request.",
    "tools": (
        "Offer the server's tools on every request: tools=mcp_tools_to_openai(listing.tools), "
        "with listing = await session.list_tools()."
    ),
    "tools_08_2": (
        "The tools differ from what 08.2 asks mcp_tools_to_openai for: fix 08.2 first (its "
        "check shows where)."
    ),
    "first_messages": "Start with one user message holding the question, nothing else.",
    "model_refused": "The model refused this request: {message}",
    "assistant_missing": (
        "Append the assistant message (the reply, with its tool_calls) before its tool messages."
    ),
    "assistant_once": (
        "Append the assistant message once per turn, before its tool messages, not once per call."
    ),
    "assistant_unchanged": (
        "Append the reply's message with its tool_calls unchanged: the tool messages answer them."
    ),
    "every_call": "Answer every tool call of the turn, in order: one tool message each.",
    "own_id": "Each tool message carries its own call's id: tool_call_id=call.id.",
    "order": "Send the question, then per turn the assistant message and its tool messages.",
    "map_back": (
        "The model called {openai}, which the server knows as {server}: call the server's name "
        "(the tools keep the listing's order, so zip the two lists into a map)."
    ),
    "join_blocks": (
        'The result has {count} text blocks: join the texts of all of them with "\\n".'
    ),
    "join_separator": 'Join the texts of the blocks with "\\n", a newline.',
    "text_of_blocks": (
        "Send the text of the result's blocks (block.text), not the result or its content list."
    ),
    "is_error": (
        'The server flagged this result isError: send json.dumps({{"error": text}}, '
        "ensure_ascii=False) so the model knows the call failed."
    ),
    "ensure_ascii": (
        "The same error object, but json.dumps escaped every character outside ASCII (its "
        "default, ensure_ascii=True), so the model reads {escaped} where the server wrote "
        "{original}: pass ensure_ascii=False to keep the text as it is."
    ),
    "flagged_ok": (
        'Only a result with isError=True becomes {{"error": ...}}; send the others as text.'
    ),
    "protocol_content": (
        'A protocol error becomes {{"error": str(error)}}, with the server\'s message.'
    ),
    "protocol_own_words": (
        "The server answers this call with a protocol error (MCPError), which your loop did not "
        "pass on: send every call to the server, one whose name no tool has too, unchanged, and "
        'answer with {{"error": str(error)}}, the server\'s own message, not one of your own.'
    ),
    "content": "This tool message must hold the result's text, as the contract says.",
    "send_again": "After the tool messages, ask the model again: the answer comes in a new reply.",
    "stop_on_answer": "Stop when a reply has no tool calls: that reply is the answer.",
    "return_str": "Return the answer's text, a str: reply.choices[0].message.content.",
    "return_content": "Return the content of the reply without tool calls, unchanged.",
    "max_turns": (
        "Make at most max_turns={turns} requests (this loop made {count}), then raise "
        "RuntimeError: a model that never stops calling tools must not keep the loop going."
    ),
    "raise_at_limit": (
        "After max_turns requests without an answer, raise RuntimeError instead of returning."
    ),
}


hint = HINTS.hint


def judge_conversation(
    label: str,
    conversation: Conversation,
    exchanges: list,
    got: dict[str, Any],
    book: Any,
    *,
    finished: bool,
) -> None:
    """Fail on the first request that differs from what the contract makes it, then on the
    return value (or, for the endless model, on the missing ``RuntimeError``)."""
    __tracebackhide__ = True
    if not exchanges:
        fail(label, Plain(text("a_request")), Plain(text("no_request")), hint("no_request"))
    expected: list[dict[str, Any]] = [{"role": "user", "content": conversation.question}]
    answers: dict[int, ExpectedAnswer] = {}
    answer = None
    for number, exchange in enumerate(exchanges, start=1):
        judge_request(label, number, len(exchanges), exchange.request, expected, answers)
        if exchange.status != 200:
            message = str((exchange.reply.get("error") or {}).get("message", ""))
            got_status = Plain(f"HTTP {exchange.status}")
            fail(label, Plain(text("ok_reply")), got_status, hint("model_refused", message=message))
        message = exchange.reply["choices"][0]["message"]
        calls = message.get("tool_calls") or []
        if not calls:
            answer = message.get("content") or ""
            if number < len(exchanges):
                fail(label, requests(number), requests(len(exchanges)), hint("stop_on_answer"))
            break
        expected.append({"role": "assistant", "tool_calls": [plain_call(c) for c in calls]})
        for tool_call in calls:
            function = tool_call["function"]
            owed = expected_answer(book, function["name"], function.get("arguments") or "{}")
            answers[len(expected)] = owed
            expected.append(
                {"role": "tool", "tool_call_id": tool_call["id"], "content": owed.content}
            )
    if conversation.endless:
        judge_endless(label, exchanges, got)
    elif "raised" in got:
        judge_raised(label, got)
    elif answer is None and finished:
        fail(label, requests(len(exchanges) + 1), requests(len(exchanges)), hint("send_again"))
    elif answer is not None and finished:
        judge_return(label, answer, got)


def requests(count: int) -> Plain:
    return Plain(text("requests", count=count))


def plain_call(tool_call: Any) -> dict[str, Any]:
    if not isinstance(tool_call, dict):
        return {"unreadable": repr(tool_call)[:80]}
    function = tool_call.get("function") or {}
    return {
        "id": tool_call.get("id"),
        "type": tool_call.get("type", "function"),
        "function": {"name": function.get("name"), "arguments": function.get("arguments")},
    }


def plain_message(message: Any) -> dict[str, Any]:
    """The parts of a sent message the contract fixes (SDKs add keys such as refusal: None)."""
    if not isinstance(message, dict):
        return {"unreadable": repr(message)[:80]}
    role = message.get("role")
    if role == "assistant":
        return {
            "role": role,
            "tool_calls": [plain_call(c) for c in message.get("tool_calls") or []],
        }
    if role == "tool":
        return {key: message.get(key) for key in ("role", "tool_call_id", "content")}
    return {"role": role, "content": message.get("content")}


def judge_request(
    label: str,
    number: int,
    count: int,
    body: dict[str, Any],
    expected: list[dict[str, Any]],
    answers: dict[int, ExpectedAnswer],
) -> None:
    __tracebackhide__ = True
    where = text("request", number=number, count=count)
    if body.get("model") != CHECK_MODEL:
        fail(label, CHECK_MODEL, body.get("model"), hint("model"), where=where)
    tools = body.get("tools")
    if first_difference(expected_tools(), tools) is not None:
        shown = tools if tools is not None else Plain(text("no_tools"))
        chosen = hint("tools_08_2") if isinstance(tools, list) and tools else hint("tools")
        fail(label, Plain(text("the_tools")), shown, chosen, where=where)
    sent = body.get("messages")
    messages = [plain_message(m) for m in sent] if isinstance(sent, list) else []
    if number == 1:
        if first_difference(expected, messages) is not None:
            fail(label, expected, messages, hint("first_messages"), where=where)
        return
    roles = [m.get("role") for m in messages]
    wanted_roles = [m["role"] for m in expected]
    if roles != wanted_roles:
        where = text("roles", number=number)
        fail(label, wanted_roles, roles, roles_hint(wanted_roles, roles), where=where)
    for index, (want, have) in enumerate(zip(expected, messages, strict=True)):
        if first_difference(want, have) is None:
            continue
        at = text("message", number=number, index=index + 1)
        if index == 0:
            fail(label, want, have, hint("first_messages"), where=at)
        if want["role"] == "assistant":
            fail(label, want, have, hint("assistant_unchanged"), where=at)
        if have.get("tool_call_id") != want["tool_call_id"]:
            fail(label, want, have, hint("own_id"), where=at)
        fail(label, want, have, content_hint(answers[index], have.get("content")), where=at)


def roles_hint(wanted: list[str], roles: list[Any]):
    if roles.count("assistant") > wanted.count("assistant"):
        return hint("assistant_once")
    if roles.count("assistant") < wanted.count("assistant"):
        return hint("assistant_missing")
    if roles.count("tool") < wanted.count("tool"):
        return hint("every_call")
    return hint("order")


NOT_ASCII = re.compile(r"[^\x00-\x7f]+")
UNKNOWN_TOOL = re.compile(r"Unknown tool: (?P<name>[^\s.]+(?:\.[^\s.]+)*?)\. ")


def content_hint(owed: ExpectedAnswer, content: Any):
    """The hint for a tool message whose content is not ``owed.content``."""
    if not isinstance(content, str):
        return hint("text_of_blocks")
    joined = "\n".join(owed.blocks)
    parsed = _json(content)
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(error, str):
        unknown = UNKNOWN_TOOL.match(error)
        if unknown and server_name(unknown["name"]) != unknown["name"]:
            return hint("map_back", openai=unknown["name"], server=server_name(unknown["name"]))
    if owed.kind == "is_error" and (content == joined or (error is None and joined in content)):
        return hint("is_error")
    if _json(content) == _json(owed.content) and _json(content) is not None:
        original = NOT_ASCII.search(owed.content)
        shown = original[0] if original else ""
        return hint("ensure_ascii", original=shown, escaped=json.dumps(shown)[1:-1])
    if owed.kind == "text" and error == joined:
        return hint("flagged_ok")
    if len(owed.blocks) > 1:
        if owed.blocks[0] in (content, error):
            return hint("join_blocks", count=len(owed.blocks))
        if content.replace("\n", "") in ("".join(owed.blocks), " ".join(owed.blocks)):
            return hint("join_separator")
    markers = ("TextContent", "type='text'", '"type": "text"', "content=[", "meta=")
    if any(marker in content for marker in markers):
        return hint("text_of_blocks")
    if owed.kind == "protocol":
        return hint("protocol_own_words" if isinstance(error, str) else "protocol_content")
    return hint("content")


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def judge_return(label: str, answer: str, got: dict[str, Any]) -> None:
    __tracebackhide__ = True
    if got.get("type") != "str":
        repr_shown = str(said_value(got.get("repr", "")))[:200]
        shown = Plain(repr_shown) if "unjson_at" in got else got.get("returned")
        fail(label, answer, shown, hint("return_str"))
    if got.get("returned") != answer:
        fail(label, answer, got.get("returned"), hint("return_content"))


def judge_raised(label: str, got: dict[str, Any]) -> None:
    __tracebackhide__ = True
    message = str(got["raised"].get("message", ""))
    unknown = UNKNOWN_TOOL.match(message)
    if unknown and server_name(unknown["name"]) != unknown["name"]:
        chosen = hint("map_back", openai=unknown["name"], server=server_name(unknown["name"]))
        raise_learner_error(label, raised_reply(got), [(lambda r: True, chosen)])


def judge_endless(label: str, exchanges: list, got: dict[str, Any]) -> None:
    __tracebackhide__ = True
    count = len(exchanges)
    wanted = Plain(text("raised", count=MAX_TURNS))
    if count != MAX_TURNS:
        fail(label, wanted, requests(count), hint("max_turns", turns=MAX_TURNS, count=count))
    raised = got.get("raised") or {}
    if "RuntimeError" not in raised.get("types", ()):
        if raised:
            raise_learner_error(label, raised_reply(got))
        fail(label, wanted, Plain(text("no_answer", count=count)), hint("raise_at_limit"))
