"""``to_strict`` fuzzed with schema documents of the shapes that broke it before.

Hypothesis writes documents with shared definitions, ``$ref`` chains and aliases (with and
without sibling keywords), ``allOf`` and ``anyOf``, nested objects and arrays, reference cycles
and very deep nesting. For every one, ``to_strict`` must either

- return a schema that obeys the documented strict rules, that the openai SDK's strict pass leaves
  unchanged, and that accepts nothing the input rejects (with null meaning "use the default"), or
- raise ``ValueError`` or ``TypeError``: never ``RecursionError``, ``KeyError`` and the like.

Either way it must finish within a work bound linear in the input's size. Work is counted in
steps (``Budget``), not wall time, so the test cannot flake on a loaded machine.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.lib._pydantic import _ensure_strict_json_schema
from strict_oracles import Validator, check_strict_rules, lenient

from course_lib.reference.schema_refs import measure
from course_lib.reference.strict import _Strictifier

PROFILE = settings(
    max_examples=100,
    report_multiple_bugs=False,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
NAMES = ["a", "b", "c"]
DEFS = [f"D{i}" for i in range(5)]
PER_NODE, MARGIN = 10, 50_000  # the bound to_strict promises: PER_NODE * size + MARGIN steps

SCALARS = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "minimum": 0},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "null"},
        {"enum": ["x", "y"]},
        {"const": 1},
        {"type": ["string", "null"]},
    ]
)


def refs() -> st.SearchStrategy:
    sibling = st.sampled_from([{}, {"description": "d"}, {"title": "t"}, {"minimum": 1}])
    return st.tuples(st.sampled_from(DEFS), sibling).map(
        lambda pair: {"$ref": f"#/$defs/{pair[0]}", **pair[1]}
    )


def schemas() -> st.SearchStrategy:
    def extend(children: st.SearchStrategy) -> st.SearchStrategy:
        objects = st.builds(
            _object,
            st.dictionaries(st.sampled_from(NAMES), children, max_size=3),
            st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
            st.sampled_from([None, False, True, {"type": "string"}]),
            st.booleans(),
        )
        return st.one_of(
            objects,
            children.map(lambda c: {"type": "array", "items": c}),
            st.lists(children, min_size=1, max_size=3).map(lambda cs: {"anyOf": cs}),
            st.lists(children, min_size=1, max_size=2).map(lambda cs: {"allOf": cs}),
            st.tuples(refs(), objects).map(lambda pair: {**pair[1], **pair[0]}),  # $ref beside
        )

    return st.recursive(st.one_of(SCALARS, refs()), extend, max_leaves=8)


def _object(properties: dict, required: list, extra: Any, typed: bool) -> dict:
    node: dict = {"type": "object"} if typed else {}
    node["properties"] = properties
    required = [name for name in required if name in properties]
    if required:
        node["required"] = required
    if extra is not None:
        node["additionalProperties"] = extra
    return node


def deep(depth: int, kind: str) -> dict:
    node: dict = {"type": "string"}
    for _ in range(depth):
        if kind == "object":
            node = {"type": "object", "properties": {"child": node}, "required": ["child"]}
        elif kind == "array":
            node = {"type": "array", "items": node}
        else:
            node = {"anyOf": [node, {"type": "null"}]}
    return node


@st.composite
def documents(draw: Any) -> dict:
    defs = {name: draw(schemas()) for name in DEFS}
    if draw(st.booleans()):  # a chain of aliases, sometimes round in a circle
        length = draw(st.sampled_from([1, 3, 40]))
        for i in range(length):
            defs[f"A{i}"] = {"$ref": f"#/$defs/A{i + 1}"}
        defs[f"A{length}"] = draw(st.sampled_from([{"type": "string"}, {"$ref": "#/$defs/A0"}]))
    if draw(st.booleans()):  # a ladder: each level uses the next twice
        height = draw(st.sampled_from([1, 4, 24]))
        sibling = draw(st.sampled_from([{}, {"description": "d"}, {"title": "t"}]))
        for i in range(height):
            step = {"$ref": f"#/$defs/L{i + 1}", **sibling}
            defs[f"L{i}"] = {"type": "object", "properties": {"x": step, "y": dict(step)}}
        defs[f"L{height}"] = {"type": "integer"}
    properties = draw(st.dictionaries(st.sampled_from(NAMES), schemas(), min_size=1, max_size=3))
    if draw(st.integers(0, 3)) == 0:
        kind = draw(st.sampled_from(["object", "array", "anyOf"]))
        properties["deep"] = deep(draw(st.sampled_from([3, 12, 60, 140])), kind)
    for extra in ("A0", "L0"):
        if extra in defs and draw(st.booleans()):
            properties[extra.lower()] = {"$ref": f"#/$defs/{extra}"}
    root = draw(
        st.sampled_from(
            [
                {"type": "object", "properties": properties},
                {"allOf": [{"type": "object", "properties": properties}]},
                {"$ref": "#/$defs/Root"},
            ]
        )
    )
    if "$ref" in root:
        defs["Root"] = {"type": "object", "properties": properties}
    return {**root, "$defs": defs}


@st.composite
def values_of(draw: Any, schema: dict, root: dict, budget: list[int]) -> Any:
    """A value the strict ``schema`` accepts (strict schemas are simple to walk)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooBig
    if "$ref" in schema:
        ref = schema["$ref"]
        target = root if ref == "#" else root["$defs"][ref.rsplit("/", 1)[-1]]
        return draw(values_of(target, root, budget))
    if "anyOf" in schema:
        branch = draw(st.sampled_from(schema["anyOf"]))
        return draw(values_of(branch, root, budget))
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    types = schema.get("type")
    kind = draw(st.sampled_from([types] if isinstance(types, str) else types))
    if kind == "object":
        return {n: draw(values_of(s, root, budget)) for n, s in schema["properties"].items()}
    if kind == "array":
        return draw(st.lists(values_of(schema["items"], root, budget), max_size=2))
    return draw(
        {
            "string": st.text("ab", max_size=2),
            "integer": st.integers(0, 5),
            "number": st.floats(0.5, 9.5).filter(lambda f: not f.is_integer()),
            "boolean": st.booleans(),
            "null": st.none(),
        }[kind]
    )


class _TooBig(Exception):
    """The drawn value would be too large (a recursive type drawn deep): skip it."""


@PROFILE
@given(st.data())
def test_every_document_becomes_a_correct_strict_schema_or_a_clear_error_in_linear_work(data):
    schema = data.draw(documents(), label="schema")
    before = copy.deepcopy(schema)
    size = measure(schema) if _measurable(schema) else 0
    converter = None
    try:
        converter = _Strictifier(schema)
        result = converter.run()
    except (ValueError, TypeError) as error:
        assert str(error), "an error must say why"
        result = None
    if converter is not None:
        assert converter.budget.spent <= PER_NODE * size + MARGIN
    assert schema == before, "to_strict changed its input"
    if result is None:
        return
    check_strict_rules(result)
    theirs = copy.deepcopy(result)
    assert _ensure_strict_json_schema(theirs, path=(), root=theirs) == result
    original = Validator(lenient(before))
    strict = Validator(result)
    for _ in range(3):
        try:
            value = data.draw(values_of(result, result, [60]), label="value")
        except _TooBig:
            continue
        assert strict.is_valid(value), "the value generator drew an invalid value"
        assert original.is_valid(value), f"the strict schema accepts {value!r}; the input did not"


def _measurable(schema: dict) -> bool:
    try:
        measure(schema)
    except (ValueError, TypeError):
        return False
    return True
