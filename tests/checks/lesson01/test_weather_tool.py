"""Exercise 01.1: the solution passes; a wrong WEATHER_TOOL fails on the rule it breaks."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import EXERCISES, NotDoneYet, evaluate
from lesson01.notebook import changed, parameters, solution


def weather_tool(change: Callable[[dict], object] | None = None) -> dict:
    """The solution's WEATHER_TOOL with one change made to it (in place, by ``change``)."""
    return changed("WEATHER_TOOL", change)


def unit(tool: dict) -> dict:
    return parameters(tool)["properties"]["unit"]


def test_the_solution_passes_every_argument_object():
    assert evaluate("01.1", weather_tool()) == (
        "Exercise 01.1 passed: WEATHER_TOOL (65 argument objects validated)."
    )


def test_the_reference_tool_for_get_weather_passes_too():
    from course_lib.reference import function_to_tool

    assert evaluate("01.1", function_to_tool(solution("get_weather"))).startswith(
        "Exercise 01.1 passed"
    )


def test_the_placeholder_is_not_done_yet():
    with pytest.raises(NotDoneYet, match="`WEATHER_TOOL` is still `...`"):
        evaluate("01.1", ...)


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["01.1"]
    assert (spec.notebook, spec.points, spec.targets) == (
        "01_handwritten_schemas",
        2,
        ("WEATHER_TOOL",),
    )


def flat(tool: dict) -> dict:
    return {"type": "function", **tool["function"]}


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "01.1": {
        "envelope": flat(weather_tool()),
        "name": weather_tool(lambda t: t["function"].update(name="weather")),
        "description": weather_tool(lambda t: t["function"].update(description="")),
        "object": weather_tool(lambda t: parameters(t).pop("type")),
        "properties": weather_tool(lambda t: parameters(t)["properties"].pop("unit")),
        "city_string": weather_tool(
            lambda t: parameters(t)["properties"].update(city={"description": "City name"})
        ),
        "unit_type": weather_tool(lambda t: unit(t).pop("type")),
        "unit_enum": weather_tool(lambda t: unit(t).pop("enum")),
        "required": weather_tool(lambda t: parameters(t).update(required=["city", "unit"])),
        "closed": weather_tool(lambda t: parameters(t).pop("additionalProperties")),
        "default": weather_tool(lambda t: unit(t).update(default="f")),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["01.1"]))
def test_a_wrong_tool_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("01.1", rule, WRONG_BY_RULE["01.1"][rule])


def test_parameters_next_to_function_are_told_where_they_belong():
    tool = weather_tool()
    tool["parameters"] = tool["function"].pop("parameters")
    assert '"parameters" belongs inside "function"' in rejected("01.1", tool)


def test_python_type_names_are_told_the_json_schema_names():
    tool = weather_tool(lambda t: parameters(t)["properties"]["city"].update(type="str"))
    assert "JSON Schema has its own type names" in rejected("01.1", tool)


def test_a_python_class_as_a_type_is_told_to_use_a_string():
    message = rejected(
        "01.1", weather_tool(lambda t: parameters(t)["properties"]["city"].update(type=str))
    )
    assert "not with a Python class" in message
    assert "Where:    at $.function.parameters.properties.city.type: a type" in message


def test_a_required_city_left_out_is_told_city_has_no_default():
    message = rejected("01.1", weather_tool(lambda t: parameters(t).update(required=[])))
    assert 'Case: the model sends the arguments {"unit": "c"}' in message
    assert "city has no default" in message


def test_a_city_of_the_wrong_type_rejecting_good_arguments_is_told_about_city():
    """A rejected good case gets the hint its validation error names, not the case's own."""
    tool = weather_tool(lambda t: parameters(t)["properties"]["city"].update(type="integer"))
    message = rejected("01.1", tool)
    assert 'Case: the model sends the arguments {"city": "北京"}' in message
    assert "city is a str" in message and "required" not in message.split("Hint:")[1]


def test_a_unit_without_enum_is_shown_the_kelvin_case():
    message = rejected("01.1", WRONG_BY_RULE["01.1"]["unit_enum"])
    assert '"unit": "kelvin"' in message and 'list exactly those in "enum"' in message


