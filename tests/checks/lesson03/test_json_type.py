"""Exercise 03.4: the solution passes; each rule's wrong answer gets that rule's hint.

Each wrong json_type is the solution's, with one pitfall put back through ``override``: it
answers first, and the solution handles what it leaves (``None``). The parts call json_type
through its global name, so nested annotations meet the pitfall too.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import json
import random
import typing
from typing import Any

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson03.json_type import VISIBLE, random_annotation
from course_lib.checks.lesson03.json_type import evaluate as build
from course_lib.reference import type_schema

from ._solution import fresh, solution

SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def test_the_solution_passes_every_case():
    assert evaluate("03.4", solution()["json_type"]) == (
        "Exercise 03.4 passed: json_type, second version (28 visible and 80 hidden annotations, "
        "11 refused)."
    )


def test_the_stub_is_not_done_yet():
    def json_type(annotation):
        raise NotImplementedError("Exercise 03.4: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("03.4", json_type)


def with_override(override, **parts):
    """The solution's json_type with one pitfall put back (see the module docstring); ``parts``
    replace union_schema, enum_schema or container_schema, each given the correct one."""
    namespace = fresh()
    correct = namespace["json_type"]
    for name, wrong in parts.items():
        namespace[name] = wrong(namespace[name])

    def json_type(annotation):
        answer = override(annotation)
        return correct(annotation) if answer is None else answer

    namespace["json_type"] = json_type
    return json_type


def nothing(annotation):
    return None


def is_enum(annotation):
    return isinstance(annotation, type) and issubclass(annotation, enum.Enum)


def issubclass_walk(order):
    def override(annotation):
        if is_enum(annotation) and order[0] is not bool:
            return None  # Enum tested first: only the scalars' order is wrong
        for python_type in order:
            if isinstance(annotation, type) and issubclass(annotation, python_type):
                return {"type": SCALARS[python_type]}
        return None

    return override


def refuses(test):
    def override(annotation):
        if test(annotation):
            raise TypeError(f"json_type cannot map {annotation!r}")
        return None

    return override


def scalar_contents(container_schema):
    return lambda annotation, json_type: container_schema(
        annotation, lambda a: dict({"type": SCALARS[a]})
    )


NULL = {"type": "null"}


def lenient_containers(container_schema):
    def lenient(annotation, json_type):
        try:
            return container_schema(annotation, json_type)
        except TypeError:
            return {"type": "array"}

    return lenient


def string_fallback(annotation):
    try:
        solution()["json_type"](annotation)
    except TypeError:
        return {"type": "string"}
    return None


def silent_message(annotation):
    try:
        solution()["json_type"](annotation)
    except TypeError:
        raise TypeError("this annotation cannot be mapped") from None
    return None


ORIGINS = (typing.Union, type(int | None))
WRONG_BY_RULE = {
    "03.4": {
        "bool": with_override(issubclass_walk((int, float, str, bool))),
        "unions": with_override(refuses(lambda a: typing.get_origin(a) in ORIGINS)),
        "enums": with_override(refuses(lambda a: typing.get_origin(a) is typing.Literal)),
        "enum_first": with_override(issubclass_walk((bool, int, float, str))),
        "containers": with_override(
            refuses(lambda a: (typing.get_origin(a) or a) in (list, tuple, set, frozenset, dict))
        ),
        "nested": with_override(nothing, container_schema=scalar_contents),
        "fresh": with_override(lambda a: NULL if a in (None, type(None)) else None),
        "refuse": with_override(string_fallback),
        "names_it": with_override(silent_message),
        "strings": with_override(
            lambda a: solution()["json_type"](eval(a)) if isinstance(a, str) else None  # noqa: S307
        ),
        "any": with_override(lambda a: {} if a in (typing.Any, object) else None),
        "deep": with_override(nothing, container_schema=lenient_containers),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["03.4"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("03.4", rule, WRONG_BY_RULE["03.4"][rule])


def test_a_shared_null_constant_is_named_in_the_case_on_every_run():
    for _ in range(2):
        assert_breaks_rule("03.4", "fresh", WRONG_BY_RULE["03.4"]["fresh"])
    assert NULL == {"type": "null"}


def test_nested_dicts_kept_in_a_cache_are_not_fresh():
    cache: dict[str, Any] = {}
    correct = solution()["json_type"]

    def cached(annotation):
        key = repr(annotation)
        if key not in cache:
            cache[key] = correct(annotation)
        return cache[key]

    assert "Return new dicts on every call" in rejected("03.4", cached)


def test_a_wrong_part_is_reported_as_that_part_not_the_whole_annotation():
    def true_without_enum(annotation):
        if typing.get_origin(annotation) is typing.Literal and typing.get_args(annotation) == (
            True,
        ):
            return {"type": "boolean"}
        return None

    message = rejected("03.4", with_override(true_without_enum))
    assert "Case: json_type(Literal[True]), a part of json_type(" in message
    assert "is a Literal or an Enum: return enum_schema(annotation)" in message


def test_a_dataclass_described_as_an_object_is_told_that_03_4_refuses_it():
    wrong = with_override(lambda a: {"type": "object"} if dataclasses.is_dataclass(a) else None)
    message = rejected("03.4", wrong)
    assert "Case: json_type(Booking)\nExpected: a TypeError naming Booking" in message
    assert "Booking is a dataclass, a class of your own" in message


def test_a_union_type_that_falls_back_to_a_string_is_named():
    wrong = with_override(lambda a: {"type": "string"} if isinstance(a, type(int | None)) else None)
    assert "A union became a plain string" in rejected("03.4", wrong)


def test_a_union_refused_names_the_union_case_and_both_origins():
    message = rejected("03.4", WRONG_BY_RULE["03.4"]["unions"])
    assert "Case: json_type(int | None)\nYour code raised TypeError" in message
    assert "typing.Union or types.UnionType: accept both origins" in message


def test_a_failing_part_says_which_earlier_exercise_to_fix_first():
    namespace = fresh()
    namespace["union_schema"] = lambda annotation, json_type: {"anyOf": []}
    message = rejected("03.4", namespace["json_type"])
    assert "json_type calls your union_schema, which does not pass its own check" in message
    assert "fix 03.1 first" in message


def _none_count(node: ast.expr) -> int:
    """How many `None` members a union written at ``node`` has once Python flattens it."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _none_count(node.left) + _none_count(node.right)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        if node.value.id == "Optional":
            return _none_count(node.slice) + 1
        if node.value.id == "Union" and isinstance(node.slice, ast.Tuple):
            return sum(_none_count(member) for member in node.slice.elts)
    return int(isinstance(node, ast.Constant) and node.value is None)


