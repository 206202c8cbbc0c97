"""Exercise 05.5: the solution passes; a wrong arun_tool_calls fails on the rule it breaks.

The check runs the learner's coroutine with ``asyncio.run`` on a fresh thread, so these tests
also pass while the calling thread runs an event loop of its own, as a Jupyter kernel's does.
"""

from __future__ import annotations

import asyncio
import gc
import json
import warnings

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import evaluate
from course_lib.checks.lesson05 import async_tool_calls
from lesson05.notebook import one_call_at_a_time, solution


def tool_message(tool_call: dict, content: str) -> dict:
    return {"role": "tool", "tool_call_id": tool_call["id"], "content": content}


def error_text(exc: Exception) -> str:
    return json.dumps({"error": f"{type(exc).__name__}: {exc}"}, ensure_ascii=False)


def gathered(run_one, *, catch=error_text, key="tool_call_id"):
    """An arun_tool_calls that gathers ``run_one(registry, name, arguments)`` for every call;
    ``catch`` turns an exception into the call's content (None: let it through)."""

    async def arun_tool_calls(registry, tool_calls):
        async def run(tool_call):
            function = tool_call["function"]
            try:
                return await run_one(registry, function["name"], function["arguments"])
            except Exception as exc:
                if catch is None:
                    raise
                return catch(exc)

        results = await asyncio.gather(*(run(c) for c in tool_calls))
        return [
            {"role": "tool", key: c["id"], "content": r}
            for c, r in zip(tool_calls, results, strict=True)
        ]

    return arun_tool_calls


async def with_acall(registry, name, arguments):
    return await registry.acall(name, arguments)


async def parsed(registry, name, arguments):
    return await registry.acall(name, json.loads(arguments))


async def everything_in_threads(registry, name, arguments):
    return await asyncio.to_thread(registry.call, name, arguments)


async def plain_tools_on_the_loop(registry, name, arguments):
    if registry.get(name).is_async:
        return await registry.acall(name, arguments)
    return registry.call(name, arguments)


async def one_after_another(registry, tool_calls):
    messages = []
    for tool_call in tool_calls:
        function = tool_call["function"]
        try:
            content = await registry.acall(function["name"], function["arguments"])
        except Exception as exc:
            content = error_text(exc)
        messages.append(tool_message(tool_call, content))
    return messages


async def completion_order(registry, tool_calls):
    async def run(tool_call):
        function = tool_call["function"]
        try:
            return tool_call, await registry.acall(function["name"], function["arguments"])
        except Exception as exc:
            return tool_call, error_text(exc)

    return [tool_message(*await done) for done in asyncio.as_completed(map(run, tool_calls))]


def with_asyncio_run(registry, tool_calls):
    return asyncio.run(solution("arun_tool_calls")(registry, tool_calls))


def test_the_solution_passes_every_batch():
    assert evaluate("05.5", solution("arun_tool_calls")) == (
        "Exercise 05.5 passed: arun_tool_calls (13 batches)."
    )


def test_the_reference_passes_too():
    from course_lib.reference.loop import arun_tool_calls

    assert evaluate("05.5", arun_tool_calls).startswith("Exercise 05.5 passed")


def test_the_check_runs_while_the_calling_thread_runs_an_event_loop():
    async def inside_a_loop() -> str:
        return evaluate("05.5", solution("arun_tool_calls"))

    assert asyncio.run(inside_a_loop()).startswith("Exercise 05.5 passed")


WRONG_BY_RULE = {
    "05.5": {
        "coroutine": solution("run_tool_calls"),
        "arguments": gathered(parsed),
        "together": one_after_another,
        "awaited": gathered(everything_in_threads),
        "plain_in_thread": gathered(plain_tools_on_the_loop),
        "message": gathered(with_acall, key="id"),
        "order": completion_order,
        "isolated": gathered(with_acall, catch=None),
        "error_text": gathered(with_acall, catch=str),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["05.5"]))
def test_a_wrong_arun_tool_calls_breaking_one_rule_gets_that_rules_hint(rule, monkeypatch):
    if rule == "together":
        one_call_at_a_time(monkeypatch, async_tool_calls)
    assert_breaks_rule("05.5", rule, WRONG_BY_RULE["05.5"][rule])


def test_the_threaded_05_3_solution_is_told_to_be_a_coroutine_function():
    message = rejected("05.5", WRONG_BY_RULE["05.5"]["coroutine"])
    assert "a list returned right away" in message and "async def" in message


def test_asyncio_run_inside_is_told_the_caller_already_runs_a_loop():
    with warnings.catch_warnings():  # the coroutine asyncio.run refused is never awaited
        warnings.simplefilter("ignore", RuntimeWarning)
        message = rejected("05.5", with_asyncio_run)
        gc.collect()
    assert "cannot be called from a running event loop" in message
    assert "make it async def" in message


def test_a_blocking_call_on_the_loop_is_told_to_use_a_thread():
    message = rejected("05.5", WRONG_BY_RULE["05.5"]["plain_in_thread"])
    assert "asyncio.to_thread(registry.call, name, arguments)" in message


def test_an_error_without_ensure_ascii_is_told_it_is_the_right_object_with_escapes():
    escaped = gathered(
        with_acall, catch=lambda exc: json.dumps({"error": f"{type(exc).__name__}: {exc}"})
    )
    assert "written with \\u escapes" in rejected("05.5", escaped)


def test_a_plain_def_returning_the_gathered_future_is_told_to_be_async_def():
    def returns_a_future(registry, tool_calls):
        coroutines = (
            with_acall(registry, c["function"]["name"], c["function"]["arguments"])
            for c in tool_calls
        )
        return asyncio.gather(*coroutines)

    message = rejected("05.5", returns_a_future)
    assert "a plain def that returns a" in message and "async def" in message


def test_arguments_dumped_again_as_written_are_caught_on_compact_arguments():
    async def redumped_alike(registry, name, arguments):
        again = json.dumps(json.loads(arguments), ensure_ascii=False)
        return await registry.acall(name, again)

    message = rejected("05.5", gathered(redumped_alike))
    assert "the same JSON as the call's, written differently" in message


def test_a_failing_call_let_out_in_another_exception_is_told_to_catch_it_per_call():
    def wrap(exc):
        raise ValueError("the batch failed") from exc

    message = rejected("05.5", gathered(with_acall, catch=wrap))
    assert "ValueError: the batch failed" in message
    assert "One failing call took the whole batch down" in message


def test_messages_returned_as_a_tuple_are_told_to_return_a_list():
    async def as_tuple(registry, tool_calls):
        return tuple(await solution("arun_tool_calls")(registry, tool_calls))

    assert "Return a list" in rejected("05.5", as_tuple)
