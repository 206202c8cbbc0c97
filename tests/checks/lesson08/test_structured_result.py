"""Exercise 08.4: the solution passes; a wrong structured_result fails on the rule it breaks.

The check lists one tool per case on a real server, with the case's output schema, and calls it
from a real 2026-07-28 ``ClientSession``, which validates structured results; so these tests are
about what a client of the newest revision accepts, refuses and shows.
"""

from __future__ import annotations

import json

import jsonschema
import mcp_types as types
import pytest
from jsonschema import Draft202012Validator
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import EXERCISES, NotDoneYet, evaluate
from course_lib.checks.compare import hidden_rng
from course_lib.checks.lesson08.structured_result import VISIBLE, hidden_cases

from .notebook import edited, solution

CELL = "w08-ex4"


def structured_with(*edits):
    return edited("structured_result", *((CELL, old, new) for old, new in edits))


FITS_RETURN = (
    "return types.CallToolResult(\n"
    '        content=[types.TextContent(type="text", text=text)], structured_content=value\n'
    "    )"
)
ERROR_RESULT = 'content=[types.TextContent(type="text", text=message)], is_error=True'
WRONG_BY_RULE = {
    "08.4": {
        "result": structured_with(
            (FITS_RETURN,
             'return {"content": [{"type": "text", "text": text}], "structuredContent": value}')
        ),
        "structured": structured_with(
            ("structured_content=value\n", 'structured_content={"result": value}\n')
        ),
        "any_type": structured_with(
            ("structured_content=value\n",
             "structured_content=value if isinstance(value, dict) else None\n")
        ),
        "text_json": structured_with(
            ("text = json.dumps(value, ensure_ascii=False)", "text = str(value)")
        ),
        "misfit_error": structured_with(("    if problems:\n", "    if False:\n")),
        "misfit_no_structured": structured_with(
            (ERROR_RESULT, ERROR_RESULT + ", structured_content=value")
        ),
        "misfit_names": structured_with(
            ('message = "the result does not fit the output schema: " + "; ".join(problems)',
             'message = "the result does not fit the output schema"')
        ),
        "never_raise": structured_with(("        return types.CallToolResult(\n"
                                        "            content=[types.TextContent(type=\"text\", "
                                        "text=message)], is_error=True\n        )",
                                        "        raise ValueError(message)")),
    }
}  # fmt: skip


def test_the_solution_passes_every_value():
    assert evaluate("08.4", solution("structured_result")) == (
        "Exercise 08.4 passed: structured_result (13 results)."
    )


def validated_in_english(value, output_schema):
    """jsonschema.validate, the best error's path and message, ASCII-only JSON text."""
    try:
        jsonschema.validate(value, output_schema, cls=Draft202012Validator)
    except jsonschema.ValidationError as error:
        where = "/".join(str(part) for part in error.absolute_path) or "the result"
        block = types.TextContent(type="text", text=f"{where}: {error.message}")
        return types.CallToolResult(content=[block], is_error=True)
    block = types.TextContent(type="text", text=json.dumps(value))
    return types.CallToolResult(content=[block], structured_content=value, is_error=False)


def explained_in_chinese(value, output_schema):
    """A message in Chinese, as an {"error": ...} object, naming the property by hand."""
    errors = list(Draft202012Validator(output_schema).iter_errors(value))
    if not errors:
        text = json.dumps(value, ensure_ascii=False, indent=2)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=value
        )
    error = errors[0]
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in error.instance]
        problem = f"缺少必要属性 {', '.join(missing)}"
    elif error.validator == "additionalProperties":
        known = error.schema.get("properties", {})
        problem = f"多余的属性 {', '.join(name for name in error.instance if name not in known)}"
    else:
        problem = f"属性 {error.json_path} 的值不符合输出模式"
    text = json.dumps({"error": problem}, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


@pytest.mark.parametrize("alternative", [validated_in_english, explained_in_chinese])
def test_correct_alternatives_written_differently_pass(alternative):
    assert evaluate("08.4", alternative).startswith("Exercise 08.4 passed")


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["08.4"]
    assert (spec.notebook, spec.points, spec.targets) == ("08_mcp", 2, ("structured_result",))


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["08.4"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("08.4", rule, WRONG_BY_RULE["08.4"][rule])


@pytest.mark.parametrize(
    "edit, case, says",
    [
        (("structured_content=value\n", "structured_content=value or None\n"),
         "structured_result(0, <zero>)", "0, [] and \"\" are values too"),
        (('f"{error.json_path}: {error.message}"', "error.message"),
         "<a wrong type>", "jsonschema's message says what is wrong but not where"),
        (("structured_content=value\n", "structured_content=value, is_error=not value\n"),
         "structured_result(0, <zero>)", "A value that fits its schema is a result"),
        (("content=[types.TextContent(type=\"text\", text=text)], structured_content",
          "content=[], structured_content"), "<weather>", "exactly one block"),
    ],
)  # fmt: skip
def test_other_mistakes_get_the_hint_that_names_them(edit, case, says):
    message = rejected("08.4", structured_with(edit))
    assert case in message and says in message, message


def test_the_stub_is_not_done_yet():
    def structured_result(value, output_schema):
        raise NotImplementedError("Exercise 08.4: validate value against output_schema")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("08.4", structured_result)


def test_the_cases_hold_values_of_every_kind_and_misfits_of_every_kind():
    fits = [value for _, schema, value in VISIBLE if Draft202012Validator(schema).is_valid(value)]
    assert {type(value).__name__ for value in fits} == {"dict", "list", "str", "int"}
    kinds = {
        error.validator
        for _, schema, value in VISIBLE
        for error in Draft202012Validator(schema).iter_errors(value)
    }
    assert {"type", "required", "additionalProperties"} <= kinds
    assert hidden_cases(hidden_rng("08.4")) == hidden_cases(hidden_rng("08.4"))
