"""Exercise 01.2, ``NOTES_TOOL``: the Chat Completions tool for
``search_notes(keyword: str, limit: int = 5, tags: list[str] | None = None)``, written by hand.

Judged like 01.1 (``_schemas.py``). ``tags`` may allow null or not: both are right, so no case
depends on it. Rules, the case that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson01._schemas import ArgumentCase, arguments_label, check_tool
from course_lib.checks.lesson01._schemas import hint as shared
from course_lib.checks.lesson01._schemas import text as schema_text
from course_lib.checks.lesson01._values import CITIES, NOTEBOOK, random_word

SHAPE_CASE = schema_text("case_shape", what="NOTES_TOOL")

RULES = (
    Rule("envelope", 'the outer shape is the same as in 01.1, with `"parameters"` inside '
         '`"function"`', case=SHAPE_CASE, hint="wrap_parameters"),
    Rule("name", 'the name is exactly `"search_notes"`', case=SHAPE_CASE, hint="name"),
    Rule("description", "the description is a non-empty sentence", case=SHAPE_CASE,
         hint="description"),
    Rule("properties", '`"parameters"` has `"type": "object"` and exactly three properties: '
         "`keyword`, `limit`, `tags`", case=schema_text("case_names", what="NOTES_TOOL"),
         hint="properties"),
    Rule("keyword_string", "`keyword` is a string", case=arguments_label({"keyword": 7}),
         hint="keyword_type"),
    Rule("limit_integer", "`limit` is an integer, not any number (2.5 must be rejected)",
         case=arguments_label({"keyword": "budget", "limit": 2.5}), hint="limit_integer"),
    Rule("tags_items", "`tags` is an array whose items are strings",
         case=arguments_label({"keyword": "budget", "tags": [1, 2]}), hint="tags_array"),
    Rule("tags_items_not_null", "an item of `tags` is never `null`: only the list itself may be "
         '(`["travel", null]` must be rejected)',
         case=arguments_label({"keyword": "budget", "tags": ["travel", None]}),
         hint="tags_null_items"),
    Rule("required", "only `keyword` is required", case=arguments_label({"keyword": "北京"}),
         hint="not_required"),
    Rule("closed", '`"additionalProperties": false`',
         case=arguments_label({"keyword": "budget", "folder": "inbox"}), hint="closed"),
    Rule("limit_default", 'a `"default"` for `limit` is optional; if present, it is `5`',
         case=schema_text("case_default", name="limit"), hint="default_value"),
    Rule("tags_default", 'a `"default"` for `tags` is optional; if present, it is `null` (`None` '
         'in Python), and then the type must allow `null` too (`"type": ["array", "null"]`): a '
         "default has to fit its own schema", case=schema_text("case_default_fits", name="tags"),
         hint="default_fits_null"),
)  # fmt: skip

HINTS = Catalog() | {
    "keyword_type": "keyword is a str: give it the JSON Schema type string.",
    "limit_integer": 'limit is an int: use "integer" ("number" would also allow 2.5).',
    "tags_array": 'tags is a list of str: "type": "array" with "items": {{"type": "string"}}.',
    "tags_null_items": (
        'tags is a list of str, so an item is never null: "items": {{"type": "string"}}. Only '
        'the list itself may be null ("type": ["array", "null"]), not what is in it.'
    ),
}


hint = HINTS.hint


def argument_cases() -> list[ArgumentCase]:
    """The visible cases, then hidden ones from the exercise's fixed random generator."""
    integer, items, closed = hint("limit_integer"), hint("tags_array"), shared("closed")
    null_items = hint("tags_null_items")
    cases = [
        ArgumentCase({"keyword": "北京"}, True),
        ArgumentCase({"keyword": "budget", "limit": 3}, True),
        ArgumentCase({"keyword": "旅行", "tags": ["上海", "work"]}, True),
        ArgumentCase({"keyword": "budget", "limit": 10, "tags": []}, True),
        ArgumentCase({"limit": 5}, False, shared("required", name="keyword")),
        ArgumentCase({"keyword": 7}, False, hint("keyword_type")),
        ArgumentCase(
            {"keyword": None}, False, shared("not_nullable", name="keyword", type="string")
        ),
        ArgumentCase({"keyword": "budget", "limit": 2.5}, False, integer),
        ArgumentCase(
            {"keyword": "budget", "limit": None},
            False,
            shared("not_nullable", name="limit", type="integer"),
        ),
        ArgumentCase({"keyword": "budget", "limit": "5"}, False, integer),
        ArgumentCase({"keyword": "budget", "tags": "work"}, False, items),
        ArgumentCase({"keyword": "budget", "tags": [1, 2]}, False, items),
        ArgumentCase({"keyword": "budget", "tags": ["travel", None]}, False, null_items),
        ArgumentCase({"keyword": "budget", "folder": "inbox"}, False, closed),
    ]
    rng = hidden_rng("01.2")
    for _ in range(10):
        keyword = rng.choice([*CITIES, random_word(rng)])
        tags = [random_word(rng) for _ in range(rng.randint(0, 3))]
        arguments = {"keyword": keyword, "limit": rng.randint(1, 50), "tags": tags}
        cases += [
            ArgumentCase(arguments, True),
            ArgumentCase({"keyword": keyword, "limit": rng.random() + 0.25}, False, integer),
            ArgumentCase({"keyword": keyword, "tags": [*tags, rng.randint(0, 9)]}, False, items),
            ArgumentCase({"keyword": keyword, "tags": [*tags, None]}, False, null_items),
            ArgumentCase({"keyword": keyword, random_word(rng): 1}, False, closed),
        ]
    return cases


@exercise("01.2", notebook=NOTEBOOK, title="NOTES_TOOL", points=2, rules=RULES)
def check_notes_tool(learner: Learner) -> str:
    property_hints = {
        "keyword": hint("keyword_type"),
        "limit": hint("limit_integer"),
        "tags": hint("tags_array"),
    }
    return check_tool(
        learner,
        "NOTES_TOOL",
        "search_notes",
        {"limit": 5, "tags": None},
        argument_cases(),
        required="keyword",
        property_hints=property_hints,
    )
