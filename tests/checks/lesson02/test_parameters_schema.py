"""Exercise 02.2: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import inspect
import random
import typing

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson02.parameters_schema import random_basic_function
from course_lib.reference import parameters_schema as reference_parameters_schema

from ._solution import edited, namespace_with, solution


def test_the_solution_passes_every_visible_and_hidden_function():
    assert evaluate("02.2", solution()["parameters_schema"]) == (
        "Exercise 02.2 passed: parameters_schema (7 visible and 30 hidden functions)."
    )


def test_the_stub_is_not_done_yet():
    def parameters_schema(func):
        raise NotImplementedError("Exercise 02.2: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("02.2", parameters_schema)


def make(
    *,
    required_rule=None,
    defaults=True,
    closed=True,
    names_from_hints=False,
    object_type=True,
    properties_rule=None,
    skip_keyword_only=False,
    empty_required=True,
    always_default=False,
    none_is_no_default=None,
):
    """A learner's parameters_schema with one mistake switched on."""
    json_type = solution()["json_type"]

    def parameters_schema(func):
        hints = typing.get_type_hints(func)
        parameters = inspect.signature(func).parameters
        names = list(hints) if names_from_hints else list(parameters)
        properties = {}
        for name in names:
            parameter = parameters.get(name)
            if skip_keyword_only and parameter.kind is parameter.KEYWORD_ONLY:
                continue
            properties[name] = json_type(hints[name])
            default = parameter.default if parameter else inspect.Parameter.empty
            if none_is_no_default and default is None:  # "= None" read as "no default"
                default = inspect.Parameter.empty
            if always_default or (defaults and default is not inspect.Parameter.empty):
                properties[name]["default"] = default
        required = [n for n in properties if parameters[n].default is inspect.Parameter.empty]
        if none_is_no_default == "required":
            required = [
                n for n in properties if parameters[n].default in (None, parameters[n].empty)
            ]
        if required_rule:
            required = required_rule(list(properties), required)
        if properties_rule:
            properties = properties_rule(properties)
        schema = {"type": "object"} if object_type else {}
        schema["properties"] = properties
        if required or empty_required:
            schema["required"] = required
        if closed:
            schema["additionalProperties"] = False
        return schema

    return parameters_schema


EMPTY = inspect.Parameter.empty
ANNOTATIONS_AS_STORED = ("w02-ex2", "typing.get_type_hints(func)", "func.__annotations__")

WRONG_BY_RULE = {
    "02.2": {
        "object": make(object_type=False),
        "properties": make(properties_rule=lambda p: [{"name": n, **s} for n, s in p.items()]),
        "properties_order": make(properties_rule=lambda p: dict(sorted(p.items()))),
        "no_return": make(names_from_hints=True),
        "defaults": make(defaults=False),
        "required": make(required_rule=lambda names, required: names),
        "closed": make(closed=False),
        "hints": edited("parameters_schema", ANNOTATIONS_AS_STORED),
        "keyword_only": make(skip_keyword_only=True),
        "required_empty": make(empty_required=False),
        "required_order": make(required_rule=lambda names, required: sorted(required)),
        "none_default": make(none_is_no_default="required"),
    }
}


def test_a_none_default_dropped_from_the_schema_is_named_as_the_same_mistake():
    """The other reading of `= None` as "no default": not required, but no "default" either."""
    failed = assert_breaks_rule("02.2", "none_default", make(none_is_no_default="dropped"))
    assert '"default": None' in failed.failure.hint


