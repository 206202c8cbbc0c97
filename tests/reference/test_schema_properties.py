"""Property-based tests: generated annotations, checked against two oracles.

Annotations are drawn from the supported grammar (scalars, Literal, Enum, classes, Annotated
constraints, and lists, tuples, sets, dicts, Optional and Union nested over them). For each one:

1. the emitted schema is valid JSON Schema 2020-12 (the metaschema, via ``jsonschema``);
2. JSON values of the annotated type are accepted by pydantic in strict mode (the oracle for
   "is a value of this type") *and* by our schema;
3. the schema never admits a value pydantic's strict validator rejects, for near misses (values of
   another generated type) and arbitrary JSON.

One known difference is excluded on purpose: JSON Schema calls ``1.0`` an integer and pydantic's
strict mode does not, so generated floats are never integral. String formats (date, uuid) are not
asserted by JSON Schema validators, so property 3 leaves them out of its grammar.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import typing
import uuid
from decimal import Decimal
from functools import cache
from typing import Annotated, Any, Literal, Optional, Union

import annotated_types as at
import jsonschema
import typing_extensions as te
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from course_lib.reference import type_schema

PROFILE = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class Color(enum.Enum):
    RED = "red"
    BLUE = "蓝"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class City(te.TypedDict):
    name: str
    population: te.NotRequired[int]


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


class Person(BaseModel):
    name: str
    age: int | None = None


SCALARS = [str, int, float, bool, type(None)]
FORMATS = [dt.date, dt.datetime, uuid.UUID]
OTHERS = [
    Decimal,
    Literal["c", "f"],
    Literal[1, "一", None],
    Color,
    Level,
    City,
    Point,
    Person,
    Annotated[int, at.Ge(0), at.Lt(100)],
    Annotated[str, at.MaxLen(4), "short text"],
    Any,
]
HASHABLE = [str, int, bool, Literal["c", "f"], Level]


def annotations(*, with_formats: bool) -> st.SearchStrategy:
    leaves = st.sampled_from(SCALARS + OTHERS + (FORMATS if with_formats else []))
    hashable = st.sampled_from(HASHABLE)

    def extend(children: st.SearchStrategy) -> st.SearchStrategy:
        return st.one_of(
            children.map(lambda t: list[t]),
            children.map(lambda t: typing.Sequence[t]),
            children.map(lambda t: tuple[t, ...]),
            st.tuples(children, children).map(lambda ts: tuple[ts[0], ts[1]]),
            children.map(lambda t: dict[str, t]),
            children.map(lambda t: Optional[t]),
            st.tuples(children, children).map(lambda ts: Union[ts[0], ts[1]]),
            hashable.map(lambda t: set[t]),
            hashable.map(lambda t: frozenset[t]),
        )

    return st.recursive(leaves, extend, max_leaves=4)


FLOATS = st.floats(-1e6, 1e6, allow_nan=False).filter(lambda f: not f.is_integer())
TEXT = st.text(st.sampled_from('ab 北京上海\n"\\'), max_size=4)


def values(tp: Any) -> st.SearchStrategy:
    """JSON-ready values of the annotated type (what a well-behaved model would send)."""
    leaf = _leaf_values(tp)
    if leaf is not None:
        return leaf
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Annotated:
        base, *meta = args
        if base is int:
            return st.integers(0, 99)
        return TEXT.filter(lambda s: len(s) <= 4)
    if origin is Literal:
        return st.sampled_from(args)
    if origin in (list, typing.Sequence, __import__("collections.abc").abc.Sequence):
        return st.lists(values(args[0]), max_size=3)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(values(args[0]), max_size=3)
        return st.tuples(*(values(a) for a in args)).map(list)
    if origin in (set, frozenset):
        return st.lists(values(args[0]), max_size=3, unique_by=lambda v: json.dumps(v))
    if origin is dict:
        return st.dictionaries(TEXT, values(args[1]), max_size=3)
    if origin in (Union, __import__("types").UnionType):
        return st.one_of(*(values(a) for a in args))
    raise AssertionError(f"no value strategy for {tp!r}")


def _leaf_values(tp: Any) -> st.SearchStrategy | None:
    simple = {
        str: TEXT,
        int: st.integers(-(2**40), 2**40),
        float: st.one_of(FLOATS, st.integers(-5, 5)),
        bool: st.booleans(),
        type(None): st.none(),
        dt.date: st.dates().map(dt.date.isoformat),
        dt.datetime: st.datetimes().map(dt.datetime.isoformat),
        uuid.UUID: st.uuids().map(str),
        Decimal: st.decimals(-1000, 1000, places=2).map(lambda d: format(d, "f")),
        Color: st.sampled_from([c.value for c in Color]),
        Level: st.sampled_from([1, 2]),
        Any: st.one_of(st.integers(), TEXT, st.none()),
    }
    if tp in simple:
        return simple[tp]
    if tp is City:
        return st.fixed_dictionaries({"name": TEXT}, optional={"population": st.integers(0, 10**7)})
    if tp is Point:
        return st.fixed_dictionaries({"x": FLOATS}, optional={"y": FLOATS})
    if tp is Person:
        return st.fixed_dictionaries(
            {"name": TEXT}, optional={"age": st.one_of(st.none(), st.integers(0, 120))}
        )
    return None


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), FLOATS, TEXT),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(TEXT, children, max_size=3)
    ),
    max_leaves=6,
)


@cache
def adapter(tp: Any) -> TypeAdapter:
    return TypeAdapter(tp)


@cache
def validator(tp: Any) -> jsonschema.Draft202012Validator:
    schema = type_schema(tp)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def pydantic_accepts(tp: Any, value: Any) -> bool:
    try:
        adapter(tp).validate_json(json.dumps(value), strict=True)
    except ValidationError:
        return False
    return True


@PROFILE
@given(annotations(with_formats=True))
def test_every_emitted_schema_is_valid_json_schema(tp):
    jsonschema.Draft202012Validator.check_schema(type_schema(tp))
    assert '"title"' not in json.dumps(type_schema(tp)).replace('"title": {', "")


@PROFILE
@given(st.data())
def test_values_of_the_type_validate_against_the_schema(data):
    tp = data.draw(annotations(with_formats=True), label="annotation")
    value = data.draw(values(tp), label="value")
    assert pydantic_accepts(tp, value), "the value generator drew a value pydantic refuses"
    errors = [e.message for e in validator(tp).iter_errors(value)]
    assert not errors, f"schema {type_schema(tp)} refused {value!r}: {errors}"


@PROFILE
@given(st.data())
def test_schema_never_admits_what_strict_pydantic_rejects(data):
    tp = data.draw(annotations(with_formats=False), label="annotation")
    other = data.draw(annotations(with_formats=False), label="other annotation")
    value = data.draw(st.one_of(values(other), JSON_VALUES), label="value")
    if validator(tp).is_valid(value):
        assert pydantic_accepts(tp, value), f"schema {type_schema(tp)} admits {value!r}"
