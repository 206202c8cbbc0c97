"""Exercise 05.3, ``run_tool_calls(registry, tool_calls) -> list[dict]``: one turn's calls run
at the same time in threads, their tool messages returned in call order.

Each batch gets its own registry, built beside the learner's code from ``MEETING_SOURCE``: its
tools finish only once every call of the batch is running, and the last call finishes first,
so calls run one after another, or messages in the order calls finish, show without measuring
any time. Rules, the case that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import json
from random import Random
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, expect_equal, fail, hidden_rng, show
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson05._agent_tools import NOTEBOOK
from course_lib.checks.lesson05._agent_tools import parsed_json as _parsed
from course_lib.checks.lesson05._meeting import (
    MEETING_SOURCE,
    WAIT,
    batch,
    expected_messages,
    shown_calls,
)
from course_lib.driver import said_value

TEXTS = Catalog() | {
    "case": "run_tool_calls(registry, [{calls}])",
    "case_down": "run_tool_calls(registry, [{calls}]) where {names} raise(s)",
    "together": "all {count} calls running at the same time",
    "one_after_another": "the calls ran one after another",
    "at_most": "at most {peak} of the {count} calls running at once",
    "sent": "the arguments registry.call received",
    "summary": "{count} batches",
    "not_a_list": "a {kind}, not a list",
}
text = TEXTS.text


# More calls than ThreadPoolExecutor() starts threads without max_workers (at most 32).
MANY = 40


def batches(rng: Random) -> list[tuple[list[dict], list[str]]]:
    """Three calls, three with one raising, one call, none; then random ones; then three
    calls written compactly (arguments parsed and dumped again differ from them) and a batch
    larger than a thread pool's default size."""
    table = [batch(rng, 3, 0), batch(rng, 3, 1), batch(rng, 1, 0), ([], [])]
    table += [batch(rng, rng.randint(1, 4), rng.choice([0, 0, 1, 2])) for _ in range(6)]
    return table + [batch(rng, 3, 0, compact=True), batch(rng, MANY, 0)]


def case_label(calls: list[dict], down: list[str]) -> str:
    if down:
        return text("case_down", calls=shown_calls(calls), names=", ".join(down))
    return text("case", calls=shown_calls(calls))


BATCHES = batches(hidden_rng("05.3"))
THREE, THREE_ONE_DOWN, ONE, NONE = (case_label(*b) for b in BATCHES[:4])

RULES = (
    Rule("arguments", "every call runs `registry.call(name, arguments)`, the arguments string "
         "unchanged", case=THREE, hint="arguments_parsed"),
    Rule("together", "all calls run **at the same time**, one thread per call "
         "(`ThreadPoolExecutor(max_workers=len(tool_calls))`): the check's tools finish only when "
         "every call of the batch is running, and the last call finishes first", case=THREE,
         hint="together"),
    Rule("message", "the result has one `{\"role\": \"tool\", \"tool_call_id\": <the call's id>, "
         '"content": <result>}` per call', case=THREE, hint="tool_call_id_key"),
    Rule("order", "in the order of `tool_calls`, not the order the calls finish", case=THREE,
         hint="completion_order"),
    Rule("isolated", "when `registry.call` raises (ours never does, one from elsewhere might; the "
         "check's does), the other calls still run and keep their results", case=THREE_ONE_DOWN,
         hint="batch_down"),
    Rule("error_text", "that call's content is `json.dumps({\"error\": f\"{type(exc).__name__}: "
         '{exc}"}, ensure_ascii=False)`', case=THREE_ONE_DOWN, hint="error_format"),
    Rule("ensure_ascii", "which keeps 北京 readable (`ensure_ascii=False`)", case=THREE_ONE_DOWN,
         hint="ensure_ascii"),
    Rule("empty", "no calls gives `[]`", case=NONE, hint="empty"),
)  # fmt: skip

HINTS = Catalog() | {
    "together": (
        "Start every call before waiting for any: submit them all to a "
        "ThreadPoolExecutor(max_workers=len(tool_calls)) (one thread per call) and then collect "
        "the results."
    ),
    "arguments_parsed": (
        "registry.call received the parsed arguments (a dict) instead of the string. It would "
        "accept them, but the exercise asks for each call's arguments string exactly as it "
        'came: tool_call["function"]["arguments"].'
    ),
    "arguments_unchanged": "Pass each call's arguments string to registry.call unchanged.",
    "arguments_rewritten": (
        "These arguments are the same JSON as the call's, written differently (parsed and "
        "dumped again). The registry would accept them, but the exercise asks for each "
        'call\'s arguments string exactly as it came: tool_call["function"]["arguments"].'
    ),
    "batch_down": (
        "One failing call took the whole batch down. Catch the exception inside the function "
        'each thread runs and answer that call with json.dumps({{"error": '
        'f"{{type(exc).__name__}}: {{exc}}"}}, ensure_ascii=False).'
    ),
    "empty": (
        "With no calls there is nothing to run: return [] before creating a pool "
        "(ThreadPoolExecutor(max_workers=0) raises)."
    ),
    "result_list": "Return a list: one tool message dict per call.",
    "one_per_call": "Return exactly one tool message per call, no more, no fewer.",
    "item_dict": 'Each item is a dict {{"role": "tool", "tool_call_id": ..., "content": ...}}.',
    "completion_order": (
        "The messages come in the order the calls finished, not the order they were asked: "
        "collect the results in call order (pool.map, or a list of futures read in order), not "
        "with as_completed."
    ),
    "tool_call_id_key": 'The key is "tool_call_id" (the id of the call the message answers).',
    "role_tool": 'Each message has "role": "tool".',
    "ensure_ascii": (
        "The error object is right, but written with \\u escapes: pass ensure_ascii=False to "
        "json.dumps, so that text such as 北京 stays readable."
    ),
    "error_format": (
        "When registry.call raises, that call's content is "
        'json.dumps({{"error": f"{{type(exc).__name__}}: {{exc}}"}}, ensure_ascii=False) and the '
        "other calls keep their results: catch the exception inside the function each thread "
        "runs."
    ),
    "message_shape": (
        'Each tool message is {{"role": "tool", "tool_call_id": call["id"], "content": result}}.'
    ),
}
hint = HINTS.hint


