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

import json
from typing import Any

from course_lib.checks.compare import HintText, Plain, fail, first_difference, hidden_rng, show
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson05 import agent_loop_cases as cases
from course_lib.checks.lesson05._shared import (
    CHECK_MODEL,
    KERNEL_SOURCE,
    NOTEBOOK,
    check_registry,
    describe_result,
    oracle_client,
    unwrap,
)
from course_lib.checks.lesson05.conversation import (
    compare_messages,
    fail_refused,
    plain_messages,
    turns,
)
from course_lib.checks.lesson05.requests import diagnose_requests

TEXTS = {
    "case": "run_agent(client, registry, {question}, model={model}, max_iterations={limit}) "
    "[{label}]",
    "a_result": "AgentResult(answer, messages, steps, stopped)",
    "a_list_of_steps": "a list of Step",
    "a_step": "Step(turn, tool_call_id, name, arguments, result)",
    "error_object": 'a JSON object {{"error": "..."}}',
    "no_exception": "no exception",
    "no_step": "(no step)",
    "stopped": "stopped",
    "answer": "answer",
    "turns": "the number of turns (assistant messages)",
    "sent": "the arguments registry.call received",
    "repeat_message": "the tool message answering the repeated call",
    "step": "steps[{position}]",
    "step_counts": "{got} steps (expected {expected})",
    "step_difference_counts": "{difference}; {got} steps (expected {expected})",
    "summary": "{count} conversations",
}


def text(key: str, **fields: object) -> str:
    return TEXTS[key].format(**fields)


def case_label(label: str, question: str, limit: int) -> str:
    return text("case", question=repr(question), model=repr(CHECK_MODEL), limit=limit, label=label)


def case_of(label: str) -> str:
    found, question, _, limit = cases.visible(label)
    return case_label(found, question, limit)


RULES = (
    Rule(
        "first_message",
        'messages starts as [{"role": "user", "content": question}].',
        case=case_of(cases.PARALLEL),
        hint="first_message",
    ),
    Rule(
        "request",
        "Each turn calls create(model=model, messages=messages, tools=registry.schemas()).",
        case=case_of(cases.PARALLEL),
        hint="request",
    ),
    Rule(
        "assistant_once",
        "The reply's message is appended once, however many calls it holds.",
        case=case_of(cases.PARALLEL),
        hint="assistant_twice",
    ),
    Rule(
        "assistant_dict",
        "It is appended as the plain dict assistant_message(message) returns.",
        case=case_of(cases.PARALLEL),
        hint="messages_not_dicts",
    ),
    Rule(
        "answer",
        'A reply without calls ends the loop: AgentResult(content, messages, steps, "answer").',
        case=case_of(cases.PARALLEL),
        hint="stopped_answer",
    ),
    Rule(
        "every_call",
        "Every call gets its tool message, with its tool_call_id, in call order.",
        case=case_of(cases.PARALLEL),
        hint="unanswered",
    ),
    Rule(
        "arguments",
        "result is registry.call(name, arguments), the arguments string passed exactly as sent.",
        case=case_of(cases.PARALLEL),
        hint="sent_rewritten",
    ),
    Rule(
        "steps",
        "Each call adds Step(turn, tool_call_id, name, arguments, result), turn counting from 1.",
        case=case_of(cases.PARALLEL),
        hint="steps_generic",
    ),
    Rule(
        "repeat_parsed",
        "A call is repeated when an earlier turn ran the same name with equal parsed arguments.",
        case=case_of(cases.REORDERED_REPEAT),
        hint="repeat_parsed",
    ),
    Rule(
        "not_json",
        "Arguments that are not JSON are compared as strings, without crashing.",
        case=case_of(cases.NOT_JSON),
        hint="invalid_json",
    ),
    Rule(
        "same_turn",
        "Two equal calls in the same turn are not repeats.",
        case=case_of(cases.SAME_TURN_TWICE),
        hint="same_turn",
    ),
    Rule(
        "repeat_not_run",
        "A repeated call is not run.",
        case=case_of(cases.REPEAT_NEXT_TO_NEW),
        hint="repeat_run",
    ),
    Rule(
        "repeat_error",
        'Its result is a JSON object with an "error" key.',
        case=case_of(cases.REPEAT_NEXT_TO_NEW),
        hint="repeat_error",
    ),
    Rule(
        "repeat_stop",
        'The turn\'s other calls still run, then AgentResult(None, ..., "repeated_call").',
        case=case_of(cases.REPEAT_FIRST),
        hint="stopped_at_repeat",
    ),
    Rule(
        "limit",
        'Up to max_iterations turns, then AgentResult(None, ..., "max_iterations").',
        case=case_of(cases.ENDLESS),
        hint="no_limit",
    ),
    Rule(
        "last_turn_calls",
        "The calls of the last turn are answered too.",
        case=case_of(cases.ENDLESS),
        hint="last_turn_unanswered",
    ),
    Rule(
        "last_turn_answer",
        'An answer on the last turn is still "answer".',
        case=case_of(cases.LAST_TURN_ANSWER),
        hint="last_answer",
    ),
)

