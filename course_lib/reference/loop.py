"""The agent loop: ask, run the tools the model asked for, answer them, ask again.

One turn of the loop appends exactly one assistant message, however many tool calls it holds,
then one ``role: "tool"`` message per call, in call order, each carrying its ``tool_call_id``.
The loop stops on a final answer, after ``max_iterations`` model turns, or when the model asks
again for a call it already made with the same arguments. That last stop is a policy, not a rule
of the protocol: most tools would only give the same result again, but a polling tool (a job's
status, the time) legitimately answers differently each time, so ``repeatable`` names the tools
whose repeats are let through.

The loop talks to the model only through ``client.chat.completions.create``, so the same code
runs against the local model and against a real provider. ``run_tool_calls`` runs one turn's
calls in threads; ``arun_tool_calls`` is its twin for async code (``AsyncOpenAI``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from course_lib.reference.streaming import collect_stream

StopReason = Literal["answer", "max_iterations", "repeated_call"]


class Dispatcher(Protocol):
    """What the loop needs from a registry: the tool list and a call that never raises."""

    def schemas(self, format: str = "openai") -> list[dict]: ...

    def call(self, name: str, arguments: Any) -> str: ...


@dataclass(frozen=True)
class Step:
    """One tool call the loop ran: which turn asked for it, what was asked, what came back.

    ``arguments`` is the JSON text exactly as the model sent it.
    """

    turn: int
    tool_call_id: str
    name: str
    arguments: str
    result: str


@dataclass
class AgentResult:
    """What ``run_agent`` returns.

    ``answer`` is the model's final text (``None`` unless ``stopped == "answer"``), ``messages``
    the whole conversation as plain dicts (ready to send again), ``steps`` every tool call run.
    """

    answer: str | None
    messages: list[dict]
    steps: list[Step] = field(default_factory=list)
    stopped: StopReason = "answer"

    def __str__(self) -> str:
        lines = [f"stopped: {self.stopped} after {len(self.steps)} tool call(s)"]
        for step in self.steps:
            lines.append(f"  turn {step.turn}: {step.name}({step.arguments}) -> {step.result}")
        lines.append(f"answer: {self.answer}")
        return "\n".join(lines)


def tool_call_to_dict(tool_call: Any) -> dict:
    """A tool call from the SDK (or already a dict) as the plain dict the API expects back."""
    if isinstance(tool_call, dict):
        return tool_call
    data = tool_call.model_dump(exclude_none=True)
    return {key: data[key] for key in ("id", "type", "function", "custom") if key in data}


def tool_message(tool_call_id: str, content: str) -> dict:
    """The ``role: "tool"`` message that answers one call."""
    return {"role": "tool", "tool_call_id": tool_call_id, "content": content}


def _function_call(call: dict) -> tuple[str, Any] | None:
    """The name and arguments of a function call, or None for another kind of tool call."""
    if call.get("type", "function") != "function" or "function" not in call:
        return None
    return call["function"]["name"], call["function"].get("arguments") or "{}"


def _error_text(exc: Exception) -> str:
    return json.dumps({"error": f"{type(exc).__name__}: {exc}"}, ensure_ascii=False)


NOT_A_FUNCTION = json.dumps({"error": "Only function tools are available here."})


def run_tool_calls(
    registry: Dispatcher, tool_calls: list[dict], *, max_workers: int = 8
) -> list[dict]:
    """Run one turn's calls concurrently; return their tool messages in call order.

    ``ToolRegistry.call`` never raises, but another dispatcher might: an exception is caught per
    call and answered as ``{"error": "<ExceptionName>: <message>"}``, so one failing tool cannot
    disturb the others. A call that is not a function call (a custom tool call) is answered with
    an error the model can read.
    """

    def run(call: dict) -> str:
        found = _function_call(call)
        if found is None:
            return NOT_A_FUNCTION
        try:
            return registry.call(*found)
        except Exception as exc:  # a dispatcher that raises must not take the batch down
            return _error_text(exc)

    if not tool_calls:
        return []
    with ThreadPoolExecutor(max_workers=min(max_workers, len(tool_calls))) as pool:
        results = list(pool.map(run, tool_calls))
    return [
        tool_message(call["id"], result) for call, result in zip(tool_calls, results, strict=True)
    ]


async def arun_tool_calls(registry: Dispatcher, tool_calls: list[dict]) -> list[dict]:
    """``run_tool_calls`` for async code: every call at once with ``asyncio.gather``.

    A dispatcher with ``acall`` (``ToolRegistry``) awaits an async tool on the caller's loop and
    runs a plain one in a worker thread, where it cannot block the loop; one without ``acall``
    has each call run in a thread. ``gather`` returns results in call order; an exception is
    caught per call, as in ``run_tool_calls``.
    """
    acall = getattr(registry, "acall", None)

    async def run(call: dict) -> str:
        found = _function_call(call)
        if found is None:
            return NOT_A_FUNCTION
        try:
            if acall is not None:
                return await acall(*found)
            return await asyncio.to_thread(registry.call, *found)
        except Exception as exc:  # a dispatcher that raises must not take the batch down
            return _error_text(exc)

    results = await asyncio.gather(*(run(call) for call in tool_calls))
    return [
        tool_message(call["id"], result) for call, result in zip(tool_calls, results, strict=True)
    ]


def _call_key(call: dict) -> tuple[str, str]:
    """Identify a call by name and arguments, ignoring key order and spacing in the JSON."""
    function = call.get("function", {})
    raw = function.get("arguments") or "{}"
    try:
        canonical = json.dumps(json.loads(raw), sort_keys=True, ensure_ascii=False)
    except json.JSONDecodeError:
        canonical = raw
    return function.get("name", ""), canonical


def _repeated_call_error(name: str) -> str:
    return json.dumps(
        {
            "error": f"Repeated call: {name} was already called with these arguments; "
            "use the earlier result instead of calling it again."
        }
    )


def _ask(client: Any, *, stream: bool, **request: Any) -> dict:
    """One model turn as an assistant message dict (streamed or not, the result is the same)."""
    if stream:
        joined = collect_stream(client.chat.completions.create(stream=True, **request))
        tool_calls = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": call["arguments"]},
            }
            for call in joined["tool_calls"]
        ]
        content = joined["content"]
    else:
        message = client.chat.completions.create(**request).choices[0].message
        tool_calls = [tool_call_to_dict(call) for call in message.tool_calls or []]
        content = message.content
    assistant: dict = {"role": "assistant", "content": content}
    if tool_calls:
        assistant["tool_calls"] = tool_calls
    return assistant


def run_agent(
    client: Any,
    registry: Dispatcher,
    question: str,
    *,
    model: str,
    max_iterations: int = 6,
    tool_choice: Any = "auto",
    parallel_tool_calls: bool | None = None,
    system: str | None = None,
    stream: bool = False,
    repeatable: Collection[str] = (),
    **create_options: Any,
) -> AgentResult:
    """Answer ``question`` with the model, running the registry's tools as it asks.

    ``tool_choice`` applies to the first turn only: forcing a tool on every turn would never let
    the model give its answer. Later turns use ``"auto"``. ``max_iterations`` counts model turns.
    A call repeated from an earlier turn stops the loop, except for the tools in ``repeatable``
    (polling tools, whose answer changes from one call to the next).
    """
    if max_iterations < 1:
        raise ValueError(f"max_iterations must be at least 1, got {max_iterations}")
    messages: list[dict] = []
    if system:
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": question})
    tools = registry.schemas(format="openai")
    steps: list[Step] = []
    seen: set[tuple[str, str]] = set()
    for turn in range(1, max_iterations + 1):
        request: dict[str, Any] = {"model": model, "messages": messages, **create_options}
        if tools:
            request["tools"] = tools
            request["tool_choice"] = tool_choice if turn == 1 else "auto"
            if parallel_tool_calls is not None:
                request["parallel_tool_calls"] = parallel_tool_calls
        assistant = _ask(client, stream=stream, **request)
        messages.append(assistant)
        calls = assistant.get("tool_calls", [])
        if not calls:
            return AgentResult(assistant["content"], messages, steps, "answer")
        keys = [_call_key(call) for call in calls]
        fresh = [
            call
            for call, key in zip(calls, keys, strict=True)
            if key not in seen or key[0] in repeatable
        ]
        results = {m["tool_call_id"]: m["content"] for m in run_tool_calls(registry, fresh)}
        for call in calls:
            # A repeated call is still answered, so the conversation stays valid to send again.
            function = call.get("function", {})
            name, arguments = function.get("name", ""), function.get("arguments") or ""
            content = results[call["id"]] if call["id"] in results else _repeated_call_error(name)
            messages.append(tool_message(call["id"], content))
            steps.append(Step(turn, call["id"], name, arguments, content))
        if len(fresh) < len(calls):
            return AgentResult(None, messages, steps, "repeated_call")
        seen.update(keys)
    return AgentResult(None, messages, steps, "max_iterations")
