"""Reading a tool call's arguments for `ToolRegistry.call`; the errors that go back to the model.

Split from `registry` (which keeps registration and dispatch). Everything here either returns the
converted keyword arguments or raises `CallError`, whose JSON text `call` hands back to the model
as the tool's result: what is wrong, where, and what to send instead.
"""

from __future__ import annotations

import difflib
import json
import traceback
from typing import TYPE_CHECKING, Any

import pydantic
import typing_extensions as te

from . import parameters
from .results import cut_text, to_text
from .validation import describe_value

if TYPE_CHECKING:
    from .registry import RegisteredTool

_SHOWN = 60  # characters of a hostile name or message quoted back


class CallError(Exception):
    """A problem to hand back to the model instead of a result."""

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__(payload.get("error"))
        self.text = dumps(payload)


def arguments_validator(spec: parameters.FunctionSpec, name: str) -> pydantic.TypeAdapter[Any]:
    """A pydantic validator for the whole arguments object, built once per tool.

    A TypedDict (not a model) so parameter names like `json` or `copy` cannot clash with model
    attributes; optional parameters are `NotRequired`, so the function's own defaults apply.
    """
    fields = {
        pname: te.Required[hint] if spec.fields[pname].required else te.NotRequired[hint]
        for pname, hint in spec.hints.items()
    }
    arguments = te.TypedDict(f"{name}_arguments", fields)  # type: ignore[operator]
    arguments.__pydantic_config__ = pydantic.ConfigDict(extra="forbid")  # type: ignore[attr-defined]
    try:
        return pydantic.TypeAdapter(arguments)
    except Exception as exc:  # pydantic cannot validate a type the schema accepted
        raise TypeError(
            f"{spec.name}(): cannot build a validator for its parameters: {exc}"
        ) from None