HINTS = {
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
    "no_limit": (
        "No max_iterations guard: the loop asked the model {made} times with "
        "max_iterations={limit}. Loop at most max_iterations times, then return stopped="
        '"max_iterations" with answer None.'
    ),
    "same_turn": (
        "Two identical calls in the same turn are not a repeat: only a call that an earlier "
        "turn already ran is. Run both, and add the turn's calls to the ones you remember after "
        "the turn, not while you go through it."
    ),
    "not_a_repeat": (
        "Only a call an earlier turn already ran with the same name and the same arguments is "
        "a repeat; these arguments differ."
    ),
    "turn_early": (
        "The loop stopped a turn early: max_iterations={limit} allows that many calls to create "
        "(for turn in range(1, max_iterations + 1))."
    ),
    "last_answer": (
        "The model answered on the last allowed turn: look for the answer before you check the "
        'limit. A reply without tool calls is stopped="answer", on the last turn too.'
    ),
    "repeat_parsed": (
        "This call repeats an earlier one with the same arguments written differently (key "
        "order, spacing): compare json.loads(arguments) with the name, not the strings."
    ),
    "remember": (
        "Remember (name, parsed arguments) of every call you ran (for arguments that are not "
        "valid JSON, the string itself); when a later turn asks for one of them again, answer "
        'it with an error instead of running it and stop with stopped="repeated_call".'
    ),
    "false_repeat": (
        "Compare parsed arguments and the name: a call is a repeat only when both match a call "
        "from an earlier turn."
    ),
    "stopped_answer": (
        'A reply without tool calls ends the loop with stopped="answer" (not the reply\'s '
        "finish_reason)."
    ),
    "stopped_values": (
        'stopped is "answer", "max_iterations" or "repeated_call", as the contract says.'
    ),
    "turns_early": (
        "The loop stopped a turn early. max_iterations={limit} allows exactly that many calls "
        "to create (for turn in range(1, max_iterations + 1))."
    ),
    "turns_exact": (
        "max_iterations={limit} allows exactly that many calls to create (for turn in "
        "range(1, max_iterations + 1))."
    ),
    "answer_content": (
        'answer is the final assistant message\'s content when stopped is "answer", and None '
        "otherwise."
    ),
    "repeat_run": (
        "A repeated call must not run again: answer it with an error instead of calling "
        "registry.call."
    ),
    "sent_rewritten": (
        "These arguments are the same JSON as the model sent, written differently (parsed and "
        "dumped again). The registry would accept them, but the exercise asks for the string "
        "exactly as the model sent it: pass tool_call.function.arguments unchanged."
    ),
    "sent_unchanged": (
        "Pass each call's arguments string to registry.call exactly as the model sent it (the "
        "tool call's function.arguments): not parsed, not re-serialised."
    ),
    "repeat_error": (
        'Answer a repeated call with a JSON object such as {{"error": "..."}} (json.dumps) '
        "saying it was already called, instead of running it."
    ),
    "steps_generic": (
        "One Step per tool call, repeated ones included, in call order: turn (1 for the first "
        "model turn), tool_call_id, name, arguments (the JSON string the model sent) and result "
        "(the content of its tool message)."
    ),
    "steps_missing": (
        "Record a Step for every call, a repeated one included, in call order: turn (1 for the "
        "first model turn), tool_call_id, name, arguments (the JSON string the model sent) and "
        "result (the content of its tool message)."
    ),
    "step_arguments_parsed": (
        "Step.arguments is the arguments string as the model sent it "
        "(tool_call.function.arguments), not the parsed dict."
    ),
    "step_arguments": "Step.arguments is the arguments string exactly as the model sent it.",
}


def hint(key: str, **fields: object) -> HintText:
    return HintText.of(HINTS, key, **fields)


