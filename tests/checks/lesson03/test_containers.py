"""Exercise 03.3: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import typing

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate

from ._solution import edited, solution


def correct(annotation, json_type):
    return solution()["container_schema"](annotation, json_type)


def test_the_solution_passes_every_case():
    assert evaluate("03.3", solution()["container_schema"]) == (
        "Exercise 03.3 passed: container_schema (17 visible and 30 hidden containers, 3 refused)."
    )


def test_the_stub_is_not_done_yet():
    def container_schema(annotation, json_type):
        raise NotImplementedError("Exercise 03.3: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("03.3", container_schema)


def origin_of(annotation):
    return typing.get_origin(annotation) or annotation


def lists_without_items(annotation, json_type):
    schema = correct(annotation, json_type)
    if origin_of(annotation) is list:
        schema.pop("items", None)
    return schema


def bare_by_identity(annotation, json_type):
    """Bare containers recognised by `is`, so typing.List without [...] reaches args[0]."""
    bare = {
        list: {"type": "array"},
        tuple: {"type": "array"},
        dict: {"type": "object"},
        set: {"type": "array", "uniqueItems": True},
    }
    if annotation in bare:
        return dict(bare[annotation])
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is list:
        return {"type": "array", "items": json_type(args[0])}
    return correct(annotation, json_type)


def ellipsis_as_a_type(annotation, json_type):
    args = typing.get_args(annotation)
    if origin_of(annotation) is tuple and args:
        return {
            "type": "array",
            "prefixItems": [json_type(arg) for arg in args],
            "minItems": len(args),
            "maxItems": len(args),
        }
    return correct(annotation, json_type)


def tuples_as_lists(annotation, json_type):
    args = typing.get_args(annotation)
    if origin_of(annotation) is tuple and args:
        return {"type": "array", "items": json_type(args[0])}
    return correct(annotation, json_type)


def sets_as_lists(annotation, json_type):
    schema = correct(annotation, json_type)
    if origin_of(annotation) in (set, frozenset):
        schema.pop("uniqueItems")
    return schema


def dicts_without_values(annotation, json_type):
    schema = correct(annotation, json_type)
    schema.pop("additionalProperties", None)
    return schema


def own_mapping(annotation, json_type):
    names = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}
    return correct(annotation, lambda member: {"type": names[member]})


def any_keys(annotation, json_type):
    args = typing.get_args(annotation)
    if origin_of(annotation) is dict and args:
        return {"type": "object", "additionalProperties": json_type(args[1])}
    return correct(annotation, json_type)


def string_fallback(annotation, json_type):
    if origin_of(annotation) not in (list, tuple, set, frozenset, dict):
        return {"type": "string"}
    return correct(annotation, json_type)


CELL = "w03-ex3"
BARE_LIST = 'return {"type": "array", "items": json_type(args[0])} if args else {"type": "array"}'
WRONG_BY_RULE = {
    "03.3": {
        "list_items": lists_without_items,
        "bare": edited(
            "container_schema",
            (CELL, BARE_LIST, 'return {"type": "array", "items": json_type(args[0])}'),
        ),
        "bare_alias": bare_by_identity,
        "tuple_any": ellipsis_as_a_type,
        "tuple_fixed": tuples_as_lists,
        "set": sets_as_lists,
        "dict": dicts_without_values,
        "given": own_mapping,
        "dict_keys": any_keys,
        "refuse": string_fallback,
        "names_it": edited(
            "container_schema",
            (
                CELL,
                'f"container_schema cannot map {annotation!r}: JSON object keys are "\n'
                '                            "strings, use dict[str, ...]"',
                '"JSON object keys must be strings"',
            ),
        ),  # fmt: skip
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["03.3"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("03.3", rule, WRONG_BY_RULE["03.3"][rule])


def test_a_bare_alias_that_raises_is_told_it_is_the_bare_container():
    message = rejected("03.3", bare_by_identity)
    assert "Case: container_schema(List, json_type)\nYour code raised IndexError" in message
    assert "typing.List, typing.Dict, ... without [...] are the bare containers" in message
