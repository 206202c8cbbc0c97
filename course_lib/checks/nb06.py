"""Checks for notebook 06_hardening: safe_calculate, to_strict, routing and roles, tracing.

The calculator check only ever sends harmless hostile inputs (reading ``sys.platform``, walking to
``__subclasses__``): a learner's calculator that falls back to ``eval`` returns a value instead of
refusing, and the check says so, without anything dangerous having run.
"""

from __future__ import annotations

import copy
import json
import math
import time
from collections.abc import Callable
from typing import Any, Literal

from course_lib.checks.core import (
    Hint,
    as_json,
    call_learner,
    expect_json_equal,
    fail,
    hidden_rng,
    learner_raised,
    pick_hint,
)
from course_lib.checks.core import (
    legacy_exercise as exercise,
)
from course_lib.reference import ToolRegistry, parameters_schema

NOTEBOOK = "06_hardening"
ROLES = {"guest": {"read"}, "member": {"read", "write"}, "admin": {"read", "write", "admin"}}


def _raises(fn: Callable[..., Any], *args: Any) -> tuple[Any, BaseException | None]:
    """Run learner code and return (result, exception); NotImplementedError passes through."""
    try:
        return fn(*args), None
    except NotImplementedError:
        raise
    except Exception as exc:  # the learner's exception is data here
        return None, exc


# --- 06.1: safe_calculate ----------------------------------------------------------------------

PLAIN_HINT = "Plain arithmetic must work: numbers, + - * / // % **, unary minus, parentheses."
LIMIT_HINT = (
    "An exponent of exactly MAX_EXPONENT (100) is allowed: refuse only when abs(exponent) > "
    "MAX_EXPONENT, not >=."
)
# (expression, its value, a hint when the learner raises instead)
VALID: list[tuple[str, float, str]] = [
    ("2 * (3 + 4)", 14.0, PLAIN_HINT),
    ("1 + 2.5", 3.5, PLAIN_HINT),
    ("-3 ** 2", -9.0, PLAIN_HINT),
    ("7 // 2", 3.0, PLAIN_HINT),
    ("7 % 3", 1.0, PLAIN_HINT),
    ("2 ** -1", 0.5, PLAIN_HINT),
    ("(1 + 2) * -(3 - 5)", 6.0, PLAIN_HINT),
    ("10 / 4", 2.5, PLAIN_HINT),
    ("+5", 5.0, PLAIN_HINT),
    ("2 ** 100", 2.0**100, LIMIT_HINT),
    ("10 ** -100", 1e-100, LIMIT_HINT),
    ("1.5e3 - 0.5", 1499.5, PLAIN_HINT),
]
EVAL_HINT = (
    "It returned a value, so your code ran this expression: never fall back to eval or exec. "
    "Walk the AST and refuse every node that is not a number or an arithmetic operator."
)
# (expression, hint when the learner does not raise ValueError)
REFUSED: list[tuple[Any, str]] = [
    ("__import__('sys').platform", EVAL_HINT),
    ("().__class__.__base__.__subclasses__()", EVAL_HINT),
    ("(1).real", "Attributes are not arithmetic: refuse ast.Attribute."),
    ("abs(-3)", "Calls are not arithmetic: refuse ast.Call."),
    ("pi * 2", "Names are not numbers: refuse ast.Name (no variables, no constants like pi)."),
    ("[1, 2][0]", "Lists and subscripts are not arithmetic: refuse them."),
    ("[x for x in (1, 2)]", "Comprehensions are not arithmetic: refuse them."),
    ("lambda: 1", "A lambda is not arithmetic: refuse it."),
    ("'a' * 3", "Only int and float constants are numbers: refuse strings."),
    (
        "True + 1",
        "bool is a subclass of int, but True is not a number here: check "
        "type(node.value) in (int, float), not isinstance.",
    ),
    ("3j * 2", "Complex constants are not allowed: only int and float."),
    ("1 < 2", "Comparisons are not arithmetic: refuse ast.Compare."),
    (
        "2 ** 1000",
        "Refuse a power whose exponent is larger than MAX_EXPONENT (100) in absolute "
        "value, before computing it: 9 ** 9 ** 9 would run for minutes.",
    ),
    ("10 ** -101", "The exponent limit applies to its absolute value: -101 is too large too."),
    ("2 ** (50 * 3)", "Check the computed exponent (50 * 3 = 150), not only literal ones."),
    ("1 / 0", "Turn ZeroDivisionError into ValueError."),
    ("5 % 0", "Turn ZeroDivisionError into ValueError."),
    (
        "(-8) ** 0.5",
        "A negative number to a fractional power gives a complex number: refuse a "
        "result that is not a float.",
    ),
    (
        "1e200 ** 2",
        "A float power that is too large raises OverflowError: turn it into ValueError, like "
        "ZeroDivisionError (catch ArithmeticError, their common base).",
    ),
    ("1e308 * 10", "An overflow to inf is not a result: refuse a result that is not finite."),
    ("1e999", "A literal too large for a float becomes inf: refuse non-finite results."),
    ("(" * 150 + "1" + ")" * 150, "Refuse expressions longer than MAX_LENGTH (200) characters."),
    (
        "-" * 100_000 + "1",
        "Refuse expressions longer than MAX_LENGTH (200) before parsing: the "
        "parser itself runs out of memory on deep nesting.",
    ),
    ("1 +", "A SyntaxError from ast.parse must become ValueError."),
    ("", "An empty expression does not parse: raise ValueError."),
    (42, "Anything that is not a str is refused with ValueError."),
]


