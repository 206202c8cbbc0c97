"""Exercise 02.2's contract, which 02.4, 02.5 and 03.6 build on: a function's parameters schema.

The oracle (``expected_parameters_schema``, with 02.1's ``basic_schema`` for the types or 03.4's
richer one), the likely mistakes in a parameters schema (``parameters_hints``, said from
``HINTS``), and random signatures (``random_parts``) for the hidden cases of both lessons.
"""

from __future__ import annotations

import enum
import inspect
import json
import random
import typing
from collections.abc import Callable
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Hint
from course_lib.checks.function_cases import EMPTY, parameter_text

HINTS = Catalog() | {
    "not_a_dict": "Return a dict: the JSON Schema object.",
    "properties_dict": (
        "properties must be an object mapping each parameter name to its schema, e.g. "
        '{{"city": {{"type": "string"}}}}, not a list.'
    ),
    "no_return": (
        "'return' is not a parameter: get_type_hints() includes the return annotation; walk "
        "inspect.signature(func).parameters for the names."
    ),
    "object": 'The parameters schema has "type": "object".',
    "closed": 'Add "additionalProperties": false: the schema lists every argument there is.',
    "required_always": (
        'Always include "required": a list of names, [] when every parameter has a default.'
    ),
    "nullable_required": (
        "Nullable is not optional: an `X | None` parameter without a default is still required "
        "(the model must send it, possibly as null). Required depends on the default only."
    ),
    "default_is_optional": (
        "A parameter with a default is optional: list in required only the parameters without "
        "a default."
    ),
    "missing_required": "Every parameter without a default belongs in required.",
    "none_default": (
        "`= None` is a default like any other: the parameter is optional and its property gets "
        '"default": None. Test parameter.default is inspect.Parameter.empty, not is None or its '
        "truth."
    ),
    "required_order": "List required in signature order.",
    "defaults": (
        'Show each default to the model: add "default": <value> to the property of every '
        "parameter that has one."
    ),
    "no_default": 'Only parameters with a default get a "default" key.',
    "default_value": "A default must be the parameter's default as a JSON value.",
    "every_parameter": (
        "properties needs exactly one entry per parameter of the signature, keyword-only ones "
        "(after the *) included."
    ),
    "properties_order": "List properties in signature order.",
    "bool": (
        "bool came out as integer. bool is a subclass of int, so an issubclass() walk (or a "
        "test for int that comes first) catches it: test bool before int, or compare with `is`."
    ),
}


hint = HINTS.hint


# --- the oracle ----------------------------------------------------------------------------

BASIC = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array",
         dict: "object", type(None): "null"}  # fmt: skip


def basic_schema(annotation: Any) -> dict:
    """02.1's oracle for an annotation object (02.2 and later use it): a new dict every time."""
    for python_type, name in BASIC.items():
        if annotation is python_type or (annotation is None and python_type is type(None)):
            return {"type": name}
    raise TypeError(f"no basic JSON type for {annotation!r}")


def expected_parameters_schema(
    func: Callable[..., Any], type_schema: Callable[[Any], dict] = basic_schema
) -> dict:
    """Exercise 02.2's contract (03.6's too, with its richer ``type_schema``)."""
    hints = typing.get_type_hints(func)
    properties: dict[str, dict] = {}
    required: list[str] = []
    for name, parameter in inspect.signature(func).parameters.items():
        schema = type_schema(hints[name])
        if parameter.default is EMPTY:
            required.append(name)
        else:
            default = parameter.default
            schema["default"] = default.value if isinstance(default, enum.Enum) else default
        properties[name] = schema
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


# --- random signatures ---------------------------------------------------------------------

NAMES = (
    "city", "days", "unit", "limit", "query", "verbose", "tags", "options", "price", "note",
    "城市", "天数", "关键词", "数量", "单位",
)  # fmt: skip
BASIC_DEFAULTS: dict[str, Callable[[random.Random], Any]] = {
    "str": lambda rng: rng.choice(["c", "北京", "", "上海 Shanghai", "metric"]),
    "int": lambda rng: rng.randint(-3, 100),
    "float": lambda rng: rng.choice([0.5, 2.25, -1.0, 10.0]),
    "bool": lambda rng: rng.choice([True, False]),
}


