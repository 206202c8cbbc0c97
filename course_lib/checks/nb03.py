"""Checks for notebook 03_pitfalls: the second, correct versions of json_type and parameters_schema.

Hidden cases are property-based: annotations drawn from a small grammar (scalars, Literal, Enum,
unions, lists, tuples, sets, dicts, nested), and functions with random signatures built with
``exec``, each one twice: once in an ordinary module and once under
``from __future__ import annotations``, where every annotation is a string.
"""

from __future__ import annotations

import enum
import inspect
import json
import math
import random
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Optional, Union

from course_lib.checks.core import (
    CheckFailed,
    as_json,
    call_learner,
    expect_json_equal,
    fail,
    first_difference,
    hidden_rng,
)
from course_lib.checks.core import (
    legacy_exercise as exercise,
)
from course_lib.checks.nb02 import (
    EMPTY,
    NAMES,
    build_function,
    expect_type_error,
    expected_parameters_schema,
    parameters_hint,
    random_params,
    schema_hint,
)

NOTEBOOK = "03_pitfalls"
_SCALARS = {bool: "boolean", int: "integer", float: "number", str: "string"}
FUTURE = "from __future__ import annotations\n"
FUTURE_HINT = (
    "This function's module uses `from __future__ import annotations`, so every annotation is a "
    "string ('int', 'list[str]', ...). Take the types from typing.get_type_hints(func), not from "
    "parameter.annotation or __annotations__."
)
LOUD_HINT = (
    "Never drop or guess a parameter: raise TypeError for *args, **kwargs and parameters without "
    "an annotation, naming the function and the parameter."
)


class Unit(enum.Enum):
    CELSIUS = "c"
    FAHRENHEIT = "f"


class Priority(enum.IntEnum):
    LOW = 1
    NORMAL = 2
    HIGH = 3


class City(str, enum.Enum):
    BEIJING = "北京"
    SHANGHAI = "上海"


class Ticket:
    """A class of our own: JSON cannot describe it."""


class Nothing(enum.Enum):
    """An Enum without members: no value would be valid, so it has no JSON type."""


# The names generated annotations and function sources may use.
NAMESPACE: dict[str, Any] = {
    "typing": typing,
    "Optional": Optional,
    "Union": Union,
    "Literal": Literal,
    "Unit": Unit,
    "Priority": Priority,
    "City": City,
}


# --- oracle ------------------------------------------------------------------------------------


def expected_type_schema(annotation: Any) -> dict:
    """Exercise 03.1's contract (raises TypeError for what it excludes)."""
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum_of([member.value for member in annotation])
    for python_type, name in _SCALARS.items():
        if annotation is python_type:
            return {"type": name}
    origin = typing.get_origin(annotation) or annotation
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [expected_type_schema(member) for member in args]}
    if origin is Literal:
        return _enum_of(list(args))
    if origin in (list, tuple) and not args:
        return {"type": "array"}
    if origin is list:
        return {"type": "array", "items": expected_type_schema(args[0])}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": expected_type_schema(args[0])}
        prefix = [expected_type_schema(arg) for arg in args]
        return {
            "type": "array",
            "prefixItems": prefix,
            "minItems": len(args),
            "maxItems": len(args),
        }
    if origin in (set, frozenset):
        schema: dict = {"type": "array", "uniqueItems": True}
        if args:
            schema["items"] = expected_type_schema(args[0])
        return schema
    if origin is dict and not args:
        return {"type": "object"}
    if origin is dict and args[0] is str:
        return {"type": "object", "additionalProperties": expected_type_schema(args[1])}
    raise TypeError(f"not in the contract of 03.1: {annotation!r}")


def _enum_of(values: list) -> dict:
    names = {_SCALARS.get(type(value)) for value in values}
    if len(names) != 1 or None in names:
        raise TypeError(f"values of mixed or unsupported types: {values!r}")
    return {"type": names.pop(), "enum": values}


# --- generated annotations ---------------------------------------------------------------------

