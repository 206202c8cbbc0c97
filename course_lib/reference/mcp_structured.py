"""Structured tool results over MCP: a tool's ``outputSchema`` and each answer's
``structuredContent``.

A tool that returns data (a dict, a list, a dataclass) can say so: its ``outputSchema`` describes
the JSON it answers with, and every successful ``tools/call`` result carries that JSON as
``structuredContent`` beside the text block (the specification asks a server to keep the text
too, for clients that read only text). A program reads the data without parsing prose; the SDK's
``ClientSession`` validates it against the schema and raises when a server breaks its promise.

Which tools get one: those whose return annotation is a JSON object or array (lesson 02's
``type_schema`` of it, so the schema reads like the parameters'), never one that may be a
string, whose text is not JSON. Revision 2025-11-25 allows only an object at the root of an
``outputSchema`` (2026-07-28 allows any schema), so, like the SDK's own ``MCPServer``, a result
that is not an object travels wrapped as ``{"result": ...}``: one listing serves both revisions.

``structuredContent`` is read back from the registry's text (the JSON of what the tool returned)
and checked against the schema before it is sent. A result that is not that JSON (a text cut at
the registry's ``max_result_chars``) or does not fit becomes a tool error saying so, never a
result that breaks the promise.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .type_map import type_schema
from .validation import compile_validator, validate_arguments

__all__ = ["WRAPPED_KEY", "ToolOutput", "tool_output"]

WRAPPED_KEY = "result"
_STRUCTURED = {"object", "array"}
MESSAGES = {
    "not_json": (
        "tool {name!r} declares an output schema, but its answer is not the JSON of a value "
        "(a result longer than the registry's max_result_chars is cut): return less, or "
        "raise the limit"
    ),
    "does_not_fit": (
        "tool {name!r} returned a value that does not fit its output schema ({problems}): "
        "return what the annotation says"
    ),
}


@dataclass(frozen=True)
class ToolOutput:
    """What a tool promises about its results: the ``outputSchema`` it lists, and whether a
    result travels wrapped as ``{"result": ...}`` (when it is not an object)."""

    schema: dict[str, Any]
    wrapped: bool

    def structured(self, name: str, text: str) -> tuple[Any, str | None]:
        """``(structuredContent, None)`` for the registry's ``text`` of tool ``name``, or
        ``(None, problem)`` when the text is not a value that fits the schema."""
        try:
            value = json.loads(text)
        except ValueError:
            return None, MESSAGES["not_json"].format(name=name)
        content = {WRAPPED_KEY: value} if self.wrapped else value
        problems = validate_arguments(self.schema, content, validator=_validator(self.schema))
        if problems:
            return None, MESSAGES["does_not_fit"].format(name=name, problems="; ".join(problems))
        return content, None


def tool_output(function: Callable[..., Any]) -> ToolOutput | None:
    """The promise of a tool running ``function``, or None for an unstructured one.

    None when the function has no return annotation, when the annotation cannot be resolved
    or has no JSON Schema, and when its JSON is not an object or an array (or may be a string).
    """
    try:
        annotation = inspect.signature(function, eval_str=True).return_annotation
    except Exception:  # noqa: BLE001 (an annotation that cannot be resolved: no promise made)
        return None
    if annotation is inspect.Signature.empty:
        return None
    try:
        schema = type_schema(annotation)
    except TypeError:
        return None
    kinds = _json_types(schema, schema.get("$defs", {}))
    if not kinds & _STRUCTURED or "string" in kinds:
        return None
    if schema.get("type") == "object":
        return ToolOutput(schema, wrapped=False)
    return ToolOutput(_wrapped(schema), wrapped=True)


def _wrapped(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as the one required property ``result`` of an object; ``$defs`` stay at the
    root, where the ``$ref``s inside point."""
    inner = dict(schema)
    defs = inner.pop("$defs", None)
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {WRAPPED_KEY: inner},
        "required": [WRAPPED_KEY],
        "additionalProperties": False,
    }
    if defs:
        wrapped["$defs"] = defs
    return wrapped


def _json_types(schema: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> set[str]:
    """The JSON types a value of ``schema`` may have at its top (an empty set: unknown)."""
    if depth > 20:
        return set()
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return set(kind)
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = defs.get(ref.removeprefix("#/$defs/"))
        return _json_types(target, defs, depth + 1) if isinstance(target, dict) else set()
    kinds: set[str] = set()
    for option in schema.get("anyOf", []) + schema.get("oneOf", []):
        if isinstance(option, dict):
            kinds |= _json_types(option, defs, depth + 1)
    return kinds


_VALIDATORS: dict[str, Any] = {}


def _validator(schema: dict[str, Any]) -> Any:
    """One compiled validator per output schema (a server answers many calls per tool)."""
    key = json.dumps(schema, sort_keys=True)
    validator = _VALIDATORS.get(key)
    if validator is None:
        validator = _VALIDATORS[key] = compile_validator(schema)
    return validator
