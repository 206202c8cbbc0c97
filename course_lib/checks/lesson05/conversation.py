"""Reading a conversation a learner's loop built (05.1 and 05.2): what the model refused, and
the first message that differs from the reference loop's, with the hint that explains it.

Both loops are judged on what really happened: the requests their client sent are in the model
session's ``exchanges`` (on the check's side), and the messages they returned arrive as plain
data described beside the learner's code (``VIEW_SOURCE``).
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, fail, first_difference
from course_lib.driver import said_value

HINTS = Catalog() | {
    "assistant_twice": (
        "The same assistant message was appended more than once (once per tool call). Append "
        "the assistant message once per turn, before the loop over its calls; then append one "
        "tool message per call."
    ),
    "calls_split": (
        "Each call got an assistant message of its own, but the model made these calls in one "
        "reply: append that reply once, assistant_message(message) with all its tool_calls, "
        "then one tool message per call. The conversation must show what the model said, as "
        "it said it."
    ),
    "same_id": (
        "Two tool messages carry the same tool_call_id, {id}: each tool message carries the id "
        "of the call it answers (tool_call.id of that call), so that every call of the turn is "
        "answered once."
    ),
    "unanswered": (
        "A tool call was never answered: every call of a turn (the second of two parallel calls "
        "too) needs its own tool message with its tool_call_id, right after the assistant "
        "message."
    ),
    "refused": (
        "The model refused the conversation: after an assistant message with tool_calls come "
        "only tool messages, one per call, each with the tool_call_id of the call it answers."
    ),
    "messages_not_dicts": (
        "Keep every message as a plain dict: append assistant_message(message), not the SDK's "
        "message object."
    ),
    "too_many_turns": (
        "The loop asked the model {made} times, more than {limit}={allowed} allows: at most "
        "{allowed} turns, the last one's calls answered too; then return the list."
    ),
    "too_few_turns": (
        "The loop asked the model {made} times and returned with every call answered, but "
        "{limit}={allowed} allows {allowed} turns: loop for turn in range({limit}), and stop "
        "earlier only on a reply without calls."
    ),
    "content_missing": (
        'This assistant message has no "content" key. The API accepts that next to '
        "tool_calls, so it is equivalent, but the exercise asks for the dict "
        'assistant_message(message) returns, which keeps "content": None.'
    ),
    "extra_keys": (
        "This {role} message has keys the contract does not list: {keys}. Append "
        'assistant_message(message) for the reply, and {{"role": "tool", "tool_call_id": ..., '
        '"content": ...}} for each result, nothing more.'
    ),
    "call_order": "Answer the calls in the order the assistant message lists them.",
    "repeat_unanswered": (
        "The repeated call has no tool message: every call needs one, a repeated call too "
        "(answered with an error), so that the conversation stays valid to send again."
    ),
    "stopped_at_repeat": (
        "The loop stopped at the repeated call, so the calls listed after it in the same turn "
        "were never run or answered. Do not break out of the loop over the calls: answer the "
        'repeat with an error, run the other calls, and return stopped="repeated_call" after '
        "the whole turn."
    ),
    "last_turn_unanswered": (
        "The calls of the last allowed turn were not run: the loop returned as soon as the "
        "model asked for them. Run and answer every call of that turn too, then return "
        'stopped="max_iterations", so the conversation stays valid to send again.'
    ),
    "last_turn_unanswered_list": (
        "The calls of the last allowed turn were not run: the loop returned as soon as the "
        "model asked for them. Run and answer every call of that turn too, then return the "
        "list, so the conversation stays valid to send again."
    ),
    "call_unanswered": (
        "Some call has no tool message: every call of a turn needs one, in the order the "
        "assistant message lists them."
    ),
    "tool_call_shape": (
        'Each tool call is {{"id": ..., "type": "function", "function": {{"name", "arguments"}}}}.'
    ),
    "final_missing": (
        "The final assistant message (the answer) belongs in the list too: append it."
    ),
    "starts_with_user": 'The conversation starts with {{"role": "user", "content": question}}.',
    "tool_content_str": "A tool message's content is the string registry.call returned.",
    "messages_generic": (
        "Compare with the contract: one assistant message per turn (content and tool_calls), "
        "then one tool message per call; the final assistant message ends the list."
    ),
}
hint = HINTS.hint

TEXTS = Catalog() | {
    "accepted": "a conversation the model accepts",
    "bad_request": "BadRequestError: {message}",
    "a_list_of_dicts": "a list of dicts",
    "list_of": "a list holding {kinds}",
    "message_at": "messages[{position}] of {count} (expected {expected} messages)",
    "no_message": "(no message)",
}
text = TEXTS.text


# --- what the model refused ----------------------------------------------------------------


def broken_rule(exchanges: list) -> HintText:
    """The hint for a conversation the model refused, read from the last request sent."""
    messages = exchanges[-1].request.get("messages", []) if exchanges else []
    seen_calls: dict[str, int] = {}
    for index, message in enumerate(messages if isinstance(messages, list) else []):
        if not isinstance(message, dict):
            continue
        calls = message.get("tool_calls") or []
        ids = [c.get("id") for c in calls if isinstance(c, dict)]
        if message.get("role") == "assistant" and any(i in seen_calls for i in ids):
            return hint("assistant_twice")
        seen_calls.update(dict.fromkeys(ids, index))
    answers = [m.get("tool_call_id") for m in messages if isinstance(m, dict)]
    twice = next((i for i in seen_calls if answers.count(i) > 1), None)
    if twice is not None:
        return hint("same_id", id=twice)
    if any(i not in answers for i in seen_calls):
        return hint("unanswered")
    return hint("refused")


def fail_refused(case: str, message: str, exchanges: list) -> None:
    """The model answered HTTP 400: fail ``case`` naming the rule the conversation broke."""
    __tracebackhide__ = True
    refused = Plain(text("bad_request", message=message))
    fail(case, Plain(text("accepted")), refused, broken_rule(exchanges))


# --- the messages as data ------------------------------------------------------------------


def plain_messages(case: str, described: dict[str, Any], unwrap: Any) -> list[dict]:
    """Messages (``describe_messages``) as JSON, without SDK noise (None-valued keys other
    than content); a list holding something other than dicts fails the case. A missing
    ``content`` stays missing: the contract asks for ``assistant_message``'s dict."""
    __tracebackhide__ = True
    if "kinds" in described or "container" in described:
        kinds = described.get("kinds")
        got = text("list_of", kinds=", ".join(kinds)) if kinds else described.get("repr", "")
        got = said_value(got)  # a repr that raised, said in the language in force
        fail(case, Plain(text("a_list_of_dicts")), Plain(got), hint("messages_not_dicts"))
    plain = []
    for message in unwrap(case, described, "messages"):
        message = {k: v for k, v in message.items() if v is not None or k == "content"}
        if message.get("role") == "assistant":
            calls = message.pop("tool_calls", None) or []
            if calls:
                message["tool_calls"] = [_plain_call(c) for c in calls]
        plain.append(message)
    return plain


