"""Exercise 03.6: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import enum
import inspect
import random
import typing

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson03.parameters_schema import (
    REFUSED,
    function,
    hidden_functions,
    random_bad,
)
from course_lib.reference import parameters_schema as reference_parameters_schema

from ._solution import solution

EMPTY = inspect.Parameter.empty


def test_the_solution_passes_every_case():
    assert evaluate("03.6", solution()["parameters_schema"]) == (
        "Exercise 03.6 passed: parameters_schema, second version (8 visible and 48 hidden "
        "functions, 17 refused)."
    )


def test_the_stub_is_not_done_yet():
    def parameters_schema(func):
        raise NotImplementedError("Exercise 03.6: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("03.6", parameters_schema)


def make(  # noqa: C901 (one wrong answer per rule)
    *,
    hints_from_signature=False,
    required_rule=None,
    skip=(),
    guess_unannotated=False,
    guess_from_default=False,
    raw_enum_defaults=False,
    enum_names=False,
    empty_as_default=False,
    message=None,
    closed=True,
    sort_required=False,
):
    """The solution's logic, written out, with one pitfall switched on."""
    json_type = solution()["json_type"]

    def parameters_schema(func):
        if hints_from_signature:
            hints = {
                n: p.annotation
                for n, p in inspect.signature(func).parameters.items()
                if p.annotation is not EMPTY
            }
        else:
            hints = solution()["resolve_annotations"](func)
        properties, required = {}, []
        for name, parameter in inspect.signature(func).parameters.items():
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                if parameter.kind in skip:
                    continue
                raise TypeError(message or f"{func.__name__}(): parameter {name} is variadic")
            if name not in hints:
                if guess_unannotated:
                    hints[name] = str
                elif guess_from_default and parameter.default is not EMPTY:
                    hints[name] = type(parameter.default)
                else:
                    raise TypeError(message or f"{func.__name__}(): {name} has no annotation")
            schema = json_type(hints[name])
            if empty_as_default:
                schema["default"] = parameter.default
            if parameter.default is EMPTY:
                required.append(name)
            else:
                default = parameter.default
                if isinstance(default, enum.Enum) and not raw_enum_defaults:
                    default = default.name if enum_names else default.value
                schema["default"] = default
            properties[name] = schema
        if required_rule:
            required = required_rule(func, hints)
        if sort_required:
            required = sorted(required)
        schema = {"type": "object", "properties": properties, "required": required}
        if closed:
            schema["additionalProperties"] = False
        return schema

    return parameters_schema


def every_parameter(func, hints):
    return list(inspect.signature(func).parameters)


def not_optional(func, hints):
    return [
        n for n in inspect.signature(func).parameters if type(None) not in typing.get_args(hints[n])
    ]


VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
WRONG_BY_RULE = {
    "03.6": {
        "types": make(hints_from_signature=True),
        "shape": make(closed=False),
        "nullable_required": make(required_rule=not_optional),
        "default_optional": make(required_rule=every_parameter),
        "required_order": make(sort_required=True),
        "enum_default": make(raw_enum_defaults=True),
        "varargs": make(skip=VARIADIC),
        "names_both": make(message="variadic parameters are not supported"),
        "kwargs": make(skip=(inspect.Parameter.VAR_KEYWORD,)),
        "unannotated": make(guess_unannotated=True),
        "no_guess": make(guess_from_default=True),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["03.6"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("03.6", rule, WRONG_BY_RULE["03.6"][rule])


def test_a_value_json_cannot_hold_is_located_by_its_path_and_named():
    message = rejected("03.6", make(empty_as_default=True))
    assert "Where:    at $.properties.city.default: a type (<class 'inspect._empty'>)" in message
    assert "inspect.Parameter.empty is how inspect says" in message


def test_an_enum_default_is_located_and_told_to_use_its_value():
    message = rejected("03.6", make(raw_enum_defaults=True))
    assert "Where:    at $.properties.unit.default: a Unit (<Unit.CELSIUS: 'c'>)" in message


def test_a_wrong_property_is_shown_alone_not_the_whole_schema():
    def null_branch_dropped(func):
        schema = solution()["parameters_schema"](func)
        if "max_price" in schema["properties"]:
            schema["properties"]["max_price"] = {"type": "integer"}
        return schema

    message = rejected("03.6", null_branch_dropped)
    assert 'Expected: {\n            "anyOf": [' in message
    assert "more characters" not in message and '"city"' not in message
    assert "Where:    at $.properties.max_price: missing key" in message
    assert "The null branch was dropped" in message


# --- agreement with course_lib.reference, where both promise the same ------------------------


def test_the_solution_and_the_reference_agree_on_the_required_list_in_both_kinds_of_module():
    """Both promise "required = no default" and the same property names; the schemas of union
    members are spelled differently (see test_json_type.canonical) and are compared there."""
    mine = solution()["parameters_schema"]
    for name, parts in hidden_functions():
        for future in (False, True):
            func = function(name, parts, future=future).value()
            reference = reference_parameters_schema(func)
            assert mine(func)["required"] == reference.get("required", [])
            assert list(mine(func)["properties"]) == list(reference["properties"])


def test_the_solution_and_the_reference_both_refuse_what_a_model_cannot_send():
    rng = random.Random("agreement 03.6 errors")
    cases = [*REFUSED, *(random_bad(rng, index) for index in range(12))]
    for case, parameter, _ in cases:
        func = case.value()
        for implementation in (solution()["parameters_schema"], reference_parameters_schema):
            with pytest.raises(TypeError, match=parameter):
                implementation(func)


def test_a_tuple_default_written_as_text_is_told_to_be_a_json_value():
    def tuple_default_as_text(func):
        schema = solution()["parameters_schema"](func)
        for prop in schema["properties"].values():
            if isinstance(prop.get("default"), tuple):
                prop["default"] = str(prop["default"])
        return schema

    message = rejected("03.6", tuple_default_as_text)
    assert "Where:    at $.properties.dates.default: expected an array" in message
    assert "A default must be the parameter's default as a JSON value." in message


def test_an_enum_default_shown_by_its_name_is_told_to_use_its_value_not_its_name():
    message = rejected("03.6", make(enum_names=True))
    assert (
        'Where:    at $.properties.unit.default: the texts differ from character 0 on: expected "c"'
        in message
    )
    assert "by its value, not its name" in message.split("Hint:")[1]
