"""Exercise 04.3, ``validate_arguments(schema, arguments) -> list[str]``: every problem of a
model's arguments against a tool's parameters schema, one message each, named by its path.

Schemas and arguments are JSON, so they travel as they are; the messages come back as JSON. The
wording is the learner's: a message is matched by the path it names and the words it must say.
When a case fails and the learner's ``value_problem`` (04.2) misjudges one of its values, the
hint says to fix 04.2 first. Rules, the case that breaks each, and the hint that names it: see
``RULES`` and ``HINTS``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, fail
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply
from course_lib.checks.lesson04._tool_sources import NOTEBOOK, phrase
from course_lib.checks.lesson04.validate_arguments.cases import (
    CASES,
    HINTS,
    PHRASES,
    ValidationCase,
    case_of,
    hidden_cases,
    unmatched,
)
from course_lib.checks.lesson04.value_problem import fits
from course_lib.checks.meaning import shown as shown_word
from course_lib.i18n import translate

RULES = (
    Rule("valid", "valid arguments give `[]`", case=case_of("valid"), hint="valid"),
    Rule("path", "each message names the **path** of its value: `city`, `traveller.name`, "
         "`stops[0].nights`", case=case_of("path"), hint="path"),
    Rule("missing", "a required name that is absent: a message saying it is missing (`missing`, "
         "or `缺少` in Chinese: `缺少必要参数 city`)", case=case_of("missing"), hint="missing"),
    Rule("unexpected", 'a key not in `"properties"` when `"additionalProperties"` is `false`: a '
         'message saying it is unexpected (`unexpected`, or `未知` / `多余`)',
         case=case_of("unexpected"), hint="unexpected"),
    Rule("extra_allowed", 'without `"additionalProperties": false`, extra keys are fine',
         case=case_of("extra_allowed"), hint="extra_allowed"),
    Rule("value_problems", "a present value with a problem (`value_problem` is not `None`): a "
         "message holding that problem", case=case_of("value_problems"), hint="value_problems"),
    Rule("not_inside", "do not look inside a value with a problem (a string where an object "
         "belongs has no missing keys)", case=case_of("not_inside"), hint="not_inside"),
    Rule("nested_rules", 'nested objects follow their own `"required"` and '
         '`"additionalProperties"`', case=case_of("nested_rules"), hint="nested_rules"),
    Rule("items", 'check every item of an array against `"items"`', case=case_of("items"),
         hint="items"),
    Rule("every_problem", "report every problem, at once, exactly one message each",
         case=case_of("every_problem"), hint="every_problem"),
    Rule("never_raises", "never raise", case=case_of("not_inside"), hint="inside_raised"),
)  # fmt: skip


TEXTS = Catalog() | {"summary": "{visible} visible and {hidden} hidden cases"}


hint = HINTS.hint


def visited(schema: dict, value: Any) -> Iterator[tuple[dict, Any]]:
    """Every (schema node, value) pair a right answer asks ``value_problem`` about."""
    yield schema, value
    if not fits(schema, value):
        return
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key, item in value.items():
            if key in properties:
                yield from visited(properties[key], item)
    if isinstance(value, list) and "items" in schema:
        for item in value:
            yield from visited(schema["items"], item)


ASK_VALUE_PROBLEM = """
fn = getattr(validate_arguments, "__globals__", {}).get("value_problem")

def ask(node, value):
    try:
        return ["returned", fn(node, value)]
    except Exception as exc:
        return ["raised", type(exc).__name__]

answers = [ask(node, value) for node, value in checks] if callable(fn) else None
"""


def earlier_blame(learner: Learner, item: ValidationCase) -> HintText | None:
    """The "fix 04.2 first" hint when the learner's ``value_problem`` misjudges a value of this
    case (it finds a problem in a value that fits, or none in one that does not)."""
    checks = list(visited(item.schema, item.arguments))
    bind = {"validate_arguments": learner.target("validate_arguments"),
            "checks": [[node, value] for node, value in checks]}  # fmt: skip
    reply = learner.run(ASK_VALUE_PROBLEM, result="answers", bind=bind)
    if not isinstance(reply.value, list):
        return None
    for (node, value), (how, answer) in zip(checks, reply.value, strict=False):
        if how == "raised" or (answer is None) != fits(node, value):
            got = answer if how == "returned" else phrase("raised_kind", kind=answer)
            return hint("earlier_first", got=repr(got), value=repr(value), schema=repr(node))
    return None


def chosen_hint(learner: Learner, item: ValidationCase, got: Any) -> HintText:
    """Fix 04.2 first when its answer shows; else the case's own hint when its mistake shows
    (its problem is not reported, or a message too many where the case says so); else a hint
    read from the messages."""
    blame = earlier_blame(learner, item)
    if blame is not None:
        return blame
    if not isinstance(got, list):
        return hint("inside_raised" if item.hint == "not_inside" else "never_raise")
    missing = unmatched(item.problems, got)
    if item.hint and (missing is not None or item.extra_is_its_mistake):
        return hint(item.hint)
    if missing is None:
        return hint("one_each")
    return hint("report_problem", path=missing[0], words=" / ".join(map(shown_word, missing[1])))


def check_case(learner: Learner, item: ValidationCase) -> None:
    __tracebackhide__ = True
    case = item.label
    reply: Reply = learner.attempt("validate_arguments", item.schema, item.arguments)
    expected = [  # the expected messages, in words (the learner's wording is free)
        translate(PHRASES, "expected_message", path=path, words=" / ".join(map(shown_word, said)))
        for path, said in item.problems
    ]
    if reply.raised:
        fail(case, expected, Plain(reply.raised_text), chosen_hint(learner, item, None))
    got = reply.value
    if not isinstance(got, list) or not all(isinstance(message, str) for message in got):
        fail(case, expected, got, hint("list_of_str"))
    missing = unmatched(item.problems, got)
    if missing is not None:
        words = " / ".join(map(shown_word, missing[1]))
        where = translate(PHRASES, "no_message", path=missing[0], words=words)
        fail(case, expected, got, chosen_hint(learner, item, got), where=where)
    if len(got) != len(item.problems):
        where = translate(PHRASES, "count", expected=len(item.problems), got=len(got))
        fail(case, expected, got, chosen_hint(learner, item, got), where=where)


@exercise("04.3", notebook=NOTEBOOK, title="validate_arguments", points=2, rules=RULES, hints=HINTS)
def check_validate_arguments(learner: Learner) -> str:
    hidden = hidden_cases()
    for item in (*CASES, *hidden):
        check_case(learner, item)
    return translate(TEXTS, "summary", visible=len(CASES), hidden=len(hidden))
