"""Exercise 05.4: the solution passes; a wrong collect_stream fails on the rule it breaks."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import evaluate
from lesson05.notebook import solution


def joined(chunks, *, overwrite=False, by_arrival=False, first_seen_order=False):
    """A collect_stream with the chosen mistakes (none: a correct one)."""
    text, calls, order = [], {}, []
    for chunk in chunks:
        for choice in chunk.choices:
            if choice.delta.content:
                text.append(choice.delta.content)
            for fragment in choice.delta.tool_calls or []:
                key = len(order) - 1 if by_arrival and not fragment.id else fragment.index
                if by_arrival and fragment.id:
                    key = len(order)
                if key not in calls:
                    order.append(key)
                    calls[key] = {"id": fragment.id, "name": fragment.function.name}
                    calls[key]["arguments"] = ""
                entry = calls[key]
                if overwrite:
                    entry["id"], entry["name"] = fragment.id, fragment.function.name
                entry["arguments"] += fragment.function.arguments or ""
    keys = order if first_seen_order or by_arrival else sorted(calls)
    return {"content": "".join(text) if text else None, "tool_calls": [calls[k] for k in keys]}


def arrival_order(chunks):
    return joined(chunks, by_arrival=True)


def overwrites_id_and_name(chunks):
    return joined(chunks, overwrite=True)


def first_arrival_order(chunks):
    return joined(chunks, first_seen_order=True)


def empty_text_instead_of_none(chunks):
    result = solution("collect_stream")(chunks)
    return {**result, "content": result["content"] or ""}


def first_choice_always(chunks):
    text, calls = "", {}
    for chunk in chunks:
        delta = chunk.choices[0].delta
        text += delta.content or ""
        for fragment in delta.tool_calls or []:
            entry = calls.setdefault(
                fragment.index, {"id": fragment.id, "name": fragment.function.name, "arguments": ""}
            )
            entry["arguments"] += fragment.function.arguments or ""
    return {"content": text or None, "tool_calls": [calls[i] for i in sorted(calls)]}


def none_content_concatenated(chunks):
    text = ""
    for chunk in chunks:
        for choice in chunk.choices:
            text += choice.delta.content
    return {"content": text or None, "tool_calls": []}


def text_and_calls_as_a_tuple(chunks):
    result = solution("collect_stream")(chunks)
    return result["content"], result["tool_calls"]


def content_last_piece(chunks):
    text = None
    calls = solution("collect_stream")
    chunks = list(chunks)
    for chunk in chunks:
        for choice in chunk.choices:
            if choice.delta.content:
                text = choice.delta.content
    return {**calls(iter(chunks)), "content": text}


def dict_by_index(chunks):
    result = solution("collect_stream")(chunks)
    return {**result, "tool_calls": dict(enumerate(result["tool_calls"]))}


def test_the_solution_passes_every_stream():
    assert evaluate("05.4", solution("collect_stream")) == (
        "Exercise 05.4 passed: collect_stream (15 streams)."
    )


WRONG_BY_RULE = {
    "05.4": {
        "result": text_and_calls_as_a_tuple,
        "content": content_last_piece,
        "content_none": empty_text_instead_of_none,
        "none_fields": none_content_concatenated,
        "no_choices": first_choice_always,
        "by_index": first_arrival_order,
        "first_fragment": overwrites_id_and_name,
        "arguments": arrival_order,
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["05.4"]))
def test_a_wrong_collect_stream_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("05.4", rule, WRONG_BY_RULE["05.4"][rule])


def test_tool_calls_as_a_dict_by_index_are_told_to_return_a_list():
    assert "tool_calls is a list ordered by index" in rejected("05.4", dict_by_index)


def test_a_crash_on_the_usage_chunk_names_the_empty_choices():
    message = rejected("05.4", WRONG_BY_RULE["05.4"]["no_choices"])
    assert "IndexError" in message and "skip chunks without choices" in message


def test_a_crash_on_a_missing_piece_is_told_to_check_for_none():
    message = rejected("05.4", WRONG_BY_RULE["05.4"]["none_fields"])
    assert "TypeError" in message and "check for None before joining" in message
