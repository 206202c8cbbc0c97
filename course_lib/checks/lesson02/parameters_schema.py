"""Exercise 02.2, ``parameters_schema(func) -> dict``: the JSON Schema object of the parameters.

The functions are written as source text and built on both sides (``_shared.FunctionCase``):
beside the learner's code for the call, here for the oracle. Some keep their annotations as text
(quoted, or under ``from __future__ import annotations``), which only ``get_type_hints`` reads.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
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
from course_lib.checks.compare import Hint, HintText, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson02._shared import (
    EMPTY,
    FunctionCase,
    after_earlier,
    expect_schema,
    parameter_text,
    returned_json,
    string_annotations,
)
from course_lib.checks.lesson02.json_type import basic_schema
from course_lib.i18n import translate

RULES = (
    Rule(
        "object",
        '`"type"` is `"object"`',
        case="parameters_schema(def get_weather(city: str, unit: str = 'c', days: int = 1) -> str)",
        hint="object",
    ),
    Rule(
        "properties",
        '`"properties"` maps each parameter\'s name to `json_type` of its type (your 02.1)',
        case="parameters_schema(def get_weather(city: str, unit: str = 'c', days: int = 1) -> str)",
        hint="properties_dict",
    ),
    Rule(
        "properties_order",
        "the properties come in signature order (JSON does not care; people reading the schema do)",
        case="parameters_schema(def get_weather(city: str, unit: str = 'c', days: int = 1) -> str)",
        hint="properties_order",
    ),
    Rule(
        "no_return",
        "the return annotation is not a parameter",
        case="parameters_schema(def get_weather(city: str, unit: str = 'c', days: int = 1) -> str)",
        hint="no_return",
    ),
    Rule(
        "defaults",
        'a parameter with a default gets `"default": <its value>` in its property',
        case="parameters_schema(def get_weather(city: str, unit: str = 'c', days: int = 1) -> str)",
        hint="defaults",
    ),
    Rule(
        "required",
        '`"required"` lists exactly the parameters without a default',
        case="parameters_schema(def get_weather(city: str, unit: str = 'c', days: int = 1) -> str)",
        hint="default_is_optional",
    ),
    Rule(
        "closed",
        '`"additionalProperties"` is `false`',
        case="parameters_schema(def get_weather(city: str, unit: str = 'c', days: int = 1) -> str)",
        hint="closed",
    ),
    Rule(
        "hints",
        (
            "the types come from `typing.get_type_hints(func)`, the names and defaults from "
            "`inspect.signature(func)`: some of the check's functions store their annotations as "
            'text (`city: "str"`, or a module that starts with `from __future__ import '
            "annotations`), some through an alias (`City = str`)"
        ),
        case="parameters_schema(def get_population(city: 'str', year: int = 2024) -> int)",
        hint="string_annotation",
    ),
    Rule(
        "keyword_only",
        "keyword-only parameters (after the `*`) are parameters too",
        case="parameters_schema(def 查询天气(城市: str, 天数: int = 3, *, 详细: bool = False) -> "
        "str)",
        hint="every_parameter",
    ),
    Rule(
        "required_empty",
        "and is there even when it is empty (`[]`)",
        case="parameters_schema(def no_parameters() -> str)",
        hint="required_always",
    ),
    Rule(
        "required_order",
        "in signature order",
        case=(
            "parameters_schema(def set_alarm(hour: int, minute: int, *, label: str, "
            "loud: bool = True, volume: float = 0.8))"
        ),
        hint="required_order",
    ),
)

TEXTS = Catalog() | {"summary": "{visible} visible and {hidden} hidden functions"}

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
    "property": "Compare each property with json_type of the parameter's type (02.1's table).",
    "string_annotation": (
        "Your code met an annotation that is still text (such as 'str'), not a type: this "
        "function's annotations are stored as strings (quoted, or in a module that starts with "
        "`from __future__ import annotations`). Read the types with typing.get_type_hints(func), "
        "not from __annotations__ or parameter.annotation."
    ),
    "must_not_raise": (
        "Every parameter of this function is positional-or-keyword or keyword-only, with one of "
        "the basic types: parameters_schema must return its schema, not raise."
    ),
}


hint = HINTS.hint


# --- the oracle ----------------------------------------------------------------------------


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


# --- cases ---------------------------------------------------------------------------------

VISIBLE = (
    FunctionCase("get_weather", ("city: str", "unit: str = 'c'", "days: int = 1"), returns="str"),
    FunctionCase("get_population", ("city: 'str'", "year: int = 2024"), returns="int"),
    FunctionCase(
        "查询天气", ("城市: str", "天数: int = 3", "*", "详细: bool = False"), returns="str"
    ),
    FunctionCase("no_parameters", (), returns="str"),
    FunctionCase(
        "set_alarm",
        ("hour: int", "minute: int", "*", "label: str", "loud: bool = True", "volume: float = 0.8"),
    ),
    # Aliases under the future import: text that names no basic type, so only get_type_hints
    # turns it into str and int.
    FunctionCase(
        "find_hotel",
        ("city: City", "nights: Nights = 1"),
        returns="str",
        future=True,
        before="City = str\nNights = int\n\n\n",
        context="where City = str and Nights = int",
    ),
)

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


def random_basic_function(rng: random.Random, index: int, future: bool = False) -> FunctionCase:
    """A function whose parameters use only the basic types (list and dict without defaults)."""
    parts = random_parts(
        rng, lambda r: r.choice(["str", "int", "float", "bool", "list", "dict"]), basic_default
    )
    return FunctionCase(f"tool_{index}", parts, returns=rng.choice([None, "str"]), future=future)


def hidden_functions() -> list[FunctionCase]:
    rng = hidden_rng("02.2")
    return [random_basic_function(rng, index, future=index % 3 == 2) for index in range(30)]


# --- hints ---------------------------------------------------------------------------------


def parameters_hints(expected: dict, func: Callable[..., Any]) -> list[Hint]:
    """Likely mistakes in a parameters schema for ``func``, most specific first (on the JSON)."""
    signature = inspect.signature(func)
    with_default = {n for n, p in signature.parameters.items() if p.default is not EMPTY}
    props, required = expected["properties"], expected["required"]
    nullable = {n for n, s in props.items() if {"type": "null"} in s.get("anyOf", [])}

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
        (lambda g: set(g["required"]) & with_default, hint("default_is_optional")),
        (lambda g: set(required) - set(g["required"]), hint("missing_required")),
        (
            lambda g: g["required"] != required and sorted(g["required"]) == sorted(required),
            hint("required_order"),
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


def raised_hints(func: Callable[..., Any]) -> list[tuple[Callable[[Any], bool], HintText]]:
    """The hint for an exception: annotations read as stored, where they are text."""
    texts = string_annotations(func)
    return [
        (lambda r: any(text in r.message for text in texts), hint("string_annotation")),
        (lambda r: r.raised_a("KeyError") and "'return'" in r.message, hint("no_return")),
        (lambda r: True, hint("must_not_raise")),
    ]


def check_function(
    learner: Learner,
    target: str,
    function: FunctionCase,
    expected: dict,
    hints: list[Hint],
    default: HintText,
    raised: list | None = None,
) -> None:
    """Call ``target`` on ``function`` and compare its schema with ``expected``."""
    __tracebackhide__ = True
    case = f"{target}({function.label})"
    func = function.value()
    reply = learner.call(
        target, function.spec(learner), case=case, hints=raised or raised_hints(func)
    )
    got = returned_json(case, reply, expected)
    expect_schema(case, expected, got, hints, default)


def guessed_for_text(expected: dict, func: Callable[..., Any]) -> Hint:
    """A function whose annotations are text, and every property of the wrong type came out as
    "string": the text was taken for the type (or a type was guessed), not read through
    ``get_type_hints``."""
    props = expected["properties"]

    def guessed(got: dict) -> bool:
        wrong = [n for n in props if got["properties"][n].get("type") != props[n].get("type")]
        return bool(wrong) and all(got["properties"][n].get("type") == "string" for n in wrong)

    return (lambda g: bool(string_annotations(func)) and guessed(g), hint("string_annotation"))


def run(learner: Learner) -> str:
    hidden = hidden_functions()
    for function in (*VISIBLE, *hidden):
        func = function.value()
        expected = expected_parameters_schema(func)
        check_function(
            learner,
            "parameters_schema",
            function,
            expected,
            [*parameters_hints(expected, func), guessed_for_text(expected, func)],
            hint("property"),
        )
    return translate(TEXTS, "summary", visible=len(VISIBLE), hidden=len(hidden))


EARLIER = (("json_type", "02.1"),)


@exercise(
    "02.2",
    notebook="02_reflection",
    title="parameters_schema",
    points=2,
    targets=("parameters_schema",),
    rules=RULES,
)
def check_parameters_schema(learner: Learner) -> str:
    return after_earlier(learner, "parameters_schema", EARLIER, lambda: run(learner))