RUN_CODE = "result = run_agent(client, registry, question, model=model, max_iterations=limit)"


@exercise(
    "05.1", notebook=NOTEBOOK, title="run_agent", points=4, targets=("run_agent",), rules=RULES
)
def check_run_agent(learner: Learner) -> str:
    table = cases.loop_cases(hidden_rng("05.1"))
    for label, question, policy, limit in table:
        case = case_label(label, question, limit)
        session = learner.model(policy(), model_name=CHECK_MODEL)
        reply = learner.run(
            RUN_CODE,
            result="describe_result(result, registry)",
            bind={
                "run_agent": learner.target("run_agent"),
                "client": learner.client(session),
                "registry": learner.source("make_registry()", setup=KERNEL_SOURCE),
                "question": question,
                "model": CHECK_MODEL,
                "limit": limit,
            },
        )
        diagnose_requests(case, question, session.exchanges)
        if reply.raised:
            explain_raised(case, reply, session.exchanges)
        registry = check_registry()
        expected_result = _reference_run(policy, registry, question, limit)
        expected = read_view(case, describe_result(expected_result, registry))
        got = read_view(case, reply.value)
        repeated = {
            step.tool_call_id
            for step in expected_result.steps
            if step.result.startswith('{"error": "Repeated call')
        }
        mask_repeats(case, expected, got, repeated)
        compare(case, expected, got, limit, repeated=repeated)
    return text("summary", count=len(table))


def _reference_run(policy: Any, registry: Any, question: str, limit: int) -> Any:
    from course_lib.reference import loop as reference

    client = oracle_client(policy())
    return reference.run_agent(client, registry, question, model=CHECK_MODEL, max_iterations=limit)


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
    if view["missing"]:
        fail(
            case,
            Plain(text("a_result")),
            Plain(view["repr"]),
            hint("result_shape", missing=", ".join(view["missing"])),
        )
    steps = view["steps"]
    if "container" in steps:
        fail(case, Plain(text("a_list_of_steps")), Plain(steps["repr"]), hint("steps_list"))
    if "bad_step" in steps:
        fail(case, Plain(text("a_step")), Plain(steps["bad_step"]), hint("step_shape"))
    return {
        "stopped": unwrap(case, view["stopped"], "stopped"),
        "answer": unwrap(case, view["answer"], "answer"),
        "messages": plain_messages(case, view["messages"], unwrap),
        "steps": unwrap(case, steps, "steps"),
        "sent": unwrap(case, view["sent"], "the arguments registry.call received"),
    }


