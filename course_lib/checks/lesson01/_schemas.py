"""Judging a hand-written Chat Completions tool (01.1 and 01.2) by what its schema does.

The check first reads the envelope (``{"type": "function", "function": {...}}``, the name, the
description, a valid ``"type": "object"`` schema with the right property names, defaults), then
validates argument objects a model might send with ``jsonschema``: good ones must be accepted,
bad ones rejected. So any correct way of writing the schema passes, and each wrong one fails on
a concrete case. When a good argument object is rejected, the hint comes from the validator's own
error (which keyword, at which property), not from what the case was meant to test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from course_lib import schema_library
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, fail, json_equal
from course_lib.checks.learner import Learner
from course_lib.checks.lesson01._values import value_of

SHAPE = {
    "type": "function",
    "function": {"name": "...", "description": "...", "parameters": {"type": "object"}},
}

HINTS = Catalog() | {
    "not_dict": "{what} is one dict: the tool, as the API receives it.",
    "flat": (
        'That is the flat shape of other APIs. Chat Completions nests "name", "description" '
        'and "parameters" inside a "function" dict.'
    ),
    "no_function": 'A Chat Completions tool is {{"type": "function", "function": {{...}}}}.',
    "type_function": 'Put "type": "function" next to "function".',
    "parameters_outside": '"parameters" belongs inside "function", not next to it.',
    "name": "The name is what the model writes in its call: exactly {name}.",
    "description": (
        'Give the function a "description": the model reads it to decide when to call the tool.'
    ),
    "wrap_parameters": (
        'Wrap "properties" and "required" in a "parameters" schema inside "function".'
    ),
    "no_parameters": 'Add "parameters": the JSON Schema of the arguments.',
    "object": ('The arguments form one JSON object: the parameters schema needs "type": "object".'),
    "type_names": (
        "JSON Schema has its own type names: string, integer, number, boolean, array, object, "
        "null (not Python's str, int, float, list)."
    ),
    "invalid_schema": "This is not valid JSON Schema: {message}",
    "properties": (
        'List every parameter of the function under "properties", with the exact Python names, '
        "and nothing else."
    ),
    "default_value": (
        'The function\'s default is {value}; the schema must say the same (or leave "default" out).'
    ),
    "default_fits_null": (
        'A default must fit its own schema, and null does not fit "type": {type}. Allow null '
        'too ("type": [{type}, "null"]) or leave "default" out.'
    ),
    "default_fits": (
        'A default must fit its own schema: fix the schema of {name} or leave "default" out.'
    ),
    "not_required": (
        'Only {required} is required: {name} has a default, so leave it out of "required".'
    ),
    "required": '{name} has no default, so it must be listed in "required".',
    "not_nullable": (
        '{name} is never None in the function, so its schema must not allow null: "type": '
        '"{type}" alone, not ["{type}", "null"].'
    ),
    "closed": (
        'Say "additionalProperties": false, so that arguments with an invented parameter are '
        "rejected. (It does not stop a model from writing one outside strict mode; it lets your "
        "code refuse them.)"
    ),
    "rejects_good": (
        "Your schema rejects arguments that {function} accepts. The validator says: {reason}"
    ),
}


# Every other phrase these checks show: case labels, what was expected or found, where.
TEXTS = Catalog() | {
    "case_shape": "the shape of {what}",
    "case_names": "the parameter names in {what}",
    "case_default": 'the "default" of {name}',
    "case_default_fits": 'the "default" of {name} against the schema of {name}',
    "case_type": 'the "type" of {name}',
    "case_arguments": "the model sends the arguments {arguments}",
    "at_path": "at {path}",
    "a_sentence": "a sentence saying what the tool does",
    "a_valid_schema": "a valid JSON Schema",
    "a_fitting_default": "a default your schema accepts",
    "should_accept": "accepted by your schema",
    "should_reject": "rejected by your schema",
    "accepted": "accepted",
    "rejected": "rejected",
    "validating": "validating against the parameters of {what}",
    "summary": "{count} argument objects validated",
}


hint = HINTS.hint


text = TEXTS.text


def at(path: str) -> str:
    """The Where line for ``path`` inside the tool's ``"function"`` (``"parameters.type"``)."""
    return text("at_path", path=f"$.function.{path}")