def test_generated_annotations_never_add_none_twice_to_one_union():
    """`list[int] | None | None` reads oddly and Python flattens it anyway."""
    rng = random.Random("generated unions")
    for _ in range(2000):
        source = random_annotation(rng)
        for node in ast.walk(ast.parse(source, mode="eval")):
            assert _none_count(node) <= 1, source


# --- agreement with course_lib.reference, where both promise the same ------------------------

_OUTER = ("default", "description")
_KIND = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}


def canonical(schema: Any) -> Any:
    """``schema`` with every union spelled as a sorted ``anyOf``.

    The reference prints a union in its shortest form (``{"type": ["integer", "null"]}``, an enum
    merged with null); 03.1 always spells it ``{"anyOf": [...]}``, one branch per member, because
    that is one rule a learner can apply at every depth. Both accept exactly the same values.
    """
    if isinstance(schema, list):
        return [canonical(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {key: canonical(value) for key, value in schema.items()}
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = {k: canonical(v) for k, v in schema["properties"].items()}
    outer = {key: schema.pop(key) for key in _OUTER if key in schema}
    if isinstance(schema.get("type"), list):
        rest = {key: value for key, value in schema.items() if key not in ("type", "enum")}
        branches = []
        for json_type in schema["type"]:
            branch = {"type": json_type} if json_type == "null" else {"type": json_type, **rest}
            if "enum" in schema and json_type != "null":
                branch["enum"] = [v for v in schema["enum"] if _KIND.get(type(v)) == json_type]
            branches.append(branch)
        schema = {"anyOf": branches}
    if "anyOf" in schema:
        flat = []
        for branch in schema["anyOf"]:
            flat.extend(branch["anyOf"] if set(branch) == {"anyOf"} else [branch])
        schema["anyOf"] = sorted(flat, key=lambda b: json.dumps(b, sort_keys=True))
    return {**schema, **outer}


def test_json_type_agrees_with_the_reference_type_schema():
    """Same values accepted (compared in ``canonical`` form). Intended differences, kept out of
    these cases: the reference merges union members whose schemas are equal, gives a Literal
    of mixed types a list of types and maps typing.Any to {}, where 03.4 raises TypeError."""
    rng = random.Random("agreement 03.4")
    correct = solution()["json_type"]
    for source in [*VISIBLE, *(random_annotation(rng) for _ in range(300))]:
        annotation = build(source)
        assert canonical(correct(annotation)) == canonical(type_schema(annotation)), source


def _union_without_null(annotation):
    if typing.get_origin(annotation) not in ORIGINS:
        return None
    members = [m for m in typing.get_args(annotation) if m is not type(None)]
    return {"anyOf": [solution()["json_type"](member) for member in members]}


def _literal_bool_as_integer(annotation):
    values = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal and type(values[0]) is bool:
        return {"type": "integer", "enum": list(values)}
    return None


def _literal_sorted(annotation):
    values = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal and len(set(map(type, values))) == 1:
        return {"type": SCALARS[type(values[0])], "enum": sorted(values)}
    return None


# A json_type that writes enums and unions itself, with the mistake 03.1 or 03.2 names, gets
# the sentence that exercise gives for it, not a generic "compare piece by piece".
SIBLING_MISTAKES = {
    "enum names": (
        lambda a: {"type": "string", "enum": [m.name for m in a]} if is_enum(a) else None,
        "json_type(Unit)",
        "List the members' values, [member.value for member in E], not their names",
    ),
    "an IntEnum typed as a string": (
        lambda a: {"type": "string", "enum": [m.value for m in a]} if is_enum(a) else None,
        "json_type(Priority)",
        "are int, so it is 'integer'",
    ),
    "bool values typed as integer": (
        _literal_bool_as_integer,
        "json_type(Literal[True])",
        "bool came out as integer",
    ),
    "float values typed as integer": (
        lambda a: (
            {"type": "integer", "enum": list(typing.get_args(a))}
            if typing.get_origin(a) is typing.Literal and type(typing.get_args(a)[0]) is float
            else None
        ),
        "json_type(Literal[0.5, 1.5])",
        'float values are JSON numbers: the type is "number"',
    ),
    "values sorted": (
        _literal_sorted,
        "json_type(Literal['北京', '上海'])",
        "Keep the values in the order they are written",
    ),
    "the null branch left out of anyOf": (
        _union_without_null,
        "json_type(int | None)",
        "The null branch was dropped",
    ),
}


@pytest.mark.parametrize("mistake", sorted(SIBLING_MISTAKES))
def test_a_mistake_an_earlier_exercise_names_gets_that_exercises_hint(mistake):
    override, case, sentence = SIBLING_MISTAKES[mistake]
    message = rejected("03.4", with_override(override))
    assert f"Case: {case}" in message and sentence in message
    assert "piece by piece" not in message
