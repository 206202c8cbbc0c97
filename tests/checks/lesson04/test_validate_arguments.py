"""Exercise 04.3: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import load_cells, rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson04.validate_arguments.cases import CASES, SCHEMAS, hidden_cases
from course_lib.reference import validate_arguments as reference_validate

from ._solution import NOTEBOOK, edited, namespace_with, solution

CELL = "w04-ex3-code"
TYPE_MESSAGE = "        return [f\"{path or 'the arguments'}: {problem}\"]\n"


def wrong(*edits: tuple[str, str]):
    return edited("validate_arguments", *[(CELL, old, new) for old, new in edits])


def test_the_solution_passes_every_case():
    assert evaluate("04.3", solution()["validate_arguments"]) == (
        "Exercise 04.3 passed: validate_arguments (17 visible and 12 hidden cases)."
    )


def test_the_reference_validator_passes_and_agrees_on_the_number_of_problems():
    assert evaluate("04.3", reference_validate).startswith("Exercise 04.3 passed")
    ours = solution()["validate_arguments"]
    for item in (*CASES, *hidden_cases()):
        assert len(ours(item.schema, item.arguments)) == len(item.problems)
        assert len(reference_validate(item.schema, item.arguments)) == len(item.problems)


def test_the_notebook_prints_the_schemas_the_check_uses():
    cells = ("w04-setup", "w04-naive", "w04-decorators-demo", "w04-validate-ref-demo",
             "w04-schemas-code")  # fmt: skip
    namespace = load_cells(NOTEBOOK, cells)
    assert {name: namespace[name] for name in SCHEMAS} == SCHEMAS


def test_the_stub_is_not_done_yet():
    def validate_arguments(schema, arguments):
        raise NotImplementedError("Exercise 04.3: write it")

    with pytest.raises(NotDoneYet):
        evaluate("04.3", validate_arguments)


WRONG_BY_RULE = {
    "04.3": {
        "valid": wrong(('for key in schema.get("required", []):', "for key in properties:")),
        "path": wrong(('prefix = f"{path}." if path else ""', 'prefix = ""')),
        "missing": wrong(("            if key not in value:\n", "            if False:\n")),
        "unexpected": wrong(('elif schema.get("additionalProperties") is False:', "elif False:")),
        "extra_allowed": wrong(('elif schema.get("additionalProperties") is False:', "else:")),
        "value_problems": wrong(("    problem = value_problem(schema, value)\n",
                                 "    problem = None\n")),
        "not_inside": wrong((TYPE_MESSAGE,
                             "        return [f\"{path or 'the arguments'}: {problem}\"] + [\n"
                             '            f"{path}.{key}: missing required argument"\n'
                             '            for key in schema.get("required", [])\n'
                             "        ]\n")),
        "never_raises": wrong(
            ("    if problem is not None:\n" + TYPE_MESSAGE + "    problems = []\n",
             "    problems = [] if problem is None else "
             "[f\"{path or 'the arguments'}: {problem}\"]\n"),
            ("    if isinstance(value, dict):\n", '    if "properties" in schema:\n'),
        ),
        "nested_rules": wrong(('for key in schema.get("required", []):',
                               'for key in (schema.get("required", []) if not path else []):')),
        "items": wrong(('if isinstance(value, list) and "items" in schema:', "if False:")),
        "every_problem": wrong(("    return problems\n", "    return problems[:1]\n")),
    }
}  # fmt: skip


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["04.3"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("04.3", rule, WRONG_BY_RULE["04.3"][rule])


def test_a_value_problem_that_accepts_true_for_an_integer_is_named_as_the_cause():
    namespace = namespace_with(
        (
            "w04-ex2-code",
            '"integer": lambda value: isinstance(value, int) and not isinstance(value, bool)',
            '"integer": lambda value: isinstance(value, int)',
        )
    )
    message = rejected("04.3", namespace["validate_arguments"])
    assert 'Case: validate_arguments(WEATHER_SCHEMA, {"city": "北京", "days": true})' in message
    assert "your value_problem, which answers None for True against {'type': 'integer'}" in message
    assert "fix 04.2 first" in message


def test_a_validator_without_value_problem_is_not_blamed_on_04_2():
    message = rejected("04.3", WRONG_BY_RULE["04.3"]["value_problems"])
    assert "Check each present value with value_problem" in message and "04.2 first" not in message


def test_a_validator_that_raises_is_told_to_return_messages():
    fn = wrong(("    return _problems(schema, arguments, \"\")\n",
                "    problems = _problems(schema, arguments, \"\")\n"
                "    if problems:\n"
                "        raise ValueError(problems)\n"
                "    return []\n"))  # fmt: skip
    assert "never raises" in rejected("04.3", fn)


def test_a_message_that_misses_the_expected_word_names_the_path_and_the_word():
    fn = wrong(('problems.append(f"{prefix}{key}: missing required argument")',
                'problems.append(f"{prefix}{key}: 请检查")'))  # fmt: skip
    message = rejected("04.3", fn)
    assert "no message names city with missing (缺少)" in message
    assert "Report the problem at city: its message must say missing" not in message