def _random_expression(rng: Any, depth: int) -> str:
    if depth == 0 or rng.random() < 0.3:
        number = rng.choice([str(rng.randint(0, 20)), f"{rng.randint(1, 99) / 10}"])
        return f"-{number}" if rng.random() < 0.2 else number
    op = rng.choice(["+", "-", "*", "/", "//", "%"])
    left, right = _random_expression(rng, depth - 1), _random_expression(rng, depth - 1)
    return f"({left} {op} {right})" if rng.random() < 0.5 else f"{left} {op} {right}"


def hidden_calculations(count: int = 14) -> list[tuple[str, float | None]]:
    """Random arithmetic (value or None when it divides by zero) and hostile wrappings of it."""
    rng = hidden_rng("06.1")
    cases: list[tuple[str, float | None]] = []
    while len(cases) < count:
        expression = _random_expression(rng, 3)
        try:  # the check's own, trusted expression: plain Python computes the expected value
            value: float | None = float(eval(expression, {"__builtins__": {}}))  # noqa: S307
        except ZeroDivisionError:
            value = None
        if rng.random() < 0.3:
            wrapper = rng.choice(["({}).real", "abs({})", "[{}][0]", "({}) if 1 else 0"])
            expression, value = wrapper.format(expression), None
        if len(expression) <= 200:
            cases.append((expression, value))
    return cases


@exercise("06.1", notebook=NOTEBOOK, title="safe_calculate", points=3, targets=("safe_calculate",))
def check_safe_calculate(safe_calculate: Callable[..., Any]) -> str:
    hidden = hidden_calculations()
    valid = VALID + [(e, v, PLAIN_HINT) for e, v in hidden if v is not None]
    for expression, expected, raised_hint in valid:
        case = f"safe_calculate({expression!r})"
        got, error = _raises(safe_calculate, expression)
        if error is not None:
            fail(
                case,
                expected,
                f"{type(error).__name__}: {error}",
                raised_hint,
            )
        if (
            isinstance(got, (int, float))
            and not isinstance(got, bool)
            and not isinstance(got, float)
        ):
            fail(case, expected, got, "Return a float: convert each constant with float(...).")
        if not isinstance(got, float) or not math.isclose(got, expected, rel_tol=1e-9):
            fail(
                case,
                expected,
                as_json(got, case) if not isinstance(got, float) else got,
                "Compute each operator with its Python meaning on floats (// floors, % is the "
                "remainder, -3 ** 2 is -(3 ** 2)).",
            )
    refused = REFUSED + [
        (e, "Refuse everything but numbers and arithmetic operators.")
        for e, v in hidden
        if v is None
    ]
    for expression, hint in refused:
        shown = (
            expression
            if not isinstance(expression, str) or len(expression) < 60
            else (f"{expression[:10]!r} + ... ({len(expression)} characters)")
        )
        case = (
            f"safe_calculate({shown})"
            if not isinstance(expression, str) or len(expression) >= 60
            else f"safe_calculate({expression!r})"
        )
        got, error = _raises(safe_calculate, expression)
        if error is None:
            shown_got = got if isinstance(got, (int, float, str)) else repr(got)
            fail(case, "ValueError", shown_got, hint)
        if not isinstance(error, ValueError):
            fail(
                case,
                "ValueError",
                f"{type(error).__name__}: {error}",
                f"Every refusal must be a ValueError, not {type(error).__name__}: {hint}",
            )
    return f"{len(valid)} calculations and {len(refused)} refusals"


# --- 06.2: to_strict ---------------------------------------------------------------------------


def get_weather(
    city: str,
    unit: Literal["c", "f"] = "c",
    days: int | None = None,
    tags: list[str] | None = None,
) -> dict:
    """Weather.

    Args:
        city: A city, e.g. 北京.
        unit: c or f.
        days: How many days ahead.
        tags: Labels to attach.
    """
    return {}


def scores(names: list[str], weights: dict[str, int]) -> int:
    """An open map as a parameter."""
    return 0


def _weather_schema() -> dict:
    return parameters_schema(get_weather)


