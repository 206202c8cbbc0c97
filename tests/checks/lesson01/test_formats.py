"""Exercise 01.5: the solutions pass; a wrong converter fails on the rule it breaks."""

from __future__ import annotations

import copy
import json

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import evaluate
from course_lib.checks.compare import hidden_rng
from course_lib.checks.lesson01.formats import FORMAT_EXAMPLE, random_tool
from lesson01.notebook import solution


def to_anthropic(tool):
    return solution("to_anthropic")(tool)


def to_responses(tool):
    return solution("to_responses")(tool)


def test_the_solutions_pass():
    assert evaluate("01.5", to_anthropic, to_responses) == (
        "Exercise 01.5 passed: to_anthropic and to_responses (24 conversions)."
    )


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_the_solutions_agree_with_the_reference_convert_tool(fmt):
    from course_lib.reference import convert_tool

    rng = hidden_rng("agreement")
    convert = solution(f"to_{fmt}")
    for tool in [FORMAT_EXAMPLE, solution("TIME_TOOL"), *(random_tool(rng) for _ in range(20))]:
        assert convert(copy.deepcopy(tool)) == convert_tool(tool, fmt)


def anthropic_with_type(tool):
    return {"type": "function", **to_anthropic(tool)}


def anthropic_with_parameters(tool):
    function = tool["function"]
    return {key: function[key] for key in ("name", "description", "parameters")}


def responses_nested(tool):
    return {"type": "function", "function": tool["function"]}


def responses_without_strict(tool):
    return {key: value for key, value in to_responses(tool).items() if key != "strict"}


def anthropic_dropping_required(tool):
    function = tool["function"]
    schema = {"type": "object", "properties": function["parameters"]["properties"]}
    return {
        "name": function["name"],
        "description": function["description"],
        "input_schema": schema,
    }


def anthropic_popping(tool):
    function = tool.pop("function")
    function["input_schema"] = function.pop("parameters")
    return function


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "01.5": {
        "anthropic_keys": (anthropic_with_type, to_responses),
        "anthropic_input_schema": (anthropic_with_parameters, to_responses),
        "responses_flat": (to_anthropic, responses_nested),
        "responses_strict": (to_anthropic, responses_without_strict),
        "schema_unchanged": (anthropic_dropping_required, to_responses),
        "new_dict": (anthropic_popping, to_responses),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["01.5"]))
def test_a_wrong_converter_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("01.5", rule, *WRONG_BY_RULE["01.5"][rule])


def test_a_failure_shows_the_unchanged_schema_as_one_line():
    message = rejected("01.5", anthropic_with_type, to_responses)
    assert "<the tool's parameters schema, unchanged>" in message
    assert '"additionalProperties"' not in message
    assert len(message.splitlines()) < 20


def test_anthropic_keeping_parameters_is_told_input_schema():
    assert '"input_schema", not "parameters"' in rejected(
        "01.5", anthropic_with_parameters, to_responses
    )


def test_anthropic_with_a_type_key_is_told_it_has_none():
    assert 'no "type": "function"' in rejected("01.5", anthropic_with_type, to_responses)


def test_responses_still_nested_is_told_it_is_flat():
    assert "Responses tools are flat" in rejected("01.5", to_anthropic, responses_nested)


def test_responses_without_type_is_told_to_keep_it():
    assert 'keeps "type": "function"' in rejected("01.5", to_anthropic, anthropic_with_parameters)


def test_responses_with_input_schema_is_told_to_keep_parameters():
    assert 'keeps the name "parameters"' in rejected("01.5", to_anthropic, anthropic_with_type)


def test_a_converter_that_changes_its_input_is_told_to_build_a_new_dict():
    message = rejected("01.5", anthropic_popping, to_responses)
    assert "Case: the input of to_anthropic(<the get_weather tool>) after the call" in message
    assert "do not change the tool you were given" in message


def test_responses_without_strict_is_told_strict_false():
    assert 'expects "strict"' in rejected("01.5", to_anthropic, responses_without_strict)


def test_a_schema_missing_its_required_list_is_told_to_pass_it_unchanged():
    message = rejected("01.5", anthropic_dropping_required, to_responses)
    assert 'Where:    at $.input_schema: missing key "required"' in message


