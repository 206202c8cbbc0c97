"""Checks for notebook 03_pitfalls: the second, correct versions of json_type and parameters_schema.

Hidden cases are property-based: annotations drawn from a small grammar (scalars, Literal, Enum,
unions, lists, tuples, sets, dicts, nested), and functions with random signatures built with
``exec``, each one twice: once in an ordinary module and once under
``from __future__ import annotations``, where every annotation is a string.
"""

from __future__ import annotations

import enum
import random
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Optional, Union

from course_lib.checks.core import (
    as_json,
    call_learner,
    exercise,
    expect_json_equal,
    fail,
    hidden_rng,
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
    "list", "dict", "tuple", "set",
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
    if form in (6, 7):
        return f"{inner} | None"
    if form == 8:
        return f"Optional[{inner}]"
    other = random_annotation(rng, depth + 1)
    first, second = evaluate(inner), evaluate(other)
    if _schemas_collide(first, second):
        return f"Optional[{inner}]"
    return f"Union[{inner}, {other}]" if form == 9 else f"{inner} | {other}"


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
    "set", "dict", "tuple",
)  # fmt: skip
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
    ("list[Ticket]", "Ticket", "Containers are checked all the way down: the items of "
     "list[Ticket] cannot be mapped, so raise TypeError."),
)  # fmt: skip
_NO_MAP = "Anything outside the table must raise TypeError naming it, never a guessed schema."


@exercise("03.1", notebook=NOTEBOOK, title="json_type, second version", points=3,
          targets=("json_type",))  # fmt: skip
def check_json_type(json_type) -> str:
    rng = hidden_rng("03.1")
    hidden = [random_annotation(rng) for _ in range(80)]
    for source in (*VISIBLE_TYPES, *hidden):
        annotation = evaluate(source)
        case = f"json_type({source})"
        expected = expected_type_schema(annotation)
        got = call_learner(json_type, annotation, case=case)
        plain = as_json(got, f"The result of {case}")
        expect_json_equal(case, expected, plain, schema_hint(expected, plain))
    for source, label, hint in UNSUPPORTED:
        annotation = eval(source, {"Ticket": Ticket, **NAMESPACE})  # noqa: S307
        case = f"json_type({source})"
        expect_type_error(lambda a=annotation: json_type(a), case, [label], hint or _NO_MAP)
    # A fresh dict every call, also for nested results.
    first = call_learner(json_type, list[int], case="json_type(list[int])")
    if isinstance(first, dict) and isinstance(first.get("items"), dict):
        first["items"]["default"] = 0
    second = call_learner(json_type, list[int], case="json_type(list[int]), called again")
    if as_json(second, "json_type(list[int])") != expected_type_schema(list[int]):
        fail(
            "json_type(list[int]) called twice; the caller changed the first result",
            expected_type_schema(list[int]),
            second,
            "Return new dicts on every call, nested ones included: do not hand out dicts "
            "stored in a table.",
        )
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

# (parameter text to insert, where: "start" or "varargs" or "end", the name the error must use)
BAD_PARAMETERS = (
    ("*prices: float", "varargs", "prices"),
    ("*城市们: str", "varargs", "城市们"),
    ("*args", "varargs", "args"),
    ("**options: str", "end", "options"),
    ("**kwargs", "end", "kwargs"),
    ("name", "start", "name"),
    ("地点", "start", "地点"),
)


def _bad_function(rng: random.Random, index: int, bad: tuple[str, str, str], future: bool):
    """A random valid signature with one parameter a schema cannot represent."""
    text, where, _ = bad
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
    plain = as_json(got, f"The result of {case}")
    hint = hint_override or parameters_hint(expected, plain, func)
    expect_json_equal(case, expected, plain, hint)


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
            LOUD_HINT,
        )
        count += 1
    return f"{2 * len(VISIBLE_FUNCTIONS)} visible and {count} hidden functions"


__all__ = ["NAMES", "expected_type_schema", "random_annotation"]
