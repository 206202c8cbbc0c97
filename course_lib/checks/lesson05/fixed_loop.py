"""Exercise 05.2, ``fixed_loop(client, registry, question, *, model, max_turns=6)``: the given
``buggy_loop`` (the assistant message appended once per tool call), fixed.

The learner's loop talks to a model session on the check's side; its messages are compared with
the reference loop's on the same conversation (``max_turns`` plays ``max_iterations``; there is
no repeated-call guard here, and no conversation repeats a call). Rules, the case that breaks
each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson05 import conversation, requests
from course_lib.checks.lesson05._agent_tools import CHECK_MODEL, CITIES, NOTEBOOK, run_loop, unwrap
from course_lib.checks.lesson05.agent_loop import explain_raised, reference_view
from course_lib.checks.lesson05.agent_loop.cases import Endless, call_spec, heuristic, script
from course_lib.checks.lesson05.conversation import compare_messages, plain_messages
from course_lib.checks.lesson05.requests import diagnose_requests

TEXTS = Catalog() | {
    "case": "fixed_loop(client, registry, {question}, model={model})",
    "case_limit": "fixed_loop(client, registry, {question}, model={model}, max_turns={limit})",
    "summary": "{count} conversations",
}
text = TEXTS.text

TWO_CITIES = "北京和上海的天气怎么样？"
ENDLESS_QUESTION = "a model that never stops calling"


def case_label(question: str, limit: int | None) -> str:
    if limit is None:
        return text("case", question=repr(question), model=repr(CHECK_MODEL))
    return text("case_limit", question=repr(question), model=repr(CHECK_MODEL), limit=limit)


RULES = (
    Rule("requests", "the same requests as `buggy_loop`: `model=model`, the messages so far and "
         "`tools=registry.schemas()`, starting from the user's question",
         case=case_label(TWO_CITIES, None), hint="request"),
    Rule("assistant_once", "each turn appends the assistant message **once**, with all its calls "
         "(`assistant_message(message)`)", case=case_label(TWO_CITIES, None),
         hint="assistant_twice"),
    Rule("tool_messages_after", "right after it come the tool messages, before anything else",
         case=case_label(TWO_CITIES, None), hint="refused"),
    Rule("every_call", "one tool message per call, each with its call's `tool_call_id`",
         case=case_label(TWO_CITIES, None), hint="unanswered"),
    Rule("call_order", "in the order the assistant message lists the calls",
         case=case_label(TWO_CITIES, None), hint="call_order"),
    Rule("final_answer", "a reply with no calls is appended too, and the list returned",
         case=case_label(TWO_CITIES, None), hint="final_missing"),
    Rule("max_turns", "at most `max_turns` turns", case=case_label(ENDLESS_QUESTION, 3),
         hint="too_many_turns"),
    Rule("last_turn_calls", "when the last turn asked for calls, they are answered before the list "
         "is returned", case=case_label(ENDLESS_QUESTION, 3), hint="last_turn_unanswered_list"),
)  # fmt: skip


def fixed_loop_cases() -> list[tuple[str, Any, int | None]]:
    """(question, policy factory, max_turns or None for the default), the visible ones first."""
    rng = hidden_rng("05.2")
    table: list[tuple[str, Any, int | None]] = [
        (TWO_CITIES, heuristic, None),
        ("What is the weather in 北京, 上海 and Paris?", heuristic, None),
        ("What time is it in London?", heuristic, None),
        ("hello", heuristic, None),
        (ENDLESS_QUESTION, Endless, 3),
    ]
    for _ in range(4):
        cities = rng.sample(CITIES, 4)
        policy = script(
            [call_spec("get_weather", cities[0]), call_spec("get_time", cities[1])],
            [call_spec("get_time", c) for c in cities[2:]],
            rng.choice(["好的。", "Done."]),
        )
        table.append(("、".join(cities), policy, None))
    return table


# Every hint of 05.2: those it shares with 05.1 (the messages, the requests).
HINTS = Catalog(also=(conversation.HINTS, requests.HINTS))
CODE = "result = fixed_loop(client, registry, question, model=model, **limit)"
RESULT = "describe_messages(result)"


@exercise("05.2", notebook=NOTEBOOK, title="fixed_loop", points=2, rules=RULES, hints=HINTS)
def check_fixed_loop(learner: Learner) -> str:
    table = fixed_loop_cases()
    for question, policy, limit in table:
        case = case_label(question, limit)
        given = {} if limit is None else {"max_turns": limit}
        reply, session = run_loop(
            learner, "fixed_loop", CODE, RESULT, policy(), question, limit=given
        )
        diagnose_requests(case, question, session.exchanges)
        if reply.raised:
            explain_raised(case, reply, session.exchanges)
        view, _ = reference_view(f"05.2 {case}", question, policy, limit or 6)
        want, have = (plain_messages(case, v, unwrap) for v in (view["messages"], reply.value))
        stopped = unwrap(case, view["stopped"], "stopped")
        compare_messages(case, want, have, stopped=stopped, limit=("max_turns", limit or 6))
    return text("summary", count=len(table))
