"""Exercise 05.1: the solution passes; a wrong run_agent fails on the rule it breaks.

The learner's loop talks to a model session on the check's side, so what it sent is read from
the session, whatever it returns; its tools run beside it, built from the check's source text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import evaluate
from course_lib.reference.loop import AgentResult, Step
from lesson05.notebook import assistant_message, solution


def make_loop(  # noqa: C901 (one wrong answer per rule)
    *,
    system_message: bool = False,
    model: str | None = None,
    append_per_call: bool = False,
    split_calls: bool = False,
    keep_sdk_objects: bool = False,
    stopped_from_finish_reason: bool = False,
    drop_second_tool_message: bool = False,
    reserialised_arguments: bool = False,
    turns_from_zero: bool = False,
    parsed_step_arguments: bool = False,
    raw_argument_repeats: bool = False,
    unguarded_json: bool = False,
    repeats_within_a_turn: bool = False,
    detect_repeats: bool = True,
    run_repeats: bool = False,
    repeat_as_text: bool = False,
    answer_repeats: bool = True,
    break_on_repeat: bool = False,
    limit: Callable[[int], int] | None = lambda n: n,
    skip_last_turn_calls: bool = False,
    limit_before_answer: bool = False,
) -> Callable[..., AgentResult]:
    """A run_agent with one realistic mistake switched on (all off: a correct loop)."""

    def canonical(arguments: str) -> str:
        if unguarded_json:
            return json.dumps(json.loads(arguments), sort_keys=True)
        try:
            return json.dumps(json.loads(arguments), sort_keys=True)
        except json.JSONDecodeError:
            return arguments

    def run_agent(client, registry, question, *, model_name=None, max_iterations=6, **kw):  # noqa: C901
        messages: list = [{"role": "user", "content": question}]
        if system_message:
            messages.insert(0, {"role": "system", "content": "Use the tools."})
        steps: list[Step] = []
        done: set = set()
        turns = 10**6 if limit is None else limit(max_iterations)
        for turn in range(1, turns + 1):
            reply = client.chat.completions.create(
                model=model or kw["model"], messages=messages, tools=registry.schemas()
            )
            message = reply.choices[0].message
            entry = message if keep_sdk_objects else assistant_message(message)
            last = limit_before_answer and turn == turns
            if not message.tool_calls and not last:
                messages.append(entry)
                stopped = reply.choices[0].finish_reason if stopped_from_finish_reason else "answer"
                return AgentResult(message.content, messages, steps, stopped)
            if not (append_per_call or split_calls):
                messages.append(entry)
            if skip_last_turn_calls and turn == turns:
                break
            repeated, keys = False, []
            for position, tool_call in enumerate(message.tool_calls or []):
                name, arguments = tool_call.function.name, tool_call.function.arguments
                key = (name, arguments if raw_argument_repeats else canonical(arguments))
                if append_per_call:
                    messages.append(entry)
                if split_calls:  # an assistant message of its own for each call
                    messages.append({**entry, "tool_calls": [entry["tool_calls"][position]]})
                if detect_repeats and key in done:
                    repeated = True
                    if not answer_repeats:
                        continue
                    if run_repeats:
                        registry.call(name, arguments)
                    result = "already called" if repeat_as_text else json.dumps({"error": "x"})
                else:
                    sent = (
                        json.dumps(json.loads(arguments)) if reserialised_arguments else arguments
                    )
                    result = registry.call(name, sent)
                if not (drop_second_tool_message and position == 1):
                    messages.append(
                        {"role": "tool", "tool_call_id": tool_call.id, "content": result}
                    )
                recorded = json.loads(arguments) if parsed_step_arguments else arguments
                number = turn - 1 if turns_from_zero else turn
                steps.append(Step(number, tool_call.id, name, recorded, result))
                keys.append(key)
                if repeats_within_a_turn:
                    done.add(key)
                if repeated and break_on_repeat:
                    break
            if repeated:
                return AgentResult(None, messages, steps, "repeated_call")
            if last:
                break
            done.update(keys)
        return AgentResult(None, messages, steps, "max_iterations")

    return run_agent


def test_the_solution_passes_every_conversation():
    assert evaluate("05.1", solution("run_agent")) == (
        "Exercise 05.1 passed: run_agent (23 conversations)."
    )


def test_the_wrong_loop_factory_without_mistakes_passes():
    assert evaluate("05.1", make_loop()).startswith("Exercise 05.1 passed")


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "05.1": {
        "first_message": make_loop(system_message=True),
        "request": make_loop(model="local-toy"),
        "assistant_once": make_loop(append_per_call=True),
        "assistant_dict": make_loop(keep_sdk_objects=True),
        "answer": make_loop(stopped_from_finish_reason=True),
        "every_call": make_loop(drop_second_tool_message=True),
        "arguments": make_loop(reserialised_arguments=True),
        "steps": make_loop(turns_from_zero=True),
        "repeat_parsed": make_loop(raw_argument_repeats=True),
        "not_json": make_loop(unguarded_json=True),
        "same_turn": make_loop(repeats_within_a_turn=True),
        "repeat_not_run": make_loop(run_repeats=True),
        "repeat_error": make_loop(repeat_as_text=True),
        "repeat_stop": make_loop(break_on_repeat=True),
        "limit": make_loop(limit=None),
        "last_turn_calls": make_loop(skip_last_turn_calls=True),
        "last_turn_answer": make_loop(limit_before_answer=True),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["05.1"]))
def test_a_wrong_run_agent_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("05.1", rule, WRONG_BY_RULE["05.1"][rule])


# --- the hints of the mistakes that are not a rule's own wrong answer -----------------------


def test_the_assistant_message_per_call_shows_the_models_400_and_names_the_mistake():
    message = rejected("05.1", WRONG_BY_RULE["05.1"]["assistant_once"])
    assert "BadRequestError" in message and "did not have response messages" in message
    assert "appended more than once (once per tool call)" in message


def test_a_dropped_second_tool_message_is_told_every_call_needs_one():
    message = rejected("05.1", WRONG_BY_RULE["05.1"]["every_call"])
    assert "the second of two parallel calls too" in message


def test_no_turn_limit_is_told_how_many_times_it_asked():
    message = rejected("05.1", WRONG_BY_RULE["05.1"]["limit"])
    assert "asked the model 13 times with max_iterations=3" in message


def test_one_turn_too_few_is_told_it_stopped_a_turn_early():
    message = rejected("05.1", make_loop(limit=lambda n: n - 1))
    assert "stopped a turn early" in message and "range(1, max_iterations + 1)" in message


def test_no_repeat_detection_is_told_to_remember_the_calls_it_ran():
    message = rejected("05.1", make_loop(detect_repeats=False))
    assert 'Expected: "repeated_call"' in message
    assert "Remember (name, parsed arguments)" in message


def test_comparing_raw_strings_is_told_the_arguments_are_written_differently():
    message = rejected("05.1", WRONG_BY_RULE["05.1"]["repeat_parsed"])
    assert "reordered keys" in message and "compare json.loads(arguments)" in message


def test_a_repeated_call_left_unanswered_is_told_it_needs_a_tool_message_too():
    message = rejected("05.1", make_loop(answer_repeats=False))
    assert "The repeated call has no tool message" in message


def test_stopping_at_the_repeat_is_told_to_finish_the_turn():
    message = rejected("05.1", WRONG_BY_RULE["05.1"]["repeat_stop"])
    assert "a repeated call listed before a new call" in message
    assert "after the whole turn" in message


def test_the_last_turns_calls_left_unrun_get_no_hint_about_repeats():
    message = rejected("05.1", WRONG_BY_RULE["05.1"]["last_turn_calls"])
    assert "The calls of the last allowed turn were not run" in message
    assert "repeat" not in message.split("Hint:")[1]


def test_a_crash_on_arguments_that_are_not_json_is_told_to_compare_the_string():
    message = rejected("05.1", WRONG_BY_RULE["05.1"]["not_json"])
    assert "JSONDecodeError" in message and "compare such a string as it is" in message


def test_reserialised_arguments_are_told_they_are_the_same_json_written_differently():
    message = rejected("05.1", WRONG_BY_RULE["05.1"]["arguments"])
    assert "the arguments registry.call received" in message
    assert "the same JSON as the model sent, written differently" in message


def test_other_arguments_than_the_model_sent_are_told_to_pass_them_unchanged():
    def run_agent(client, registry, question, *, model, max_iterations=6):
        class Defaults:
            def schemas(self):
                return registry.schemas()

            def call(self, name, arguments):
                filled = {"unit": "c", **json.loads(arguments)} if name == "get_weather" else None
                return registry.call(name, json.dumps(filled) if filled else arguments)

        return make_loop()(client, Defaults(), question, model=model, max_iterations=max_iterations)

    message = rejected("05.1", run_agent)
    assert "not parsed, not re-serialised" in message


def test_parsed_step_arguments_show_one_step_not_the_whole_list():
    message = rejected("05.1", make_loop(parsed_step_arguments=True))
    assert "steps[0]" in message and "not the parsed dict" in message
    assert "more characters" not in message


def test_sdk_message_objects_are_told_to_keep_plain_dicts():
    message = rejected("05.1", WRONG_BY_RULE["05.1"]["assistant_dict"])
    assert "ChatCompletionMessage" in message and "plain dict" in message


def test_a_wrong_model_name_is_told_to_pass_model_through():
    message = rejected("05.1", WRONG_BY_RULE["05.1"]["request"])
    assert "pass model=model" in message and "request 1 of" in message


def test_tools_missing_after_the_first_turn_are_told_which_request():
    def run_agent(client, registry, question, *, model, max_iterations=6):
        loop = make_loop()

        class FirstTurnOnly:
            def __init__(self):
                self.asked = 0

            def schemas(self):
                self.asked += 1
                return registry.schemas() if self.asked == 1 else []

            def call(self, name, arguments):
                return registry.call(name, arguments)

        return loop(client, FirstTurnOnly(), question, model=model, max_iterations=max_iterations)

    message = rejected("05.1", run_agent)
    assert "Where:    request 2 of 2 your loop sent" in message


def test_a_plain_dict_instead_of_an_agent_result_is_told_to_return_one():
    def as_dict(*args: Any, **kwargs: Any) -> dict:
        return vars(solution("run_agent")(*args, **kwargs))

    assert "Return AgentResult(" in rejected("05.1", as_dict)


def test_what_is_judged_is_what_the_model_received_not_what_the_loop_reports():
    """A loop that returns a plausible result without asking the model is caught by the
    session's record of requests."""

    def run_agent(client, registry, question, *, model, max_iterations=6):
        messages = [{"role": "user", "content": question}, {"role": "assistant", "content": "晴"}]
        return AgentResult("晴", messages, [], "answer")

    assert "the loop never asked the model" in rejected("05.1", run_agent)


