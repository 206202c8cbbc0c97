"""Lesson 05: correct answers written differently from the solutions pass.

Each is source text run beside the solution's cells, as a learner's cell would be: other loops
(``while``, a turn counter, a dict of calls already run), other concurrency (``submit`` and
futures, ``asyncio.TaskGroup``), other joins (``defaultdict``), and a repeated call answered in
Chinese, the one free-text message lesson 05 asks for.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
from solution_cells import run_source

from course_lib.checks import evaluate
from lesson05.notebook import _solution

RUN_AGENT_ZH = """
def run_agent(client, registry, question, *, model, max_iterations=6):
    def key(name, arguments):
        try:
            return name, json.dumps(json.loads(arguments), sort_keys=True, ensure_ascii=False)
        except ValueError:
            return name, "raw:" + arguments

    messages = [{"role": "user", "content": question}]
    steps, earlier, turn = [], {}, 0
    while turn < max_iterations:
        turn += 1
        message = client.chat.completions.create(
            model=model, messages=messages, tools=registry.schemas()
        ).choices[0].message
        messages.append(assistant_message(message))
        if not message.tool_calls:
            return AgentResult(message.content, messages, steps, "answer")
        stop = False
        for call in message.tool_calls:
            name, arguments = call.function.name, call.function.arguments
            if earlier.get(key(name, arguments), turn) < turn:
                stop = True
                result = json.dumps(
                    {"error": f"重复调用：{name} 已用相同参数调用过，请直接使用之前的结果。"},
                    ensure_ascii=False,
                )
            else:
                earlier.setdefault(key(name, arguments), turn)
                result = registry.call(name, arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
            steps.append(Step(turn=turn, tool_call_id=call.id, name=name, arguments=arguments,
                              result=result))
        if stop:
            return AgentResult(None, messages, steps, "repeated_call")
    return AgentResult(None, messages, steps, "max_iterations")
"""

FIXED_LOOP_WHILE = """
def fixed_loop(client, registry, question, *, model, max_turns=6):
    messages = [{"role": "user", "content": question}]
    turns = 0
    while turns < max_turns:
        turns += 1
        reply = client.chat.completions.create(
            model=model, messages=messages, tools=registry.schemas()
        )
        message = reply.choices[0].message
        messages.append(assistant_message(message))
        messages += [
            {"role": "tool", "tool_call_id": c.id,
             "content": registry.call(c.function.name, c.function.arguments)}
            for c in message.tool_calls or []
        ]
        if not message.tool_calls:
            break
    return messages
"""

RUN_TOOL_CALLS_SUBMIT = """
def run_tool_calls(registry, tool_calls):
    def content(future):
        try:
            return future.result()
        except Exception as exc:
            return json.dumps({"error": f"{type(exc).__name__}: {exc}"}, ensure_ascii=False)

    with ThreadPoolExecutor(max_workers=max(1, len(tool_calls))) as pool:
        futures = [
            pool.submit(registry.call, c["function"]["name"], c["function"]["arguments"])
            for c in tool_calls
        ]
        return [
            {"role": "tool", "tool_call_id": c["id"], "content": content(f)}
            for c, f in zip(tool_calls, futures)
        ]
"""

COLLECT_STREAM_DEFAULTDICT = """
from collections import defaultdict


def collect_stream(chunks):
    pieces, ids, names, arguments = [], {}, {}, defaultdict(list)
    for chunk in chunks:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        if delta.content:
            pieces.append(delta.content)
        for fragment in delta.tool_calls or ():
            ids.setdefault(fragment.index, None)
            if fragment.id is not None:
                ids[fragment.index] = fragment.id
            function = fragment.function
            if function is not None and function.name is not None:
                names[fragment.index] = function.name
            if function is not None and function.arguments:
                arguments[fragment.index].append(function.arguments)
    return {
        "content": "".join(pieces) or None,
        "tool_calls": [
            {"id": ids[i], "name": names.get(i), "arguments": "".join(arguments[i])}
            for i in sorted(ids)
        ],
    }
"""

ARUN_TASK_GROUP = """
async def arun_tool_calls(registry, tool_calls):
    async def one(call):
        try:
            return await registry.acall(call["function"]["name"], call["function"]["arguments"])
        except Exception as exc:
            return json.dumps({"error": f"{type(exc).__name__}: {exc}"}, ensure_ascii=False)

    async with asyncio.TaskGroup() as group:  # Python 3.11+
        tasks = [group.create_task(one(call)) for call in tool_calls]
    return [
        {"role": "tool", "tool_call_id": call["id"], "content": task.result()}
        for call, task in zip(tool_calls, tasks)
    ]
"""

ALTERNATIVES = {
    "05.1": ("run_agent", RUN_AGENT_ZH),
    "05.2": ("fixed_loop", FIXED_LOOP_WHILE),
    "05.3": ("run_tool_calls", RUN_TOOL_CALLS_SUBMIT),
    "05.4": ("collect_stream", COLLECT_STREAM_DEFAULTDICT),
    "05.5": ("arun_tool_calls", ARUN_TASK_GROUP),
}


def defined(source: str) -> dict[str, Any]:
    namespace = dict(_solution())
    run_source(textwrap.dedent(source), "<alternative>", namespace)
    return namespace


@pytest.mark.parametrize("exercise_id", sorted(ALTERNATIVES))
def test_an_answer_written_differently_passes(exercise_id):
    name, source = ALTERNATIVES[exercise_id]
    passed = evaluate(exercise_id, defined(source)[name])
    assert passed.startswith(f"Exercise {exercise_id} passed"), passed
