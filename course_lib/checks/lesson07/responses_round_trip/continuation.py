"""The verdict on 07.1's second request: how it continues the conversation and what it answers.

Either ``previous_response_id`` (the first response's id) with only the outputs, or the whole
conversation: the question, every item of the reply as it came (a reasoning model's
``reasoning`` items too, each before the calls it led to), then the outputs. Each output answers
one call by its ``call_id`` with the registry's result, unchanged.

A reasoning model's item ids hold a tag only the model's process can compute, so they differ
from one run to the next: every value this module shows a learner has them replaced by where
they sit in the reply (``masked``), so a regrade says the same words.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail
from course_lib.checks.lesson07._registry import replaced, tool_result

TEXTS = Catalog() | {
    "second_input": "the second request's input (previous_response_id={previous})",
    "outputs_for": "one function_call_output for each call_id: {call_ids}",
    "whole_conversation": (
        "the question, the reply's function_call items ({call_ids}), then their outputs"
    ),
    "every_item": "the question, every item of the reply ({items}), then the outputs",
    "only_outputs": "only the function_call_output items (previous_response_id holds the rest)",
    "output_of": "the output answering {name}({arguments})",
    "item_id": "<the id of the reply's item {position}, a {kind}>",
}
text = TEXTS.text


HINTS = Catalog() | {
    "reasoning_dropped": (
        "The reply began with a reasoning item, and its calls belong to it: a reasoning "
        "model refuses them sent back without it (400: provided without its required "
        "'reasoning' item). Send every item of the reply as it came (first.output, reasoning "
        "items included), or continue with previous_response_id=first.id."
    ),
    "every_call": (
        "Answer every function_call item of the reply, not only the first: one "
        "function_call_output per call."
    ),
    "call_id_not_id": (
        "An output answers a call by its call_id (call_...), not by the item's id (fc_...)."
    ),
    "own_call_id": "Each output carries the call_id of the call it answers, its own one.",
    "output_type": (
        'Each output is {{"type": "function_call_output", "call_id": ..., "output": ...}}.'
    ),
    "output": (
        "The output is the text registry.call(item.name, item.arguments) returns, sent unchanged "
        "(it is already a string)."
    ),
    "output_swapped": (
        "This output holds the result of another call: run each call with its own name and "
        "arguments, and send that result with that call's call_id."
    ),
    "both": (
        "previous_response_id already holds the question and the calls: with it, send only the "
        "outputs. Or leave it out and send the whole conversation. Not both."
    ),
    "wrong_previous": "previous_response_id is the id of the first response (first.id).",
    "unknown_call": (
        "The outputs answer calls this request does not hold: pass "
        "previous_response_id=first.id, or send the question and the function_call items too."
    ),
    "whole_input": (
        "Without previous_response_id, send the whole conversation: the question, the reply's "
        "function_call items, then the outputs."
    ),
}
hint = HINTS.hint


def masked(value: Any, first: dict) -> Any:
    """``value`` with the ids of a reasoning reply's items replaced by where they sit in it."""
    output = first.get("output") or []
    if not any(item.get("type") == "reasoning" for item in output):
        return value
    names = {
        item["id"]: text("item_id", position=position, kind=item.get("type"))
        for position, item in enumerate(output)
        if isinstance(item.get("id"), str)
    }
    return replaced(value, names)


def is_the_question(value: Any, question: str) -> bool:
    """``input`` is the question: the string, or one user message holding it (any spelling)."""
    if value == question:
        return True
    if not isinstance(value, list) or len(value) != 1 or not isinstance(value[0], dict):
        return False
    message = value[0]
    if message.get("role") != "user" or message.get("type", "message") != "message":
        return False
    content = message.get("content")
    parts = content if isinstance(content, list) else [{"type": "input_text", "text": content}]
    return [p.get("text") for p in parts if isinstance(p, dict)] == [question]


def _kind(item: Any) -> str | None:
    return (
        item.get("type", "message" if "role" in item else None) if isinstance(item, dict) else None
    )


