"""Exercise 04.2: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson04.value_problem import CASES, fits, hidden_cases
from course_lib.reference import validate_arguments as reference_validate

from ._solution import edited, solution

CELL = "w04-ex2-code"
INTEGER = '"integer": lambda value: isinstance(value, int) and not isinstance(value, bool),\n'
NUMBER = (
    '"number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),\n'
)
TYPE_NAMES = 'names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]'


def wrong(old: str, new: str):
    return edited("value_problem", (CELL, old, new))


def test_the_solution_passes_every_case():
    assert evaluate("04.2", solution()["value_problem"]) == (
        "Exercise 04.2 passed: value_problem (28 visible and 16 hidden cases)."
    )


def test_the_oracle_agrees_with_the_reference_validator_on_every_case():
    for item in (*CASES, *hidden_cases()):
        if "items" in item.schema or "properties" in item.schema:
            continue  # the reference looks inside; value_problem does not
        schema = {"type": "object", "properties": {"x": item.schema}}
        assert (reference_validate(schema, {"x": item.value}) == []) == fits(
            item.schema, item.value
        )


def test_the_stub_is_not_done_yet():
    def value_problem(schema, value):
        raise NotImplementedError("Exercise 04.2: write it")

    with pytest.raises(NotDoneYet):
        evaluate("04.2", value_problem)


ENUM_TEST = (
    'if "enum" in schema and not any(\n'
    "        value == option and isinstance(value, bool) == isinstance(option, bool)\n"
    '        for option in schema["enum"]\n'
    "    ):"
)
WRONG_BY_RULE = {
    "04.2": {
        "fits_none": wrong("    return None\n", '    return ""\n'),
        "integer": wrong(INTEGER, '"integer": lambda value: isinstance(value, int),\n'),
        "number_int": wrong(NUMBER, '"number": lambda value: isinstance(value, float),\n'),
        "number_bool": wrong(NUMBER, '"number": lambda value: isinstance(value, (int, float)),\n'),
        "boolean": wrong('"boolean": lambda value: isinstance(value, bool),',
                         '"boolean": lambda value: value in (True, False),'),
        "basic": wrong('    "null": lambda value: value is None,\n', ""),
        "null": wrong('"null": lambda value: value is None,', '"null": lambda value: not value,'),
        "type_list": wrong(TYPE_NAMES, 'names = [schema["type"]]'),
        "any_of": wrong('    if "anyOf" in schema:\n', "    if False:\n"),
        "enum": wrong('if "enum" in schema and not any(', "if False and not any("),
        "enum_bool": wrong(ENUM_TEST, 'if "enum" in schema and value not in schema["enum"]:'),
        "no_type": wrong('    if "type" in schema:\n', "    if True:\n"),
        "this_node": wrong(
            "    return None\n",
            '    if isinstance(value, list) and "items" in schema:\n'
            "        for item in value:\n"
            '            if value_problem(schema["items"], item) is not None:\n'
            '                return "an item " + value_problem(schema["items"], item)\n'
            "    return None\n",
        ),
        "every_type": wrong("_expected({'type': names})", "_expected({'type': names[0]})"),
        "enum_json": wrong("_expected({'enum': schema['enum']})",
                           "'one of ' + ', '.join(map(str, schema['enum']))"),
    }
}  # fmt: skip


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["04.2"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("04.2", rule, WRONG_BY_RULE["04.2"][rule])


def test_true_accepted_as_an_integer_is_told_bool_is_a_subclass_of_int():
    assert "bool is a subclass of int" in rejected("04.2", WRONG_BY_RULE["04.2"]["integer"])


def test_a_forgotten_type_name_is_named():
    assert "here null is missing" in rejected("04.2", WRONG_BY_RULE["04.2"]["basic"])


def test_an_any_of_that_needs_every_option_is_told_one_is_enough():
    fn = wrong(
        'if not any(value_problem(option, value) is None for option in schema["anyOf"]):',
        'if not all(value_problem(option, value) is None for option in schema["anyOf"]):',
    )
    message = rejected("04.2", fn)
    assert (
        "Case: value_problem({'anyOf': [{'type': 'integer'}, {'type': 'null'}]}, None)" in message
    )
    assert "fits {'anyOf'" in message


def test_a_misfit_answered_with_a_bool_is_told_to_answer_with_a_message():
    fn = edited(
        "value_problem",
        (
            CELL,
            "return f\"should be {_expected({'type': names})}, got {_shown(value)}\"",
            "return False",
        ),
    )
    assert "gives its message, one str" in rejected("04.2", fn)


def test_null_matched_by_any_falsy_value_is_told_to_test_for_none():
    fn = wrong(
        '"null": lambda value: value is None,', '"null": lambda value: value in (None, "", 0),'
    )
    message = rejected("04.2", fn)
    assert "value is None" in message and "Case: value_problem({'type': 'null'}, 0)" in message


def test_a_node_that_judges_its_properties_too_is_told_to_judge_this_node_only():
    message = rejected(
        "04.2",
        wrong(
            "    return None\n",
            '    if isinstance(value, dict) and "properties" in schema:\n'
            '        for name, node in schema["properties"].items():\n'
            "            if name in value and value_problem(node, value[name]) is not None:\n"
            '                return name + " " + value_problem(node, value[name])\n'
            "    return None\n",
        ),
    )
    assert "Case: value_problem({'type': 'object', 'properties': {'天数'" in message
    assert "looks at this node only" in message.split("Hint:")[1]


@pytest.mark.parametrize("rule", ["every_type", "enum_json"])
def test_the_hint_naming_the_helper_says_where_a_chinese_learner_finds_it(rule):
    """The helper is in the exercise's own cell, below value_problem, in both editions; it writes
    English, so the hint says so (and that Chinese type names count as well)."""
    from course_lib.checks import CheckFailed, check
    from course_lib.i18n import speaking

    with speaking("zh-CN"), pytest.raises(CheckFailed) as caught:
        check("04.2", WRONG_BY_RULE["04.2"][rule])
    hint = caught.value.failure.hint
    assert "_expected(schema)" in hint and "value_problem 下方" in hint, hint
    english = rejected("04.2", WRONG_BY_RULE["04.2"][rule])
    assert "_expected(schema), below value_problem in the exercise cell" in english