def random_parts(
    rng: random.Random,
    annotation: Callable[[random.Random], str],
    default: Callable[[random.Random, str], str | None],
    max_count: int = 5,
) -> tuple[str, ...]:
    """Random parameters as written: positional ones without a default first (Python's rule),
    then maybe a ``*`` and keyword-only ones."""
    params = []
    for name in rng.sample(NAMES, rng.randint(0, max_count)):
        written = annotation(rng)
        params.append((name, written, default(rng, written) if rng.random() < 0.5 else None))
    n_positional = rng.randint(0, len(params))
    positional = sorted(params[:n_positional], key=lambda p: p[2] is not None)
    parts = [parameter_text(*p) for p in positional]
    if n_positional < len(params):
        parts.append("*")
        parts += [parameter_text(*p) for p in params[n_positional:]]
    return tuple(parts)


def basic_default(rng: random.Random, annotation: str) -> str | None:
    maker = BASIC_DEFAULTS.get(annotation)
    return None if maker is None else repr(maker(rng))


# --- hints ---------------------------------------------------------------------------------


def parameters_hints(expected: dict, func: Callable[..., Any]) -> list[Hint]:
    """Likely mistakes in a parameters schema for ``func``, most specific first (on the JSON)."""
    signature = inspect.signature(func)
    with_default = {n for n, p in signature.parameters.items() if p.default is not EMPTY}
    props, required = expected["properties"], expected["required"]
    nullable = {n for n, s in props.items() if {"type": "null"} in s.get("anyOf", [])}
    none_default = {n for n, p in signature.parameters.items() if p.default is None}

    def got_default(got: dict, name: str) -> Any:
        return got["properties"].get(name, {}).get("default")

    return [
        (lambda g: not isinstance(g, dict), hint("not_a_dict")),
        (lambda g: not isinstance(g.get("properties"), dict), hint("properties_dict")),
        (lambda g: "return" in g["properties"] and "return" not in props, hint("no_return")),
        (lambda g: g.get("type") != "object", hint("object")),
        (lambda g: g.get("additionalProperties") is not False, hint("closed")),
        (lambda g: "required" not in g, hint("required_always")),
        (
            lambda g: (
                set(g["properties"]) < set(props)
                and all(
                    signature.parameters[n].kind is inspect.Parameter.KEYWORD_ONLY
                    for n in set(props) - set(g["properties"])
                )
            ),
            hint("every_parameter"),
        ),
        (lambda g: (set(required) - set(g["required"])) & nullable, hint("nullable_required")),
        (lambda g: set(g["required"]) & none_default, hint("none_default")),
        (lambda g: set(g["required"]) & with_default, hint("default_is_optional")),
        (lambda g: set(required) - set(g["required"]), hint("missing_required")),
        (
            lambda g: g["required"] != required and sorted(g["required"]) == sorted(required),
            hint("required_order"),
        ),
        (
            lambda g: any("default" not in g["properties"].get(n, {}) for n in none_default),
            hint("none_default"),
        ),
        (
            lambda g: any(
                "default" in props[n] and "default" not in g["properties"].get(n, {}) for n in props
            ),
            hint("defaults"),
        ),
        (
            lambda g: any(
                "default" not in props[n] and "default" in g["properties"].get(n, {}) for n in props
            ),
            hint("no_default"),
        ),
        (
            lambda g: any(
                json.dumps(props[n].get("default")) != json.dumps(got_default(g, n)) for n in props
            ),
            hint("default_value"),
        ),
        (lambda g: set(g["properties"]) != set(props), hint("every_parameter")),
        (lambda g: list(g["properties"]) != list(props), hint("properties_order")),
        (
            lambda g: any(
                props[n].get("type") == "boolean" and g["properties"][n].get("type") == "integer"
                for n in props
            ),
            hint("bool"),
        ),
    ]
