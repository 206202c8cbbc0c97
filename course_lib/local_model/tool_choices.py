"""``tool_choice`` in the two OpenAI APIs, checked and brought to what the policy needs.

Both APIs take a mode (``"none"``, ``"auto"``, ``"required"``), a named function, or an
``allowed_tools`` choice that narrows the tools the model may call this turn without sending
fewer tools (so a cached prompt stays the same):

* Chat Completions: ``{"type": "function", "function": {"name": ...}}`` and
  ``{"type": "allowed_tools", "allowed_tools": {"mode": ..., "tools": [{"type": "function",
  "function": {"name": ...}}]}}``;
* Responses (flat): ``{"type": "function", "name": ...}`` and ``{"type": "allowed_tools",
  "mode": ..., "tools": [{"type": "function", "name": ...}]}``.

The policy sees a mode or ``{"name": ...}`` and only the tools it may call; the Responses API
echoes the choice as it was sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from course_lib.local_model.protocol import ProtocolError, invalid_value, missing, wrong_type

MODES = ["none", "auto", "required"]
ALLOWED_MODES = ["auto", "required"]
MESSAGES = {
    "named_choice": (
        "Invalid value for 'tool_choice': a named tool choice looks like "
        "{'type': 'function', 'function': {'name': '<tool name>'}}."
    ),
    "unknown_choice": (
        "Invalid value for 'tool_choice': function {name!r} was not found in 'tools'. Available "
        "functions: {names}."
    ),
    "choice_without_tools": (
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
    ),
    "choice_not_found": (
        "Tool choice 'function' not found in 'tools' parameter: there is no function named "
        "{name!r}. Available functions: {names}."
    ),
    "responses_without_tools": (
        "Tool choice 'function' not found in 'tools' parameter: the request has no tools."
    ),
    "choice_shape": (
        "Invalid value for 'tool_choice': a named tool choice in the Responses API is flat: "
        "{'type': 'function', 'name': '<tool name>'}."
    ),
}


@dataclass(frozen=True)
class Choice:
    """The checked choice: ``policy`` (a mode or ``{"name": ...}``), the functions the model
    may call, and the choice as a Responses reply echoes it."""

    policy: str | dict[str, str]
    functions: list[dict[str, Any]]
    echo: Any


def _mode(choice: Any, functions: list[dict[str, Any]]) -> Choice | None:
    """A choice sent as a mode (``"auto"``, ...); ``None`` for an object; raise for the rest."""
    if isinstance(choice, str):
        if choice not in MODES:
            raise invalid_value("tool_choice", choice, MODES)
        return Choice(choice, functions, choice)
    if not isinstance(choice, dict):
        raise wrong_type("tool_choice", "a string or an object", choice)
    return None


def chat_choice(choice: Any, functions: list[dict[str, Any]]) -> Choice:
    """Chat Completions' ``tool_choice`` (``None``: not sent)."""
    if choice is None:
        return Choice("auto", functions, "auto")
    if not functions:  # any choice at all needs tools, "auto" and "none" included
        raise ProtocolError(MESSAGES["choice_without_tools"], param="tool_choice")
    mode = _mode(choice, functions)
    if mode is not None:
        return mode
    if choice.get("type") == "allowed_tools":
        spec = choice.get("allowed_tools")
        if spec is None:
            raise missing("tool_choice.allowed_tools")
        if not isinstance(spec, dict):
            raise wrong_type("tool_choice.allowed_tools", "an object", spec)
        where = "tool_choice.allowed_tools"
        return _allowed(spec, functions, where, lambda tool: tool.get("function"), choice)
    if "function" not in choice:
        raise missing("tool_choice.function")
    function = choice["function"]
    if not isinstance(function, dict):
        raise wrong_type("tool_choice.function", "an object", function)
    if "name" not in function:
        raise missing("tool_choice.function.name")
    if choice.get("type") != "function":
        raise ProtocolError(MESSAGES["named_choice"], param="tool_choice", code="invalid_value")
    _find(function["name"], functions, "tool_choice", chat=True)
    return Choice({"name": function["name"]}, functions, choice)


def responses_choice(choice: Any, functions: list[dict[str, Any]]) -> Choice:
    """The Responses API's ``tool_choice`` (``None``: not sent)."""
    if choice is None:
        return Choice("auto", functions, "auto")
    mode = _mode(choice, functions)
    if mode is not None:
        return mode
    if choice.get("type") == "allowed_tools":
        return _allowed(choice, functions, "tool_choice", lambda tool: tool, choice)
    if choice.get("type") != "function" or not isinstance(choice.get("name"), str):
        raise ProtocolError(MESSAGES["choice_shape"], param="tool_choice", code="invalid_value")
    _find(choice["name"], functions, "tool_choice", chat=False)
    return Choice({"name": choice["name"]}, functions, {"type": "function", "name": choice["name"]})


def _allowed(spec: dict, functions: list[dict], where: str, named, sent: dict) -> Choice:
    """An ``allowed_tools`` choice: its mode, and the functions it names (in ``tools`` order).

    The real API's wording for an allowed tool missing from ``tools`` was not found; the
    message is the one each API gives for a named choice missing from ``tools``."""
    mode = spec.get("mode")
    if mode is None:
        raise missing(f"{where}.mode")
    if mode not in ALLOWED_MODES:
        raise invalid_value(f"{where}.mode", mode, ALLOWED_MODES)
    tools = spec.get("tools")
    if tools is None:
        raise missing(f"{where}.tools")
    if not isinstance(tools, list):
        raise wrong_type(f"{where}.tools", "an array", tools)
    names: set[str] = set()
    chat = where != "tool_choice"
    for index, tool in enumerate(tools):
        here = f"{where}.tools[{index}]"
        if not isinstance(tool, dict):
            raise wrong_type(here, "an object", tool)
        if tool.get("type") != "function":
            raise invalid_value(f"{here}.type", tool.get("type"), ["function"])
        function = named(tool)
        name_param = f"{here}.function.name" if chat else f"{here}.name"
        if not isinstance(function, dict) or "name" not in function:
            raise missing(name_param)
        names.add(_find(function["name"], functions, name_param, chat=chat))
    allowed = [function for function in functions if function["name"] in names]
    return Choice(mode, allowed, json.loads(json.dumps(sent)))


def _find(name: Any, functions: list[dict], param: str, *, chat: bool) -> str:
    """``name`` when it names one of ``functions``, else the API's 400."""
    if not functions:
        key = "choice_without_tools" if chat else "responses_without_tools"
        raise ProtocolError(MESSAGES[key], param="tool_choice")
    names = [function["name"] for function in functions]
    if name not in names:
        key = "unknown_choice" if chat else "choice_not_found"
        shown = str(name)[:100]
        message = MESSAGES[key].format(name=shown, names=", ".join(names))
        raise ProtocolError(message, param=param, code="invalid_value" if chat else None)
    return name