# Schema keywords whose meaning pydantic's strict JSON validation enforces exactly. A schema made
# of these alone needs no second check; anything else (nested objects whose classes ignore extra
# keys, Decimal's digit pattern, uniqueItems for sets, ...) is also checked with jsonschema so that
# `call` accepts exactly what the emitted schema allows.
_EXACT_KEYWORDS = frozenset(
    {"type", "enum", "const", "items", "prefixItems", "anyOf", "default", "description", "format"}
    | {"examples", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
    | {"minLength", "maxLength", "minItems", "maxItems", "additionalProperties"}
)


def needs_schema_check(schema: dict[str, Any]) -> bool:
    top = {k: v for k, v in schema.items() if k not in ("properties", "required")}
    if top.get("additionalProperties") is not False or set(top) - {"type", "additionalProperties"}:
        return True
    return any(not _exact(prop) for prop in schema.get("properties", {}).values())


def _exact(node: Any) -> bool:
    if isinstance(node, bool):
        return True
    if not isinstance(node, dict) or set(node) - _EXACT_KEYWORDS:
        return False
    extra = node.get("additionalProperties", True)
    children = [
        *node.get("anyOf", ()),
        *node.get("prefixItems", ()),
        extra,
        node.get("items", True),
    ]
    return all(_exact(child) for child in children)


def validated_arguments(tool: RegisteredTool, arguments: Any) -> dict[str, Any]:
    """The converted keyword arguments, or a `CallError` saying exactly what to fix."""
    text = _arguments_text(tool, arguments)
    parsed: Any = None
    if tool._default_nulls is not None and "null" in text:
        parsed = _parse(tool, text)
        if isinstance(parsed, dict):
            given = tool._default_nulls.drop(parsed)
            if given is not parsed:  # some nulls stood for "use the default": drop them
                parsed = given
                text = json.dumps(given, ensure_ascii=False)
    if tool._needs_schema_check:
        if parsed is None:
            parsed = _parse(tool, text)
        if not isinstance(parsed, dict):
            raise CallError(_not_an_object(tool, parsed))
        problems = tool.argument_problems(parsed)
        if problems:
            raise CallError(_invalid(tool, problems))
    try:
        return tool._validator.validate_json(text, strict=True)
    except pydantic.ValidationError as exc:
        raise CallError(_explain_rejection(tool, text, exc)) from None


def _arguments_text(tool: RegisteredTool, arguments: Any) -> str:
    """Arguments as JSON text: pydantic then validates them with JSON's own semantics."""
    if isinstance(arguments, str):
        if not arguments or (len(arguments) < 16 and arguments.strip() in ("", "null")):
            return "{}"  # "no arguments", however the model spelled it
        return arguments
    if arguments is None:
        return "{}"
    if isinstance(arguments, (bytes, bytearray)):
        try:
            return _arguments_text(tool, bytes(arguments).decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise CallError(
                {
                    "error": f"the arguments for tool {tool.name!r} are not UTF-8 text ({exc}); "
                    "send one JSON object of named parameters",
                    "tool": tool.name,
                }
            ) from None
    if isinstance(arguments, dict):
        try:
            return json.dumps(arguments, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise CallError(
                {
                    "error": f"the arguments for tool {tool.name!r} are not JSON data: {exc}; "
                    "pass JSON values (str, int, float, bool, None, lists, dicts) or JSON text",
                    "tool": tool.name,
                }
            ) from None
    raise CallError(_not_an_object(tool, arguments))


def _parse(tool: RegisteredTool, text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CallError(_malformed(tool, text, exc)) from None


def _explain_rejection(
    tool: RegisteredTool, text: str, exc: pydantic.ValidationError
) -> dict[str, Any]:
    errors = exc.errors(include_url=False)
    if any(error["type"] == "json_invalid" for error in errors):
        try:
            json.loads(text)
        except ValueError as parse_error:
            return _malformed(tool, text, parse_error)
        return _malformed(tool, text, ValueError(errors[0]["msg"]))  # pydantic is stricter
    if len(errors) == 1 and errors[0]["loc"] == ():
        return _not_an_object(tool, json.loads(text))
    parsed = json.loads(text)
    problems = tool.argument_problems(parsed)
    seen = {line.split(":", 1)[0].split(".")[0].split("[")[0] for line in problems}
    for error in errors:  # what only pydantic knows: date formats, custom validators, ...
        if error["loc"] and str(error["loc"][0]) not in seen:
            problems.append(_pydantic_line(error))
    return _invalid(tool, sorted(problems) or [_pydantic_line(error) for error in errors])


def _pydantic_line(error: dict[str, Any]) -> str:
    path = [step for step in error["loc"] if isinstance(step, int) or not _is_union_tag(step)]
    where = "arguments"
    if path:
        where = str(path[0]) + "".join(
            f"[{step}]" if isinstance(step, int) else f".{step}" for step in path[1:]
        )
    message = error["msg"].replace("Input should be", "expected").replace("Value error, ", "")
    return f"{where}: {message}, got {describe_value(error.get('input'))}"


def _is_union_tag(step: Any) -> bool:
    """pydantic puts the union member's type into error paths (`tags.list[str].1`); drop it."""
    return isinstance(step, str) and (step == "none" or any(ch in step for ch in "[]()"))


def positional_only(tool: RegisteredTool, kwargs: dict[str, Any]) -> list[Any]:
    """Positional-only parameters cannot be passed by name: move them (and defaults before them)."""
    names = tool._positional_only
    last = max((i for i, n in enumerate(names) if n in kwargs), default=-1)
    fields = tool.spec.fields
    return [kwargs.pop(n) if n in kwargs else fields[n].default_value() for n in names[: last + 1]]


def _malformed(tool: RegisteredTool, text: str, exc: ValueError) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "error": f"the arguments for tool {tool.name!r} are not valid JSON ({exc}); send one "
        'JSON object of named parameters, e.g. {"name": value}',
        "tool": tool.name,
    }
    position = getattr(exc, "pos", None)
    if isinstance(position, int):
        payload["near"] = text[max(0, position - 30) : position + 30]
    return payload


def _not_an_object(tool: RegisteredTool, value: Any) -> dict[str, Any]:
    shown = describe_value(value) if _is_json(value) else type(value).__name__
    return {
        "error": f"the arguments for tool {tool.name!r} must be a JSON object of named "
        f"parameters, got {shown}",
        "tool": tool.name,
    }


def _invalid(tool: RegisteredTool, problems: list[str]) -> dict[str, Any]:
    # The problems go into the error text itself: a model reads "error" first, and many read
    # nothing else, so the text must say what to fix, not only that something is wrong.
    return {
        "error": f"invalid arguments for tool {tool.name!r}: {'; '.join(problems)}. "
        "Fix them and call the tool again.",
        "tool": tool.name,
        "problems": problems,
    }


# -- what the registry answers instead of a result -------------------------------------------


def unknown_tool(name: Any, available: list[str]) -> dict[str, Any]:
    """The answer to a call of a tool that is not registered, with the closest name if any."""
    if not isinstance(name, str):
        return {
            "error": f"the tool name must be a string, got {describe_value(name)}; "
            f"available tools: {', '.join(available) or 'none'}",
            "available": available,
        }
    closest = difflib.get_close_matches(name, available, n=1, cutoff=0.6)
    if not closest:  # case slips (Get_Weather) score low with difflib; catch them here
        closest = [t for t in available if t.lower() == name.lower()][:1]
    hint = f"did you mean {closest[0]!r}? " if closest else ""
    payload: dict[str, Any] = {
        "error": f"unknown tool {short(name)!r}; {hint}available tools: "
        f"{', '.join(available) or 'none'}",
        "tool": short(name),
        "available": available,
    }
    if closest:
        payload["suggestion"] = closest[0]
    return payload


def failure(tool: RegisteredTool, exc: BaseException, include_traceback: bool) -> str:
    """The answer when the tool raised ``exc``."""
    payload: dict[str, Any] = {
        "error": f"tool {tool.name!r} failed: {describe_exception(exc)}",
        "tool": tool.name,
        "exception": type(exc).__name__,
    }
    if include_traceback:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        payload["traceback"] = cut_text(text, max_chars=4_000)
    return dumps(payload)


def result_text(tool: RegisteredTool, result: Any, max_chars: int) -> str:
    """The tool's ``result`` as text (``to_text``), or an error saying it cannot be sent."""
    try:
        return to_text(result, max_chars=max_chars)
    except Exception as exc:
        return dumps(
            {
                "error": f"tool {tool.name!r} returned a value that cannot be sent to the "
                f"model: {describe_exception(exc)}",
                "tool": tool.name,
            }
        )


# -- small helpers ---------------------------------------------------------------------------


def describe_exception(exc: BaseException) -> str:
    try:
        message = str(exc)
    except Exception:  # an exception whose __str__ itself fails
        message = "<message could not be printed>"
    message = cut_text(message, max_chars=2_000)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def short(value: Any) -> str:
    """A name safe to quote back: long strings shortened, anything else described."""
    if isinstance(value, str):
        return value if len(value) <= _SHOWN else value[: _SHOWN - 3] + "..."
    return describe_value(value) if _is_json(value) else type(value).__name__


def _is_json(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, list, dict))


def dumps(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, default=str)