def _parsed(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def _canonical(arguments: Any) -> str:
    return json.dumps(_parsed(arguments), sort_keys=True, ensure_ascii=False)


REPEATED = "<your repeated-call error>"


def _is_error_object(content: Any) -> bool:
    parsed = _parsed(content)
    return isinstance(parsed, dict) and "error" in parsed


def mask_repeats(case: str, expected: dict, got: dict, repeated: set[str]) -> None:
    """The wording of the repeated-call error is the learner's: check it is an error object,
    then replace it on both sides by the same marker."""
    __tracebackhide__ = True
    stopped_alike = got["stopped"] == expected["stopped"]  # else ``stopped`` fails first
    for view in (expected, got):
        for message in view["messages"]:
            if message.get("role") == "tool" and message.get("tool_call_id") in repeated:
                content = message.get("content")
                if view is got and stopped_alike and not _is_error_object(content):
                    fail(
                        case,
                        Plain(text("error_object")),
                        content,
                        hint("repeat_error"),
                        where=text("repeat_message"),
                    )
                message["content"] = REPEATED
        for step in view["steps"]:
            if isinstance(step, dict) and step.get("tool_call_id") in repeated:
                step["result"] = REPEATED


def _same_turn_twice(view: dict) -> bool:
    """Whether one turn of this conversation asks for the same call twice."""
    keys = [(s["turn"], s["name"], json.dumps(_parsed(s["arguments"]))) for s in view["steps"]]
    return len(set(keys)) < len(keys)


def _written_differently(view: dict) -> bool:
    """Whether a later turn repeats a call with the same parsed arguments in other words."""
    seen: dict[tuple, set] = {}
    for step in view["steps"]:
        key = (step["name"], json.dumps(_parsed(step["arguments"]), sort_keys=True))
        texts = seen.setdefault(key, set())
        if texts and step["arguments"] not in texts:
            return True
        texts.add(step["arguments"])
    return False


def stopped_hint(expected: dict, got: dict, limit: int) -> HintText:
    want, have = expected["stopped"], got["stopped"]
    made = turns(got["messages"])
    if want == "max_iterations" and made > limit:
        return hint("no_limit", made=made, limit=limit)
    if want != "repeated_call" and have == "repeated_call" and _same_turn_twice(expected):
        return hint("same_turn")
    if want == "max_iterations" and have == "repeated_call":
        return hint("not_a_repeat")
    if have == "max_iterations" and made < turns(expected["messages"]):
        return hint("turn_early", limit=limit)
    last = got["messages"][-1] if got["messages"] else {}
    if want == "answer" and have == "max_iterations" and not last.get("tool_calls"):
        return hint("last_answer")
    if want == "repeated_call" and _written_differently(expected):
        return hint("repeat_parsed")
    if want == "repeated_call":
        return hint("remember")
    if want == "answer" and have == "repeated_call":
        return hint("false_repeat")
    if want == "answer" and have not in ("max_iterations", "repeated_call"):
        return hint("stopped_answer")
    return hint("stopped_values")


def compare(case: str, expected: dict, got: dict, limit: int, *, repeated: set[str]) -> None:
    """Compare in the order a learner fixes things: stop reason, turns, messages, answer, the
    arguments the registry received, steps."""
    __tracebackhide__ = True
    if got["stopped"] != expected["stopped"]:
        fail(
            case,
            expected["stopped"],
            got["stopped"],
            stopped_hint(expected, got, limit),
            where=text("stopped"),
        )
    made, allowed = turns(got["messages"]), turns(expected["messages"])
    if expected["stopped"] == "max_iterations" and made != allowed:
        key = "turns_early" if made < allowed else "turns_exact"
        fail(case, allowed, made, hint(key, limit=limit), where=text("turns"))
    compare_messages(
        case,
        expected["messages"],
        got["messages"],
        repeated=repeated,
        stopped=expected["stopped"],
    )
    if got["answer"] != expected["answer"]:
        fail(case, expected["answer"], got["answer"], hint("answer_content"), where=text("answer"))
    compare_sent(case, expected, got, repeated)
    compare_steps(case, expected["steps"], got["steps"])


def compare_sent(case: str, expected: dict, got: dict, repeated: set[str]) -> None:
    __tracebackhide__ = True
    want, have = expected["sent"], got["sent"]
    if sorted(map(show, have)) == sorted(map(show, want)):
        return
    repeats = [
        c["function"]["arguments"]
        for m in expected["messages"]
        for c in m.get("tool_calls", [])
        if c["id"] in repeated
    ]
    extra = list(have)
    for item in want:
        if item in extra:
            extra.remove(item)
    ran_repeat = bool(extra) and len(have) > len(want) and all(e in repeats for e in extra)
    if ran_repeat:
        chosen = hint("repeat_run")
    elif len(have) == len(want) and sorted(map(_canonical, have)) == sorted(map(_canonical, want)):
        chosen = hint("sent_rewritten")
    else:
        chosen = hint("sent_unchanged")
    fail(case, want, have, chosen, where=text("sent"))


def compare_steps(case: str, expected: list[dict], got: list[dict]) -> None:
    """Fail on the first step that differs, showing that step rather than the whole list."""
    __tracebackhide__ = True
    if first_difference(expected, got) is None:
        return
    position = next(
        (
            i
            for i, (e, g) in enumerate(zip(expected, got, strict=False))
            if first_difference(e, g) is not None
        ),
        min(len(expected), len(got)),
    )
    want = expected[position] if position < len(expected) else Plain(text("no_step"))
    have = got[position] if position < len(got) else Plain(text("no_step"))
    chosen = hint("steps_generic")
    if len(got) < len(expected):
        chosen = hint("steps_missing")
    elif isinstance(want, dict) and isinstance(have, dict):
        if not isinstance(have["arguments"], str):
            chosen = hint("step_arguments_parsed")
        elif have["arguments"] != want["arguments"]:
            chosen = hint("step_arguments")
    both = position < min(len(expected), len(got))
    path = text("step", position=position)
    difference = first_difference(want, have, path) if both else None
    counts = {"got": len(got), "expected": len(expected)}
    if difference and len(got) == len(expected):
        where = difference
    elif difference:
        where = text("step_difference_counts", difference=difference, **counts)
    else:
        where = text("step_counts", **counts)
    fail(case, want, have, chosen, where=where)
