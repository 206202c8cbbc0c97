"""Exercise 02.5: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import inspect

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate

from ._solution import edited, solution


def correct(func, tool):
    return solution()["find_drift"](func, tool)


def test_the_solution_passes_every_case():
    assert evaluate("02.5", solution()["find_drift"]) == (
        "Exercise 02.5 passed: find_drift (8 visible and 25 hidden cases)."
    )


def test_the_stub_is_not_done_yet():
    def find_drift(func, tool):
        raise NotImplementedError("Exercise 02.5: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("02.5", find_drift)


def also_required_for_missing(func, tool):
    """A parameter absent from the tool is also reported as a required mismatch."""
    lines = correct(func, tool)
    parameters = tool["function"]["parameters"]
    required = set(parameters.get("required", []))
    for name, parameter in inspect.signature(func).parameters.items():
        absent = name not in parameters.get("properties", {})
        if absent and parameter.default is inspect.Parameter.empty and name not in required:
            lines.append(f"required: {name} is required in the function but optional in the tool")
    return lines


def swapped_words(func, tool):
    swap = {"missing": "extra", "extra": "missing"}
    return [
        swap.get(line.split(":")[0], line.split(":")[0]) + ":" + line.split(":", 1)[1]
        for line in correct(func, tool)
    ]


def free_wording(func, tool):
    return [f"Parameter {line.split(': ')[1].split()[0]} drifted" for line in correct(func, tool)]


def ignores_required(func, tool):
    return [line for line in correct(func, tool) if not line.startswith("required")]


def ignores_types(func, tool):
    return [line for line in correct(func, tool) if not line.startswith("type")]


def type_without_types(func, tool):
    return [
        line.split(" is ")[0] if line.startswith("type") else line for line in correct(func, tool)
    ]


CELL = "w02-ex5"
WRONG_BY_RULE = {
    "02.5": {
        "list": lambda func, tool: "\n".join(correct(func, tool)),
        "format": free_wording,
        "missing_extra": swapped_words,
        "only_line": also_required_for_missing,
        "required": ignores_required,
        "type": ignores_types,
        "type_names": type_without_types,
        "untyped": edited(
            "find_drift",
            (
                CELL,
                "if my_type != their_type:",
                "if their_type is not None and my_type != their_type:",
            ),
        ),  # fmt: skip
        "no_required": edited(
            "find_drift",
            (CELL, 'set(theirs.get("required", []))', 'set(theirs["required"])'),
        ),
        "only_type": edited(
            "find_drift",
            (CELL, "if my_type != their_type:", "if schema != their_properties[name]:"),
        ),
        "type_list": edited(
            "find_drift",
            (
                CELL,
                "if my_type != their_type:",
                "if my_type not in (their_type if isinstance(their_type, list) else [their_type]):",
            ),
        ),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["02.5"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("02.5", rule, WRONG_BY_RULE["02.5"][rule])


def test_an_extra_type_line_is_named_with_its_type_not_blamed_on_untyped():
    message = rejected("02.5", WRONG_BY_RULE["02.5"]["only_type"])
    assert 'type: city is reported, but city has "type": "string" on both sides' in message
    assert "without" not in message.split("Hint:")[-1]


def test_a_missing_type_key_read_with_brackets_is_named():
    wrong = edited(
        "find_drift", (CELL, 'their_properties[name].get("type")', 'their_properties[name]["type"]')
    )
    message = rejected("02.5", wrong)
    assert "Your code raised KeyError: 'type'" in message
    assert 'read it with .get("type")' in message


def test_an_integer_taken_to_fit_a_number_is_told_that_is_drift_too():
    def number_fits_integer(func, tool):
        properties = tool["function"]["parameters"].get("properties", {})
        lines = correct(func, tool)
        return [
            line
            for line in lines
            if not (line.startswith("type: ") and properties.get(line.split()[1], {}).get("type")
                    == "number" and " integer " in line)
        ]  # fmt: skip

    message = rejected("02.5", number_fits_integer)
    assert "Case: find_drift(def get_weather(" in message and "where days is a number" in message
    assert "days is integer in the function but number in the tool: that is drift too" in message


def test_a_set_of_the_right_lines_is_told_it_holds_them_but_a_list_is_asked_for():
    message = rejected("02.5", lambda func, tool: set(correct(func, tool)))
    assert "Where:    at $: a set (" in message
    assert "A set holds the same lines, but find_drift returns a list" in message
    assert "A schema holds only dicts" not in message


def test_a_nullable_tool_type_taken_for_its_member_is_told_a_list_is_not_one_type():
    message = rejected("02.5", WRONG_BY_RULE["02.5"]["type_list"])
    assert 'its tool where days is ["integer", "null"]' in message
    assert 'days is integer in the function but ["integer", "null"] in the tool' in message
    assert "A list of types is not one of its members" in message


def test_a_type_line_must_name_every_type_of_a_list():
    def first_type_only(func, tool):
        properties = tool["function"]["parameters"].get("properties", {})
        return [
            line.replace("['integer', 'null']", "integer?")
            if isinstance(properties.get(line.split()[1], {}).get("type"), list)
            else line
            for line in correct(func, tool)
        ]

    assert "A type line names both JSON types" in rejected("02.5", first_type_only)


def test_extra_lines_left_out_are_told_the_tool_has_parameters_the_function_does_not():
    """A find_drift that compares only the function's parameters was told "compare what you
    return with the expected value" (no hint named the mistake)."""

    def no_extra(func, tool):
        return [line for line in correct(func, tool) if not line.startswith("extra:")]

    message = rejected("02.5", no_extra)
    assert "The tool has query, which the function does not" in message
    assert "`extra: query (in the tool, not in the function)`" in message


def test_a_tuple_of_the_right_lines_is_told_a_list_is_asked_for():
    """The contract's first rule: a list of strings (a tuple was accepted)."""
    message = rejected("02.5", lambda func, tool: tuple(correct(func, tool)))
    assert "A tuple holds the same lines, but find_drift returns a list" in message
