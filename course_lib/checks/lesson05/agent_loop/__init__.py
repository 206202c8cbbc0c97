"""Exercise 05.1, ``run_agent(client, registry, question, *, model, max_iterations=6)``: the
loop, and how it stops (an answer, a repeated call, the turn limit).

The learner's loop talks to a model session on the check's side and runs the check's tools
beside the learner's code; the reference loop holds the same conversation on a session of its
own. The check compares, in the order a learner fixes things: what was sent (model, tools, the
first message), what the model refused, ``stopped``, the number of turns, the messages, the
answer, the arguments ``registry.call`` received, the steps. Rules, the case that breaks each,
and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import copy
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson05 import conversation, requests
from course_lib.checks.lesson05._agent_tools import (
    CHECK_MODEL,
    NOTEBOOK,
    check_registry,
    describe_result,
    oracle_client,
    run_loop,
    unwrap,
)
from course_lib.checks.lesson05.agent_loop import cases, verdict
from course_lib.checks.lesson05.agent_loop.verdict import compare, mask_repeats
from course_lib.checks.lesson05.conversation import fail_refused, plain_messages
from course_lib.checks.lesson05.requests import diagnose_requests
from course_lib.driver import said_value
from course_lib.i18n import spoken_label

TEXTS = Catalog() | {
    "case": "run_agent(client, registry, {question}, model={model}, max_iterations={limit}) "
    "[{label}]",
    "a_result": "AgentResult(answer, messages, steps, stopped)",
    "a_list_of_steps": "a list of Step",
    "a_step": "Step(turn, tool_call_id, name, arguments, result)",
    "no_exception": "no exception",
    "summary": "{count} conversations",
}
text = TEXTS.text


def case_label(label: str, question: str, limit: int) -> str:
    label = spoken_label(cases.CASE_TEXTS, label)
    return text("case", question=repr(question), model=repr(CHECK_MODEL), limit=limit, label=label)


def case_of(label: str) -> str:
    found, question, _, limit = cases.visible(label)
    return case_label(found, question, limit)


RULES = (
    Rule("first_message", 'start `messages` as `[{"role": "user", "content": question}]`',
         case=case_of(cases.PARALLEL), hint="first_message"),
    Rule("request", "each turn, call `client.chat.completions.create(model=model, "
         "messages=messages, tools=registry.schemas())`", case=case_of(cases.PARALLEL),
         hint="request"),
    Rule("assistant_once", "append the reply's message **once**, however many calls it holds",
         case=case_of(cases.PARALLEL), hint="assistant_twice"),
    Rule("assistant_dict", "as the dict `assistant_message(message)` returns",
         case=case_of(cases.PARALLEL), hint="messages_not_dicts"),
    Rule("answer", 'no calls: stop with `AgentResult(message.content, messages, steps, "answer")`',
         case=case_of(cases.PARALLEL), hint="stopped_answer"),
    Rule("every_call", 'else answer every call, in order: `{"role": "tool", "tool_call_id": <its '
         'id>, "content": result}`', case=case_of(cases.PARALLEL), hint="unanswered"),
    Rule("arguments", "`result` being `registry.call(name, arguments)`, the arguments string "
         "exactly as sent", case=case_of(cases.PARALLEL), hint="sent_rewritten"),
    Rule("steps", "record `Step(turn, tool_call_id, name, arguments, result)` per call, repeated "
         "ones too, turns counting from 1", case=case_of(cases.PARALLEL), hint="steps_generic"),
    Rule("repeat_parsed", "a call is **repeated** when an *earlier* turn ran that name with equal "
         "`json.loads(arguments)`", case=case_of(cases.REORDERED_REPEAT), hint="repeat_parsed"),
    Rule("not_json", "compare arguments that are not JSON as strings (no crash)",
         case=case_of(cases.NOT_JSON), hint="invalid_json"),
    Rule("same_turn", "equal calls in the *same* turn are not repeats",
         case=case_of(cases.SAME_TURN_TWICE), hint="same_turn"),
    Rule("repeat_not_run", "do not run a repeated call", case=case_of(cases.REPEAT_NEXT_TO_NEW),
         hint="repeat_run"),
    Rule("repeat_error", 'answer it with a JSON object holding `"error"` (your wording, any '
         "language)", case=case_of(cases.REPEAT_NEXT_TO_NEW), hint="repeat_error"),
    Rule("repeat_stop", "finish the turn's other calls, then return `AgentResult(None, messages, "
         'steps, "repeated_call")`', case=case_of(cases.REPEAT_FIRST), hint="stopped_at_repeat"),
    Rule("limit", "after `max_iterations` turns: `AgentResult(None, messages, steps, "
         '"max_iterations")`', case=case_of(cases.ENDLESS), hint="no_limit"),
    Rule("last_turn_calls", "answer the last turn's calls too", case=case_of(cases.ENDLESS),
         hint="last_turn_unanswered"),
    Rule("last_turn_answer", 'an answer on the last turn is still `"answer"`',
         case=case_of(cases.LAST_TURN_ANSWER), hint="last_answer"),
)  # fmt: skip

# Every hint of 05.1: its own, the verdict's, and those it shares with 05.2 (messages, requests).
HINTS = Catalog(also=(verdict.HINTS, conversation.HINTS, requests.HINTS)) | {
    "result_shape": (
        "Return AgentResult(answer=..., messages=..., steps=..., stopped=...); missing: {missing}."
    ),
    "steps_list": "steps is a list of Step, one per tool call.",
    "step_shape": "Record each call as Step(turn, tool_call_id, name, arguments, result).",
    "invalid_json": (
        "The model can send arguments that are not valid JSON. Do not let json.loads crash the "
        "loop: pass the string to registry.call as it is (it answers with an error), and for "
        "the repeat check compare such a string as it is."
    ),
}
hint = HINTS.hint


RUN_CODE = "result = run_agent(client, registry, question, model=model, max_iterations=limit)"
RESULT = "describe_result(result, registry)"


@exercise("05.1", notebook=NOTEBOOK, title="run_agent", points=4, rules=RULES, hints=HINTS)
def check_run_agent(learner: Learner) -> str:
    table = cases.loop_cases(hidden_rng("05.1"))
    for label, question, policy, limit in table:
        case = case_label(label, question, limit)
        reply, session = run_loop(
            learner, "run_agent", RUN_CODE, RESULT, policy(), question, limit=limit
        )
        diagnose_requests(case, question, session.exchanges)
        if reply.raised:
            explain_raised(case, reply, session.exchanges)
        view, repeated = reference_view(label, question, policy, limit)
        expected, got = read_view(case, view), read_view(case, reply.value)
        mask_repeats(case, expected, got, repeated)
        compare(case, expected, got, limit, repeated=repeated)
    return text("summary", count=len(table))


_REFERENCE_VIEWS: dict[str, tuple[dict, set[str]]] = {}


def reference_view(
    label: str, question: str, policy: Any, limit: int, **options: Any
) -> tuple[dict, set[str]]:
    """The reference loop's result on this conversation (``options`` such as 05.6's
    ``tool_choice`` passed on), described as the learner's is, and the ids of its repeated
    calls. The same on every run, so it is computed once per process (a copy is returned: the
    comparison masks the repeated calls' wording in place)."""
    from course_lib.reference import loop as reference

    if label not in _REFERENCE_VIEWS:
        registry = check_registry()
        result = reference.run_agent(
            oracle_client(policy()), registry, question, model=CHECK_MODEL,
            max_iterations=limit, **options,
        )  # fmt: skip
        error = '{"error": "Repeated call'  # how the reference answers a repeated call
        repeated = {s.tool_call_id for s in result.steps if s.result.startswith(error)}
        _REFERENCE_VIEWS[label] = (describe_result(result, registry), repeated)
    view, repeated = _REFERENCE_VIEWS[label]
    return copy.deepcopy(view), set(repeated)


def explain_raised(case: str, reply: Reply, exchanges: list) -> None:
    """The learner's loop raised: a refused conversation names the rule it broke."""
    __tracebackhide__ = True
    if reply.raised_a("BadRequestError"):
        fail_refused(case, reply.message, exchanges)
    if reply.raised_a("JSONDecodeError"):
        fail(case, Plain(text("no_exception")), Plain(reply.raised_text), hint("invalid_json"))
    raise_learner_error(case, reply)


def read_view(case: str, view: dict[str, Any]) -> dict[str, Any]:
    """The result's description (``describe_result``) as the four fields and ``sent``, as
    plain JSON, or a failed case saying what is not what the contract asks."""
    __tracebackhide__ = True

    def wrong(what: str, shown: str, chosen: str) -> None:
        __tracebackhide__ = True
        fail(case, Plain(text(what)), Plain(said_value(shown)), chosen)

    if view["missing"]:
        wrong("a_result", view["repr"], hint("result_shape", missing=", ".join(view["missing"])))
    steps = view["steps"]
    if "container" in steps:
        wrong("a_list_of_steps", steps["repr"], hint("steps_list"))
    if "bad_step" in steps:
        wrong("a_step", steps["bad_step"], hint("step_shape"))
    return {
        "stopped": unwrap(case, view["stopped"], "stopped"),
        "answer": unwrap(case, view["answer"], "answer"),
        "messages": plain_messages(case, view["messages"], unwrap),
        "steps": unwrap(case, steps, "steps"),
        "sent": unwrap(case, view["sent"], verdict.text("sent")),
    }
