"""Exercise 05.3: the solution passes; a wrong run_tool_calls fails on the rule it breaks.

The check's registry proves concurrency with a meeting point, never with a clock: a correct
answer passes however loaded the machine is, and only a wrong one waits for the meeting's bound.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import evaluate
from course_lib.checks.lesson05 import tool_calls
from course_lib.checks.lesson05._meeting import NAMES
from course_lib.reference import registry as registry_module
from lesson05.notebook import a_pool_too_small, one_call_at_a_time, solution


def tool_message(tool_call: dict, content: str) -> dict:
    return {"role": "tool", "tool_call_id": tool_call["id"], "content": content}


def run(registry, tool_call: dict) -> str:
    return registry.call(tool_call["function"]["name"], tool_call["function"]["arguments"])


def safely(registry, tool_call: dict) -> str:
    try:
        return run(registry, tool_call)
    except Exception as exc:
        return json.dumps({"error": f"{type(exc).__name__}: {exc}"}, ensure_ascii=False)


def in_threads(content, *, workers=None, empty_check=True):
    """A run_tool_calls that runs ``content(registry, call)`` in a pool, in call order."""

    def run_tool_calls(registry, tool_calls):
        if empty_check and not tool_calls:
            return []
        with ThreadPoolExecutor(max_workers=workers or len(tool_calls)) as pool:
            results = list(pool.map(lambda c: content(registry, c), tool_calls))
        return [tool_message(c, r) for c, r in zip(tool_calls, results, strict=True)]

    return run_tool_calls


def sequential(registry, tool_calls):
    return [tool_message(c, safely(registry, c)) for c in tool_calls]


def completion_order(registry, tool_calls):
    if not tool_calls:
        return []
    with ThreadPoolExecutor(max_workers=len(tool_calls)) as pool:
        futures = {pool.submit(safely, registry, c): c for c in tool_calls}
        return [tool_message(futures[f], f.result()) for f in as_completed(futures)]


def parsed_arguments(registry, tool_call):
    function = tool_call["function"]
    return registry.call(function["name"], json.loads(function["arguments"]))


def error_as_plain_text(registry, tool_call):
    try:
        return run(registry, tool_call)
    except Exception as exc:
        return str(exc)


def error_without_ensure_ascii(registry, tool_call):
    try:
        return run(registry, tool_call)
    except Exception as exc:
        return json.dumps({"error": f"{type(exc).__name__}: {exc}"})


def id_instead_of_tool_call_id(registry, tool_calls):
    return [
        {"role": "tool", "id": m["tool_call_id"], "content": m["content"]}
        for m in solution("run_tool_calls")(registry, tool_calls)
    ]


def test_the_solution_passes_every_batch():
    assert evaluate("05.3", solution("run_tool_calls")) == (
        "Exercise 05.3 passed: run_tool_calls (12 batches)."
    )


WRONG_BY_RULE = {
    "05.3": {
        "arguments": in_threads(parsed_arguments),
        "together": sequential,
        "message": id_instead_of_tool_call_id,
        "order": completion_order,
        "isolated": in_threads(run),
        "error_text": in_threads(error_as_plain_text),
        "ensure_ascii": in_threads(error_without_ensure_ascii),
        "empty": in_threads(safely, empty_check=False),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["05.3"]))
def test_a_wrong_run_tool_calls_breaking_one_rule_gets_that_rules_hint(rule, monkeypatch):
    if rule == "together":
        one_call_at_a_time(monkeypatch, tool_calls)
    assert_breaks_rule("05.3", rule, WRONG_BY_RULE["05.3"][rule])


def test_calls_one_after_another_are_told_they_did_not_overlap(monkeypatch):
    one_call_at_a_time(monkeypatch, tool_calls)
    message = rejected("05.3", WRONG_BY_RULE["05.3"]["together"])
    assert "the calls ran one after another" in message
    assert "ThreadPoolExecutor(max_workers=len(tool_calls))" in message


def test_a_pool_too_small_is_told_how_many_calls_ran_at_once(monkeypatch):
    a_pool_too_small(monkeypatch, tool_calls)
    assert "at most 2 of the 3 calls running at once" in rejected(
        "05.3", in_threads(safely, workers=2)
    )


def test_one_failing_call_raising_out_of_the_batch_is_told_to_catch_it_per_call():
    message = rejected("05.3", WRONG_BY_RULE["05.3"]["isolated"])
    assert "One failing call took the whole batch down" in message
    assert "RuntimeError" in message and "is down for" in message


def test_parsed_arguments_are_told_the_registry_received_a_dict():
    assert "received the parsed arguments (a dict)" in rejected(
        "05.3", WRONG_BY_RULE["05.3"]["arguments"]
    )


def test_reserialised_arguments_are_told_to_pass_the_string_unchanged():
    def reserialised(registry, tool_call):
        function = tool_call["function"]
        return registry.call(function["name"], json.dumps(json.loads(function["arguments"])))

    message = rejected("05.3", in_threads(reserialised))
    assert "the same JSON as the call's, written differently" in message


def test_arguments_dumped_again_as_written_are_caught_on_compact_arguments():
    def redumped_alike(registry, tool_call):
        function = tool_call["function"]
        again = json.dumps(json.loads(function["arguments"]), ensure_ascii=False)
        try:
            return registry.call(function["name"], again)
        except Exception as exc:
            return json.dumps({"error": f"{type(exc).__name__}: {exc}"}, ensure_ascii=False)

    message = rejected("05.3", in_threads(redumped_alike))
    assert 'get_weather({"city":' in message  # the batch written without spaces
    assert "the same JSON as the call's, written differently" in message


def test_a_pool_of_the_default_size_is_caught_by_a_batch_larger_than_it(monkeypatch):
    a_pool_too_small(monkeypatch, tool_calls)

    def default_pool(registry, tool_calls):
        if not tool_calls:
            return []
        with ThreadPoolExecutor() as pool:
            results = list(pool.map(lambda c: safely(registry, c), tool_calls))
        return [tool_message(c, r) for c, r in zip(tool_calls, results, strict=True)]

    message = rejected("05.3", default_pool)
    assert "(40 calls in all)" in message
    assert "ThreadPoolExecutor(max_workers=len(tool_calls))" in message


def test_a_failing_call_let_out_in_another_exception_is_told_to_catch_it_per_call():
    def wrapped(registry, tool_call):
        try:
            return run(registry, tool_call)
        except Exception as exc:
            raise ValueError("the batch failed") from exc

    message = rejected("05.3", in_threads(wrapped))
    assert "ValueError: the batch failed" in message
    assert "One failing call took the whole batch down" in message


def test_messages_returned_as_a_tuple_are_told_to_return_a_list():
    def as_tuple(registry, tool_calls):
        return tuple(solution("run_tool_calls")(registry, tool_calls))

    message = rejected("05.3", as_tuple)
    assert "a tuple, not a list" in message and "Return a list" in message


def test_an_error_without_ensure_ascii_is_told_it_is_the_right_object_with_escapes():
    message = rejected("05.3", WRONG_BY_RULE["05.3"]["ensure_ascii"])
    assert "The error object is right, but written with \\u escapes" in message


def test_messages_in_finishing_order_show_however_long_a_call_takes_on_its_way_back(monkeypatch):
    """A call counts as finished when the registry's ``call`` returns, not when its tool does:
    once, on a busy machine, the futures of a batch finished in call order by chance, because
    "finished" was signalled inside the tool and each call still had its result to make into
    text. Here that way back takes longer the later the call: the meeting still makes the last
    call finish first, so messages in finishing order are still caught at the rule's case."""
    real = registry_module.result_text

    def later_calls_take_longer(tool, result, limit):
        time.sleep(0.1 * (NAMES.index(tool.name) + 1))
        return real(tool, result, limit)

    monkeypatch.setattr(registry_module, "result_text", later_calls_take_longer)
    assert_breaks_rule("05.3", "order", completion_order)


def test_messages_in_finishing_order_show_however_long_the_learners_code_takes_after_a_call():
    """The learner's own code after ``registry.call`` (building the message, say) takes longer
    the later the call: the meeting still makes the later call hand its result back first, so
    messages in finishing order are still caught at the rule's case."""

    def slow_way_back(registry, tool_calls):
        def one(tool_call):
            content = safely(registry, tool_call)
            time.sleep(0.1 * (json.loads(tool_call["function"]["arguments"])["position"] + 1))
            return tool_call, content

        with ThreadPoolExecutor(max_workers=len(tool_calls) or 1) as pool:
            futures = [pool.submit(one, c) for c in tool_calls]
            return [tool_message(*f.result()) for f in as_completed(futures)]

    assert_breaks_rule("05.3", "order", slow_way_back)
