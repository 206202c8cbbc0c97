"""Notebook 05's checks accept its solutions and reject realistic wrong ones with a fitting hint.

The solutions are not copied here: they are executed from the cells of
``solutions/05_agent_loop.ipynb``, so these tests always check the code the lesson ships. The
wrong implementations are the mistakes people make when writing an agent loop by hand: the
assistant message appended once per call, a call left unanswered, no turn limit, results in
completion order, one exception taking the batch down, stream fragments joined by arrival.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from functools import cache
from typing import Any

import pytest
from solution_cells import load_cells, rejected

from course_lib.checks import NotDoneYet, evaluate, nb05
from course_lib.checks.core import hidden_rng
from course_lib.local_model import HeuristicPolicy, ScriptedPolicy, call
from course_lib.reference import loop as reference
from course_lib.reference.loop import AgentResult, Step
from course_lib.reference.streaming import collect_stream as reference_collect_stream

NOTEBOOK = "05_agent_loop"
LOADED_CELLS = (
    "w05-imports",
    "w05-helpers",
    "w05-buggy-loop",
    "w05-ex1",
    "w05-ex2",
    "w05-ex3",
    "w05-ex4",
)


@cache
def solution() -> dict[str, Any]:
    """The names the solution notebook defines: its imports, helpers and exercise cells."""
    return load_cells(NOTEBOOK, LOADED_CELLS)


def assistant_message(message: Any) -> dict:
    return solution()["assistant_message"](message)


# --- solutions pass, stubs are not done yet ---------------------------------------------------


@pytest.mark.parametrize(
    ("exercise_id", "name"),
    [
        ("05.1", "run_agent"),
        ("05.2", "fixed_loop"),
        ("05.3", "run_tool_calls"),
        ("05.4", "collect_stream"),
    ],
)
def test_the_solution_passes(exercise_id, name):
    assert evaluate(exercise_id, solution()[name]).startswith(f"Exercise {exercise_id} passed")


@pytest.mark.parametrize("exercise_id", ["05.1", "05.2", "05.3", "05.4"])
def test_a_stub_is_not_done_yet(exercise_id):
    def stub(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"Exercise {exercise_id}: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate(exercise_id, stub)


# --- 05.1: wrong loops -------------------------------------------------------------------------


def make_loop(
    *,
    append_per_call: bool = False,
    drop_second_tool_message: bool = False,
    limit: Callable[[int], int] | None = lambda n: n,
    detect_repeats: bool = True,
    raw_argument_repeats: bool = False,
    answer_repeats: bool = True,
    keep_sdk_objects: bool = False,
    pass_model: bool = True,
    break_on_repeat: bool = False,
    repeats_within_a_turn: bool = False,
    skip_last_turn_calls: bool = False,
    unguarded_json: bool = False,
    reserialised_arguments: bool = False,
    parsed_step_arguments: bool = False,
) -> Callable[..., AgentResult]:
    """A run_agent with one realistic mistake switched on (all off: a correct loop)."""

    def canonical(arguments: str) -> str:
        if unguarded_json:
            return json.dumps(json.loads(arguments), sort_keys=True)
        try:
            return json.dumps(json.loads(arguments), sort_keys=True)
        except json.JSONDecodeError:
            return arguments

    def run_agent(client, registry, question, *, model, max_iterations=6):
        messages: list = [{"role": "user", "content": question}]
        steps: list[Step] = []
        done: set = set()
        turns = 10**6 if limit is None else limit(max_iterations)
        for turn in range(1, turns + 1):
            options = {"model": model} if pass_model else {"model": "gpt-4o"}
            message = (
                client.chat.completions.create(
                    messages=messages, tools=registry.schemas(), **options
                )
                .choices[0]
                .message
            )
            entry = message if keep_sdk_objects else assistant_message(message)
            if not message.tool_calls:
                messages.append(entry)
                return AgentResult(message.content, messages, steps, "answer")
            if not append_per_call:
                messages.append(entry)
            if skip_last_turn_calls and turn == turns:
                break
            repeated, keys = False, []
            for position, tool_call in enumerate(message.tool_calls):
                name, arguments = tool_call.function.name, tool_call.function.arguments
                key = (name, arguments if raw_argument_repeats else canonical(arguments))
                if append_per_call:
                    messages.append(entry)
                if detect_repeats and key in done:
                    repeated = True
                    if not answer_repeats:
                        continue
                    result = json.dumps({"error": "repeated"})
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
                steps.append(Step(turn, tool_call.id, name, recorded, result))
                keys.append(key)
                if repeats_within_a_turn:
                    done.add(key)
                if repeated and break_on_repeat:
                    break
            if repeated:
                return AgentResult(None, messages, steps, "repeated_call")
            done.update(keys)
        return AgentResult(None, messages, steps, "max_iterations")

    return run_agent


def test_the_correct_configuration_of_the_wrong_loop_factory_passes():
    assert evaluate("05.1", make_loop()).startswith("Exercise 05.1 passed")


def test_run_agent_appending_the_assistant_message_per_call_is_rejected():
    message = rejected("05.1", make_loop(append_per_call=True))
    assert "BadRequestError" in message
    assert "appended more than once (once per tool call)" in message


def test_run_agent_dropping_the_second_of_two_parallel_tool_messages_is_rejected():
    message = rejected("05.1", make_loop(drop_second_tool_message=True))
    assert "did not have response messages" in message
    assert "the second of two parallel calls too" in message


def test_run_agent_without_a_max_iterations_guard_is_rejected():
    message = rejected("05.1", make_loop(limit=None))
    assert "No max_iterations guard" in message
    assert "asked the model 13 times with max_iterations=3" in message


def test_run_agent_stopping_one_turn_early_is_rejected():
    message = rejected("05.1", make_loop(limit=lambda n: n - 1))
    assert "stopped a turn early" in message and "range(1, max_iterations + 1)" in message


def test_run_agent_without_repeat_detection_is_rejected():
    message = rejected("05.1", make_loop(detect_repeats=False))
    assert 'Expected: "repeated_call"' in message
    assert "Remember (name, parsed arguments)" in message


def test_run_agent_comparing_raw_argument_strings_misses_a_reordered_repeat():
    message = rejected("05.1", make_loop(raw_argument_repeats=True))
    assert "reordered keys" in message and "parsed arguments" in message


def test_run_agent_leaving_the_repeated_call_unanswered_is_rejected():
    message = rejected("05.1", make_loop(answer_repeats=False))
    assert "The repeated call has no tool message" in message


def test_run_agent_stopping_at_the_repeated_call_leaves_the_next_call_unanswered():
    message = rejected("05.1", make_loop(break_on_repeat=True))
    assert "a repeated call listed before a new call" in message
    assert "stopped at the repeated call" in message and "after the whole turn" in message


def test_run_agent_treating_the_same_call_twice_in_one_turn_as_a_repeat_is_rejected():
    message = rejected("05.1", make_loop(repeats_within_a_turn=True))
    assert "the same call twice in one turn" in message
    assert "Two identical calls in the same turn are not a repeat" in message


def test_run_agent_returning_before_running_the_last_turns_calls_is_rejected():
    message = rejected("05.1", make_loop(skip_last_turn_calls=True))
    assert "The calls of the last allowed turn were not run" in message
    assert "even a repeated call" not in message


def test_run_agent_crashing_on_arguments_that_are_not_json_is_rejected():
    message = rejected("05.1", make_loop(unguarded_json=True))
    assert "JSONDecodeError" in message and "not valid JSON" in message
    assert "compare such a string as it is" in message


def test_run_agent_reserialising_the_arguments_for_registry_call_is_rejected():
    message = rejected("05.1", make_loop(reserialised_arguments=True))
    assert "the arguments registry.call received" in message
    assert "exactly as the model sent it" in message


def test_run_agent_recording_parsed_arguments_in_steps_is_rejected():
    message = rejected("05.1", make_loop(parsed_step_arguments=True))
    assert "steps[0]" in message and "not the parsed dict" in message
    assert "more characters" not in message  # one step is shown, not the whole list


def test_run_agent_keeping_sdk_message_objects_is_rejected():
    message = rejected("05.1", make_loop(keep_sdk_objects=True))
    assert "ChatCompletionMessage" in message and "plain dict" in message


def test_run_agent_ignoring_the_model_argument_is_rejected():
    assert "Pass model=model" in rejected("05.1", make_loop(pass_model=False))


def test_run_agent_returning_a_plain_dict_is_rejected():
    def as_dict(*args: Any, **kwargs: Any) -> dict:
        return vars(solution()["run_agent"](*args, **kwargs))

    assert "Return AgentResult(" in rejected("05.1", as_dict)


# --- 05.2: wrong fixes ---------------------------------------------------------------------------


def make_fixed_loop(
    *,
    tool_messages_first: bool = False,
    reverse_tool_messages: bool = False,
    only_first_call: bool = False,
    forget_final_answer: bool = False,
    one_turn_too_many: bool = False,
) -> Callable[..., list[dict]]:
    def fixed_loop(client, registry, question, *, model, max_turns=6):
        messages = [{"role": "user", "content": question}]
        for _ in range(max_turns + 1 if one_turn_too_many else max_turns):
            reply = client.chat.completions.create(
                model=model, messages=messages, tools=registry.schemas()
            )
            message = reply.choices[0].message
            if not message.tool_calls:
                if not forget_final_answer:
                    messages.append(assistant_message(message))
                return messages
            calls = message.tool_calls[:1] if only_first_call else message.tool_calls
            answers = [
                {
                    "role": "tool",
                    "tool_call_id": c.id,
                    "content": registry.call(c.function.name, c.function.arguments),
                }
                for c in calls
            ]
            if reverse_tool_messages:
                answers.reverse()
            if tool_messages_first:
                messages.extend(answers)
                messages.append(assistant_message(message))
            else:
                messages.append(assistant_message(message))
                messages.extend(answers)
        return messages

    return fixed_loop


def test_the_given_buggy_loop_is_rejected_with_the_once_per_turn_hint():
    message = rejected("05.2", solution()["buggy_loop"])
    assert "must be followed by tool messages" in message
    assert "Append the assistant message once per turn" in message


def test_fixed_loop_answering_only_the_first_call_is_rejected():
    assert "A tool call was never answered" in rejected(
        "05.2", make_fixed_loop(only_first_call=True)
    )


def test_fixed_loop_appending_tool_messages_before_the_assistant_message_is_rejected():
    message = rejected("05.2", make_fixed_loop(tool_messages_first=True))
    assert "BadRequestError" in message
    assert "after an assistant message with tool_calls come only tool messages" in message


def test_fixed_loop_answering_calls_in_reverse_order_is_rejected():
    message = rejected("05.2", make_fixed_loop(reverse_tool_messages=True))
    assert "in the order the assistant message lists them" in message


def test_fixed_loop_running_one_turn_more_than_max_turns_is_rejected():
    message = rejected("05.2", make_fixed_loop(one_turn_too_many=True))
    assert "max_turns=3" in message
    assert "asked the model 4 times, more than max_turns allows" in message


def test_fixed_loop_forgetting_the_final_answer_is_rejected():
    message = rejected("05.2", make_fixed_loop(forget_final_answer=True))
    assert "The final assistant message (the answer) belongs in the list too" in message


# --- 05.3: wrong ways to run the calls ---------------------------------------------------------


def tool_message(tool_call: dict, content: str) -> dict:
    return {"role": "tool", "tool_call_id": tool_call["id"], "content": content}


def run(registry: Any, tool_call: dict) -> str:
    return registry.call(tool_call["function"]["name"], tool_call["function"]["arguments"])


def safely(registry: Any, tool_call: dict) -> str:
    try:
        return run(registry, tool_call)
    except Exception as exc:
        return json.dumps({"error": f"{type(exc).__name__}: {exc}"}, ensure_ascii=False)


def sequential(registry, tool_calls):
    return [tool_message(c, safely(registry, c)) for c in tool_calls]


def completion_order(registry, tool_calls):
    if not tool_calls:
        return []
    with ThreadPoolExecutor(max_workers=len(tool_calls)) as pool:
        futures = {pool.submit(safely, registry, c): c for c in tool_calls}
        return [tool_message(futures[f], f.result()) for f in as_completed(futures)]


def one_exception_kills_the_batch(registry, tool_calls):
    if not tool_calls:
        return []
    with ThreadPoolExecutor(max_workers=len(tool_calls)) as pool:
        results = list(pool.map(lambda c: run(registry, c), tool_calls))
    return [tool_message(c, r) for c, r in zip(tool_calls, results, strict=True)]


def pool_even_for_no_calls(registry, tool_calls):
    with ThreadPoolExecutor(max_workers=len(tool_calls)) as pool:
        results = list(pool.map(lambda c: safely(registry, c), tool_calls))
    return [tool_message(c, r) for c, r in zip(tool_calls, results, strict=True)]


def error_as_plain_text(registry, tool_calls):
    def text(c: dict) -> str:
        try:
            return run(registry, c)
        except Exception as exc:
            return str(exc)

    if not tool_calls:
        return []
    with ThreadPoolExecutor(max_workers=len(tool_calls)) as pool:
        return [
            tool_message(c, r) for c, r in zip(tool_calls, pool.map(text, tool_calls), strict=True)
        ]


def error_without_ensure_ascii(registry, tool_calls):
    def escaped(c: dict) -> str:
        try:
            return run(registry, c)
        except Exception as exc:
            return json.dumps({"error": f"{type(exc).__name__}: {exc}"})

    if not tool_calls:
        return []
    with ThreadPoolExecutor(max_workers=len(tool_calls)) as pool:
        return [
            tool_message(c, r)
            for c, r in zip(tool_calls, pool.map(escaped, tool_calls), strict=True)
        ]


def two_workers(registry, tool_calls):
    if not tool_calls:
        return []
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda c: safely(registry, c), tool_calls))
    return [tool_message(c, r) for c, r in zip(tool_calls, results, strict=True)]


def id_instead_of_tool_call_id(registry, tool_calls):
    return [
        {"role": "tool", "id": m["tool_call_id"], "content": m["content"]}
        for m in solution()["run_tool_calls"](registry, tool_calls)
    ]


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (sequential, "the calls ran one after another"),
        (two_workers, "at most 2 of the 3 calls running at once"),
        (completion_order, "in the order the calls finished"),
        (one_exception_kills_the_batch, "One failing tool took the whole batch down"),
        (pool_even_for_no_calls, "return [] before creating a pool"),
        (
            error_as_plain_text,
            'json.dumps({"error": f"{type(exc).__name__}: {exc}"}, ensure_ascii=False)',
        ),
        (error_without_ensure_ascii, "pass ensure_ascii=False to json.dumps"),
        (id_instead_of_tool_call_id, 'The key is "tool_call_id"'),
    ],
    ids=lambda value: getattr(value, "__name__", "hint"),
)
def test_a_wrong_run_tool_calls_is_rejected_with_its_hint(wrong, hint):
    assert hint in rejected("05.3", wrong)


# --- 05.4: wrong ways to join a stream -------------------------------------------------------


def arrival_order(chunks):
    text, calls = [], []
    for chunk in chunks:
        for choice in chunk.choices:
            if choice.delta.content:
                text.append(choice.delta.content)
            for fragment in choice.delta.tool_calls or []:
                if fragment.id:
                    calls.append(
                        {"id": fragment.id, "name": fragment.function.name, "arguments": ""}
                    )
                calls[-1]["arguments"] += fragment.function.arguments or ""
    return {"content": "".join(text) if text else None, "tool_calls": calls}


def overwrites_id_and_name(chunks):
    text, calls = [], {}
    for chunk in chunks:
        for choice in chunk.choices:
            if choice.delta.content:
                text.append(choice.delta.content)
            for fragment in choice.delta.tool_calls or []:
                entry = calls.setdefault(fragment.index, {"arguments": ""})
                entry["id"] = fragment.id
                entry["name"] = fragment.function.name
                entry["arguments"] += fragment.function.arguments or ""
    return {
        "content": "".join(text) if text else None,
        "tool_calls": [calls[i] for i in sorted(calls)],
    }


def empty_text_instead_of_none(chunks):
    joined = solution()["collect_stream"](chunks)
    return {**joined, "content": joined["content"] or ""}


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


def first_arrival_order(chunks):
    text, calls = [], {}
    for chunk in chunks:
        for choice in chunk.choices:
            if choice.delta.content:
                text.append(choice.delta.content)
            for fragment in choice.delta.tool_calls or []:
                entry = calls.setdefault(
                    fragment.index,
                    {"id": fragment.id, "name": fragment.function.name, "arguments": ""},
                )
                entry["arguments"] += fragment.function.arguments or ""
    return {"content": "".join(text) if text else None, "tool_calls": list(calls.values())}


def none_content_concatenated(chunks):
    text = ""
    for chunk in chunks:
        for choice in chunk.choices:
            text += choice.delta.content
    return {"content": text or None, "tool_calls": []}


def dict_by_index(chunks):
    joined = solution()["collect_stream"](chunks)
    return {**joined, "tool_calls": dict(enumerate(joined["tool_calls"]))}


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (arrival_order, "joined in arrival order"),
        (overwrites_id_and_name, "do not overwrite them with None"),
        (empty_text_instead_of_none, "content is None when no text arrived"),
        (first_choice_always, "skip chunks without choices"),
        (first_arrival_order, "Order the tool calls by their index"),
        (none_content_concatenated, "check for None before joining"),
        (dict_by_index, "tool_calls is a list ordered by index"),
    ],
    ids=lambda value: getattr(value, "__name__", "hint"),
)
def test_a_wrong_collect_stream_is_rejected_with_its_hint(wrong, hint):
    assert hint in rejected("05.4", wrong)


# --- the solutions agree with course_lib.reference ------------------------------------------


def without_repeat_wording(result: AgentResult) -> dict:
    """The result as JSON, with repeated-call errors (worded differently) reduced to a marker."""

    def content(text: str) -> str:
        parsed = json.loads(text) if text.startswith("{") else None
        if isinstance(parsed, dict) and "already called" in str(parsed.get("error")):
            return "<repeated>"
        return text

    messages = [
        {**m, "content": content(m["content"])} if m["role"] == "tool" else m
        for m in result.messages
    ]
    steps = [
        [s.turn, s.tool_call_id, s.name, nb05._parsed(s.arguments), content(s.result)]
        for s in result.steps
    ]
    return {
        "answer": result.answer,
        "stopped": result.stopped,
        "messages": messages,
        "steps": steps,
    }


@pytest.mark.parametrize("case", nb05._loop_cases(hidden_rng("05.1")), ids=lambda case: case[0])
def test_run_agent_solution_agrees_with_the_reference(case):
    _, question, policy, max_iterations = case
    mine = solution()["run_agent"](
        nb05._client(policy())[0],
        nb05._registry(),
        question,
        model="m",
        max_iterations=max_iterations,
    )
    theirs = reference.run_agent(
        nb05._client(policy())[0],
        nb05._registry(),
        question,
        model="m",
        max_iterations=max_iterations,
    )
    assert without_repeat_wording(mine) == without_repeat_wording(theirs)


@pytest.mark.parametrize(
    "question", ["北京和上海的天气怎么样？", "What is the weather in 北京, 上海 and Paris?", "hi"]
)
def test_fixed_loop_solution_agrees_with_the_reference(question):
    mine = solution()["fixed_loop"](
        nb05._client(HeuristicPolicy())[0], nb05._registry(), question, model="m"
    )
    theirs = reference.run_agent(
        nb05._client(HeuristicPolicy())[0], nb05._registry(), question, model="m"
    )
    assert mine == theirs.messages


class Fragile:
    """A dispatcher that raises for one tool, as a registry from elsewhere might."""

    def schemas(self, format: str = "openai") -> list[dict]:
        return []

    def call(self, name: str, arguments: str) -> str:
        if name == "broken":
            raise ConnectionError(f"{name} unreachable for {json.loads(arguments)['city']}")
        return f"{name}: {json.loads(arguments)['city']}"


@pytest.mark.parametrize("names", [[], ["a"], ["a", "broken", "c"], ["broken", "b"]])
def test_run_tool_calls_solution_agrees_with_the_reference(names):
    calls = [
        {
            "id": f"call_{n}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": json.dumps({"city": "上海"}, ensure_ascii=False),
            },
        }
        for n, name in enumerate(names)
    ]
    assert solution()["run_tool_calls"](Fragile(), calls) == reference.run_tool_calls(
        Fragile(), calls
    )


def test_collect_stream_solution_agrees_with_the_reference_on_every_check_stream():
    for label, chunks, expected in nb05._stream_cases(hidden_rng("05.4")):
        theirs = reference_collect_stream(chunks)
        assert {key: theirs[key] for key in expected} == expected, label
        mine = solution()["collect_stream"](chunks)
        assert mine == {"content": theirs["content"], "tool_calls": theirs["tool_calls"]}, label


def test_the_scripted_repeat_in_the_check_really_repeats_for_the_reference():
    script = [call("get_weather", city="北京"), call("get_weather", city="北京"), "x"]
    client = nb05._client(ScriptedPolicy(script))[0]
    result = reference.run_agent(client, nb05._registry(), "北京", model="m")
    assert result.stopped == "repeated_call"