_LEAVES = (
    "str", "int", "float", "bool", "Unit", "Priority", "City",
    "Literal['北京', '上海', 'Paris']", "Literal[1, 2, 3]", "Literal['c', 'f']", "Literal[True]",
    "list", "dict", "tuple", "set", "typing.Tuple", "typing.Set",
)  # fmt: skip
_HASHABLE = ("str", "int", "bool", "City", "Literal['c', 'f']", "Priority")


def random_annotation(rng: random.Random, depth: int = 0) -> str:
    """The source text of a random annotation from the grammar of exercise 03.1."""
    if depth >= 3 or rng.random() < 0.3:
        return rng.choice(_LEAVES)
    inner = random_annotation(rng, depth + 1)
    form = rng.randrange(11)
    if form == 0:
        return f"list[{inner}]"
    if form == 1:
        return f"typing.List[{inner}]"
    if form == 2:
        return f"dict[str, {inner}]"
    if form == 3:
        return f"tuple[{inner}, ...]"
    if form == 4:
        extra = [random_annotation(rng, depth + 1) for _ in range(rng.randint(1, 2))]
        return f"tuple[{', '.join([inner, *extra])}]"
    if form == 5:
        return f"{rng.choice(['set', 'frozenset'])}[{rng.choice(_HASHABLE)}]"
    first = evaluate(inner)
    if form in (6, 7, 8):
        if _nullable(first):  # `X | None | None` would be written, and read, as `X | None`
            return inner
        return f"Optional[{inner}]" if form == 8 else f"{inner} | None"
    other = random_annotation(rng, depth + 1)
    second = evaluate(other)
    if _nullable(first) or _nullable(second) or _schemas_collide(first, second):
        return inner if _nullable(first) else f"Optional[{inner}]"
    return f"Union[{inner}, {other}]" if form == 9 else f"{inner} | {other}"


def _nullable(annotation: Any) -> bool:
    return annotation in (None, type(None)) or type(None) in typing.get_args(annotation)


def _schemas_collide(first: Any, second: Any) -> bool:
    """Would Union[first, second] hold two members with the same schema (or flatten oddly)?"""
    try:
        branches = expected_type_schema(Union[first, second]).get("anyOf")
    except TypeError:
        return True
    if not branches:  # the union collapsed to one member
        return True
    return any(branches.count(branch) > 1 for branch in branches)


def evaluate(source: str) -> Any:
    return eval(source, dict(NAMESPACE))  # noqa: S307 (our own generated source)


# --- 03.1 json_type ----------------------------------------------------------------------------

VISIBLE_TYPES = (
    "bool", "None", "int | None", "Optional[int]", "Union[int, str]", "Optional[Union[int, str]]",
    "Literal['北京', '上海']", "Literal[1, 2, 3]", "Unit", "Priority", "City", "list[str]",
    "typing.List[int]", "tuple[float, float]", "tuple[int, ...]", "set[str]", "frozenset[int]",
    "dict[str, int]", "list[dict[str, int | None]]", "Optional[Literal['c', 'f']]", "list",
    "set", "dict", "tuple", "typing.List", "typing.Dict",
)  # fmt: skip
ANY_HINT = (
    "typing.Any and object tell the model nothing about what to send: in 03.1 they are outside "
    "the table, so raise TypeError. (The reference library maps them to {} on purpose; the "
    "notebook explains why the two differ.)"
)
UNSUPPORTED = (
    ("'int'", "int", "A string annotation must not become a schema: raise TypeError and say to "
     "resolve annotations with typing.get_type_hints() first (a fallback to \"string\" is how "
     "every type became a string under `from __future__ import annotations`)."),
    ("dict[int, str]", "dict", "JSON object keys are always strings: raise TypeError for a dict "
     "whose keys are not str."),
    ("complex", "complex", None),
    ("Ticket", "Ticket", None),
    ("Literal[1, 'one']", "Literal", "Literal values of mixed types have no single JSON type: "
     "raise TypeError."),
    ("Literal[1, 2.5]", "Literal", "Literal values of mixed types have no single JSON type: 1 "
     "is an int and 2.5 a float, so raise TypeError (do not widen them to number)."),
    ("Literal[None]", "Literal", "Literal values must be str, int, float or bool: raise "
     "TypeError for Literal[None] (whoever means null writes None)."),
    ("Nothing", "Nothing", "An Enum without members has no values, so no JSON type: raise "
     "TypeError naming it (an empty enum would be a parameter nobody can send)."),
    ("typing.Any", "Any", ANY_HINT),
    ("object", "object", ANY_HINT),
    ("list[Ticket]", "Ticket", "Containers are checked all the way down: the items of "
     "list[Ticket] cannot be mapped, so raise TypeError."),
)  # fmt: skip
_NO_MAP = "Anything outside the table must raise TypeError naming it, never a guessed schema."
FRESH_HINT = (
    "Return new dicts on every call, nested ones included: whoever uses the result adds "
    '"default" or "description" to it, and a dict (or list) kept in a table or a constant then '
    "changes for every later caller. Build it inside json_type, or copy it."
)
RAISED_HINT = (
    "This annotation is in the table of 03.1, so it must not raise. Run the case yourself in a "
    "new cell to see the traceback."
)
UNION_TYPE_HINT = (
    "`A | B` (and `X | None`) is a types.UnionType, not a typing.Union: typing.get_origin() "
    "returns types.UnionType for it. Accept both origins; typing.get_args() reads both."
)
TYPING_UNION_HINT = (
    "Optional[X] and Union[A, B] have the origin typing.Union (and `A | B` has types.UnionType): "
    "accept both; typing.get_args() gives the members."
)
BARE_ALIAS_HINT = (
    "typing.List, typing.Dict, ... without [...] are the bare containers: typing.get_origin() "
    "gives list, dict, ... and typing.get_args() gives (), so treat them like bare list, dict."
)


