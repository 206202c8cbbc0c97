"""``arun_tool_calls``, the async twin of ``run_tool_calls``, and the repeated-call policy.

Concurrency is proved by events and barriers that only open when calls overlap, never by time:
two async tools each wait for the other on the caller's loop, two plain tools meet at a
``threading.Barrier`` that only opens when both run in threads at once.
"""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from course_lib.local_model import ScriptedPolicy, call, make_async_client, make_client
from course_lib.reference import ToolRegistry
from course_lib.reference.loop import arun_tool_calls, run_agent, run_tool_calls, tool_message

MODEL = "local-toy"
BOUND = 30  # seconds; only a broken implementation ever waits this long


def as_dict(call_id: str, name: str, arguments: dict) -> dict:
    function = {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}
    return {"id": call_id, "type": "function", "function": function}


def meeting_registry() -> tuple[ToolRegistry, dict]:
    """Two async tools that wait for each other, two plain tools that meet at a barrier."""
    seen: dict = {"loops": set(), "plain_on_loop": False}
    registry = ToolRegistry()
    events: dict[str, asyncio.Event] = {}
    barrier = threading.Barrier(2, timeout=BOUND)

    def event(name: str) -> asyncio.Event:
        return events.setdefault(name, asyncio.Event())

    def waiter(me: str, other: str) -> None:
        async def wait(city: str) -> str:
            seen["loops"].add(id(asyncio.get_running_loop()))
            event(me).set()
            await asyncio.wait_for(event(other).wait(), BOUND)
            return f"{me} {city}"

        registry.tool(wait, name=me, description=f"Waits until {other} has started.")

    waiter("ping", "pong")
    waiter("pong", "ping")

    @registry.tool
    def lookup(city: str) -> str:
        """A plain tool; it meets the other plain call."""
        try:
            asyncio.get_running_loop()
            seen["plain_on_loop"] = True
        except RuntimeError:
            pass
        barrier.wait()
        return f"lookup {city}"

    return registry, seen


def test_async_tools_are_awaited_together_on_the_callers_loop_and_plain_ones_in_threads():
    registry, seen = meeting_registry()
    calls = [
        as_dict("1", "ping", {"city": "北京"}),
        as_dict("2", "lookup", {"city": "上海"}),
        as_dict("3", "pong", {"city": "Paris"}),
        as_dict("4", "lookup", {"city": "東京"}),
    ]

    async def main() -> tuple[list[dict], int]:
        messages = await arun_tool_calls(registry, calls)
        return messages, id(asyncio.get_running_loop())

    messages, loop = asyncio.run(main())
    assert messages == [
        tool_message("1", "ping 北京"),
        tool_message("2", "lookup 上海"),
        tool_message("3", "pong Paris"),
        tool_message("4", "lookup 東京"),
    ]
    assert seen["loops"] == {loop}
    assert not seen["plain_on_loop"]


def test_results_keep_call_order_when_later_calls_finish_first():
    registry = ToolRegistry()
    finished: dict[str, asyncio.Event] = {}

    @registry.tool
    async def step(name: str) -> str:
        """Finish only after the next name has finished: c, then b, then a."""
        following = {"a": "b", "b": "c"}.get(name)
        if following:
            await asyncio.wait_for(finished.setdefault(following, asyncio.Event()).wait(), BOUND)
        finished.setdefault(name, asyncio.Event()).set()
        return name.upper()

    calls = [as_dict(f"id_{n}", "step", {"name": n}) for n in "abc"]
    messages = asyncio.run(arun_tool_calls(registry, calls))
    assert messages == [tool_message(f"id_{n}", n.upper()) for n in "abc"]


class Fragile:
    """A dispatcher without ``acall`` whose call raises for one tool."""

    def schemas(self, format: str = "openai") -> list[dict]:
        return []

    def call(self, name: str, arguments: str) -> str:
        if name == "broken":
            raise ConnectionError(f"{name} unreachable for {json.loads(arguments)['city']}")
        return f"{name}: {json.loads(arguments)['city']}"


@pytest.mark.parametrize("names", [[], ["a"], ["a", "broken", "c"], ["broken", "b"]])
def test_it_answers_as_run_tool_calls_does_a_raising_call_included(names):
    calls = [as_dict(f"call_{n}", name, {"city": "上海"}) for n, name in enumerate(names)]
    assert asyncio.run(arun_tool_calls(Fragile(), calls)) == run_tool_calls(Fragile(), calls)


def test_an_async_agent_turn_with_async_openai_gives_a_conversation_the_model_accepts():
    registry, _ = meeting_registry()
    question = "北京和上海"
    script = ScriptedPolicy(
        [[call("ping", city="北京"), call("pong", city="上海")], "ping and pong answered"]
    )

    async def turn() -> list[dict]:
        client = make_async_client(script)
        messages: list[dict] = [{"role": "user", "content": question}]
        tools = registry.schemas()
        reply = await client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        calls = [c.model_dump() for c in message.tool_calls]
        messages.extend(await arun_tool_calls(registry, calls))
        final = await client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
        messages.append(final.choices[0].message.model_dump(exclude_none=True))
        return messages

    messages = asyncio.run(turn())
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [m["content"] for m in messages[2:4]] == ["ping 北京", "pong 上海"]
    assert messages[-1]["content"] == "ping and pong answered"


# --- the repeated-call stop is a policy ----------------------------------------------------


def polling_registry() -> ToolRegistry:
    registry = ToolRegistry()
    states = iter(["queued", "running", "done"])

    @registry.tool
    def job_status(job_id: str) -> str:
        """The status of a background job: queued, running or done."""
        return next(states, "done")

    @registry.tool
    def get_time(city: str) -> str:
        """The local time in a city."""
        return f"12:00 in {city}"

    return registry


def test_a_polling_tool_named_repeatable_may_be_called_again_with_the_same_arguments():
    poll = call("job_status", job_id="42")
    client = make_client(ScriptedPolicy([poll, poll, poll, "the job is done"]))
    result = run_agent(
        client, polling_registry(), "job 42?", model=MODEL, repeatable={"job_status"}
    )
    assert (result.stopped, result.answer) == ("answer", "the job is done")
    assert [step.result for step in result.steps] == ["queued", "running", "done"]


def test_without_the_policy_exemption_the_same_poll_stops_the_loop():
    poll = call("job_status", job_id="42")
    client = make_client(ScriptedPolicy([poll, poll, "never reached"]))
    result = run_agent(client, polling_registry(), "job 42?", model=MODEL)
    assert result.stopped == "repeated_call"


def test_a_repeatable_tool_does_not_exempt_the_other_tools():
    again = call("get_time", city="北京")
    client = make_client(ScriptedPolicy([again, again, "x"]))
    result = run_agent(client, polling_registry(), "time", model=MODEL, repeatable={"job_status"})
    assert result.stopped == "repeated_call"