def plain(key: str, **fields: object) -> Plain:
    """A phrase shown as it is in Expected or Got (not as a quoted JSON string)."""
    return Plain(text(key, **fields))


@dataclass(frozen=True)
class ArgumentCase:
    """Arguments a model might send; ``good`` ones must be accepted, the others rejected with
    the hint ``hint`` (the rule the case was built to test)."""

    arguments: dict
    good: bool
    hint: str = ""

    @property
    def label(self) -> str:
        return arguments_label(self.arguments)


def arguments_label(arguments: dict) -> str:
    """The case label of an argument object, as one line of JSON."""
    return text("case_arguments", arguments=json.dumps(arguments, ensure_ascii=False))


def outline(value: Any, depth: int = 2) -> Any:
    """``value`` cut to its top ``depth`` levels of keys, the way ``SHAPE`` is written: what a
    wrong envelope needs is where its keys sit, not every line of its schema."""
    if isinstance(value, dict):
        return {key: outline(item, depth - 1) for key, item in value.items()} if depth else "{…}"
    if isinstance(value, list):
        return "[…]"
    if isinstance(value, str) and len(value) > 20:
        return "..."
    return value


def tool_parameters(tool: Any, what: str, name: str) -> dict:
    """The ``parameters`` schema of a Chat Completions tool, after checking the envelope."""
    __tracebackhide__ = True
    case = text("case_shape", what=what)
    if not isinstance(tool, dict):
        fail(case, SHAPE, tool, hint("not_dict", what=what))
    function = tool.get("function")
    if not isinstance(function, dict):
        fail(case, SHAPE, outline(tool), hint("flat" if "name" in tool else "no_function"))
    if tool.get("type") != "function":
        fail(case, SHAPE, outline(tool), hint("type_function"))
    if "parameters" in tool or "properties" in tool:
        fail(case, SHAPE, outline(tool), hint("parameters_outside"))
    if function.get("name") != name:
        fail(
            case, name, function.get("name"), hint("name", name=json.dumps(name)), where=at("name")
        )
    description = function.get("description")
    if not isinstance(description, str) or not description.strip():
        fail(case, plain("a_sentence"), description, hint("description"), where=at("description"))
    parameters = function.get("parameters")
    if not isinstance(parameters, dict):
        key = "wrap_parameters" if "properties" in function else "no_parameters"
        fail(case, SHAPE, outline(tool), hint(key), where=at("parameters"))
    if parameters.get("type") != "object":
        fail(case, "object", parameters.get("type"), hint("object"), where=at("parameters.type"))
    Draft202012Validator = schema_library.load().Draft202012Validator  # slow: load on use
    from jsonschema import SchemaError

    try:
        Draft202012Validator.check_schema(parameters)
    except SchemaError as exc:
        where = at(".".join(["parameters", *(str(part) for part in exc.path)]))
        type_names = "type" in exc.path or exc.validator in ("anyOf", "enum")
        chosen = hint("type_names") if type_names else hint("invalid_schema", message=exc.message)
        # Only the part of the schema that is wrong: ``where`` says where it sits.
        fail(case, plain("a_valid_schema"), exc.instance, chosen, where=where)
    return parameters


def expect_properties(parameters: dict, names: list[str], what: str) -> dict:
    __tracebackhide__ = True
    properties = parameters.get("properties")
    got = sorted(properties) if isinstance(properties, dict) else properties
    if got != sorted(names):
        where = at("parameters.properties")
        fail(text("case_names", what=what), sorted(names), got, hint("properties"), where=where)
    return properties


