"""Checking the JSON Schemas a request carries: tool parameters and structured-output formats.

Both OpenAI APIs (and, in its own words, Anthropic's) refuse a tool whose name breaks the naming
rule or whose parameters are not an object schema, and, in **strict** mode, a schema that leaves
an object open or a property optional. api.openai.com accepts ``default`` inside strict schemas
(the model ignores it; Azure OpenAI refuses it): so does the local model.

Every check here also makes the schema safe for the code behind it: a keyword of the wrong JSON
type (``"enum": "c"``, ``"properties": []``) is a 400 naming where it is, never a crash later.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from course_lib.local_model.memo import Memo, exact_key
from course_lib.local_model.protocol import ProtocolError, json_kind, missing, wrong_type

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
MAX_NAME_LENGTH = 64
TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")
SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
SUBSCHEMA_MAPS = ("properties", "$defs", "definitions")
SUBSCHEMA_SINGLE = ("items", "additionalProperties", "not")

MESSAGES = {
    "duplicate_tool": (
        "Invalid 'tools': duplicate function name {name!r} (tools[{first}] and tools[{second}]). "
        "Tool names must be unique: rename one, or drop the copy."
    ),
    "name_too_long": (
        "Invalid '{param}': string too long. Expected a string with maximum length {limit}, but "
        "got a string with length {length} instead."
    ),
    "name_pattern": (
        "Invalid '{param}': string does not match pattern. Expected a string that matches the "
        "pattern '^[a-zA-Z0-9_-]+$'. Got {name!r}: use ASCII letters, digits, '_' and '-' only "
        "(put other languages in the description)."
    ),
    "not_object_schema": (
        "Invalid schema for {label}: schema must be a JSON Schema of 'type: \"object\"', got "
        "'type: {got}'. {why}"
    ),
    "bad_keyword": (
        "Invalid schema for {label}: In context={context}, '{keyword}' must be {expected}, but "
        "got {got}."
    ),
    "strict_closed": (
        "Invalid schema for {label}: In context={context}, 'additionalProperties' is required "
        "to be supplied and to be false."
    ),
    "strict_required": (
        "Invalid schema for {label}: In context={context}, 'required' is required to be "
        "supplied and to be an array including every key in properties. Missing {key!r}. (Make "
        "an optional parameter required and nullable instead.)"
    ),
    "strict_ref": (
        "Invalid schema for {label}: In context={context}, reference to component {ref!r} "
        "which was not found in the schema."
    ),
}
# Schemas that passed a check: the same schema comes back with every request of a conversation.
# Only success is kept (a failure is raised again, worded for where the schema sits).
KEYWORDS_PASSED: Memo[bool] = Memo(256)
STRICT_PASSED: Memo[bool] = Memo(256)
WHY_OBJECT = {
    "function": "Parameters are always an object whose 'properties' are the named arguments.",
    "response_format": "Structured outputs in strict mode need an object at the root.",
}


def checked_name(where: str, spec: dict, *, null_is_missing: bool = False) -> str:
    """``spec["name"]``, a valid function name: else the API's error for ``{where}.name`` (a
    ``null`` name is missing with ``null_is_missing``, of the wrong type otherwise)."""
    if "name" not in spec or (null_is_missing and spec["name"] is None):
        raise missing(f"{where}.name")
    name = spec["name"]
    if not isinstance(name, str):
        raise wrong_type(f"{where}.name", "a string", name)
    check_name(f"{where}.name", name)
    return name


def check_name(param: str, name: str) -> None:
    """The naming rule tools and response formats share: ``^[a-zA-Z0-9_-]+$``, at most 64."""
    if len(name) > MAX_NAME_LENGTH:
        raise ProtocolError(
            MESSAGES["name_too_long"].format(param=param, limit=MAX_NAME_LENGTH, length=len(name)),
            param=param,
            code="string_above_max_length",
        )
    if not NAME_PATTERN.match(name):
        raise ProtocolError(
            MESSAGES["name_pattern"].format(param=param, name=name[:80]),
            param=param,
            code="invalid_value",
        )


def check_parameters(label: str, parameters: Any, *, param: str, code: str | None) -> None:
    """A tool's parameters: an object schema whose keywords all have the right JSON types."""
    if not isinstance(parameters, dict):
        raise ProtocolError(
            f"Invalid type for '{param}': expected an object, but got {json_kind(parameters)} "
            "instead.",
            param=param,
            code="invalid_type",
        )
    if parameters.get("type") != "object":
        raise _not_object(label, parameters, "function", param, code)
    check_keywords(label, parameters, param=param, code=code)


