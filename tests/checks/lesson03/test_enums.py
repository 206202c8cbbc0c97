"""Exercise 03.2: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import enum
import typing
from typing import Literal

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate

from ._solution import edited, solution


def correct(annotation):
    return solution()["enum_schema"](annotation)


def test_the_solution_passes_every_case():
    assert evaluate("03.2", solution()["enum_schema"]) == (
        "Exercise 03.2 passed: enum_schema (8 visible and 30 hidden cases, 7 refused)."
    )


def test_the_stub_is_not_done_yet():
    def enum_schema(annotation):
        raise NotImplementedError("Exercise 03.2: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("03.2", enum_schema)


def values_of(annotation):
    if typing.get_origin(annotation) is Literal:
        return list(typing.get_args(annotation))
    return [member.value for member in annotation]


def without_enum(annotation):
    return {"type": correct(annotation)["type"]}


def literals_are_strings(annotation):
    schema = correct(annotation)
    if typing.get_origin(annotation) is Literal:
        schema["type"] = "string"
    return schema


def isinstance_walk(annotation):
    schema = correct(annotation)
    for python_type, name in [
        (int, "integer"),
        (float, "number"),
        (str, "string"),
        (bool, "boolean"),
    ]:
        if isinstance(values_of(annotation)[0], python_type):
            schema["type"] = name
            break
    return schema


def member_names(annotation):
    schema = correct(annotation)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        schema["enum"] = [member.name for member in annotation]
    return schema


def enums_are_strings(annotation):
    schema = correct(annotation)
    if isinstance(annotation, type):
        schema["type"] = "string"
    return schema


def first_value_decides(annotation):
    try:
        return correct(annotation)
    except TypeError:
        values = values_of(annotation)
        names = {bool: "boolean", int: "integer", float: "number", str: "string"}
        if not values or type(values[0]) not in names:
            raise
        return {"type": names[type(values[0])], "enum": values}


def widened(annotation):
    values = values_of(annotation) if typing.get_origin(annotation) is Literal else []
    if values and {type(value) for value in values} == {int, float}:
        return {"type": "number", "enum": values}
    return correct(annotation)


def empty_accepted(annotation):
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum) and not len(annotation):
        return {"type": "string", "enum": []}
    return correct(annotation)


def string_fallback(annotation):
    if typing.get_origin(annotation) is Literal or isinstance(annotation, enum.EnumMeta):
        return correct(annotation)
    return {"type": "string"}


CELL = "w03-ex2"
NAMES_LINE = 'json_names = {bool: "boolean", int: "integer", float: "number", str: "string"}'
WRONG_BY_RULE = {
    "03.2": {
        "literal": without_enum,
        "literal_type": literals_are_strings,
        "bool": isinstance_walk,
        "float": edited(
            "enum_schema",
            (CELL, NAMES_LINE, 'json_names = {bool: "boolean", int: "integer", str: "string"}'),
        ),
        "enum_values": member_names,
        "enum_type": enums_are_strings,
        "mixed": first_value_decides,
        "no_widening": widened,
        "literal_none": edited(
            "enum_schema",
            (CELL, 'str: "string"}', 'str: "string", type(None): "null"}'),
        ),
        "empty_enum": empty_accepted,
        "not_enum": string_fallback,
        "names_it": edited(
            "enum_schema",
            (
                CELL,
                'f"enum_schema cannot map {annotation!r}: its values must all be str, "',
                '"the values must all be str, "',
            ),
        ),  # fmt: skip
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["03.2"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("03.2", rule, WRONG_BY_RULE["03.2"][rule])


def test_the_value_type_hint_names_the_values_and_their_type():
    message = rejected("03.2", literals_are_strings)
    assert "The type is the JSON type of the values: [1, 2, 3] are int, so it is 'integer'" in (
        message
    )