NESTED = {
    "type": "object",
    "properties": {
        "trip": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "default": "北京"},
                "nights": {"type": "integer", "description": "晚数"},
            },
            "required": ["nights"],
        },
        "stops": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "note": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    "required": ["trip"],
    "additionalProperties": False,
}
REFS = {
    "type": "object",
    "properties": {"home": {"$ref": "#/$defs/Place"}, "work": {"$ref": "#/$defs/Place"}},
    "required": ["home"],
    "additionalProperties": False,
    "$defs": {
        "Place": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": "string", "default": ""}},
            "required": ["city"],
        }
    },
}
NAMED_DEFAULT = {
    "type": "object",
    "properties": {"default": {"type": "boolean", "default": False}, "name": {"type": "string"}},
    "required": ["name"],
    "additionalProperties": False,
}
EMPTY = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
BRANCHES = {
    "type": "object",
    "properties": {
        "target": {
            "anyOf": [
                {"type": "object", "properties": {"user": {"type": "string"}}, "required": []},
                {"type": "string"},
            ]
        }
    },
    "required": ["target"],
    "additionalProperties": False,
}
ALL_OF = {
    "type": "object",
    "properties": {
        "when": {
            "allOf": [
                {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string"},
                        "days": {"type": "integer", "default": 1},
                    },
                    "required": ["city"],
                }
            ]
        }
    },
    "required": ["when"],
    "additionalProperties": False,
}
ONE_OF = {
    "type": "object",
    "properties": {
        "contact": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {"email": {"type": "string"}, "name": {"type": "string"}},
                    "required": ["email"],
                },
                {"type": "string", "description": "a phone number"},
            ]
        }
    },
    "required": ["contact"],
    "additionalProperties": False,
}
PREFIX_ITEMS = {
    "type": "object",
    "properties": {
        "point": {
            "type": "array",
            "prefixItems": [
                {
                    "type": "object",
                    "properties": {"lat": {"type": "number"}, "label": {"type": "string"}},
                    "required": ["lat"],
                }
            ],
        }
    },
    "required": ["point"],
    "additionalProperties": False,
}

# (name, schema, a full valid sample, paths that were optional, paths that were required)
Path = tuple[Any, ...]
STRICT_CASES: list[tuple[str, Callable[[], dict], dict, list[Path], list[Path]]] = [
    (
        "parameters_schema(get_weather)",
        _weather_schema,
        {"city": "北京", "unit": "f", "days": 3, "tags": ["a"]},
        [("unit",), ("days",), ("tags",)],
        [("city",)],
    ),
    (
        "a nested object and an array of objects",
        lambda: NESTED,
        {"trip": {"city": "上海", "nights": 2}, "stops": [{"city": "北京", "note": "x"}]},
        [("stops",), ("trip", "city"), ("stops", 0, "note")],
        [("trip",), ("trip", "nights"), ("stops", 0, "city")],
    ),
    (
        "$defs with $ref",
        lambda: REFS,
        {"home": {"city": "北京", "zip": "100000"}, "work": {"city": "上海", "zip": "200000"}},
        [("work",), ("home", "zip")],
        [("home",), ("home", "city")],
    ),
    (
        "a property named default",
        lambda: NAMED_DEFAULT,
        {"default": True, "name": "张三"},
        [("default",)],
        [("name",)],
    ),
    ("no parameters at all", lambda: EMPTY, {}, [], []),
    (
        "anyOf with an object branch",
        lambda: BRANCHES,
        {"target": {"user": "ada"}},
        [("target", "user")],
        [("target",)],
    ),
    (
        "allOf with an object branch",
        lambda: ALL_OF,
        {"when": {"city": "北京", "days": 2}},
        [("when", "days")],
        [("when",), ("when", "city")],
    ),
]
# Walked like anyOf in the exercise; the real strict mode (and the reference to_strict) refuses
# oneOf and prefixItems instead, so a ValueError is accepted here too.
MAY_REFUSE: list[tuple[str, Callable[[], dict], dict, list[Path], list[Path]]] = [
    (
        "oneOf with an object branch",
        lambda: ONE_OF,
        {"contact": {"email": "a@example.com", "name": "张三"}},
        [("contact", "name")],
        [("contact",), ("contact", "email")],
    ),
    (
        "prefixItems with an object",
        lambda: PREFIX_ITEMS,
        {"point": [{"lat": 39.9, "label": "北京"}]},
        [("point", 0, "label")],
        [("point",), ("point", 0, "lat")],
    ),
]
OPEN_MAPS: list[tuple[str, Callable[[], dict]]] = [
    ("parameters_schema(scores) with weights: dict[str, int]", lambda: parameters_schema(scores)),
    (
        'a bare {"type": "object"} property',
        lambda: {
            "type": "object",
            "properties": {"meta": {"type": "object"}},
            "required": ["meta"],
            "additionalProperties": False,
        },
    ),
    (
        "additionalProperties: true at the top",
        lambda: {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "additionalProperties": True,
        },
    ),
    (
        "an open map inside array items",
        lambda: {
            "type": "object",
            "properties": {
                "rows": {
                    "type": "array",
                    "items": {"type": "object", "additionalProperties": {"type": "number"}},
                }
            },
            "required": ["rows"],
            "additionalProperties": False,
        },
    ),
]

