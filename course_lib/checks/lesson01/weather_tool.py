"""Exercise 01.1, ``WEATHER_TOOL``: the Chat Completions tool for
``get_weather(city: str, unit: Literal["c", "f"] = "c")``, written by hand.

Judged by what the schema does (``_schemas.py``): the envelope first, then a few dozen argument
objects a model might send. Rules, the case that breaks each, and the hint that names it: see
``RULES`` and ``HINTS`` (the shared envelope hints live in ``_schemas.HINTS``).
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

SHAPE_CASE = schema_text("case_shape", what="WEATHER_TOOL")

RULES = (
    Rule("envelope", 'the outer dict is `{"type": "function", "function": {...}}`, with `"name"`, '
         '`"description"` and `"parameters"` inside `"function"`', case=SHAPE_CASE, hint="flat"),
    Rule("name", 'the name is exactly `"get_weather"`', case=SHAPE_CASE, hint="name"),
    Rule("description", "the description is a non-empty sentence saying what the tool does",
         case=SHAPE_CASE, hint="description"),
    Rule("object", '`"parameters"` is a JSON Schema with `"type": "object"`', case=SHAPE_CASE,
         hint="object"),
    Rule("properties", "it has exactly two properties, `city` and `unit`",
         case=schema_text("case_names", what="WEATHER_TOOL"), hint="properties"),
    Rule("city_string", "`city` is a string", case=arguments_label({"city": 42}), hint="city_type"),
    Rule("unit_type", '`unit` is a string (`"type": "string"`)',
         case=schema_text("case_type", name="unit"), hint="unit_type"),
    Rule("unit_enum", 'that can only be `"c"` or `"f"`',
         case=arguments_label({"city": "上海", "unit": "kelvin"}), hint="unit_enum"),
    Rule("required", "only `city` is required", case=arguments_label({"city": "北京"}),
         hint="not_required"),
    Rule("closed", 'no other argument is allowed (`"additionalProperties": false`)',
         case=arguments_label({"city": "北京", "country": "CN"}), hint="closed"),
    Rule("default", 'a `"default"` for `unit` is optional; if present, it is `"c"`',
         case=schema_text("case_default", name="unit"), hint="default_value"),
)  # fmt: skip

HINTS = Catalog() | {
    "city_type": "city is a str: give it the JSON Schema type string.",
    "unit_enum": 'unit takes only "c" or "f": make it a string and list exactly those in "enum".',
    "unit_type": (
        'unit is a string: write "type": "string" beside its "enum", as the table\'s Literal row '
        'does ({{"type": "string", "enum": ["c", "f"]}}). An "enum" alone lets the same values '
        "through, but the schema no longer says what kind of value unit is."
    ),
}


hint = HINTS.hint


def argument_cases() -> list[ArgumentCase]:
    """The visible cases, then hidden ones from the exercise's fixed random generator."""
    city_type, enum, closed = hint("city_type"), hint("unit_enum"), shared("closed")
    cases = [
        ArgumentCase({"city": "北京"}, True),
        ArgumentCase({"city": "Paris", "unit": "f"}, True),
        ArgumentCase({"city": "上海", "unit": "c"}, True),
        ArgumentCase({"unit": "c"}, False, shared("required", name="city")),
        ArgumentCase({"city": "上海", "unit": "kelvin"}, False, enum),
        ArgumentCase({"city": 42}, False, city_type),
        ArgumentCase({"city": None}, False, shared("not_nullable", name="city", type="string")),
        ArgumentCase({"city": "北京", "country": "CN"}, False, closed),
        ArgumentCase({"city": "北京", "unit": None}, False, enum),
    ]
    # Every near miss of "c" and "f" a hand-written enum might let in, not a random few.
    near_misses = ("C", "F", "k", "K", "", "celsius", "fahrenheit", "cf")
    cases += [ArgumentCase({"city": "Paris", "unit": unit}, False, enum) for unit in near_misses]
    rng = hidden_rng("01.1")
    for _ in range(12):
        city = rng.choice([*CITIES, random_word(rng)])
        cases.append(ArgumentCase({"city": city, "unit": rng.choice("cf")}, True))
        wrong_unit = rng.choice(["C", "F", "k", "", "celsius"])
        cases.append(ArgumentCase({"city": city, "unit": wrong_unit}, False, enum))
        other = rng.choice(
            [rng.randint(-50, 50), rng.random() * 10, True, None, [random_word(rng)], {"x": 1}]
        )
        cases.append(ArgumentCase({"city": other}, False, city_type))
        cases.append(ArgumentCase({"city": city, random_word(rng): city}, False, closed))
    return cases


@exercise("01.1", notebook=NOTEBOOK, title="WEATHER_TOOL", points=2, rules=RULES)
def check_weather_tool(learner: Learner) -> str:
    property_hints = {"city": hint("city_type"), "unit": hint("unit_enum")}
    return check_tool(
        learner,
        "WEATHER_TOOL",
        "get_weather",
        {"unit": "c"},
        argument_cases(),
        required="city",
        property_hints=property_hints,
        types={"unit": ("string", hint("unit_type"))},
    )
