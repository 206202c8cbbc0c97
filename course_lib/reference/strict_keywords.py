"""What OpenAI's strict mode makes of each JSON Schema keyword, for ``strict.to_strict``: kept,
dropped (argument validation still enforces it), or refused (strict mode cannot express it);
the JSON types a schema allows; and the catalog of ``to_strict``'s errors.

Split from ``strict``, which walks the schema and uses these.
"""

from __future__ import annotations

from typing import Any

from .validation import json_type

MAX_SCHEMA_DEPTH = 50  # schemas inside schemas, references followed
JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
KEPT = frozenset(
    {"type", "enum", "const", "description", "pattern", "format", "multipleOf"}
    | {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems"}
)
OBJECT_KEYWORDS = frozenset({"properties", "required", "additionalProperties"})
DROPPED = frozenset(
    {"minLength", "maxLength", "uniqueItems", "minProperties", "maxProperties"}
    | {"propertyNames", "contains", "minContains", "maxContains"}
)
KNOWN = KEPT | OBJECT_KEYWORDS | DROPPED | {"items", "anyOf"}
FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
UNSUPPORTED = {
    "prefixItems": "tuples (fixed-length arrays with a type per position)",
    "additionalItems": "tuples (fixed-length arrays with a type per position)",
    "patternProperties": "objects with pattern-matched keys",
    "unevaluatedProperties": "unevaluatedProperties",
    "unevaluatedItems": "unevaluatedItems",
    "not": "`not`",
    "if": "if/then/else",
    "then": "if/then/else",
    "else": "if/then/else",
    "dependentRequired": "dependentRequired",
    "dependentSchemas": "dependentSchemas",
    "dependencies": "dependencies",
    "oneOf": "`oneOf` (use anyOf)",
    "$dynamicRef": "$dynamicRef",
    "$recursiveRef": "$recursiveRef",
    "nullable": "OpenAPI's `nullable` (JSON Schema writes it as a type list with 'null')",
}
ADVICE = "use plainer types for this parameter, or call function_to_tool(..., strict=False)"
MESSAGES = {
    "not_a_dict": "to_strict expects a JSON Schema object (a dict), got {kind}",
    "root": "strict mode needs an object schema at the top level (a tool's parameters), got "
    "{brief}",
    "any": "{path}: strict mode needs a type for every value, and this one accepts anything "
    "(Any); {advice}",
    "nothing": "{path}: this schema (false) accepts no value at all, so no call could be valid",
    "unsupported": "{path}: strict mode cannot express {what}; {advice}",
    "malformed": "{path}: {key!r} must be {expected}, got {got}",
    "open_map": "{path}: strict mode cannot express an open map (an object whose keys are not "
    "known in advance, such as dict[str, ...]); describe it with fixed fields (a TypedDict, "
    "dataclass or pydantic model) or as a list of key/value objects",
    "no_items": "{path}: strict mode needs to know what an array holds, and this one may hold "
    "anything (a bare list, tuple or set); say what it holds, e.g. list[str]",
    "undeclared": "{path}: 'required' names {names}, which 'properties' does not describe; "
    "describe them, or take them out of 'required'",
    "recursive": "{path}: the recursive reference {pointer} carries constraints beside it "
    "({keys}); strict mode allows nothing beside a $ref, and copying the definition in would "
    "never end; move the constraints into the definition",
    "no_value": "{path}: none of the values {values} has the type {types}, so no value is valid "
    "here; fix the enum or the type",
    "too_deep": "{path}: the schema nests more than {limit} schemas deep (references "
    "followed); strict mode allows 10 levels of objects",
}


def refuse_unsupported(node: dict, path: str) -> None:
    """Raise for the first keyword of ``node`` strict mode cannot express."""
    for key in node:
        if key in UNSUPPORTED:
            what = UNSUPPORTED[key]
            raise ValueError(MESSAGES["unsupported"].format(path=path, what=what, advice=ADVICE))


def kept(key: str, value: Any, types: list[str]) -> bool:
    """Whether ``key`` stays in the strict schema of a value of one of ``types``."""
    if key not in KNOWN:
        return False  # unknown keywords only annotate (JSON Schema 2020-12, section 6.5)
    if key in DROPPED or key in OBJECT_KEYWORDS and "object" not in types:
        return False  # dropped, or without effect on values of these types
    if key == "format" and value not in FORMATS:
        return False  # an annotation strict mode does not know; validation still checks it
    return key != "items" or "array" in types


def types_of(node: dict, path: str) -> list[str]:
    """The JSON types ``node`` allows: its ``type``, or what its keywords imply."""
    json_type = node.get("type")
    if json_type is not None:
        types = [json_type] if isinstance(json_type, str) else json_type
        if not isinstance(types, list) or not types or any(t not in JSON_TYPES for t in types):
            raise ValueError(
                MESSAGES["malformed"].format(
                    path=path, key="type", expected="a JSON type or a list of them", got=json_type
                )
            )
        return list(types)
    if any(key in node for key in OBJECT_KEYWORDS):
        return ["object"]
    if "items" in node:
        return ["array"]
    values = node.get("enum", [node["const"]] if "const" in node else None)
    if isinstance(values, list) and values:
        types = list(dict.fromkeys(_json_type(v) for v in values))
        if "object" not in types and "array" not in types:
            return types  # an enum of scalars: say their types, as strict mode likes
    return []


def values_of_types(node: dict, types: list[str], path: str) -> dict:
    """``enum`` and ``const`` keep only values of the allowed types: the others cannot occur."""
    allowed = set(types) | ({"integer"} if "number" in types else set())
    node = dict(node)
    if "const" in node and _json_type(node["const"]) not in allowed:
        raise ValueError(
            MESSAGES["no_value"].format(path=path, values=[node["const"]], types=types)
        )
    if isinstance(node.get("enum"), list):
        values = [value for value in node["enum"] if _json_type(value) in allowed]
        if not values:
            raise ValueError(
                MESSAGES["no_value"].format(path=path, values=node["enum"], types=types)
            )
        node["enum"] = values
    return node


def _json_type(value: Any) -> str:
    """``validation.json_type``, where anything but a scalar or a list (tuples too) is an object."""
    return (
        json_type(value)
        if isinstance(value, (type(None), bool, int, float, str, list))
        else "object"
    )


def checked(value: Any, kind: type, key: str, expected: str, path: str) -> Any:
    if (
        not isinstance(value, kind)
        or (kind is dict and not all(isinstance(v, (dict, bool)) for v in value.values()))
        or (kind is list and key == "required" and not all(isinstance(v, str) for v in value))
    ):
        raise ValueError(
            MESSAGES["malformed"].format(path=path, key=key, expected=expected, got=brief(value))
        )
    return value


def brief(schema: Any) -> str:
    text = repr(schema)
    return text if len(text) <= 80 else text[:77] + "..."
