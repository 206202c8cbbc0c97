"""Exercise 04.2: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson04.validate_cases import CASES, hidden_cases
from course_lib.reference import validate_arguments as reference_validate

from ._solution import edited, solution

CELL = "w04-ex2-code"


def wrong(old: str, new: str):
    return edited("validate_arguments", (CELL, old, new))


def test_the_solution_passes_every_case():
    assert evaluate("04.2", solution()["validate_arguments"]) == (
        "Exercise 04.2 passed: validate_arguments (19 visible and 12 hidden cases)."
    )


def test_the_reference_validator_passes_and_agrees_on_the_number_of_problems():
    assert evaluate("04.2", reference_validate).startswith("Exercise 04.2 passed")
    ours = solution()["validate_arguments"]
    for item in (*CASES, *hidden_cases()):
        assert len(ours(item.schema, item.arguments)) == len(item.problems)
        assert len(reference_validate(item.schema, item.arguments)) == len(item.problems)


def test_the_stub_is_not_done_yet():
    def validate_arguments(schema, arguments):
        raise NotImplementedError("Exercise 04.2: write it")

    with pytest.raises(NotDoneYet):
        evaluate("04.2", validate_arguments)


WRONG_BY_RULE = {
    "04.2": {
        "valid": wrong('for key in schema.get("required", []):', "for key in properties:"),
        "missing": wrong("            if key not in value:\n", "            if False:\n"),
        "unexpected": wrong('elif schema.get("additionalProperties") is False:', "elif False:"),
        "types": wrong('    if "type" in schema:\n', "    if False:\n"),
        "integer": wrong(
            '"integer": lambda value: isinstance(value, int) and not isinstance(value, bool)',
            '"integer": lambda value: isinstance(value, int)',
        ),
        "number": wrong(
            '"number": lambda value: isinstance(value, (int, float)) and not isinstance(value, '
            "bool)",
            '"number": lambda value: isinstance(value, float)',
        ),
        "boolean": wrong('"boolean": lambda value: isinstance(value, bool)',
                         '"boolean": lambda value: value in (True, False)'),
        "enum": wrong('if "enum" in schema and value not in schema["enum"]:', "if False:"),
        "items": wrong('if isinstance(value, list) and "items" in schema:', "if False:"),
        "any_of": wrong('    if "anyOf" in schema:\n', "    if False:\n"),
        "every_problem": wrong("    return problems\n", "    return problems[:1]\n"),
        "nested": wrong('prefix = f"{path}." if path else ""', 'prefix = ""'),
        "not_inside": wrong(
            'return [f"{where} should be {_expected(schema)}, got {got} ({_json_name(value)})"]',
            'return [f"{where} should be {_expected(schema)}, got {got} ({_json_name(value)})"]'
            ' + [\n'
            '                f"missing required argument {path}.{key}"\n'
            '                for key in schema.get("required", [])\n'
            "            ]",
        ),
    }
}  # fmt: skip


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["04.2"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("04.2", rule, WRONG_BY_RULE["04.2"][rule])


def test_true_accepted_as_an_integer_is_told_bool_is_a_subclass_of_int():
    assert "bool is a subclass of int" in rejected("04.2", WRONG_BY_RULE["04.2"]["integer"])


def test_a_validator_that_raises_is_told_to_return_messages():
    fn = wrong(
        '    return _problems(schema, arguments, "")\n',
        '    problems = _problems(schema, arguments, "")\n'
        "    if problems:\n"
        "        raise ValueError(problems)\n"
        "    return []\n",
    )
    assert "never raises" in rejected("04.2", fn)


def test_a_message_that_misses_the_expected_words_names_the_path_and_the_words():
    fn = wrong(
        'problems.append(f"missing required argument {prefix + key!r}")',
        'problems.append(f"{prefix + key!r} is required")',
    )
    message = rejected("04.2", fn)
    assert "no message names city with missing" in message
