"""Exercise 02.4: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import inspect

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate

from ._solution import edited, namespace_with, solution


def correct(func, description=None):
    return solution()["function_to_tool"](func, description=description)


def test_the_solution_passes_every_case():
    assert evaluate("02.4", solution()["function_to_tool"]) == (
        "Exercise 02.4 passed: function_to_tool (6 visible and 20 hidden cases)."
    )


def test_the_stub_is_not_done_yet():
    def function_to_tool(func, *, description=None):
        raise NotImplementedError("Exercise 02.4: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("02.4", function_to_tool)


def without_wrapper(func, *, description=None):
    return correct(func, description)["function"]


def module_in_name(func, *, description=None):
    tool = correct(func, description)
    tool["function"]["name"] = f"{func.__module__}.{func.__name__}"
    return tool


def whole_docstring(func, *, description=None):
    tool = correct(func, description)
    if description is None:
        tool["function"]["description"] = inspect.cleandoc(func.__doc__)
    return tool


def without_parameter_descriptions(func, *, description=None):
    tool = correct(func, description)
    tool["function"]["parameters"] = solution()["parameters_schema"](func)
    return tool


def describes_every_parameter(func, *, description=None):
    tool = correct(func, description)
    for schema in tool["function"]["parameters"]["properties"].values():
        schema.setdefault("description", "")
    return tool


def documents_unknown_names(func, *, description=None):
    tool = correct(func, description)
    _, described = solution()["parse_google_docstring"](func.__doc__)
    properties = tool["function"]["parameters"]["properties"]
    for name, text in described.items():
        properties.setdefault(name, {"type": "string"})["description"] = text
    return tool


def without_value_error(func, *, description=None):
    summary, _ = solution()["parse_google_docstring"](func.__doc__)
    tool = correct(func, description or summary or " ")
    if not (description or summary):
        tool["function"]["description"] = ""
    return tool


CELL = "w02-ex4"
WRONG_BY_RULE = {
    "02.4": {
        "wrapper": without_wrapper,
        "name": module_in_name,
        "summary": whole_docstring,
        "param_descriptions": without_parameter_descriptions,
        "override": edited(
            "function_to_tool",
            (
                CELL,
                "if description is None:\n        description = summary",
                "description = summary",
            ),
        ),  # fmt: skip
        "undocumented": describes_every_parameter,
        "unknown_names": documents_unknown_names,
        "no_description": without_value_error,
        "empty_given": edited(
            "function_to_tool", (CELL, "if description is None:", "if not description:")
        ),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["02.4"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("02.4", rule, WRONG_BY_RULE["02.4"][rule])


def test_an_ignored_description_argument_is_named_with_its_value():
    message = rejected("02.4", WRONG_BY_RULE["02.4"]["override"])
    assert "A description argument was given ('把两个数相加。Add two numbers.'): use it" in message


def test_a_later_exercise_failing_inside_a_broken_earlier_one_says_which_to_fix_first():
    namespace = namespace_with(("w02-ex2", "typing.get_type_hints(func)", "func.__annotations__"))
    for exercise_id, name in (("02.4", "function_to_tool"), ("02.5", "find_drift")):
        message = rejected(exercise_id, namespace[name])
        assert f"{name} calls your parameters_schema, which does not pass its own check" in message
        assert "fix 02.2 first" in message


def test_a_later_exercise_failing_on_its_own_does_not_blame_the_earlier_ones():
    message = rejected("02.4", WRONG_BY_RULE["02.4"]["empty_given"])
    assert "first" not in message.split("Hint:")[-1]