def diagnose_second_request(case: str, question: str, exchanges: list) -> None:
    """Fail with a fitting hint on the first thing wrong in the second request."""
    __tracebackhide__ = True
    first, request = exchanges[0].reply, exchanges[1].request
    first, request = masked(first, first), masked(request, first)  # one mapping for both
    calls = [i for i in first.get("output") or [] if i.get("type") == "function_call"]
    call_ids = [c["call_id"] for c in calls]
    expected = Plain(text("outputs_for", call_ids=", ".join(call_ids)))
    previous = request.get("previous_response_id")
    items = request.get("input")
    items = items if isinstance(items, list) else [items]
    where = text("second_input", previous=repr(previous))
    if previous is not None and previous != first.get("id"):
        fail(case, first.get("id"), previous, hint("wrong_previous"), where=where)
    if any(isinstance(i, dict) and "output" in i and _kind(i) is None for i in items):
        fail(case, expected, items, hint("output_type"), where=where)
    outputs = [i for i in items if _kind(i) == "function_call_output"]
    if previous is not None and len(outputs) < len(items):
        fail(case, Plain(text("only_outputs")), items, hint("both"), where=where)
    if previous is None:
        diagnose_whole_input(case, question, call_ids, items, where)
        diagnose_reasoning(case, first, items, where)
    diagnose_outputs(case, calls, outputs, items, where)


def diagnose_whole_input(case: str, question: str, call_ids: list, items: list, where: str) -> None:
    """Without ``previous_response_id``: the question, the reply's calls, then the outputs."""
    __tracebackhide__ = True
    expected = Plain(text("outputs_for", call_ids=", ".join(call_ids)))
    whole = Plain(text("whole_conversation", call_ids=", ".join(call_ids)))
    kinds = [_kind(item) for item in items]
    if all(kind == "function_call_output" for kind in kinds):
        fail(case, expected, items, hint("unknown_call"), where=where)
    resent = [i.get("call_id") for i in items if _kind(i) == "function_call"]
    last_call = max((n for n, kind in enumerate(kinds) if kind == "function_call"), default=-1)
    first_output = min(
        (n for n, kind in enumerate(kinds) if kind == "function_call_output"), default=len(items)
    )
    if not is_the_question(items[:1], question) or resent != call_ids or first_output < last_call:
        fail(case, whole, items, hint("whole_input"), where=where)


def diagnose_reasoning(case: str, first: dict, items: list, where: str) -> None:
    """Without ``previous_response_id``: the reply's reasoning items come back, each before the
    calls it led to (a reasoning model refuses a call sent back without its reasoning item)."""
    __tracebackhide__ = True
    output = [
        i for i in first.get("output") or [] if i.get("type") in ("reasoning", "function_call")
    ]
    wanted = [i["id"] for i in output if i.get("type") == "reasoning"]
    if not wanted:
        return
    sent = [
        i.get("id") if _kind(i) == "reasoning" else i.get("call_id")
        for i in items
        if _kind(i) in ("reasoning", "function_call")
    ]
    expected = [i["id"] if i.get("type") == "reasoning" else i["call_id"] for i in output]
    if sent != expected:
        listing = ", ".join(str(i.get("type")) for i in first.get("output") or [])
        shown = Plain(text("every_item", items=listing))
        fail(case, shown, items, hint("reasoning_dropped"), where=where)


def diagnose_outputs(case: str, calls: list, outputs: list, items: list, where: str) -> None:
    __tracebackhide__ = True
    call_ids = [c["call_id"] for c in calls]
    expected = Plain(text("outputs_for", call_ids=", ".join(call_ids)))
    answered = [o.get("call_id") for o in outputs]
    if not outputs and items:
        fail(case, expected, items, hint("output_type"), where=where)
    item_ids = {c["id"] for c in calls}
    if any(a in item_ids for a in answered):
        fail(case, expected, answered, hint("call_id_not_id"), where=where)
    if len(outputs) < len(calls):
        fail(case, expected, answered, hint("every_call"), where=where)
    if sorted(map(str, answered)) != sorted(call_ids):
        fail(case, expected, answered, hint("own_call_id"), where=where)
    by_id = {o["call_id"]: o for o in outputs}
    results = [tool_result(call["name"], call["arguments"]) for call in calls]
    for call, result in zip(calls, results, strict=True):
        output = by_id[call["call_id"]].get("output")
        if output != result:
            here = text("output_of", name=call["name"], arguments=call["arguments"])
            key = "output_swapped" if output in results else "output"
            fail(case, result, output, hint(key), where=here)