def test_a_converter_that_raises_something_else_names_the_exception():
    def broken(tool):
        return {"name": tool["function"]["name"].upper(), "schema": tool["function"]["x"]}

    message = rejected("01.5", broken, to_responses)
    assert "raised KeyError: 'x'" in message and "in a new cell" in message


def test_reading_the_name_at_the_top_level_is_told_it_sits_inside_function():
    def flat_reader(tool):
        return {"name": tool["name"], "description": tool["description"]}

    message = rejected("01.5", flat_reader, to_responses)
    assert "raised KeyError: 'name'" in message
    assert 'sit inside tool["function"]' in message


def responses_rebuilding_the_schema(tool):
    """A Responses converter that writes the usual four keys instead of copying the schema."""
    schema = tool["function"]["parameters"]
    rebuilt = {
        "type": "object",
        "properties": schema["properties"],
        "required": schema.get("required", []),
        "additionalProperties": False,
    }
    return {**to_responses(tool), "parameters": rebuilt}


def responses_closing_the_given_schema(tool):
    tool["function"]["parameters"]["additionalProperties"] = False
    return to_responses(tool)


def test_a_schema_rebuilt_from_the_usual_keys_is_caught_on_a_schema_that_spells_out_less():
    message = rejected("01.5", to_anthropic, responses_rebuilding_the_schema)
    assert "Case: to_responses(<the search_notes tool>)" in message
    assert "Pass the parameters schema through unchanged" in message


def test_a_converter_that_closes_the_given_schema_is_told_to_pass_it_unchanged():
    message = rejected("01.5", to_anthropic, responses_closing_the_given_schema)
    assert "Case: to_responses(<the search_notes tool>)" in message
    assert 'Where:    at $.parameters: unexpected key "additionalProperties"' in message
    assert "Pass the parameters schema through unchanged" in message


def to_anthropic_renamed(tool):
    renamed = {"parameters": "input_schema"}
    return {renamed.get(key, key): value for key, value in tool["function"].items()}


def to_responses_spread(tool):
    return {"type": "function", **tool["function"], "strict": False}


def to_anthropic_copied(tool):
    function = copy.deepcopy(tool["function"])
    return dict(name=function["name"], description=function["description"],
                input_schema=function["parameters"])  # fmt: skip


def to_responses_copied(tool):
    flat = copy.deepcopy(tool["function"])
    flat.update(type="function", strict=False)
    return flat


@pytest.mark.parametrize(
    "pair",
    [(to_anthropic_renamed, to_responses_spread), (to_anthropic_copied, to_responses_copied)],
    ids=["renamed_and_spread", "deep_copies"],
)
def test_correct_converters_written_differently_pass(pair):
    assert evaluate("01.5", *pair).startswith("Exercise 01.5 passed")


def test_a_schema_passed_as_json_text_is_told_to_keep_the_dict():
    def anthropic_schema_as_text(tool):
        return {**to_anthropic(tool), "input_schema": json.dumps(tool["function"]["parameters"])}

    def responses_schema_as_text(tool):
        return {**to_responses(tool), "parameters": str(tool["function"]["parameters"])}

    hint = "goes through as the dict it is"
    assert hint in rejected("01.5", anthropic_schema_as_text, to_responses).split("Hint:")[1]
    assert hint in rejected("01.5", to_anthropic, responses_schema_as_text).split("Hint:")[1]


def test_the_unchanged_schema_line_is_said_in_the_learners_language():
    from course_lib.i18n import speaking

    with speaking("zh-CN"):
        message = rejected("01.5", anthropic_with_type, to_responses)
    assert "<the tool's parameters schema, unchanged>" not in message
    assert "schema" in message and '"input_schema": "<' in message


def test_a_converter_returning_text_gets_no_where_line_in_either_language():
    """The whole value differs: Expected and Got show it; a Where line would only repeat it."""
    from course_lib.checks import CheckFailed, check
    from course_lib.i18n import speaking

    def as_text(tool):
        return json.dumps(to_anthropic(tool))

    for lang in ("en", "zh-CN"):
        with speaking(lang), pytest.raises(CheckFailed) as caught:
            check("01.5", as_text, to_responses)
        assert caught.value.failure.where is None, (lang, str(caught.value))
