"""The verdict on one conversation of 05.1: what ``run_agent`` returned against what the
reference loop returned on the same conversation, compared in the order a learner fixes things
(``stopped``, the number of turns, the messages, the answer, the arguments ``registry.call``
received, the steps), each difference with the hint that explains it.
"""

from __future__ import annotations

import json
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, fail, first_difference, show
from course_lib.checks.lesson05._agent_tools import parsed_json as _parsed
from course_lib.checks.lesson05.conversation import (
    compare_messages,
    first_differing,
    tool_calls,
    turns,
)

TEXTS = Catalog() | {
    "error_object": 'a JSON object {{"error": "..."}}',
    "no_step": "(no step)",
    "stopped": "stopped",
    "answer": "answer",
    "turns": "the number of turns (assistant messages)",
    "sent": "the arguments registry.call received",
    "repeat_message": "the tool message answering the repeated call",
    "false_repeat": "the tool message answering {name}({arguments})",
    "step": "steps[{position}]",
    "step_counts": "{got} steps (expected {expected})",
    "step_difference_counts": "{difference}; {got} steps (expected {expected})",
    "repeated": "<your repeated-call error>",
}
text = TEXTS.text


HINTS = Catalog() | {
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
    "false_repeat_call": (
        "This call was answered with an error instead of being run, as if it were a repeat, "
        "but no earlier turn ran this tool with these arguments: a repeat needs the same name "
        "and equal json.loads(arguments)."
    ),
    "answer_stripped": (
        "answer is the final message's content exactly as the model sent it: not stripped or "
        "otherwise changed."
    ),
}
hint = HINTS.hint


def _canonical(arguments: Any) -> str:
    return json.dumps(_parsed(arguments), sort_keys=True, ensure_ascii=False)


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
                    error, where = Plain(text("error_object")), text("repeat_message")
                    fail(case, error, content, hint("repeat_error"), where=where)
                message["content"] = text("repeated")
        for step in view["steps"]:
            if isinstance(step, dict) and step.get("tool_call_id") in repeated:
                step["result"] = text("repeated")


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
    stopped = expected["stopped"]
    if got["stopped"] != stopped:
        chosen = stopped_hint(expected, got, limit)
        fail(case, stopped, got["stopped"], chosen, where=text("stopped"))
    made, allowed = turns(got["messages"]), turns(expected["messages"])
    if stopped == "max_iterations" and made != allowed:
        key = "turns_early" if made < allowed else "turns_exact"
        fail(case, allowed, made, hint(key, limit=limit), where=text("turns"))
    explain_false_repeat(case, expected, got, repeated)
    compare_messages(
        case, expected["messages"], got["messages"], repeated=repeated, stopped=stopped
    )
    want, have = expected["answer"], got["answer"]
    if have != want:
        stripped = isinstance(want, str) and have == want.strip()
        chosen = hint("answer_stripped" if stripped else "answer_content")
        fail(case, want, have, chosen, where=text("answer"))
    compare_sent(case, expected, got, repeated)
    compare_steps(case, expected["steps"], got["steps"])


def explain_false_repeat(case: str, expected: dict, got: dict, repeated: set[str]) -> None:
    """Fail when a call the reference ran was answered with an error and never run: the
    learner's loop took it for a repeat (the name left out of the comparison, say)."""
    __tracebackhide__ = True
    if len(got["sent"]) >= len(expected["sent"]):
        return
    wanted = {m.get("tool_call_id"): m for m in expected["messages"] if m.get("role") == "tool"}
    calls = {c["id"]: c["function"] for c in tool_calls(expected["messages"])
             if isinstance(c, dict) and isinstance(c.get("function"), dict)}  # fmt: skip
    for message in got["messages"]:
        call_id = message.get("tool_call_id")
        if message.get("role") != "tool" or call_id not in wanted or call_id in repeated:
            continue
        want = wanted[call_id].get("content")
        if _is_error_object(message.get("content")) and not _is_error_object(want):
            function = calls.get(call_id, {})
            where = text("false_repeat", **{k: function.get(k) for k in ("name", "arguments")})
            fail(case, want, message.get("content"), hint("false_repeat_call"), where=where)


def compare_sent(case: str, expected: dict, got: dict, repeated: set[str]) -> None:
    __tracebackhide__ = True
    want, have = expected["sent"], got["sent"]
    if sorted(map(show, have)) == sorted(map(show, want)):
        return
    repeats = [c["function"]["arguments"] for c in tool_calls(expected["messages"])
               if c["id"] in repeated]  # fmt: skip
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
    position, want, have = first_differing(expected, got, text("no_step"))
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