def check_output_schema(label: str, schema: Any, *, strict: bool, param: str, code: str | None):
    """A structured-output schema: any schema, an object at the root in strict mode."""
    if not isinstance(schema, dict):
        raise ProtocolError(
            f"Invalid type for '{param}': expected an object, but got {json_kind(schema)} instead.",
            param=param,
            code="invalid_type",
        )
    if strict and schema.get("type") != "object":
        raise _not_object(label, schema, "response_format", param, code)
    check_keywords(label, schema, param=param, code=code)
    if strict:
        check_strict(label, schema, param=param, code=code)


def _not_object(label: str, schema: dict, kind: str, param: str, code: str | None):
    got = json.dumps(schema.get("type"), ensure_ascii=False)[:80]
    return ProtocolError(
        MESSAGES["not_object_schema"].format(label=label, got=got, why=WHY_OBJECT[kind]),
        param=param,
        code=code,
    )


def subschemas(schema: dict, context: tuple = ()) -> Iterator[tuple[Any, tuple]]:
    """Every schema nested in ``schema`` (not itself), with its context path, depth first."""
    for keyword in SUBSCHEMA_MAPS:
        mapping = schema.get(keyword)
        if isinstance(mapping, dict):
            for key, sub in mapping.items():
                yield sub, (*context, keyword, key)
                if isinstance(sub, dict):
                    yield from subschemas(sub, (*context, keyword, key))
    for keyword in SUBSCHEMA_LISTS:
        options = schema.get(keyword)
        if isinstance(options, list):
            for position, sub in enumerate(options):
                yield sub, (*context, keyword, str(position))
                if isinstance(sub, dict):
                    yield from subschemas(sub, (*context, keyword, str(position)))
    for keyword in SUBSCHEMA_SINGLE:
        sub = schema.get(keyword)
        if isinstance(sub, dict):
            yield sub, (*context, keyword)
            yield from subschemas(sub, (*context, keyword))


def check_keywords(label: str, schema: dict, *, param: str, code: str | None) -> None:
    """The keywords the local model reads have the JSON types JSON Schema gives them."""
    KEYWORDS_PASSED.get_or_make(
        exact_key(schema), lambda: _check_keywords(label, schema, param=param, code=code)
    )


def _check_keywords(label: str, schema: dict, *, param: str, code: str | None) -> bool:
    for sub, context in [(schema, ()), *subschemas(schema)]:
        problem = _keyword_problem(sub, context)
        if problem:
            keyword, expected, value = problem
            raise ProtocolError(
                MESSAGES["bad_keyword"].format(
                    label=label,
                    context=context,
                    keyword=keyword,
                    expected=expected,
                    got=json_kind(value),
                ),
                param=param,
                code=code,
            )
    return True


