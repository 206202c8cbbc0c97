"""validate_arguments: JSON-Schema-level checks, one readable line per problem."""

from __future__ import annotations

import copy

import pytest

from course_lib.reference.validation import describe_schema, describe_value, validate_arguments

ADDRESS = {
    "type": "object",
    "properties": {"street": {"type": "string"}, "zip": {"type": "integer"}},
    "required": ["street"],
    "additionalProperties": False,
}

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
        "limit": {"type": "integer", "minimum": 1, "default": 5},
        "ratio": {"type": "number"},
        "verbose": {"type": "boolean"},
        "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
        "address": {"$ref": "#/$defs/Address"},
        "note": {"type": ["string", "null"], "maxLength": 5},
    },
    "required": ["city"],
    "additionalProperties": False,
    "$defs": {"Address": ADDRESS},
}


def test_valid_arguments_give_no_problems():
    arguments = {
        "city": "北京",
        "unit": "f",
        "limit": 3,
        "ratio": 0.5,
        "verbose": False,
        "tags": ["a"],
        "address": {"street": "长安街", "zip": 100000},
        "note": None,
    }
    assert validate_arguments(SCHEMA, arguments) == []


def test_a_missing_required_parameter_is_named_with_its_expected_type():
    assert validate_arguments(SCHEMA, {}) == ["city: missing required parameter (expected string)"]


def test_an_unexpected_parameter_is_named_and_the_accepted_ones_listed_in_schema_order():
    assert validate_arguments(SCHEMA, {"city": "x", "colour": "red"}) == [
        "colour: unexpected parameter; this tool accepts: "
        "city, unit, limit, ratio, verbose, tags, address, note"
    ]


@pytest.mark.parametrize(
    "arguments, line",
    [
        ({"limit": True}, "limit: expected integer, got boolean true"),
        ({"limit": "3"}, 'limit: expected integer, got string "3"'),
        ({"limit": 1.0}, "limit: expected integer, got number 1.0"),
        ({"verbose": 1}, "verbose: expected boolean, got integer 1"),
        ({"verbose": "true"}, 'verbose: expected boolean, got string "true"'),
        ({"ratio": "0.5"}, 'ratio: expected number, got string "0.5"'),
        ({"ratio": False}, "ratio: expected number, got boolean false"),
        ({"city": None}, "city: expected string, got null"),
        ({"city": ["x"]}, 'city: expected string, got array ["x"]'),
    ],
)
def test_wrong_types_follow_json_semantics(arguments, line):
    assert validate_arguments(SCHEMA, {"city": "x", **arguments}) == [line]


def test_an_integer_is_a_valid_number():
    assert validate_arguments(SCHEMA, {"city": "x", "ratio": 2}) == []


def test_an_enum_violation_lists_the_allowed_values():
    assert validate_arguments(SCHEMA, {"city": "x", "unit": "k"}) == [
        'unit: expected one of "c", "f", got string "k"'
    ]


def test_a_nullable_parameter_accepts_null_and_names_both_options_otherwise():
    assert validate_arguments(SCHEMA, {"city": "x", "tags": None}) == []
    assert validate_arguments(SCHEMA, {"city": "x", "tags": 3}) == [
        "tags: expected array of string or null, got integer 3"
    ]
    assert validate_arguments(SCHEMA, {"city": "x", "note": 3}) == [
        "note: expected string or null, got integer 3"
    ]


def test_a_bad_item_inside_a_nullable_list_is_pointed_at_by_index():
    assert validate_arguments(SCHEMA, {"city": "x", "tags": ["ok", 7]}) == [
        "tags[1]: expected string, got integer 7"
    ]


def test_nested_objects_report_their_fields_with_a_dotted_path():
    problems = validate_arguments(SCHEMA, {"city": "x", "address": {"zip": "1", "floor": 2}})
    assert problems == [
        "address.floor: unexpected field; address accepts: street, zip",
        "address.street: missing required field (expected string)",
        'address.zip: expected integer, got string "1"',
    ]


def test_constraints_say_what_they_asked_for():
    assert validate_arguments(SCHEMA, {"city": "x", "limit": 0}) == [
        "limit: expected a number >= 1, got integer 0"
    ]
    assert validate_arguments(SCHEMA, {"city": "x", "note": "too long"}) == [
        'note: expected a string of at most 5 characters, got string "too long"'
    ]


def test_every_problem_is_reported_at_once_sorted_by_parameter():
    problems = validate_arguments(SCHEMA, {"limit": "5", "unit": "k", "extra": 1})
    assert [line.split(":")[0] for line in problems] == ["city", "extra", "limit", "unit"]


def test_arguments_that_are_not_an_object_are_refused_as_a_whole():
    assert validate_arguments(SCHEMA, ["x"]) == [
        'arguments: expected an object of named parameters, got array ["x"]'
    ]
    assert validate_arguments(SCHEMA, None) == [
        "arguments: expected an object of named parameters, got null"
    ]


def test_a_tool_without_parameters_accepts_only_an_empty_object():
    empty = {"type": "object", "properties": {}, "additionalProperties": False}
    assert validate_arguments(empty, {}) == []
    assert validate_arguments(empty, {"x": 1}) == [
        "x: unexpected parameter; this tool accepts: nothing"
    ]


def test_long_received_values_are_shortened_in_messages():
    (line,) = validate_arguments(SCHEMA, {"city": "x", "limit": "9" * 10_000})
    assert line.startswith('limit: expected integer, got string "999') and line.endswith("...")
    assert len(line) < 120


def test_changing_the_schema_after_a_call_is_seen_by_the_next_call():
    schema = copy.deepcopy(SCHEMA)
    assert validate_arguments(schema, {"city": "x", "unit": "k"}) != []
    schema["properties"]["unit"]["enum"].append("k")
    assert validate_arguments(schema, {"city": "x", "unit": "k"}) == []


def test_describe_value_and_describe_schema_read_like_english():
    assert describe_value(True) == "boolean true"
    assert describe_value({}) == "empty object"
    assert describe_value("北京") == 'string "北京"'
    assert describe_schema({"type": "array", "items": {"type": "integer"}}) == "array of integer"
    assert describe_schema({"$ref": "#/$defs/Address", "$defs": {"Address": ADDRESS}}) == (
        "object with street, zip"
    )