def _plain_call(call: Any) -> Any:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        return call
    function = {key: call["function"].get(key) for key in ("name", "arguments")}
    return {"id": call.get("id"), "type": call.get("type"), "function": function}


def tool_calls(messages: list[dict]) -> list:
    """The tool calls of every assistant message, in order."""
    return [c for m in messages if m.get("role") == "assistant" for c in m.get("tool_calls", [])]


def _all_answered(messages: list[dict]) -> bool:
    """Whether the conversation ends on a tool message and every call it holds is answered."""
    calls = {c.get("id") for c in tool_calls(messages) if isinstance(c, dict)}
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    return bool(messages) and messages[-1].get("role") == "tool" and calls <= answered


def turns(messages: list[dict]) -> int:
    return sum(1 for m in messages if m.get("role") == "assistant")


def _call_ids_by_message(messages: list[dict]) -> list[list[Any]]:
    return [
        [c.get("id") for c in m["tool_calls"] if isinstance(c, dict)]
        for m in messages
        if m.get("role") == "assistant" and m.get("tool_calls")
    ]


def calls_split(expected: list[dict], got: list[dict]) -> bool:
    """Whether ``got`` holds the expected calls, in order, spread over more assistant messages
    (one per call): more assistant messages than turns, which is no extra turn."""
    want, have = _call_ids_by_message(expected), _call_ids_by_message(got)
    flat = [[i for ids in by_message for i in ids] for by_message in (want, have)]
    return len(have) > len(want) and flat[0] == flat[1]


# --- the first message that differs ----------------------------------------------------------


