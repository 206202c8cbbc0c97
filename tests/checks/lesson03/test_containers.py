"""Exercise 03.3: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import collections.abc
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
        "Exercise 03.3 passed: container_schema (20 visible and 30 hidden containers, 5 refused)."
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


def basic_contents_mapped_by_hand(annotation, json_type):
    """Maps basic contents itself and hands on only the rest: right whenever the given
    json_type agrees on int, so only a json_type that marks int too shows it."""
    names = {str: "string", int: "integer", float: "number", bool: "boolean"}
    return correct(annotation, lambda a: {"type": names[a]} if a in names else json_type(a))


def abstract_sequences_accepted(annotation, json_type):
    origin = typing.get_origin(annotation)
    if origin is collections.abc.Sequence:
        return {"type": "array", "items": json_type(typing.get_args(annotation)[0])}
    return correct(annotation, json_type)


def tuple_without_length(annotation, json_type):
    schema = correct(annotation, json_type)
    schema.pop("minItems", None)
    schema.pop("maxItems", None)
    return schema


def tuple_closed_with_items_false(annotation, json_type):
    schema = correct(annotation, json_type)
    if "prefixItems" in schema:
        schema["items"] = False
    return schema


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
        "given_basic": basic_contents_mapped_by_hand,
        "refuse_abstract": abstract_sequences_accepted,
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


@pytest.mark.parametrize("wrong", [tuple_without_length, tuple_closed_with_items_false])
def test_a_fixed_tuple_with_the_wrong_length_keywords_is_told_about_its_length(wrong):
    message = rejected("03.3", wrong)
    assert "Case: container_schema(tuple[float, float], json_type)" in message
    assert "A fixed-length tuple also says its length" in message
    assert "Call the json_type you are given" not in message


def test_a_str_is_refused_as_not_a_container():
    def str_as_a_list_of_strings(annotation, json_type):
        if annotation is str:
            return {"type": "array", "items": {"type": "string"}}
        return correct(annotation, json_type)

    message = rejected("03.3", str_as_a_list_of_strings)
    assert "Case: container_schema(str, json_type)" in message
    assert "str is not a list, tuple, set or dict" in message
