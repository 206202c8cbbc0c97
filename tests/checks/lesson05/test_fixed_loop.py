"""Exercise 05.2: the fixed loop passes; the given buggy loop and other wrong fixes fail on the
rule they break, with hints that speak of the list of messages (``fixed_loop`` has no
``stopped``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import evaluate
from lesson05.notebook import assistant_message, solution


def make_fixed_loop(
    *,
    model: str | None = None,
    tool_messages_first: bool = False,
    reverse_tool_messages: bool = False,
    only_first_call: bool = False,
    forget_final_answer: bool = False,
    one_turn_too_many: bool = False,
    skip_last_turn_calls: bool = False,
    split_calls: bool = False,
    first_call_id_for_all: bool = False,
) -> Callable[..., list[dict]]:
    """A fixed_loop with one realistic mistake switched on (all off: a correct one)."""

    def fixed_loop(client, registry, question, *, max_turns=6, **kwargs):
        messages = [{"role": "user", "content": question}]
        turns = max_turns + 1 if one_turn_too_many else max_turns
        for turn in range(1, turns + 1):
            reply = client.chat.completions.create(
                model=model or kwargs["model"], messages=messages, tools=registry.schemas()
            )
            message = reply.choices[0].message
            if not message.tool_calls:
                if not forget_final_answer:
                    messages.append(assistant_message(message))
                return messages
            if skip_last_turn_calls and turn == turns:
                messages.append(assistant_message(message))
                return messages
            calls = message.tool_calls[:1] if only_first_call else message.tool_calls
            answers = [
                {
                    "role": "tool",
                    "tool_call_id": calls[0].id if first_call_id_for_all else c.id,
                    "content": registry.call(c.function.name, c.function.arguments),
                }
                for c in calls
            ]
            if reverse_tool_messages:
                answers.reverse()
            if split_calls:  # each call in an assistant message of its own, then its answer
                whole = assistant_message(message)
                for one_call, answer in zip(whole["tool_calls"], answers, strict=True):
                    messages += [{**whole, "tool_calls": [one_call]}, answer]
            elif tool_messages_first:
                messages.extend(answers)
                messages.append(assistant_message(message))
            else:
                messages.append(assistant_message(message))
                messages.extend(answers)
        return messages

    return fixed_loop


def test_the_solution_passes_every_conversation():
    assert evaluate("05.2", solution("fixed_loop")) == (
        "Exercise 05.2 passed: fixed_loop (9 conversations)."
    )


def test_the_wrong_fix_factory_without_mistakes_passes():
    assert evaluate("05.2", make_fixed_loop()).startswith("Exercise 05.2 passed")


WRONG_BY_RULE = {
    "05.2": {
        "requests": make_fixed_loop(model="local-toy"),
        "assistant_once": solution("buggy_loop"),
        "tool_messages_after": make_fixed_loop(tool_messages_first=True),
        "every_call": make_fixed_loop(only_first_call=True),
        "call_order": make_fixed_loop(reverse_tool_messages=True),
        "final_answer": make_fixed_loop(forget_final_answer=True),
        "max_turns": make_fixed_loop(one_turn_too_many=True),
        "last_turn_calls": make_fixed_loop(skip_last_turn_calls=True),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["05.2"]))
def test_a_wrong_fixed_loop_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("05.2", rule, WRONG_BY_RULE["05.2"][rule])


def test_the_given_buggy_loop_shows_the_400_and_the_once_per_turn_hint():
    message = rejected("05.2", solution("buggy_loop"))
    assert "must be followed by tool messages" in message
    assert "Append the assistant message once per turn" in message


def test_tool_messages_before_the_assistant_message_are_told_what_comes_after_it():
    message = rejected("05.2", WRONG_BY_RULE["05.2"]["tool_messages_after"])
    assert "BadRequestError" in message
    assert "after an assistant message with tool_calls come only tool messages" in message


def test_one_turn_too_many_is_told_how_many_times_it_asked():
    message = rejected("05.2", WRONG_BY_RULE["05.2"]["max_turns"])
    assert "max_turns=3" in message
    assert "asked the model 4 times, more than max_turns=3 allows" in message


def test_no_hint_of_05_2_speaks_of_stopped():
    for wrong in WRONG_BY_RULE["05.2"].values():
        assert "stopped" not in rejected("05.2", wrong).split("Hint:")[1]


def test_each_call_in_an_assistant_message_of_its_own_is_told_one_message_holds_all_calls():
    message = rejected("05.2", make_fixed_loop(split_calls=True))
    assert "an assistant message of its own" in message
    assert "asked the model" not in message


def test_every_tool_message_carrying_the_first_calls_id_is_told_the_ids_repeat():
    """Both calls answered, under one id: the 400 names an id, and the hint the repeat."""
    message = rejected("05.2", make_fixed_loop(first_call_id_for_all=True))
    assert "Two tool messages carry the same tool_call_id" in message
    assert "A tool call was never answered" not in message