def _missing_answer_hint(
    expected: list[dict], missing: str, repeated: set[str], stopped: str | None, returns_list: bool
) -> HintText:
    """Why the call ``missing`` went unanswered: a stop at a repeat, at the limit, or a repeat."""
    by_message = _call_ids_by_message(expected)
    ids = next(ids for ids in by_message if missing in ids)
    if missing in repeated:
        return hint("repeat_unanswered")
    if any(i in repeated for i in ids[: ids.index(missing)]):
        return hint("stopped_at_repeat")
    if stopped == "max_iterations" and ids is by_message[-1]:
        return hint("last_turn_unanswered_list" if returns_list else "last_turn_unanswered")
    return hint("call_unanswered")


def _shape_hint(expected: list[dict], got: list[dict]) -> HintText | None:
    """At the first message that differs from one of the same role: a missing content or
    keys the contract does not list, when that is what differs."""
    for want, have in zip(expected, got, strict=False):
        if want == have:
            continue
        if want.get("role") != have.get("role"):
            return None
        if "content" not in have and {**have, "content": want.get("content")} == want:
            return hint("content_missing")
        extra = sorted(set(have) - set(want))
        if extra:
            return hint("extra_keys", role=have.get("role"), keys=", ".join(map(repr, extra)))
        return None
    return None


def messages_hint(
    expected: list[dict],
    got: list[dict],
    *,
    repeated: set[str] = frozenset(),
    stopped: str | None = None,
    limit: tuple[str, int] | None = None,
) -> HintText:
    """The hint for two different conversations. ``limit`` (the name and value of the turn
    limit) is given when going past it is the likely mistake; with it, the loop returns the
    list of messages (05.2) rather than a result with ``stopped``."""
    tool_ids = [m.get("tool_call_id") for m in got if m.get("role") == "tool"]
    want_ids = [m.get("tool_call_id") for m in expected if m.get("role") == "tool"]
    if calls_split(expected, got):
        return hint("calls_split")
    if limit and turns(got) > turns(expected):
        return hint("too_many_turns", made=turns(got), limit=limit[0], allowed=limit[1])
    ran_out = stopped == "max_iterations" and got != expected[:-1]
    if limit and ran_out and turns(got) < turns(expected) and _all_answered(got):
        return hint("too_few_turns", made=turns(got), limit=limit[0], allowed=limit[1])
    if sorted(map(str, tool_ids)) == sorted(map(str, want_ids)) and tool_ids != want_ids:
        return hint("call_order")
    shape = _shape_hint(expected, got)
    if shape is not None:
        return shape
    missing = [i for i in want_ids if i not in tool_ids]
    if len(tool_ids) < len(want_ids) and missing:
        return _missing_answer_hint(expected, missing[0], repeated, stopped, limit is not None)
    calls = tool_calls(got)
    if calls and not any(isinstance(c, dict) and "function" in c for c in calls):
        return hint("tool_call_shape")
    if got == expected[:-1]:
        return hint("final_missing")
    if got and got[0] != expected[0]:
        return hint("starts_with_user")
    if any(m.get("role") == "tool" and not isinstance(m.get("content"), str) for m in got):
        return hint("tool_content_str")
    return hint("messages_generic")


def compare_messages(case: str, expected: list[dict], got: list[dict], **context: Any) -> None:
    """Fail on the first message that differs, showing that message rather than the whole list.

    ``context`` (the ids of repeated calls, the expected ``stopped``, the turn limit when going
    past it is the likely mistake) lets the hint say what went wrong."""
    __tracebackhide__ = True
    if first_difference(expected, got) is None:
        return
    chosen = messages_hint(expected, got, **context)
    position, want, have = first_differing(expected, got, text("no_message"))
    where = text("message_at", position=position, count=len(got), expected=len(expected))
    fail(case, want, have, chosen, where=where)


def first_differing(expected: list, got: list, none: str) -> tuple[int, Any, Any]:
    """Where two lists first differ (at the shorter one's end when one is the other plus more)
    and their items there, ``none`` shown for an item a list lacks (05.1's steps too)."""
    differ = (first_difference(e, g) is not None for e, g in zip(expected, got, strict=False))
    position = next((i for i, d in enumerate(differ) if d), min(len(expected), len(got)))

    def at(items: list) -> Any:
        return items[position] if position < len(items) else Plain(none)

    return position, at(expected), at(got)
