"""One tool, four wire formats.

Every provider wants the same three facts (name, description, parameters schema) wrapped
differently:

- ``"openai"``: Chat Completions, ``{"type": "function", "function": {name, description,
  parameters[, strict]}}``.
- ``"responses"``: OpenAI Responses, flat: ``{"type": "function", name, description, parameters,
  strict}``; ``strict`` is always present because that API treats a missing flag as ``true``.
- ``"anthropic"``: Messages API, ``{name, description, input_schema}``.
- ``"gemini"``: a Gemini function declaration ``{name, description, parameters}``. Its schema
  dialect is a subset of OpenAPI 3.0, so ``gemini_schema`` rewrites ours (see there).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .parameters import inspect_function
from .strict import to_strict
from .type_map import copy_json

__all__ = ["FORMATS", "convert_tool", "function_to_tool", "gemini_schema"]

FORMATS = ("openai", "responses", "anthropic", "gemini")


def function_to_tool(
    func: Callable[..., Any],
    *,
    format: str = "openai",
    strict: bool = False,
    name: str | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """The tool definition of ``func`` in one provider's format.

    ``name`` and ``description`` override what reflection finds; ``strict=True`` applies OpenAI's
    strict-mode rules (``to_strict``) and raises ``ValueError`` when the schema cannot be strict.
    """
    _check_format(format)
    spec = inspect_function(func)
    try:
        tool = openai_tool(
            name or spec.name,
            spec.description if description is None else description,
            spec.parameters,
            strict=strict,
        )
    except ValueError as exc:  # strict mode refused a parameter: say which function it was
        raise ValueError(f"{spec.name}() cannot be offered in strict mode: {exc}") from None
    return tool if format == "openai" else convert_tool(tool, format)


def openai_tool(
    name: str, description: str, parameters: dict[str, Any], *, strict: bool = False
) -> dict[str, Any]:
    """Assemble a Chat Completions tool (the format every other one is converted from)."""
    function: dict[str, Any] = {"name": name}
    if description:
        function["description"] = description
    function["parameters"] = to_strict(parameters) if strict else parameters
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def convert_tool(openai_tool: dict[str, Any], format: str) -> dict[str, Any]:
    """Convert a Chat Completions tool to ``format``; the input is left unchanged."""
    _check_format(format)
    function = _function_of(openai_tool)
    if format == "openai":
        return copy_json(openai_tool)
    name = function["name"]
    description = function.get("description") or ""
    parameters = copy_json(function.get("parameters") or {"type": "object", "properties": {}})
    strict = bool(function.get("strict", False))
    if format == "responses":
        tool: dict[str, Any] = {"type": "function", "name": name}
        if description:
            tool["description"] = description
        tool.update(parameters=parameters, strict=strict)
        return tool
    if format == "anthropic":
        tool = {"name": name}
        if description:
            tool["description"] = description
        tool["input_schema"] = parameters
        if strict:
            tool["strict"] = True
        return tool
    tool = {"name": name}
    if description:
        tool["description"] = description
    if parameters.get("properties"):
        tool["parameters"] = gemini_schema(parameters)
    return tool


# -- Gemini's schema dialect ----------------------------------------------------------------------

_GEMINI_KEEP = {
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "properties",
    "required",
    "anyOf",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "default",
}
_GEMINI_FORMATS = {"date-time", "enum", "float", "double", "int32", "int64"}


def gemini_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Rewrite a JSON Schema into the OpenAPI 3.0 subset Gemini function declarations accept.

    - ``$ref`` is replaced by the definition (no ``$defs`` in that dialect); recursive types
      cannot be written without references and raise ``ValueError``.
    - ``X | None``, written ``{"type": ["x", "null"]}`` or as ``anyOf`` with ``{"type": "null"}``,
      becomes ``X`` with ``nullable: true`` (Gemini has no ``null`` type); a list of several
      types becomes ``anyOf``, one branch per type (Gemini has no type lists either).
    - ``enum`` values become strings (the only kind Gemini accepts), ``const`` becomes ``enum``.
    - Tuples become arrays of the union of their item types with a fixed length.
    - Integer ``exclusiveMinimum``/``exclusiveMaximum`` become ``minimum``/``maximum`` (n+1/n-1).
    - Formats Gemini does not know (``date``, ``uuid``, ...) move into the description.
    - ``additionalProperties``, ``uniqueItems`` and the rest are dropped: a looser schema, still
      enforced by argument validation. Open maps (objects without fixed properties) raise
      ``ValueError``: Gemini requires properties on every object.
    """
    defs = schema.get("$defs", {})
    return _gemini(schema, defs, "parameters", ())


