"""Exercise 01.2: the solution passes; a wrong NOTES_TOOL fails on the rule it breaks."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import evaluate
from lesson01.notebook import changed, parameters, solution


def notes_tool(change: Callable[[dict], object] | None = None) -> dict:
    """The solution's NOTES_TOOL with one change made to it (in place, by ``change``)."""
    return changed("NOTES_TOOL", change)


def prop(tool: dict, name: str) -> dict:
    return parameters(tool)["properties"][name]


def properties_in_function(tool: dict) -> None:
    schema = tool["function"].pop("parameters")
    tool["function"]["properties"] = schema["properties"]
    tool["function"]["required"] = schema["required"]


def test_the_solution_passes_every_argument_object():
    assert evaluate("01.2", notes_tool()) == (
        "Exercise 01.2 passed: NOTES_TOOL (64 argument objects validated)."
    )


def test_tags_that_do_not_allow_null_pass_too():
    tool = notes_tool(
        lambda t: parameters(t)["properties"].update(
            tags={"type": "array", "items": {"type": "string"}}
        )
    )
    assert evaluate("01.2", tool).startswith("Exercise 01.2 passed")


def test_a_nullable_list_written_with_any_of_passes_too():
    nullable = {
        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
        "default": None,
    }
    tool = notes_tool(lambda t: parameters(t)["properties"].update(tags=nullable))
    assert evaluate("01.2", tool).startswith("Exercise 01.2 passed")


def test_the_reference_tool_for_search_notes_passes_too():
    from course_lib.reference import function_to_tool

    tool = function_to_tool(solution("search_notes"))
    assert evaluate("01.2", tool).startswith("Exercise 01.2 passed")


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "01.2": {
        "envelope": notes_tool(properties_in_function),
        "name": notes_tool(lambda t: t["function"].update(name="searchNotes")),
        "description": notes_tool(lambda t: t["function"].pop("description")),
        "properties": notes_tool(lambda t: parameters(t)["properties"].pop("tags")),
        "keyword_string": notes_tool(lambda t: prop(t, "keyword").pop("type")),
        "limit_integer": notes_tool(lambda t: prop(t, "limit").update(type="number")),
        "tags_items": notes_tool(lambda t: prop(t, "tags").pop("items")),
        "tags_items_not_null": notes_tool(
            lambda t: prop(t, "tags").update(items={"type": ["string", "null"]})
        ),
        "required": notes_tool(lambda t: parameters(t).update(required=["keyword", "limit"])),
        "closed": notes_tool(lambda t: parameters(t).update(additionalProperties=True)),
        "limit_default": notes_tool(lambda t: prop(t, "limit").update(default=10)),
        "tags_default": notes_tool(lambda t: prop(t, "tags").update(type="array")),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["01.2"]))
def test_a_wrong_tool_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("01.2", rule, WRONG_BY_RULE["01.2"][rule])


def test_a_null_default_that_its_own_type_refuses_is_told_how_to_allow_null():
    message = rejected("01.2", WRONG_BY_RULE["01.2"]["tags_default"])
    assert "A default must fit its own schema" in message
    assert '"type": ["array", "null"]' in message


def test_a_limit_required_is_told_only_keyword_is_required():
    assert "Only keyword is required" in rejected("01.2", WRONG_BY_RULE["01.2"]["required"])


def test_tags_without_items_are_told_the_items_schema():
    assert '"items": {"type": "string"}' in rejected("01.2", WRONG_BY_RULE["01.2"]["tags_items"])


def test_nullable_items_are_told_only_the_list_may_be_null():
    message = rejected("01.2", WRONG_BY_RULE["01.2"]["tags_items_not_null"])
    case = 'Case: the model sends the arguments {"keyword": "budget", "tags": ["travel", null]}'
    assert case in message
    assert "Only the list itself may be null" in message.split("Hint:")[1]


def test_items_that_allow_null_through_any_of_are_rejected_the_same_way():
    items = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    message = rejected("01.2", notes_tool(lambda t: prop(t, "tags").update(items=items)))
    assert "an item is never null" in message


def test_a_number_limit_is_told_to_use_integer():
    assert 'use "integer"' in rejected("01.2", WRONG_BY_RULE["01.2"]["limit_integer"])


def test_tags_as_a_string_reject_good_lists_and_are_told_about_tags():
    tool = notes_tool(lambda t: parameters(t)["properties"].update(tags={"type": "string"}))
    message = rejected("01.2", tool)
    assert '"type": "array"' in message.split("Hint:")[1]


def test_properties_directly_in_function_are_told_to_wrap_them():
    assert 'Wrap "properties" and "required"' in rejected("01.2", WRONG_BY_RULE["01.2"]["envelope"])


def test_a_missing_parameter_is_told_to_list_every_parameter():
    assert "List every parameter" in rejected("01.2", WRONG_BY_RULE["01.2"]["properties"])


def test_a_default_of_5_point_0_counts_as_5():
    tool = notes_tool(lambda t: prop(t, "limit").update(default=5.0))
    assert evaluate("01.2", tool).startswith("Exercise 01.2 passed")


def test_a_default_of_true_is_not_5():
    tool = notes_tool(lambda t: prop(t, "limit").update(default=True))
    assert "The function's default is 5" in rejected("01.2", tool)


def test_an_invalid_schema_shows_only_the_wrong_part_and_where_it_sits():
    message = rejected("01.2", notes_tool(lambda t: prop(t, "tags").update(type="list")))
    assert 'Got:      "list"' in message
    assert "Where:    at $.function.parameters.properties.tags.type" in message
    assert "Word to look for" not in message  # not the whole schema around it
    assert len(message.splitlines()) <= 8


def test_a_wrong_envelope_shows_the_tools_outline_not_its_whole_schema():
    message = rejected("01.2", WRONG_BY_RULE["01.2"]["envelope"])
    assert '"properties": "{…}"' in message and '"required": "[…]"' in message
    assert "Word to look for" not in message
    assert message.index("Where:") < message.index("Hint:")
    assert len(message.splitlines()) <= 25


@pytest.mark.parametrize(
    "name, schema, case",
    [
        ("keyword", {"type": ["string", "null"]}, '{"keyword": null}'),
        (
            "limit",
            {"type": ["integer", "null"], "default": 5},
            '{"keyword": "budget", "limit": null}',
        ),
    ],
)
def test_a_parameter_that_allows_null_without_taking_none_is_told_so(name, schema, case):
    message = rejected(
        "01.2", notes_tool(lambda t: parameters(t)["properties"].update({name: schema}))
    )
    assert f"Case: the model sends the arguments {case}" in message
    assert f"{name} is never None" in message.split("Hint:")[1]