OPEN_MAP_HINT = (
    'An object whose keys are not fixed (dict[str, X], a bare "object", additionalProperties '
    "true or a schema) cannot be strict: raise ValueError. Rewriting it to additionalProperties "
    "false, as langchain-core does, silently makes an object that accepts no keys at all."
)


def _with(sample: Any, path: Path, value: Any) -> Any:
    changed = copy.deepcopy(sample)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return changed


def _schema_nodes(node: Any, where: str = "$") -> list[tuple[str, dict]]:
    """Every schema node with where it sits; property names are never mistaken for keywords."""
    if not isinstance(node, dict):
        return []
    found = [(where, node)]
    for name, child in (node.get("properties") or {}).items():
        found += _schema_nodes(child, f"{where}.properties.{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            found += _schema_nodes(node[key], f"{where}.{key}")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for index, child in enumerate(node.get(key) or []):
            found += _schema_nodes(child, f"{where}.{key}[{index}]")
    for name, child in (node.get("$defs") or {}).items():
        found += _schema_nodes(child, f"{where}.$defs.{name}")
    return found


def _is_object(node: dict) -> bool:
    kind = node.get("type")
    return "properties" in node or kind == "object" or (isinstance(kind, list) and "object" in kind)


def _structure_problem(out: dict) -> tuple[str, str] | None:
    """(where, hint) of the first node that breaks a strict-mode rule, else None."""
    for where, node in _schema_nodes(out):
        nested = (
            " (nested objects too: properties, items, the branches of anyOf, oneOf, allOf and "
            "prefixItems, $defs)"
            if where != "$"
            else ""
        )
        if "default" in node:
            return where, (
                'Remove every "default" keyword: strict mode has no defaults (null '
                "now stands for 'not given')" + nested + "."
            )
        if _is_object(node):
            if node.get("additionalProperties") is not False:
                return where, f'Set "additionalProperties": false on every object{nested}.'
            names = list(node.get("properties") or {})
            required = node.get("required")
            if not isinstance(required, list) or sorted(map(str, required)) != sorted(names):
                return where, f'List every property in "required"{nested}.'
            if required != names:
                return where, (
                    'List "required" in the order of "properties" (list(properties)), not '
                    "sorted or in any other order."
                )
    return None


def _descriptions(node: Any) -> list[str]:
    return [
        n["description"] for _, n in _schema_nodes(node) if isinstance(n.get("description"), str)
    ]


CLOSED_HINT = (
    'This schema has no open map, so do not raise. An object that lists "properties" but '
    'leaves "additionalProperties" out is a closed record here (parameter schemas often omit '
    'it): give it "additionalProperties": false. Raise only when "properties" is missing, or '
    '"additionalProperties" is true or a schema.'
)
EMPTY_HINT = (
    'This schema has no open map, so do not raise. "properties": {} is an object with a fixed, '
    'empty set of keys (a tool without parameters); only a missing "properties" key makes an '
    "open map."
)


def _refusal_hint(schema: dict) -> str:
    """Why a ValueError on a schema without open maps is wrong, judged from the input."""
    objects = [node for _, node in _schema_nodes(schema) if _is_object(node)]
    if any("additionalProperties" not in node for node in objects):
        return CLOSED_HINT
    if any(node.get("properties") == {} for node in objects):
        return EMPTY_HINT
    return "This schema has no open map: make it strict instead of raising."


def _strict_case(
    to_strict: Callable,
    name: str,
    schema: dict,
    sample: dict,
    optional: list[Path],
    required: list[Path],
    *,
    may_refuse: bool = False,
) -> None:
    case = f"to_strict({name})"
    before = copy.deepcopy(schema)
    out, error = _raises(to_strict, schema)
    if isinstance(error, ValueError) and may_refuse:
        return
    if isinstance(error, ValueError):
        fail(case, "a strict schema", f"ValueError: {error}", _refusal_hint(before))
    if error is not None:
        raise learner_raised(case, error)
    if schema != before:
        fail(
            case,
            "the input schema unchanged",
            schema,
            "Do not change the schema you were "
            "given: build new dicts (or start from copy.deepcopy(schema)).",
        )
    out = as_json(out, case)
    if not isinstance(out, dict):
        fail(case, "a schema (dict)", out, "Return the new schema as a dict.")
    problem = _structure_problem(out)
    if problem:
        fail(case, "a strict schema", out, problem[1], detail=f"at {problem[0]}")
    if "default" in before.get("properties", {}) and "default" not in out.get("properties", {}):
        fail(
            case,
            "the property named default kept",
            out,
            'Only the "default" keyword goes: a property named default stays.',
        )
    missing = [d for d in _descriptions(before) if d not in json.dumps(out, ensure_ascii=False)]
    if missing:
        fail(
            case,
            f"the description {missing[0]!r} kept",
            out,
            "Keep descriptions, enums and $refs as they are: the model still needs them.",
        )
    import jsonschema  # slow to import: load on use

    validator = jsonschema.Draft202012Validator(out)
    original = jsonschema.Draft202012Validator(before)
    if not validator.is_valid(sample):
        fail(
            case,
            "a schema that accepts " + json.dumps(sample, ensure_ascii=False),
            out,
            "The strict schema must still accept everything the original accepted when every "
            "property is given.",
        )
    for path in optional:
        if not validator.is_valid(_with(sample, path, None)):
            fail(
                case,
                f"null accepted for the formerly optional {'.'.join(map(str, path))}",
                out,
                'A property that was optional must accept null now: "type": ["string", "null"], '
                'or {"anyOf": [schema, {"type": "null"}]} when there is an enum or no single '
                "type (a type list with null still fails an enum that lacks null).",
            )
    for path in required:
        with_null = _with(sample, path, None)
        if validator.is_valid(with_null) and not original.is_valid(with_null):
            fail(
                case,
                f"null refused for the required {'.'.join(map(str, path))}",
                out,
                "Only formerly optional properties become nullable; required ones stay as they "
                "were.",
            )


def hidden_strict_cases(count: int = 8) -> list[tuple[str, dict, dict, list[Path], list[Path]]]:
    rng = hidden_rng("06.2")
    kinds = {
        "string": ({"type": "string"}, "北京", "x"),
        "integer": ({"type": "integer"}, 3, 0),
        "number": ({"type": "number"}, 1.5, 0),
        "boolean": ({"type": "boolean"}, True, False),
        "enum": ({"type": "string", "enum": ["c", "f"]}, "f", "c"),
        "array": ({"type": "array", "items": {"type": "string"}}, ["上海"], []),
    }
    cases = []
    for index in range(count):
        names = rng.sample(["city", "城市", "limit", "unit", "tags", "days", "flag", "query"], 4)
        properties, sample = {}, {}
        required = sorted(rng.sample(names, rng.randint(0, 3)), key=names.index)
        for name in names:
            schema, value, default = kinds[rng.choice(list(kinds))]
            schema = copy.deepcopy(schema)
            if name not in required and rng.random() < 0.7:
                schema["default"] = default
            properties[name], sample[name] = schema, value
        schema = {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }
        optional = [(n,) for n in names if n not in required]
        cases.append(
            (
                f"hidden schema {index} {json.dumps(schema, ensure_ascii=False)}",
                schema,
                sample,
                optional,
                [(n,) for n in required],
            )
        )
    return cases


@exercise("06.2", notebook=NOTEBOOK, title="to_strict", points=3, targets=("to_strict",))
def check_to_strict(to_strict: Callable[..., Any]) -> str:
    cases = [(n, make(), s, o, r) for n, make, s, o, r in STRICT_CASES] + hidden_strict_cases()
    for name, schema, sample, optional, required in cases:
        _strict_case(to_strict, name, copy.deepcopy(schema), sample, optional, required)
    for name, make, sample, optional, required in MAY_REFUSE:
        _strict_case(to_strict, name, make(), sample, optional, required, may_refuse=True)
    for name, make in OPEN_MAPS:
        case = f"to_strict({name})"
        got, error = _raises(to_strict, make())
        if error is None:
            fail(
                case, "ValueError (an open map cannot be strict)", as_json(got, case), OPEN_MAP_HINT
            )
        if not isinstance(error, ValueError):
            fail(case, "ValueError", f"{type(error).__name__}: {error}", OPEN_MAP_HINT)
    count = len(cases) + len(MAY_REFUSE)
    return f"{count} schemas made strict, {len(OPEN_MAPS)} open maps refused"


# --- 06.3: select_tools and call_as ------------------------------------------------------------


def _roles_registry(store: dict[int, str]) -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(tags=["notes", "read"])
    def read_note(note_id: int) -> str:
        """Read a note."""
        return store[note_id]

    @registry.tool(tags=["notes", "write"])
    def delete_note(note_id: int) -> str:
        """Delete a note."""
        return f"deleted: {store.pop(note_id)}"

    @registry.tool(tags=["admin"])
    def wipe_all() -> str:
        """Delete every note."""
        store.clear()
        return "wiped"

    @registry.tool(tags=["weather", "read"])
    def get_weather(city: str) -> str:
        """Weather for a city."""
        return f"{city}: 晴"

    @registry.tool(tags=["mail", "write"])
    def send_mail(to: str, text: str) -> str:
        """Send a mail."""
        return f"sent to {to}"

    @registry.tool
    def debug_dump() -> str:
        """Untagged: nobody may use it."""
        return "internals"

    return registry


def _notes() -> dict[int, str]:
    return {1: "北京 trip", 2: "豆腐"}


def _expected_selection(registry: ToolRegistry, tags: Any, role: Any) -> list[dict]:
    chosen = []
    for name, schema in zip(registry.names(), registry.schemas(), strict=True):
        tool_tags = registry.get(name).tags
        if tags is not None and not set(tags) & tool_tags:
            continue
        if role is not None and not ROLES[role] & tool_tags:
            continue
        chosen.append(schema)
    return chosen


def _names_of(tools: Any) -> list[str]:
    return [tool["function"]["name"] for tool in tools]


def _selection_hints(registry: ToolRegistry, tags: Any, role: Any) -> list[Hint]:
    """Hints that look at the names of the selected tools (``g`` is a list of names)."""
    every_tag = [n for n in registry.names() if tags and set(tags) <= registry.get(n).tags]
    return [
        (
            lambda g: tags is not None and len(tags) == 0 and len(g) > 0,
            "tags=[] keeps no tool at all: no tool has at least one of zero tags (only "
            "tags=None turns the tag filter off).",
        ),
        (
            lambda g: (
                role is not None and g == _names_of(_expected_selection(registry, tags, None))
            ),
            "Apply the role too: keep a tool only if allowed(role, tags).",
        ),
        (
            lambda g: (
                tags is not None and g == _names_of(_expected_selection(registry, None, role))
            ),
            "Apply the tags too: keep a tool having any of them.",
        ),
        (
            lambda g: tags is not None and len(tags) > 1 and g == every_tag,
            "A tool needs at least one of the tags, not all of them.",
        ),
        (
            lambda g: "debug_dump" in g and role is not None,
            "Deny by default: a tool "
            "without any tag the role holds (here an untagged one) is refused.",
        ),
        (
            lambda g: sorted(g) == sorted(_names_of(_expected_selection(registry, tags, role))),
            "Keep registration order.",
        ),
    ]


def _tool_name(tool: Any) -> str | None:
    function = tool.get("function") if isinstance(tool, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else None


def _expect_selection(registry: ToolRegistry, tags: Any, role: Any, got: Any, case: str) -> None:
    """Compare the tool names first (short, readable), then the schemas themselves."""
    expected = _expected_selection(registry, tags, role)
    plain = as_json(got, f"The result of {case}")
    if not isinstance(plain, list):
        fail(case, _names_of(expected), plain, "Return a list of OpenAI tool schemas.")
    if any(isinstance(tool, str) for tool in plain):
        fail(
            case,
            _names_of(expected),
            plain,
            "Return the schemas (dicts from registry.schemas()), not the names.",
        )
    names = [_tool_name(tool) for tool in plain]
    if None not in names and names != _names_of(expected):
        fail(
            case,
            _names_of(expected),
            names,
            pick_hint(names, _selection_hints(registry, tags, role)),
            detail="the names of the tools returned (function.name)",
        )
    expect_json_equal(
        case,
        expected,
        plain,
        "Return each tool's schema exactly as registry.schemas() gives it.",
    )


SELECTIONS: list[tuple[Any, Any]] = [
    (None, None),
    (["notes"], None),
    (["weather", "mail"], None),
    ([], None),
    (None, "guest"),
    (None, "member"),
    (None, "admin"),
    (["notes"], "guest"),
    (("notes", "mail"), "member"),
]

FORBIDDEN_HINT = (
    "A call the role may not make is answered with error_text(...) naming the role and the tool "
    "and listing the tools the role may use; it must not run and must not raise."
)


def _call_as_case(call_as: Callable, role: str, name: str, arguments: Any) -> None:
    store = _notes()
    registry = _roles_registry(store)
    case = f"call_as(registry, {role!r}, {name!r}, {arguments!r})"
    usable = [n for n in registry.names() if ROLES[role] & registry.get(n).tags]
    tool = registry.get(name)
    permitted = tool is not None and bool(ROLES[role] & tool.tags)
    try:
        got = call_as(registry, role, name, arguments)
    except NotImplementedError:
        raise
    except Exception as exc:
        fail(case, "a str", f"raised {type(exc).__name__}: {exc}", FORBIDDEN_HINT)
    if permitted:
        expected = _roles_registry(_notes()).call(name, arguments)
        expect_json_equal(
            case,
            expected,
            got,
            "A permitted call returns registry.call(name, arguments) unchanged.",
        )
        return
    if store != _notes():
        fail(case, "nothing run", f"the tool ran: the notes are now {store}", FORBIDDEN_HINT)
    try:
        value = json.loads(got) if isinstance(got, str) else None
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict) or not isinstance(value.get("error"), str):
        fail(case, '{"error": "..."}', got, FORBIDDEN_HINT)
    hidden = [n for n in registry.names() if n not in usable and n != name]
    leaked = [n for n in hidden if n in got]
    if leaked:
        fail(
            case,
            f"no mention of tools this role may not use ({', '.join(hidden)})",
            value["error"],
            "Do not reveal tools the role may not use: list only the usable ones "
            "(registry.call's unknown-tool error lists every tool, so do not pass it through).",
        )
    message = value["error"]
    for word in [role, name, *usable]:
        if word not in message:
            fail(
                case,
                f"an error naming {role!r}, {name!r} and the usable tools {usable}",
                message,
                FORBIDDEN_HINT,
                detail=f"{word!r} is not mentioned",
            )


CALLS_AS: list[tuple[str, str, Any]] = [
    ("guest", "read_note", {"note_id": 1}),
    ("guest", "get_weather", '{"city": "上海"}'),
    ("guest", "delete_note", {"note_id": 1}),
    ("guest", "wipe_all", {}),
    ("member", "delete_note", {"note_id": 2}),
    ("member", "wipe_all", "{}"),
    ("admin", "wipe_all", {}),
    ("guest", "hack_the_planet", {}),
    ("member", "read_note", {"note_id": "one"}),
    ("admin", "debug_dump", {}),
]


@exercise(
    "06.3",
    notebook=NOTEBOOK,
    title="select_tools and call_as",
    points=3,
    targets=("select_tools", "call_as"),
)
def check_roles(select_tools: Callable[..., Any], call_as: Callable[..., Any]) -> str:
    registry = _roles_registry(_notes())
    rng = hidden_rng("06.3")
    tag_pool = ["notes", "weather", "mail", "admin", "read", "write"]
    hidden = [
        (
            rng.sample(tag_pool, rng.randint(1, 3)) if rng.random() < 0.7 else None,
            rng.choice([None, "guest", "member", "admin"]),
        )
        for _ in range(8)
    ]
    for tags, role in SELECTIONS + hidden:
        case = f"select_tools(registry, tags={tags!r}, role={role!r})"
        got = call_learner(select_tools, registry, case=case, tags=tags, role=role)
        _expect_selection(registry, tags, role, got, case)
    case = "select_tools(registry, role='visitor')"
    got, error = _raises(lambda: select_tools(registry, role="visitor"))
    if not isinstance(error, ValueError):
        fail(
            case,
            "ValueError (unknown role)",
            repr(got) if error is None else repr(error),
            "An unknown role is a configuration mistake: let allowed() raise its ValueError.",
        )
    for role, name, arguments in CALLS_AS:
        _call_as_case(call_as, role, name, arguments)
    case = "call_as(registry, 'visitor', 'read_note', {'note_id': 1})"
    store = _notes()
    got, error = _raises(call_as, _roles_registry(store), "visitor", "read_note", {"note_id": 1})
    if not isinstance(error, ValueError):
        fail(
            case,
            "ValueError (unknown role)",
            repr(got) if error is None else repr(error),
            "The role comes from your program, not from the model: an unknown role is a "
            "configuration mistake, so let allowed() raise its ValueError here too.",
        )
    return f"{len(SELECTIONS) + len(hidden)} selections and {len(CALLS_AS)} role-aware calls"


# --- 06.4: TracedRegistry ----------------------------------------------------------------------

NAP_SECONDS = 0.012
RECORD_KEYS = ("tool", "arguments", "duration_ms", "ok", "error", "result_chars")


def _trace_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def greet(name: str) -> str:
        """Greet someone."""
        return f"你好, {name}!"

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @registry.tool
    def broken() -> str:
        """Always fails."""
        raise RuntimeError("数据库 offline")

    @registry.tool
    def nap() -> str:
        """Slow on purpose."""
        time.sleep(NAP_SECONDS)
        return "rested"

    @registry.tool
    def echo(text: str) -> str:
        """Return the text unchanged (it may only look like an error object)."""
        return text

    return registry


def _error_of(result: str) -> str | None:
    try:
        value = json.loads(result)
    except json.JSONDecodeError:
        return None
    return value["error"] if isinstance(value, dict) and "error" in value else None


def _parsed(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except json.JSONDecodeError:
            return arguments
        return value if isinstance(value, dict) else arguments
    return arguments


TRACE_HINTS: list[Hint] = [
    (lambda g: not isinstance(g, dict), "Each record is a dict."),
    (
        lambda g: set(g) != set(RECORD_KEYS),
        f"A record has exactly the keys {', '.join(RECORD_KEYS)}.",
    ),
]


def _expect_record(record: Any, name: str, arguments: Any, result: str, case: str) -> None:
    error = _error_of(result)
    expected = {
        "tool": name,
        "arguments": _parsed(arguments),
        "duration_ms": "a float >= 0",
        "ok": error is None,
        "error": error,
        "result_chars": len(result),
    }
    plain = as_json(record, f"the record of {case}")
    if not isinstance(plain, dict) or set(plain) != set(RECORD_KEYS):
        fail(
            case,
            expected,
            plain,
            f"A record is a dict with exactly the keys {', '.join(RECORD_KEYS)}.",
        )
    duration = plain["duration_ms"]
    if not isinstance(duration, (int, float)) or isinstance(duration, bool) or duration < 0:
        fail(case, expected, plain, "duration_ms is a non-negative number (a float).")
    # A result that a test of the text (startswith('{"error"'), '"error" in result') misjudges.
    looks_wrong = (error is None) == result.startswith('{"error"')
    hints: list[Hint] = [
        (
            lambda g: looks_wrong and g["ok"] is not (error is None),
            "Decide ok by parsing the result, ok = error_message(result) is None, not by testing "
            "its text: this result "
            + (
                "is an error object, spaced differently"
                if error
                else "only looks like an error object"
            )
            + ".",
        ),
        (
            lambda g: g["ok"] is True and error is not None,
            'An error result ({"error": ...}) is '
            "not ok: ok is False and error holds its message (use error_message).",
        ),
        (
            lambda g: g["ok"] is not (error is None),
            "ok is True exactly when the result is not an error object.",
        ),
        (lambda g: g["error"] != error, "error is error_message(result): the message, or None."),
        (
            lambda g: (
                isinstance(arguments, str)
                and g["arguments"] == arguments
                and _parsed(arguments) != arguments
            ),
            "Record parsed_arguments(arguments): JSON text holding "
            "an object is stored as that object.",
        ),
        (lambda g: g["arguments"] != _parsed(arguments), "Record parsed_arguments(arguments)."),
        (
            lambda g: g["result_chars"] == len(result.encode()),
            "result_chars counts characters (len(result)), not UTF-8 bytes.",
        ),
        (lambda g: g["result_chars"] != len(result), "result_chars is len(result)."),
    ]
    expect_json_equal(case, {**expected, "duration_ms": duration}, plain, hints=hints)


@exercise("06.4", notebook=NOTEBOOK, title="TracedRegistry", points=2, targets=("TracedRegistry",))
def check_traced_registry(TracedRegistry: Any) -> str:
    registry = _trace_registry()
    traced = call_learner(TracedRegistry, registry, case="TracedRegistry(registry)")
    empty = call_learner(traced.to_jsonl, case="to_jsonl() before any call")
    expect_json_equal(
        "to_jsonl() before any call",
        "",
        empty,
        hints=[
            (
                lambda g: g.strip().startswith("["),
                'JSON lines: json.dumps(record) + "\\n" for each record, not one JSON array.',
            ),
            (lambda g: True, "With no records, to_jsonl() returns the empty string."),
        ],
    )
    calls: list[tuple[str, Any]] = [
        ("greet", {"name": "张三"}),
        ("add", '{"a": 1, "b": 2}'),
        ("add", '{"a": 1,'),
        ("add", {"a": True, "b": 2}),
        ("broken", {}),
        ("nope", "[1]"),
        ("nap", {}),
        ("echo", {"text": '{"error" is the word 张三 searched for}'}),
        ("echo", {"text": '{ "error": "disk full" }'}),
    ]
    rng = hidden_rng("06.4")
    for _ in range(5):
        b = rng.choice([rng.randint(-9, 9), "2", None])
        calls.append(
            ("add", rng.choice([{"a": rng.randint(-9, 9), "b": b}, json.dumps({"a": 1, "b": b})]))
        )
    for index, (name, arguments) in enumerate(calls):
        case = f"traced.call({name!r}, {arguments!r})"
        expected = registry.call(name, arguments) if name != "nap" else "rested"
        got = call_learner(traced.call, name, arguments, case=case)
        expect_json_equal(
            case, expected, got, "call returns the wrapped registry's result unchanged."
        )
        records = getattr(traced, "records", None)
        if not isinstance(records, list) or len(records) != index + 1:
            fail(
                case,
                f"{index + 1} records in traced.records",
                len(records) if isinstance(records, list) else repr(records),
                "Append exactly one record to self.records per call.",
            )
        _expect_record(records[-1], name, arguments, expected, case)
        if name == "nap" and records[-1]["duration_ms"] < NAP_SECONDS * 1000:
            fail(
                case,
                f"duration_ms >= {NAP_SECONDS * 1000:g} (the tool sleeps "
                f"{NAP_SECONDS * 1000:g} ms)",
                records[-1]["duration_ms"],
                "duration_ms is in milliseconds: (time.perf_counter() - start) * 1000, "
                "measured around the wrapped call.",
            )
    case = "traced.to_jsonl() after the calls"
    text = call_learner(traced.to_jsonl, case=case)
    if not isinstance(text, str):
        fail(case, "a str", as_json(text, case), "to_jsonl returns one str.")
    if "\\u" in text or "张三" not in text:
        fail(
            case,
            "张三 written as is",
            text[:300],
            "Write each line with json.dumps(record, ensure_ascii=False).",
        )
    if text.startswith("["):
        fail(
            case,
            "one JSON object per line, each ending in a newline",
            text[:300],
            'JSON lines: json.dumps(record) + "\\n" for each record, not one JSON array.',
        )
    if not text.endswith("\n"):
        fail(
            case,
            "one JSON object per line, each ending in a newline (the last one too)",
            f"...{text[-160:]}",
            'The last line has no newline: add "\\n" after every record, the last one too '
            '("\\n".join(lines) puts one only between lines).',
            detail="the end of the text",
        )
    lines = text[:-1].split("\n")
    expect_json_equal(
        case,
        as_json(traced.records, "traced.records"),
        [json.loads(line) for line in lines],
        "Write every record, in order, one per line.",
    )
    return f"{len(calls)} traced calls"