def test_the_closed_hint_does_not_promise_that_the_model_cannot_invent_parameters():
    message = rejected("01.1", WRONG_BY_RULE["01.1"]["closed"])
    assert "outside strict mode" in message
    assert "cannot invent" not in message


def test_a_default_of_the_wrong_value_names_the_functions_default():
    assert 'The function\'s default is "c"' in rejected("01.1", WRONG_BY_RULE["01.1"]["default"])


def test_the_wrong_name_is_shown_with_the_exact_name_wanted():
    assert 'exactly "get_weather"' in rejected("01.1", WRONG_BY_RULE["01.1"]["name"])


def test_a_tool_that_is_not_a_dict_is_told_it_is_one_dict():
    assert "WEATHER_TOOL is one dict" in rejected("01.1", [weather_tool()])


@pytest.mark.parametrize("near_miss", ["k", "C", "celsius"])
def test_an_enum_with_one_value_too_many_is_caught_whichever_value_it_is(near_miss):
    tool = weather_tool(lambda t: unit(t).update(enum=["c", "f", near_miss]))
    message = rejected("01.1", tool)
    assert f'Case: the model sends the arguments {{"city": "Paris", "unit": "{near_miss}"}}' in (
        message
    )
    assert 'list exactly those in "enum"' in message


def bare_properties(tool: dict) -> None:
    """The least the contract asks for: no default, no descriptions."""
    unit_schema = {"type": "string", "enum": ["c", "f"]}
    parameters(tool)["properties"] = {"city": {"type": "string"}, "unit": unit_schema}


def unit_as_consts(tool: dict) -> None:
    unit(tool).pop("enum")
    unit(tool)["oneOf"] = [{"const": "c"}, {"const": "f"}]


@pytest.mark.parametrize("change", [bare_properties, unit_as_consts])
def test_correct_tools_written_differently_pass(change):
    assert evaluate("01.1", weather_tool(change)).startswith("Exercise 01.1 passed")


def test_a_city_that_allows_null_is_told_city_is_never_none():
    tool = weather_tool(
        lambda t: parameters(t)["properties"].update(city={"type": ["string", "null"]})
    )
    message = rejected("01.1", tool)
    assert 'Case: the model sends the arguments {"city": null}' in message
    assert "city is never None" in message.split("Hint:")[1]


@pytest.mark.parametrize("bare", [False, True], ids=["with-default", "enum-alone"])
def test_a_unit_with_an_enum_but_no_type_is_told_to_say_string(bare):
    """It accepts exactly the arguments the solution does: only the declared type tells them
    apart, and the contract asks for it (the lesson gives every property a JSON Schema type)."""
    unit_schema = {"enum": ["c", "f"]}
    tool = (
        weather_tool(lambda t: parameters(t)["properties"].update(unit=unit_schema))
        if bare
        else WRONG_BY_RULE["01.1"]["unit_type"]
    )
    message = rejected("01.1", tool)
    assert 'Case: the "type" of unit' in message
    assert 'write "type": "string" beside its "enum"' in message
    assert "Where:    at $.function.parameters.properties.unit" in message


@pytest.mark.parametrize(
    "schema",
    [
        {"enum": ["c", "f"], "type": ["string"]},
        {"anyOf": [{"type": "string", "enum": ["c", "f"]}], "default": "c"},
        {"allOf": [{"type": "string"}, {"enum": ["c", "f"]}]},
    ],
    ids=["type-list", "any-of", "all-of"],
)
def test_a_unit_that_says_string_another_way_passes(schema):
    tool = weather_tool(lambda t: parameters(t)["properties"].update(unit=schema))
    assert evaluate("01.1", tool).startswith("Exercise 01.1 passed")


def test_the_type_case_is_said_in_chinese_in_the_chinese_edition():
    from course_lib.checks import CheckFailed, check
    from course_lib.i18n import speaking

    with speaking("zh-CN"), pytest.raises(CheckFailed) as caught:
        check("01.1", WRONG_BY_RULE["01.1"]["unit_type"])
    failure = caught.value.failure
    assert failure.hint_key == "unit_type" and not failure.hint.isascii()
    assert "unit" in failure.case and not failure.case.isascii()