def test_a_none_default_written_other_ways_passes():
    """Right alternatives: a default compared with `==` to the marker, and one read through
    a sentinel of the learner's own."""
    json_type = solution()["json_type"]
    missing = object()

    def parameters_schema(func):
        hints = typing.get_type_hints(func)
        properties, required = {}, []
        for name, parameter in inspect.signature(func).parameters.items():
            default = missing if parameter.default == inspect.Parameter.empty else parameter.default
            properties[name] = json_type(hints[name]) | (
                {} if default is missing else {"default": default}
            )
            required += [name] if default is missing else []
        return {"type": "object", "properties": properties, "required": required,
                "additionalProperties": False}  # fmt: skip

    assert evaluate("02.2", parameters_schema).startswith("Exercise 02.2 passed")


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["02.2"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("02.2", rule, WRONG_BY_RULE["02.2"][rule])


def test_annotations_read_as_stored_are_named_as_the_mistake_not_run_it_yourself():
    message = rejected("02.2", WRONG_BY_RULE["02.2"]["hints"])
    assert "Read the types with typing.get_type_hints(func)" in message
    assert "yourself" not in message


def test_an_unserialisable_default_is_located_by_path_and_named():
    message = rejected("02.2", make(always_default=True))
    assert "Where:    at $.properties.city.default: a type (<class 'inspect._empty'>)" in message
    assert "inspect.Parameter.empty is how inspect says" in message


def test_a_wrong_property_is_shown_alone_not_the_whole_schema():
    def bool_as_integer(func):
        schema = solution()["parameters_schema"](func)
        for prop in schema["properties"].values():
            if prop["type"] == "boolean":
                prop["type"] = "integer"
        return schema

    message = rejected("02.2", bool_as_integer)
    assert (
        'Expected: {\n            "type": "boolean",\n            "default": false\n          }'
        in message
    )
    assert "Where:    at $.properties.详细.type: the texts differ" in message
    assert "bool is a subclass of int" in message


def test_a_missing_required_parameter_is_named():
    message = rejected("02.2", make(required_rule=lambda names, required: required[1:]))
    assert "Every parameter without a default belongs in required" in message


def test_a_function_that_raises_is_told_it_must_not():
    def refuses_keyword_only(func):
        for parameter in inspect.signature(func).parameters.values():
            if parameter.kind is parameter.KEYWORD_ONLY:
                raise TypeError(f"{parameter.name} is keyword-only")
        return solution()["parameters_schema"](func)

    message = rejected("02.2", refuses_keyword_only)
    assert "parameters_schema must return its schema, not raise" in message


def test_the_solution_agrees_with_the_reference_on_functions_without_docstrings():
    """Both promise the same schema for basic types. Intended difference: the reference leaves
    out an empty "required", which 02.2 always writes."""
    rng = random.Random("agreement 02.2")
    mine = solution()["parameters_schema"]
    for index in range(100):
        func = random_basic_function(rng, index, future=index % 2 == 1).value()
        assert mine(func) == {"required": [], **reference_parameters_schema(func)}


def test_a_json_type_that_shares_its_dicts_is_told_to_fix_02_1_first():
    """Its schemas collect the defaults of earlier parameters; 02.1's check already fails."""
    shared = "SHARED = {}\n\n\ndef json_type(annotation) -> dict:"
    namespace = namespace_with(
        ("w02-ex1", "def json_type(annotation) -> dict:", shared),
        (
            "w02-ex1",
            'return {"type": json_name}',
            'return SHARED.setdefault(json_name, {"type": json_name})',
        ),
    )
    message = rejected("02.2", namespace["parameters_schema"])
    assert "parameters_schema calls your json_type, which does not pass its own check" in message
    assert "fix 02.1 first" in message


def test_annotations_kept_as_text_and_guessed_as_strings_are_told_get_type_hints():
    def guesses_text_as_string(func):
        json_type = solution()["json_type"]
        schema = solution()["parameters_schema"](func)
        for name, parameter in inspect.signature(func).parameters.items():
            annotation = parameter.annotation
            guessed = json_type(annotation) if isinstance(annotation, type) else {"type": "string"}
            schema["properties"][name]["type"] = guessed["type"]
        return schema

    message = rejected("02.2", guesses_text_as_string)
    assert "in a module that starts with `from __future__ import annotations`)" in message
    assert "Read the types with typing.get_type_hints(func)" in message


def test_annotations_read_as_stored_fail_on_an_alias_even_with_a_json_type_that_reads_text():
    """A json_type that maps the text "str" would let __annotations__ pass every function whose
    text names a basic type; an alias (City = str) is text that only get_type_hints resolves."""
    names = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
    names |= {"list": "array", "dict": "object"}

    def parameters_schema(func):
        hints = func.__annotations__
        schema = solution()["parameters_schema"](func)
        for name in schema["properties"]:
            annotation = hints[name]
            if isinstance(annotation, str) and annotation not in names:
                raise TypeError(f"json_type cannot map {annotation!r}")
        return schema

    message = rejected("02.2", parameters_schema)
    assert "Case: parameters_schema(def find_hotel(city: City, nights: Nights = 1) -> str" in (
        message
    )
    assert "where City = str and Nights = int)" in message
    assert "Read the types with typing.get_type_hints(func)" in message
