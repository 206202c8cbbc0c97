"""Exercise 04.2, ``validate_arguments(schema, arguments) -> list[str]``: every problem of a
model's arguments against a tool's parameters schema, one message each, named by its path.

Schemas and arguments are JSON, so they travel as they are; the messages come back as JSON. The
wording is the learner's: a message is matched by the path it names and the words it must say.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.compare import HintText, fail
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson04._shared import NOTEBOOK
from course_lib.checks.lesson04.validate_cases import (
    CASES,
    HINTS,
    Problem,
    ValidationCase,
    case_of,
    hidden_cases,
    unmatched,
)

RULES = (
    Rule("valid", "Valid arguments give [].",
         case=case_of("valid"), hint="valid"),
    Rule("missing", 'A required name that is absent: a message with "missing".',
         case=case_of("missing"), hint="missing"),
    Rule("unexpected", 'An extra key under "additionalProperties": false: "unexpected".',
         case=case_of("unexpected"), hint="unexpected"),
    Rule("types", "A value of the wrong JSON type: a message naming the expected type.",
         case=case_of("list_for_string"), hint="list_for_string"),
    Rule("integer", "true is not an integer.", case=case_of("bool_integer"), hint="bool_integer"),
    Rule("number", "An integer is a number.", case=case_of("int_number"), hint="int_number"),
    Rule("boolean", "1 is not a boolean.", case=case_of("int_boolean"), hint="int_boolean"),
    Rule("enum", "A value outside the enum: the allowed values as JSON.",
         case=case_of("enum"), hint="enum"),
    Rule("items", "Every item of an array is checked, named like tags[1].",
         case=case_of("items"), hint="items"),
    Rule("any_of", "anyOf and type lists: any option fits; a message names every option.",
         case=case_of("options"), hint="options"),
    Rule("every_problem", "Every problem at once, one message each.",
         case=case_of("every_problem"), hint="every_problem"),
    Rule("nested", "Nested objects are checked too, named with dots: traveller.age.",
         case=case_of("nested"), hint="nested"),
    Rule("not_inside", "A value of the wrong type gets one message: do not look inside it.",
         case=case_of("not_inside"), hint="not_inside"),
)  # fmt: skip


def hint(key: str, **fields: object) -> HintText:
    return HintText.of(HINTS, key, **fields)


def describe(problems: tuple[Problem, ...]) -> list[str]:
    """The expected messages, in words (the learner's wording is free)."""
    return [f"a message naming {path} and saying {' / '.join(words)}" for path, words in problems]


def chosen_hint(item: ValidationCase, got: list[str]) -> HintText:
    """The case's own hint when its mistake shows (its problem is not reported, or a message
    too many where the case says so); otherwise a hint read from the messages."""
    missing = unmatched(item.problems, got)
    if item.hint and (missing is not None or item.extra_is_its_mistake):
        return hint(item.hint)
    if missing is None:
        return hint("one_each")
    return hint("report_problem", path=missing[0], words=" / ".join(missing[1]))


def check_case(learner: Learner, item: ValidationCase) -> None:
    __tracebackhide__ = True
    case = item.label
    reply = learner.call(
        "validate_arguments",
        item.schema,
        item.arguments,
        case=case,
        hints=[(lambda r: True, hint("never_raise"))],
    )
    expected = describe(item.problems)
    got = reply.value
    if not isinstance(got, list) or not all(isinstance(message, str) for message in got):
        fail(case, expected, got, hint("list_of_str"))
    missing = unmatched(item.problems, got)
    if missing is not None:
        where = f"no message names {missing[0]} with {' / '.join(missing[1])}"
        fail(case, expected, got, chosen_hint(item, got), where=where)
    if len(got) != len(item.problems):
        where = f"expected {len(item.problems)} messages, got {len(got)}"
        fail(case, expected, got, chosen_hint(item, got), where=where)


@exercise(
    "04.2",
    notebook=NOTEBOOK,
    title="validate_arguments",
    points=3,
    targets=("validate_arguments",),
    rules=RULES,
)
def check_validate_arguments(learner: Learner) -> str:
    hidden = hidden_cases()
    for item in (*CASES, *hidden):
        check_case(learner, item)
    return f"{len(CASES)} visible and {len(hidden)} hidden cases"


def schemas_used() -> dict[str, Any]:
    """The named schemas of the visible cases (the notebook prints the same ones)."""
    return {item.schema_name: item.schema for item in CASES}
