"""Check a model's arguments against a tool's parameters schema, in words the model can act on.

A model that sends `{"limit": "5"}` gets a second chance only if the reply says what was wrong:
which parameter, what was expected, what arrived. `jsonschema` does the checking (it is the
reference implementation of the standard); this module turns its errors into one line each:

    limit: expected integer, got string "5"
    city: missing required parameter (expected string)
    colour: unexpected parameter; this tool accepts: city, unit

Types follow JSON, as the model sees them: `true` is a boolean and never an integer, `1` is never
a boolean, an integer is a valid number. One choice goes beyond the JSON Schema text: `1.0` is not
an integer here, because Python's `json` reads it as a float and the tool would receive a float
(pydantic in strict mode, which `ToolRegistry.call` uses, agrees).

`format` (date, date-time, uuid, ...) is not checked here: JSON Schema treats it as an annotation
unless asked otherwise, and `ToolRegistry.call` checks it anyway when pydantic parses the value.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

from course_lib import schema_library

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

# `jsonschema` is imported where it is first needed, not here, and through `schema_library`:
# its import is slow (see there), which every notebook importing course_lib.reference would pay.

__all__ = ["describe_schema", "describe_value", "json_type", "validate_arguments"]

_MAX_SHOWN = 60  # characters of a received value quoted in a message


def validate_arguments(
    schema: dict[str, Any], arguments: Any, *, validator: Any = None
) -> list[str]:
    """Every problem with `arguments` against the parameters `schema`, one readable line each.

    An empty list means the arguments are valid. The lines are sorted by parameter so the same
    mistake always reads the same way. `validator` is `compile_validator(schema)` when the caller
    keeps one (a registry compiles each tool's once); otherwise one is looked up by the schema.
    """
    if not isinstance(arguments, dict):
        return [
            f"arguments: expected an object of named parameters, got {describe_value(arguments)}"
        ]
    validator = validator or _validator(schema)
    lines: list[tuple[str, str]] = []
    for error in validator.iter_errors(arguments):
        lines.extend(_explain(error, schema))
    return [line for _, line in sorted(set(lines))]


def describe_value(value: Any) -> str:
    """`value` as the model wrote it, with its JSON type: `string "5"`, `boolean true`, `null`."""
    if value is None:
        return "null"
    kind = json_type(value)
    if kind in ("object", "array") and len(value) == 0:
        return f"empty {kind}"
    text = json.dumps(value, ensure_ascii=False, default=repr)
    if len(text) > _MAX_SHOWN:
        text = text[: _MAX_SHOWN - 3] + "..."
    return f"{kind} {text}"


def describe_schema(schema: Any, root: dict[str, Any] | None = None) -> str:
    """A short English name for what `schema` accepts: `integer`, `array of string`, `null`."""
    if not isinstance(schema, dict):
        return "anything" if schema is True else "nothing"
    root = root if root is not None else schema
    if "$ref" in schema:
        return describe_schema(_resolve(schema["$ref"], root), root)
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    for keyword in ("anyOf", "oneOf"):
        if keyword in schema:
            return " or ".join(describe_schema(option, root) for option in schema[keyword])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(describe_schema({**schema, "type": k}, root) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {describe_schema(schema['items'], root)}"
    if kind == "object" and isinstance(schema.get("properties"), dict) and schema["properties"]:
        return "object with " + ", ".join(schema["properties"])
    if kind == "string" and "format" in schema:
        return f"string ({schema['format']})"
    return kind or "any value"


_VALIDATORS: dict[str, Any] = {}  # schema JSON text -> compiled validator


def compile_validator(schema: dict[str, Any]) -> Any:
    """A jsonschema validator for `schema` with JSON's integers (`true` is not one)."""
    jsonschema = schema_library.load()
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    checker = cls.TYPE_CHECKER.redefine("integer", _is_integer)
    # A private copy of the schema: the caller may change theirs later.
    return jsonschema.validators.extend(cls, type_checker=checker)(copy.deepcopy(schema))


def _validator(schema: dict[str, Any]) -> Any:
    """One compiled validator per distinct schema; building one costs far more than using it."""
    key = json.dumps(schema, sort_keys=True, default=repr)
    validator = _VALIDATORS.get(key)
    if validator is None:
        if len(_VALIDATORS) >= 512:
            _VALIDATORS.clear()
        validator = _VALIDATORS[key] = compile_validator(schema)
    return validator


def _is_integer(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def _explain(error: ValidationError, root: dict[str, Any]) -> list[tuple[str, str]]:
    """(sort key, line) pairs for one jsonschema error; a few errors explain into several lines."""
    path = list(error.absolute_path)
    keyword = error.validator
    if keyword == "required":
        missing = [name for name in error.validator_value if name not in error.instance]
        return [_missing(path + [name], error.schema, root) for name in missing]
    if keyword == "additionalProperties" and isinstance(error.instance, dict):
        known = list(error.schema.get("properties", {}))
        extras = [name for name in error.instance if name not in known]
        accepted = ", ".join(known) if known else "nothing"
        what, owner = ("parameter", "this tool") if not path else ("field", _where(path))
        return [
            (
                _where(path + [n]),
                f"{_where(path + [n])}: unexpected {what}; {owner} accepts: {accepted}",
            )
            for n in extras
        ]
    if keyword in ("anyOf", "oneOf") and error.context:
        branch = _matching_branch(error)
        if branch is not None:  # e.g. list[str] | None given a list: explain inside the list
            lines: list[tuple[str, str]] = []
            for sub in error.context:
                if sub.schema_path and sub.schema_path[0] == branch:
                    lines.extend(_explain(sub, root))
            if lines:
                return lines
    where = _where(path)
    got = describe_value(error.instance)
    if keyword in ("type", "anyOf", "oneOf", "enum", "const", "$ref"):
        return [(where, f"{where}: expected {describe_schema(error.schema, root)}, got {got}")]
    return [(where, f"{where}: {_constraint(error)}, got {got}")]


def _missing(path: list[Any], parent: dict[str, Any], root: dict[str, Any]) -> tuple[str, str]:
    where = _where(path)
    what = "parameter" if len(path) == 1 else "field"
    expected = describe_schema(parent.get("properties", {}).get(path[-1], True), root)
    return where, f"{where}: missing required {what} (expected {expected})"


def _matching_branch(error: ValidationError) -> int | None:
    """The one anyOf/oneOf option whose JSON type fits the value, if exactly one does."""
    kind = json_type(error.instance)
    fitting = [
        index
        for index, option in enumerate(error.validator_value)
        if isinstance(option, dict) and _option_types(option) & {kind, *_wider(kind)}
    ]
    return fitting[0] if len(fitting) == 1 else None


def _option_types(option: dict[str, Any]) -> set[str]:
    kind = option.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return set(kind)
    if "$ref" in option or "properties" in option:
        return {"object"}
    return set()


def _wider(kind: str) -> tuple[str, ...]:
    return ("number",) if kind == "integer" else ()


def _constraint(error: ValidationError) -> str:
    """What a failed constraint (minimum, maxLength, pattern, ...) asked for, in words."""
    value = error.validator_value
    words = {
        "minimum": f"expected a number >= {value}",
        "maximum": f"expected a number <= {value}",
        "exclusiveMinimum": f"expected a number > {value}",
        "exclusiveMaximum": f"expected a number < {value}",
        "multipleOf": f"expected a multiple of {value}",
        "minLength": f"expected a string of at least {value} characters",
        "maxLength": f"expected a string of at most {value} characters",
        "pattern": f"expected a string matching the pattern {value}",
        "minItems": f"expected at least {value} items",
        "maxItems": f"expected at most {value} items",
        "uniqueItems": "expected items without repeats",
        "minProperties": f"expected at least {value} entries",
        "maxProperties": f"expected at most {value} entries",
        "format": f"expected a string in the {value} format",
    }
    return words.get(str(error.validator), f"failed the {error.validator} rule ({error.message})")


def _where(path: list[Any]) -> str:
    """`tags[1]`, `address.city`: the parameter first, then the way into it."""
    if not path:
        return "arguments"
    text = str(path[0])
    for step in path[1:]:
        text += f"[{step}]" if isinstance(step, int) else f".{step}"
    return text


def json_type(value: Any) -> str:
    """The JSON Schema type of a plain value: "integer" for an int (a bool is "boolean"),
    "number" for a float; the Python type's name for what JSON cannot hold."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def _resolve(ref: str, root: dict[str, Any]) -> Any:
    """A local `#/$defs/Name` reference; anything else is described by its last part."""
    if ref.startswith("#/"):
        node: Any = root
        for part in ref[2:].split("/"):
            if not isinstance(node, dict) or part not in node:
                return {"type": ref.rsplit("/", 1)[-1]}
            node = node[part]
        return node
    return {"type": ref.rsplit("/", 1)[-1]}