def expect_type_schema(json_type, annotation: Any, case: str) -> None:
    """Fail unless ``json_type(annotation)`` is 03.1's schema.

    A failure is reported on the smallest part of the annotation that fails on its own (a member,
    the items, ...): a recursive json_type gets that part wrong wherever it appears, and a short
    case shows a short Expected and Got.
    """
    __tracebackhide__ = True
    if _agrees(json_type, annotation):
        return
    part = next((p for p in _parts(annotation) if not _agrees(json_type, p)), None)
    if part is not None:
        case = f"json_type({_source(part)}), a part of {case}"
        annotation = part
    expected = expected_type_schema(annotation)
    try:
        got = json_type(annotation)
    except NotImplementedError:
        raise
    except Exception as exc:
        fail(case, expected, f"{type(exc).__name__}: {exc}", _raised_hint(annotation))
    plain = learner_json(got, case, expected)
    expect_json_equal(case, expected, plain, schema_hint(expected, plain))


def _agrees(json_type, annotation: Any) -> bool:
    """Whether json_type gives 03.1's schema for ``annotation`` (a stub's error passes through)."""
    try:
        got = json_type(annotation)
    except NotImplementedError:
        raise
    except Exception:
        return False
    try:
        plain = json.loads(json.dumps(got, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return False
    return first_difference(expected_type_schema(annotation), plain) is None


def _parts(annotation: Any) -> list[Any]:
    """The annotations inside ``annotation`` (members, items, values), innermost first."""
    origin = typing.get_origin(annotation)
    if origin is None or origin is Literal:
        return []
    parts: list[Any] = []
    for arg in typing.get_args(annotation):
        if arg is not Ellipsis:
            parts.extend([*_parts(arg), arg])
    return parts


def _source(annotation: Any) -> str:
    """How the annotation is written in a notebook: `int | None`, `Unit`, `list[str]`."""
    if annotation is type(None):
        return "None"
    if isinstance(annotation, type) and typing.get_origin(annotation) is None:
        return annotation.__name__
    return repr(annotation).replace("typing.", "").replace(f"{__name__}.", "")


def _raised_hint(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is types.UnionType:
        return UNION_TYPE_HINT
    if origin is typing.Union:
        return TYPING_UNION_HINT
    if origin is not None and not typing.get_args(annotation) and origin is not Literal:
        return BARE_ALIAS_HINT
    return RAISED_HINT


def _expect_fresh(json_type, annotation: Any, source: str) -> None:
    """Change every dict and list of a first result; a second call must not see the change.

    The change is undone afterwards, so a shared constant of the learner's is left as it was and
    the next run of the check reports the same case again.
    """
    __tracebackhide__ = True
    case = f"json_type({source})"
    first = call_learner(json_type, annotation, case=case)
    changed = _containers(first)
    marker = "changed by the caller"
    for container in changed:
        if isinstance(container, dict):
            container["default"] = marker
        else:
            container.append(marker)
    try:
        second = call_learner(json_type, annotation, case=f"{case}, called again")
        expected = expected_type_schema(annotation)
        seen = as_json(second, f"The result of {case}")
    finally:
        for container in changed:
            if isinstance(container, dict):
                container.pop("default", None)
            elif container and container[-1] == marker:
                container.pop()
    if first_difference(expected, seen) is not None:
        fail(
            f"{case} called twice; the caller changed the first result", expected, seen, FRESH_HINT
        )


def _containers(value: Any) -> list[Any]:
    """Every dict and list in ``value``, found before any of them is changed."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            stack.extend(item)
    return found


# --- values JSON cannot hold, located ------------------------------------------------------------

EMPTY_DEFAULT_HINT = (
    'inspect.Parameter.empty is how inspect says "no default": a parameter whose default is '
    'Parameter.empty has none, so it gets no "default" key and belongs in required.'
)
NOT_JSON_HINT = (
    "A schema holds only dicts with string keys, lists, strings, numbers, booleans and None: "
    "convert this value (an Enum member to its .value) or leave it out."
)


def learner_json(got: Any, case: str, expected: Any) -> Any:
    """``got`` after a JSON round trip; if JSON cannot hold it, say where the first bad value is."""
    __tracebackhide__ = True
    try:
        return as_json(got, f"The result of {case}")
    except CheckFailed:
        found = _not_json(got, "$", 0)
        if found is None:
            raise
    path, bad = found
    hint = EMPTY_DEFAULT_HINT if bad is inspect.Parameter.empty else NOT_JSON_HINT
    shown = "a structure nested too deeply (a cycle?)" if bad is _TOO_DEEP else repr(bad)
    fail(case, expected, got, hint, detail=f"at {path}: {shown} is not a JSON value")


_TOO_DEEP = object()


def _not_json(value: Any, path: str, depth: int) -> tuple[str, Any] | None:
    """(path, value) of the first value in ``value`` that JSON cannot hold, else None."""
    if depth > 60:
        return path, _TOO_DEEP
    if value is None or isinstance(value, (bool, int, str)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (path, value)
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} (a key)", key
            found = _not_json(item, f"{path}.{key}", depth + 1)
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _not_json(item, f"{path}[{index}]", depth + 1)
            if found:
                return found
        return None
    return path, value


@exercise("03.1", notebook=NOTEBOOK, title="json_type, second version", points=3,
          targets=("json_type",))  # fmt: skip
def check_json_type(json_type) -> str:
    rng = hidden_rng("03.1")
    hidden = [random_annotation(rng) for _ in range(80)]
    for source in (*VISIBLE_TYPES, *hidden):
        expect_type_schema(json_type, evaluate(source), f"json_type({source})")
    for source, label, hint in UNSUPPORTED:
        annotation = eval(source, {"Ticket": Ticket, "Nothing": Nothing, **NAMESPACE})  # noqa: S307
        case = f"json_type({source})"
        expect_type_error(lambda a=annotation: json_type(a), case, [label], hint or _NO_MAP)
    for source in VISIBLE_TYPES:
        _expect_fresh(json_type, evaluate(source), source)
    return f"{len(VISIBLE_TYPES)} visible and {len(hidden)} hidden annotations, " + (
        f"{len(UNSUPPORTED)} refused"
    )


# --- 03.2 parameters_schema --------------------------------------------------------------------


def _default_for(rng: random.Random, source: str) -> Any:
    """A default that fits the annotation, as source text (EMPTY when there is none)."""
    annotation = evaluate(source)
    members = [member for member in typing.get_args(annotation) if member is not type(None)]
    if len(members) < len(typing.get_args(annotation)):  # nullable: None is a fine default
        return _Source("None")
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        member = rng.choice(list(annotation))
        return _Source(f"{annotation.__name__}.{member.name}")
    if typing.get_origin(annotation) is Literal:
        return _Source(repr(rng.choice(typing.get_args(annotation))))
    makers = {
        "str": lambda: rng.choice(["c", "北京", "", "metric"]),
        "int": lambda: rng.randint(-3, 100),
        "float": lambda: rng.choice([0.5, 2.25, -1.0]),
        "bool": lambda: rng.choice([True, False]),
    }
    maker = makers.get(source)
    return EMPTY if maker is None else _Source(repr(maker()))


class _Source(str):
    """Default source text that ``build_function`` writes as it is (its repr is itself)."""

    def __repr__(self) -> str:
        return str(self)


def random_function(rng: random.Random, index: int) -> tuple[str, list, int]:
    """(name, parameter specs, number of positional ones) for a random signature."""
    params, n_positional = random_params(rng, random_annotation, _default_for)
    return f"tool_{index}", params, n_positional


def make(name: str, params: list, n_positional: int, *, future: bool) -> tuple[Callable, str]:
    """The function, built in a module with or without ``from __future__ import annotations``."""
    if not future:
        return build_function(name, params, n_positional, NAMESPACE)
    func, text = build_function(name, params, n_positional, NAMESPACE, prefix=FUTURE)
    return func, f"{text}, in a module that starts with `from __future__ import annotations`"


def _spec(name: str, annotation: str, default: str | None = None) -> tuple[str, str, Any]:
    return (name, annotation, EMPTY if default is None else _Source(default))


# (function name, parameter specs, number of positional parameters): each is checked as written
# in an ordinary module and again under `from __future__ import annotations`.
VISIBLE_FUNCTIONS = (
    (
        "find_hotels",
        [_spec("city", "str"), _spec("max_price", "int | None"), _spec("stars", "int", "3"),
         _spec("早餐", "bool", "False")],
        4,
    ),
    ("set_units", [_spec("unit", "Unit", "Unit.CELSIUS"),
                   _spec("priority", "Priority", "Priority.HIGH")], 1),
    (
        "plan_route",
        [_spec("stops", "list[tuple[float, float]]"), _spec("avoid", "set[str] | None", "None"),
         _spec("城市", "City", "City.BEIJING"),
         _spec("options", "dict[str, bool | int] | None", "None")],
        2,
    ),
)  # fmt: skip

GUESS_HINT = (
    "This parameter has a default but no annotation: do not guess its type from the default "
    "(3 could stand for int, float or int | None). Raise TypeError naming the function and the "
    "parameter."
)
# (parameter text to insert, where: "start" or "varargs" or "end", the name the error must use,
# the hint when nothing is raised)
BAD_PARAMETERS = (
    ("*prices: float", "varargs", "prices", LOUD_HINT),
    ("*城市们: str", "varargs", "城市们", LOUD_HINT),
    ("*args", "varargs", "args", LOUD_HINT),
    ("**options: str", "end", "options", LOUD_HINT),
    ("**kwargs", "end", "kwargs", LOUD_HINT),
    ("name", "start", "name", LOUD_HINT),
    ("地点", "start", "地点", LOUD_HINT),
    ("limit=3", "end", "limit", GUESS_HINT),
    ("城市='北京'", "end", "城市", GUESS_HINT),
)


def _bad_function(rng: random.Random, index: int, bad: tuple[str, ...], future: bool):
    """A random valid signature with one parameter a schema cannot represent."""
    text, where = bad[0], bad[1]
    specs, n_positional = random_params(
        rng, lambda r: r.choice(["str", "int", "bool"]), lambda r, a: EMPTY, max_count=3
    )
    taken = {bad[2], "unit"}
    parts = [f"{pname}: {annotation}" for pname, annotation, _ in specs if pname not in taken]
    n_positional = min(n_positional, len(parts))
    if where == "start":
        parts.insert(0, text)
    elif where == "varargs":
        parts.insert(n_positional, text)
        parts.append("unit: str = 'c'")
    else:
        parts.append(text)
    name = f"bad_tool_{index}"
    source = f"def {name}({', '.join(parts)}):\n    return None\n"
    namespace = dict(NAMESPACE)
    code = compile(
        (FUTURE if future else "") + source, f"<generated {name}>", "exec", dont_inherit=True
    )
    exec(code, namespace)  # noqa: S102 (our own generated source)
    return namespace[name], f"def {name}({', '.join(parts)})"


ENUM_DEFAULT_HINT = (
    "A default that is an Enum member is not JSON: show the model its value (Unit.CELSIUS -> "
    '"c"), which is also what the model sends back.'
)
UNEXPECTED_ERROR_HINT = (
    "Only *args, **kwargs, unannotated parameters and types json_type cannot map may raise; this "
    "function has none of them. Run the case yourself in a new cell to see the traceback."
)


def _expect_schema(parameters_schema, func, text: str, hint_override: str | None = None) -> None:
    __tracebackhide__ = True
    case = f"parameters_schema({text})"
    expected = expected_parameters_schema(func, expected_type_schema)
    try:
        got = parameters_schema(func)
    except NotImplementedError:
        raise
    except Exception as exc:
        fail(case, expected, f"{type(exc).__name__}: {exc}", hint_override or UNEXPECTED_ERROR_HINT)
    properties = got.get("properties") if isinstance(got, dict) else None
    for prop in properties.values() if isinstance(properties, dict) else ():
        if isinstance(prop, dict) and isinstance(prop.get("default"), enum.Enum):
            fail(case, expected, repr(got), ENUM_DEFAULT_HINT)
    plain = learner_json(got, case, expected)
    if first_difference(expected, plain) is None:
        return
    hint = hint_override or parameters_hint(expected, plain, func)
    narrowed = _narrow(expected, plain)
    if narrowed is not None:
        where, part_expected, part_got = narrowed
        detail = first_difference(part_expected, part_got, f"$.{where}")
        fail(f"{case}, its {where}", part_expected, part_got, hint, detail=detail)
    expect_json_equal(case, expected, plain, hint)


def _narrow(expected: dict, got: Any) -> tuple[str, Any, Any] | None:
    """(where, expected part, got part) when one key, or one property, holds every difference.

    Showing only that part keeps Expected and Got short enough to read whole.
    """
    if not isinstance(got, dict) or list(got) != list(expected):
        return None
    differing = [k for k in expected if first_difference(expected[k], got[k]) is not None]
    if len(differing) != 1:
        return None
    key = differing[0]
    if key == "properties" and isinstance(got[key], dict):
        props, got_props = expected[key], got[key]
        if list(got_props) == list(props):
            names = [n for n in props if first_difference(props[n], got_props[n]) is not None]
            if len(names) == 1:
                return f"properties.{names[0]}", props[names[0]], got_props[names[0]]
    return key, expected[key], got[key]


@exercise("03.2", notebook=NOTEBOOK, title="parameters_schema, second version", points=2,
          targets=("parameters_schema",))  # fmt: skip
def check_parameters_schema(parameters_schema) -> str:
    rng = hidden_rng("03.2")
    hidden = [random_function(rng, index) for index in range(24)]
    for name, params, n_positional in (*VISIBLE_FUNCTIONS, *hidden):
        plain_func, text = make(name, params, n_positional, future=False)
        _expect_schema(parameters_schema, plain_func, text)
        future_func, future_text = make(name, params, n_positional, future=True)
        # The same signature passed in an ordinary module, so a failure here is the strings.
        _expect_schema(parameters_schema, future_func, future_text, FUTURE_HINT)
    count = 2 * len(hidden)
    for index, bad in enumerate(BAD_PARAMETERS * 2):
        future = index >= len(BAD_PARAMETERS)
        func, text = _bad_function(rng, index, bad, future)
        expect_type_error(
            lambda f=func: parameters_schema(f),
            f"parameters_schema({text})",
            [func.__name__, bad[2]],
            bad[3],
        )
        count += 1
    return f"{2 * len(VISIBLE_FUNCTIONS)} visible and {count} hidden functions"


__all__ = ["NAMES", "expected_type_schema", "random_annotation"]