@exercise("05.3", notebook=NOTEBOOK, title="run_tool_calls", points=3, rules=RULES, hints=HINTS)
def check_run_tool_calls(learner: Learner) -> str:
    made_by = "MeetingRegistry(count, down, timeout)"
    for calls, down in BATCHES:
        case = case_label(calls, down)
        bind = {"count": len(calls), "down": down, "timeout": WAIT}
        made = learner.run(MEETING_SOURCE, result=made_by, bind=bind, keep=True)
        registry = learner.handle(made.handle)
        reply = learner.attempt("run_tool_calls", registry, calls)
        observed = learner.run("", result="r.observed()", bind={"r": registry}).value
        learner.release(made.handle)
        if reply.raised:
            explain_raised(case, reply, expected_messages(calls, down), observed)
        judge(case, calls, down, observed, reply, hint)
    return text("summary", count=len(BATCHES))


def explain_raised(case: str, reply: Reply, expected: list[dict], observed: dict) -> None:
    """A raise after the registry raised for a call is that exception let out, whatever
    type it was wrapped in."""
    __tracebackhide__ = True
    if observed["raised_down"] or "is down for" in reply.message:
        fail(case, expected, Plain(reply.raised_text), hint("batch_down"))
    if reply.raised_a("ValueError") and not expected:
        fail(case, expected, Plain(reply.raised_text), hint("empty"))
    raise_learner_error(case, reply)


def judge(
    case: str, calls: list[dict], down: list[str], observed: dict, reply: Reply, hints: Any
) -> None:
    """The verdict on one batch, the same for 05.3 and 05.5 (``hints`` is the module's
    ``hint``): the calls met, received their arguments unchanged, and the messages are right."""
    __tracebackhide__ = True
    if observed["broken"]:
        count, peak = len(calls), observed["peak"]
        got = text("one_after_another") if peak < 2 else text("at_most", peak=peak, count=count)
        fail(case, Plain(text("together", count=count)), Plain(got), hints("together"))
    sent = [c["function"]["arguments"] for c in calls]
    received = observed["arguments"]
    if "arguments_unjson_at" in observed:  # their repr: a stand-in is said in the language
        received = said_value(received)
    if not isinstance(received, list) or sorted(map(show, received)) != sorted(map(show, sent)):
        parsed, listed = sorted(show(json.loads(a)) for a in sent), isinstance(received, list)
        key = "arguments_unchanged"
        if listed and sorted(map(show, received)) == parsed:
            key = "arguments_parsed"
        elif listed and sorted(show(_parsed(item)) for item in received) == parsed:
            key = "arguments_rewritten"
        fail(case, sent, received, hints(key), where=text("sent"))
    expected = expected_messages(calls, down)
    if not reply.returned:
        fail(case, expected, Plain(reply.data.get("repr", "")), hints("result_list"))
    if reply.type != "list":  # a tuple arrives here as a JSON array, like a list
        fail(case, expected, Plain(text("not_a_list", kind=reply.type)), hints("result_list"))
    expect_equal(case, expected, reply.value, hint=messages_hint(expected, reply.value, hints))


def messages_hint(expected: list[dict], got: Any, hints: Any) -> HintText:
    if not isinstance(got, list):
        return hints("result_list")
    if len(got) != len(expected):
        return hints("one_per_call")
    if not all(isinstance(m, dict) for m in got):
        return hints("item_dict")
    ids, want = [m.get("tool_call_id") for m in got], [m["tool_call_id"] for m in expected]
    if sorted(map(str, ids)) == sorted(want) and ids != want:
        return hints("completion_order")
    if any("tool_call_id" not in m for m in got):
        return hints("tool_call_id_key")
    if any(m.get("role") != "tool" for m in got):
        return hints("role_tool")
    for message, wanted in zip(got, expected, strict=True):
        content = message.get("content")
        if content != wanted["content"] and _parsed(content) == _parsed(wanted["content"]):
            return hints("ensure_ascii")
        if content != wanted["content"] and wanted["content"].startswith('{"error"'):
            return hints("error_format")
    return hints("message_shape")