def expect_default(properties: dict, name: str, value: Any) -> None:
    """A "default" is optional; if given, it equals the function's and fits its own schema."""
    __tracebackhide__ = True
    prop = properties.get(name)
    if not isinstance(prop, dict) or "default" not in prop:
        return
    if not json_equal(value, prop["default"]):
        chosen = hint("default_value", value=json.dumps(value))
        fail(text("case_default", name=name), value, prop["default"], chosen)
    if not schema_library.load().Draft202012Validator(prop).is_valid(value):
        declared = prop.get("type")
        chosen = hint("default_fits", name=name)
        if value is None and isinstance(declared, str):
            chosen = hint("default_fits_null", type=json.dumps(declared))
        case, where = text("case_default_fits", name=name), at(f"parameters.properties.{name}")
        fail(case, plain("a_fitting_default"), prop, chosen, where=where)


def declares_type(schema: Any, kind: str) -> bool:
    """Whether ``schema`` says its value is of JSON type ``kind``: ``"type"`` names it (alone or
    in a list), one ``allOf`` branch does, or every ``anyOf``/``oneOf`` branch does."""
    if not isinstance(schema, dict):
        return False
    declared = schema.get("type")
    if declared == kind or (isinstance(declared, list) and kind in declared):
        return True
    if any(declares_type(branch, kind) for branch in schema.get("allOf") or []):
        return True
    return any(
        isinstance(schema.get(key), list)
        and schema[key]
        and all(declares_type(branch, kind) for branch in schema[key])
        for key in ("anyOf", "oneOf")
    )


def check_tool(
    learner: Learner,
    what: str,
    function: str,
    defaults: dict[str, Any],
    cases: list[ArgumentCase],
    *,
    required: str,
    property_hints: dict[str, str],
    types: dict[str, tuple[str, HintText]] | None = None,
) -> str:
    """Judge the tool ``what`` (01.1, 01.2) for ``function``: the envelope, the property names
    (those of ``property_hints``), the optional ``defaults``, the ``types`` some properties must
    declare (name: JSON type and hint), then every argument case: validated against the schema,
    failing at the first one judged wrongly. A good case that is rejected gets the hint its
    validation error points to: a missing required property, or ``property_hints[p]`` for an
    error under property ``p``."""
    __tracebackhide__ = True
    parameters = tool_parameters(value_of(learner, what), what, function)
    properties = expect_properties(parameters, list(property_hints), what)
    for name, value in defaults.items():
        expect_default(properties, name, value)
    for name, (kind, chosen) in (types or {}).items():
        # An "enum" alone accepts the same values but leaves the type unsaid.
        if not declares_type(properties.get(name), kind):
            case, where = text("case_type", name=name), at(f"parameters.properties.{name}")
            fail(case, {"type": kind}, properties.get(name), chosen, where=where)
    validator = schema_library.load().Draft202012Validator(parameters)
    from jsonschema.exceptions import best_match

    where = text("validating", what=what)
    for case in cases:
        error = best_match(validator.iter_errors(case.arguments))
        if (error is None) == case.good:
            continue
        if case.good:
            chosen = _rejection_hint(error, function, required, property_hints)
            fail(case.label, plain("should_accept"), plain("rejected"), chosen, where=where)
        fail(case.label, plain("should_reject"), plain("accepted"), case.hint, where=where)
    return text("summary", count=len(cases))


def _rejection_hint(
    error: Any, function: str, required: str, property_hints: dict[str, str]
) -> HintText:
    """Why a good argument object was rejected, read from the validator's error."""
    if error.validator == "required" and not error.path:
        missing = [name for name in error.validator_value if name not in error.instance]
        if missing:
            return hint("not_required", required=required, name=missing[0])
    path = list(error.absolute_path)
    if path and path[0] in property_hints:
        return property_hints[path[0]]
    return hint("rejects_good", function=function, reason=error.message)