def _keyword_problem(schema: Any, context: tuple) -> tuple[str, str, Any] | None:
    last = context[-1] if context else None
    parent = context[-2] if len(context) > 1 else None
    if isinstance(schema, bool) and (last in SUBSCHEMA_SINGLE or parent in SUBSCHEMA_MAPS):
        return None  # ``true``/``false`` are schemas too
    if not isinstance(schema, dict):
        return ("schema", "an object", schema)
    for keyword in SUBSCHEMA_SINGLE:
        if keyword in schema and not isinstance(schema[keyword], (dict, bool)):
            return (keyword, "a schema (an object or a boolean)", schema[keyword])
    kind = schema.get("type")
    if kind is not None and not (
        kind in TYPES or (isinstance(kind, list) and kind and all(k in TYPES for k in kind))
    ):
        return ("type", f"one of {', '.join(TYPES)} (or an array of them)", kind)
    expectations = (
        ("enum", list, "an array"),
        ("required", list, "an array of property names"),
        ("properties", dict, "an object"),
        ("$defs", dict, "an object"),
        ("description", str, "a string"),
        ("title", str, "a string"),
        ("$ref", str, "a string"),
        ("pattern", str, "a string"),
        ("format", str, "a string"),
        ("anyOf", list, "an array"),
        ("oneOf", list, "an array"),
        ("allOf", list, "an array"),
    )
    for keyword, expected_type, expected in expectations:
        if keyword in schema and not isinstance(schema[keyword], expected_type):
            return (keyword, expected, schema[keyword])
    if "required" in schema and not all(isinstance(r, str) for r in schema["required"]):
        return ("required", "an array of property names", schema["required"])
    for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        value = schema.get(keyword)
        if keyword in schema and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return (keyword, "a number", value)
    for keyword in ("minLength", "maxLength", "minItems", "maxItems"):
        value = schema.get(keyword)
        if keyword in schema and (isinstance(value, bool) or not isinstance(value, int)):
            return (keyword, "an integer", value)
    return None


def check_strict(label: str, schema: dict, *, param: str, code: str | None) -> None:
    """Strict mode: every object closed and every property required, all the way down.

    ``default`` is allowed (api.openai.com ignores it in strict schemas; Azure OpenAI refuses it).
    """
    STRICT_PASSED.get_or_make(
        exact_key(schema), lambda: _check_strict(label, schema, param=param, code=code)
    )


def _check_strict(label: str, schema: dict, *, param: str, code: str | None) -> bool:
    for sub, context in [(schema, ()), *subschemas(schema)]:
        if not isinstance(sub, dict) or (context and context[-1] == "additionalProperties"):
            continue
        fields = dict(label=label, context=context)
        kind = sub.get("type")
        is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
        if is_object or "properties" in sub:
            if sub.get("additionalProperties") is not False:
                message = MESSAGES["strict_closed"].format(**fields)
                raise ProtocolError(message, param=param, code=code)
            listed = sub.get("required", [])
            absent = [key for key in sub.get("properties", {}) if key not in listed]
            if absent:
                raise ProtocolError(
                    MESSAGES["strict_required"].format(**fields, key=absent[0]),
                    param=param,
                    code=code,
                )
        ref = sub.get("$ref")
        if isinstance(ref, str) and resolve_ref(schema, ref) is None:
            raise ProtocolError(
                MESSAGES["strict_ref"].format(**fields, ref=ref), param=param, code=code
            )
    return True


def resolve_ref(root: dict, ref: str) -> dict | None:
    """The schema a local ``$ref`` (``#``, ``#/$defs/Name``, any JSON pointer) points to."""
    if not ref.startswith("#"):
        return None
    node: Any = root
    for part in [p for p in ref[1:].split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node if isinstance(node, dict) else None


def check_function(where: str, function: dict) -> dict:
    """One function definition (``name``, ``description``, ``parameters``, ``strict``)."""
    name = checked_name(where, function)
    description = function.get("description")
    if description is not None and not isinstance(description, str):
        raise wrong_type(f"{where}.description", "a string", description)
    parameters = function.get("parameters")
    if parameters is None:  # a tool without parameters
        parameters = {
            "type": "object",
            "properties": {},
            "required": [],
            "additionalProperties": False,
        }
    label = f"function '{name}'"
    param, code = f"{where}.parameters", "invalid_function_parameters"
    check_parameters(label, parameters, param=param, code=code)
    strict = function.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise wrong_type(f"{where}.strict", "a boolean", strict)
    if strict:
        check_strict(label, parameters, param=param, code=code)
    return {
        "name": name,
        "description": description or "",
        "parameters": parameters,
        "strict": bool(strict),
    }


def unique_names(functions: list[dict], param: str) -> list[dict]:
    """Refuse two tools with one name (``param`` is formatted with the second one's index)."""
    seen: dict[str, int] = {}
    for index, function in enumerate(functions):
        name = function["name"]
        if name in seen:
            raise ProtocolError(
                MESSAGES["duplicate_tool"].format(name=name, first=seen[name], second=index),
                param=param.format(index=index),
                code="invalid_value",
            )
        seen[name] = index
    return functions
