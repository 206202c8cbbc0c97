"""Exercise 03.1: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import types
import typing

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate

from ._solution import edited, solution


def correct(annotation, json_type):
    return solution()["union_schema"](annotation, json_type)


def test_the_solution_passes_every_case():
    assert evaluate("03.1", solution()["union_schema"]) == (
        "Exercise 03.1 passed: union_schema (9 visible and 30 hidden unions, 3 refused)."
    )


def test_the_stub_is_not_done_yet():
    def union_schema(annotation, json_type):
        raise NotImplementedError("Exercise 03.1: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("03.1", union_schema)


def type_list(annotation, json_type):
    branches = correct(annotation, json_type)["anyOf"]
    if all(set(branch) == {"type"} for branch in branches):
        return {"type": [branch["type"] for branch in branches]}
    return {"anyOf": branches}


def unwraps_optional(annotation, json_type):
    members = [m for m in typing.get_args(annotation) if m is not type(None)]
    if len(members) == 1:
        return json_type(members[0])
    return correct(annotation, json_type)


def null_first(annotation, json_type):
    members = sorted(typing.get_args(annotation), key=lambda m: m is not type(None))
    return {"anyOf": [json_type(member) for member in members]}


def first_member(annotation, json_type):
    members = typing.get_args(annotation)
    if type(None) not in members:
        return json_type(members[0])
    return correct(annotation, json_type)


def own_mapping(annotation, json_type):
    names = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}
    return {"anyOf": [{"type": names[member]} for member in typing.get_args(annotation)]}


def anything_goes(annotation, json_type):
    return {"anyOf": [json_type(member) for member in typing.get_args(annotation)]}


CELL = "w03-ex1"
ORIGIN_TEST = "if typing.get_origin(annotation) not in (typing.Union, types.UnionType):"
WRONG_BY_RULE = {
    "03.1": {
        "typing_union": edited(
            "union_schema", (CELL, ORIGIN_TEST, "if not isinstance(annotation, types.UnionType):")
        ),
        "any_of": type_list,
        "null_kept": unwraps_optional,
        "order": null_first,
        "union_type": edited(
            "union_schema",
            (CELL, ORIGIN_TEST, "if typing.get_origin(annotation) is not typing.Union:"),
        ),
        "every_member": first_member,
        "given": own_mapping,
        "refuse": anything_goes,
        "names_it": edited(
            "union_schema",
            (CELL, 'f"union_schema got {annotation!r}, which is not a union"', '"not a union"'),
        ),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["03.1"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("03.1", rule, WRONG_BY_RULE["03.1"][rule])


def test_a_type_list_is_told_it_is_equivalent_not_that_null_was_dropped():
    message = rejected("03.1", type_list)
    assert "is equivalent, but this exercise asks for" in message
    assert "was dropped" not in message


def test_a_union_type_error_names_the_union_case_and_its_origin():
    message = rejected("03.1", WRONG_BY_RULE["03.1"]["union_type"])
    assert "Case: union_schema(int | None, json_type)\nYour code raised TypeError" in message
    assert "is a types.UnionType, not a typing.Union" in message


def test_a_union_that_falls_back_to_a_string_is_told_so():
    def falls_back(annotation, json_type):
        if isinstance(annotation, types.UnionType):
            return {"type": "string"}
        return correct(annotation, json_type)

    assert "The union became a plain string" in rejected("03.1", falls_back)


def test_the_members_are_shown_through_the_checks_json_type():
    message = rejected("03.1", own_mapping)
    assert '"$comment": "json_type(list[str])"' in message


def test_the_origins_are_the_two_of_python_3_10_to_3_13():
    assert {typing.get_origin(int | None), typing.get_origin(typing.Optional[int])} <= {
        typing.Union,
        types.UnionType,
    }