def test_each_call_in_an_assistant_message_of_its_own_is_told_one_message_holds_all_calls():
    message = rejected("05.1", make_loop(split_calls=True))
    assert "an assistant message of its own" in message and "asked the model" not in message


def test_a_loop_whose_end_test_never_holds_is_stopped_by_its_request_budget(monkeypatch):
    # finish_reason compared with Anthropic's "end_turn" and no limit: the loop never ends. The
    # requests are counted (course_lib.case_budget); a small budget only saves time.
    from course_lib.checks import learner

    monkeypatch.setitem(learner.BUDGET, "requests", 20)

    def run_agent(client, registry, question, *, model, max_iterations=6):
        messages = [{"role": "user", "content": question}]
        while True:
            reply = client.chat.completions.create(
                model=model, messages=messages, tools=registry.schemas()
            )
            message = reply.choices[0].message
            if reply.choices[0].finish_reason == "end_turn":
                return AgentResult(message.content, messages, [], "answer")
            messages.append(assistant_message(message))
            for call in message.tool_calls or []:
                result = registry.call(call.function.name, call.function.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})

    message = rejected("05.1", run_agent)
    assert "sent the model more than 20 requests in this one case without finishing" in message
    assert "Your loop never ends: stop when a reply has no tool calls" in message


def test_the_contract_says_a_repeated_call_gets_its_step_and_a_loop_without_it_is_told_so():
    """A learner of the Chinese edition read "do not run a repeated call" as "record no Step
    for it" and was refused: the contract said "per call" only, and only the hint said a
    repeated call counts. The rule now says it, in both editions."""
    from dataclasses import replace
    from pathlib import Path

    from course_lib.checks import EXERCISES

    rule = EXERCISES["05.1"].rule("steps").text
    assert "per call, repeated ones too," in rule
    root = Path(__file__).resolve().parents[3]
    chinese = (root / "notebooks" / "zh-CN" / "05_agent_loop.ipynb").read_text(encoding="utf-8")
    assert "每个调用（重复的调用也算）记录一个" in chinese

    def no_step_for_a_repeat(*args, **kwargs):
        result = make_loop()(*args, **kwargs)
        if result.stopped != "repeated_call":
            return result
        return replace(result, steps=[s for s in result.steps if '"error"' not in s.result])

    assert "a repeated one included" in rejected("05.1", no_step_for_a_repeat)
