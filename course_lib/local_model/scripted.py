"""A policy that plays a script: exact turns for lessons and checks, including faulty ones.

A script is a list of turns; turn *k* answers the request whose conversation already holds *k*
assistant messages. So the policy keeps no state: every conversation with the same client starts
at the first turn, and the same conversation always gets the same reply (over HTTP too).

Each turn is one of: a string (a text reply), a :class:`ToolCall` (one call), a list of calls (a
parallel turn), or a :class:`Turn` (text and calls together; ``Turn.in_blocks(...)`` for text
that the Messages API sends as several text blocks). Build calls with :func:`call`, and
break them on purpose with the fault helpers, to see how a loop or a registry copes::

    from course_lib.local_model import make_client
    from course_lib.local_model.scripted import ScriptedPolicy, call, faults

    weather = call("get_weather", city="北京")
    client = make_client(ScriptedPolicy([
        faults.hallucinated_name(weather),            # asks for "get_wether", which does not exist
        faults.malformed_json(weather),               # '{"city": "北京"' (cut short)
        faults.wrong_type(call("search_notes", keyword="ai", limit=3), "limit"),  # limit="3"
        faults.missing_required(weather, "city"),     # {} : the required city is gone
        [weather, call("get_weather", city="上海")],  # two calls in one turn
        "北京晴，上海多云。",                           # the final text
    ]))

When the script runs out, ``then`` answers (for example ``then=HeuristicPolicy()`` to let the toy
model react to the faults, correcting what the errors name); with no ``then``, the request fails
with HTTP 500 and a message saying the script has no turn left.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Union

from course_lib.local_model.turns import ChatRequest, Policy, ToolCall, Turn

ScriptTurn = Union[str, ToolCall, Sequence[ToolCall], Turn]


def call(name: str, /, **arguments: Any) -> ToolCall:
    """A tool call with these keyword arguments, e.g. ``call("get_weather", city="北京")``."""
    return ToolCall.of(name, arguments)


def as_turn(step: ScriptTurn) -> Turn:
    """Normalise one script entry to a :class:`Turn`."""
    if isinstance(step, Turn):
        return step
    if isinstance(step, str):
        return Turn(step)
    if isinstance(step, ToolCall):
        return Turn(None, (step,))
    calls = tuple(step) if isinstance(step, (list, tuple)) else ()
    if not calls or not all(isinstance(c, ToolCall) for c in calls):
        raise TypeError(
            "a script turn is a string, a ToolCall, a non-empty list of ToolCalls, or a Turn; "
            f"got {step!r}"
        )
    return Turn(None, calls)


class ScriptedPolicy:
    """Replies with ``turns[k]`` when the conversation holds ``k`` assistant messages."""

    def __init__(self, turns: Sequence[ScriptTurn], *, then: Policy | None = None) -> None:
        self.turns = [as_turn(step) for step in turns]
        self.then = then

    def respond(self, request: ChatRequest) -> Turn:
        position = sum(1 for m in request.messages if m.get("role") == "assistant")
        if position < len(self.turns):
            return self.turns[position]
        if self.then is not None:
            return self.then.respond(request)
        raise LookupError(
            f"ScriptedPolicy has no turn left: the script has {len(self.turns)} turn(s) and the "
            f"conversation already holds {position} assistant message(s). Add turns, or pass "
            "then=HeuristicPolicy() to hand over when the script ends."
        )


class faults:  # noqa: N801 (a namespace of helpers, read as ``faults.wrong_type(...)``)
    """Ways to break a call on purpose, the mistakes real models make."""

    @staticmethod
    def hallucinated_name(tool_call: ToolCall, name: str | None = None) -> ToolCall:
        """The same call to a tool that does not exist (default: the name with a letter dropped)."""
        if name is None:
            cut = next(
                (i for i in range(len(tool_call.name) - 2, 0, -1) if tool_call.name[i] in "aeiou"),
                len(tool_call.name) - 1,
            )
            name = tool_call.name[:cut] + tool_call.name[cut + 1 :]
        return ToolCall(name, tool_call.arguments)

    @staticmethod
    def malformed_json(tool_call: ToolCall) -> ToolCall:
        """The arguments cut short, so they are not valid JSON (the closing brace is missing)."""
        return ToolCall(tool_call.name, tool_call.arguments.rstrip()[:-1])

    @staticmethod
    def wrong_type(tool_call: ToolCall, parameter: str) -> ToolCall:
        """One argument sent as the wrong JSON type: numbers and booleans become strings, strings
        that look like numbers become numbers, other strings become a one-item list."""
        arguments = _arguments(tool_call, parameter)
        value = arguments[parameter]
        if isinstance(value, (bool, int, float)):
            arguments[parameter] = json.dumps(value)
        elif isinstance(value, str):
            try:
                arguments[parameter] = json.loads(value) if value.strip() else [value]
            except ValueError:
                arguments[parameter] = [value]
            if isinstance(arguments[parameter], str):
                arguments[parameter] = [value]
        else:
            arguments[parameter] = json.dumps(value, ensure_ascii=False)
        return ToolCall.of(tool_call.name, arguments)

    @staticmethod
    def missing_required(tool_call: ToolCall, parameter: str) -> ToolCall:
        """The call without one of its arguments (pick a required one to break validation)."""
        arguments = _arguments(tool_call, parameter)
        del arguments[parameter]
        return ToolCall.of(tool_call.name, arguments)


def _arguments(tool_call: ToolCall, parameter: str) -> dict[str, Any]:
    arguments = tool_call.parsed()
    if arguments is None or parameter not in arguments:
        raise ValueError(
            f"{tool_call.name}({tool_call.arguments}) has no argument {parameter!r} to break; "
            "build the call with that argument first."
        )
    return dict(arguments)