def _gemini(node: dict[str, Any], defs: dict, path: str, stack: tuple[str, ...]) -> dict:
    node, stack = _resolved(node, defs, path, stack)
    json_type = node.get("type")
    if json_type is None and "anyOf" not in node and "enum" not in node:
        raise ValueError(
            f"{path}: Gemini needs a type for every value and this one accepts anything (Any)"
        )
    if "const" in node:
        node = {**node, "enum": [node["const"]]}
    out: dict[str, Any] = {}
    for key, value in node.items():
        out.update(_gemini_keyword(key, value, json_type, defs, path, stack))
    if node.get("format") and node["format"] not in _GEMINI_FORMATS:
        hint = f"(format: {node['format']})"
        out["description"] = f"{out['description']} {hint}" if out.get("description") else hint
    if json_type == "object" and not node.get("properties"):
        raise ValueError(
            f"{path}: Gemini cannot express an open map (an object without fixed properties, "
            "such as dict[str, ...]); use a TypedDict, dataclass or model instead"
        )
    return out


def _resolved(
    node: dict[str, Any], defs: dict, path: str, stack: tuple[str, ...]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``node`` with its ``$ref`` (inlined from ``defs``), a one-member ``allOf`` and its null
    branch (as ``nullable``) resolved; ``stack``, the definitions inlined on the way here."""
    ref = node.get("$ref")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        if name in stack:
            raise ValueError(
                f"{path}: {name} refers to itself; Gemini schemas cannot express recursive "
                "types (they have no $ref): flatten the type or send it as a JSON string"
            )
        merged = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
        return _resolved(merged, defs, path, (*stack, name))
    if "allOf" in node and len(node["allOf"]) == 1:
        rest = {k: v for k, v in node.items() if k != "allOf"}
        return _resolved({**node["allOf"][0], **rest}, defs, path, stack)
    node = _nullable_form(node)
    if "$ref" in node or "allOf" in node:  # the non-null branch of X | None was a reference
        return _resolved(node, defs, path, stack)
    return node, stack


def _gemini_keyword(
    key: str, value: Any, json_type: Any, defs: dict, path: str, stack: tuple[str, ...]
) -> dict[str, Any]:
    """What one keyword of a resolved node becomes in Gemini's schema (nothing, if dropped)."""
    if key == "items":
        return {key: _gemini(value, defs, f"{path}[]", stack)}
    if key == "properties":
        return {key: {n: _gemini(v, defs, f"{path}.{n}", stack) for n, v in value.items()}}
    if key == "anyOf":
        return {key: [_gemini(v, defs, f"{path}|{i}", stack) for i, v in enumerate(value)]}
    if key == "enum":
        return {key: [v if isinstance(v, str) else json.dumps(v) for v in value if v is not None]}
    if key == "prefixItems":
        return _tuple_items(value, defs, path, stack)
    if key in ("exclusiveMinimum", "exclusiveMaximum") and json_type == "integer":
        return {"minimum": value + 1} if key == "exclusiveMinimum" else {"maximum": value - 1}
    if key == "format" and value not in _GEMINI_FORMATS:
        return {}
    return {key: value} if key in _GEMINI_KEEP else {}


def _nullable_form(node: dict) -> dict:
    """Turn ``anyOf [X, null]`` and ``type: [X, "null"]`` into Gemini's ``nullable: true``."""
    json_type = node.get("type")
    if isinstance(json_type, list):
        types = [t for t in json_type if t != "null"]
        extra = {"nullable": True} if "null" in json_type else {}
        if len(types) == 1:
            return {**node, "type": types[0], **extra}
        rest = {k: v for k, v in node.items() if k != "type"}
        return {**rest, "anyOf": [{"type": t} for t in types], **extra}
    branches = node.get("anyOf")
    if not branches or {"type": "null"} not in branches:
        return node
    others = [b for b in branches if b != {"type": "null"}]
    rest = {k: v for k, v in node.items() if k != "anyOf"}
    if len(others) == 1:
        return {**others[0], **rest, "nullable": True}
    return {**rest, "anyOf": others, "nullable": True}


def _tuple_items(items: list, defs: dict, path: str, stack: tuple[str, ...]) -> dict:
    converted: list[dict] = []
    for i, item in enumerate(items):
        schema = _gemini(item, defs, f"{path}[{i}]", stack)
        if schema not in converted:
            converted.append(schema)
    if not converted:
        return {}
    return {"items": converted[0] if len(converted) == 1 else {"anyOf": converted}}


# -- helpers --------------------------------------------------------------------------------------


def _check_format(format: str) -> None:
    if format not in FORMATS:
        raise ValueError(f"unknown tool format {format!r}; choose one of: {', '.join(FORMATS)}")


def _function_of(tool: Any) -> dict[str, Any]:
    function = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(function, dict) or tool.get("type") != "function" or "name" not in function:
        raise ValueError(
            "convert_tool expects an OpenAI Chat Completions tool: "
            '{"type": "function", "function": {"name": ..., "parameters": {...}}}; '
            f"got {str(tool)[:80]}"
        )
    return function
