"""The cases of ``validate_arguments`` (04.3): schemas, arguments, the problems each must report.

A problem is the path it names and the words its message must contain; the learner's wording is
otherwise free. The three named schemas are the ones the notebook prints before the exercise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import hidden_rng
from course_lib.checks.lesson04.value_problem import fits
from course_lib.checks.meaning import says_all
from course_lib.i18n import translate

# An expected problem: the path it names and the words its message must contain.
Problem = tuple[str, tuple[str, ...]]


def object_node(properties: dict, required: list[str], *, closed: bool = True) -> dict:
    """An object node; ``closed``: with ``"additionalProperties": false``."""
    node = {"type": "object", "properties": properties, "required": required}
    return {**node, "additionalProperties": False} if closed else node


STRING, INTEGER = {"type": "string"}, {"type": "integer"}
WEATHER_SCHEMA = object_node(
    {"city": STRING, "days": INTEGER, "unit": {"type": "string", "enum": ["c", "f"]}}, ["city"]
)
NOTES_SCHEMA = object_node(
    {"keyword": STRING, "score": {"type": "number"}, "archived": {"type": "boolean"},
     "tags": {"type": "array", "items": STRING},
     "limit": {"anyOf": [INTEGER, {"type": "null"}]}, "owner": {"type": ["string", "null"]}},
    ["keyword"],
)  # fmt: skip
TRIP_SCHEMA = object_node(
    {"traveller": object_node({"name": STRING, "age": INTEGER}, ["name"]),
     "stops": {"type": "array", "items": object_node({"city": STRING, "nights": INTEGER},
                                                     ["city", "nights"], closed=False)}},
    ["traveller", "stops"],
)  # fmt: skip
SCHEMAS = {
    "WEATHER_SCHEMA": WEATHER_SCHEMA,
    "NOTES_SCHEMA": NOTES_SCHEMA,
    "TRIP_SCHEMA": TRIP_SCHEMA,
}

HINTS = Catalog() | {
    "valid": "Valid arguments give []: report only real problems.",
    "missing": (
        "A required parameter that is absent gives one message that names it and says it is "
        "missing (missing, or 缺少 in Chinese)."
    ),
    "unexpected": (
        'With "additionalProperties": false, every extra key gives a message that names it and '
        "says it is unexpected (unexpected, or 未知 / 多余 in Chinese)."
    ),
    "extra_allowed": (
        'Only "additionalProperties": false refuses extra keys: these items have no such line, '
        "so their extra key is fine."
    ),
    "value_problems": (
        "Check each present value with value_problem (04.2), and when it finds a problem, "
        "report it in a message that names the value's path."
    ),
    "earlier_first": (
        "validate_arguments calls your value_problem, which answers {got} for {value} against "
        "{schema}: that is exercise 04.2's job; fix 04.2 first, then run this check again."
    ),
    "items": 'Check every item of an array against "items", and name it like tags[1].',
    "every_problem": (
        "Report every problem at once, one message each, so the model can fix all of them."
    ),
    "path": "Name nested values by their path, with dots: traveller.age, not age.",
    "nested_rules": (
        'Nested objects have their own "required" and "additionalProperties": check them the '
        "same way (traveller.name, stops[0].nights)."
    ),
    "not_inside": (
        "A value with a problem gets that one message and nothing more: do not look inside it "
        "(no missing keys of a string that should have been an object)."
    ),
    "inside_raised": (
        "validate_arguments must never raise: here it looked inside a value of the wrong type "
        "(a string where an object belongs). A value with a problem gets that one message."
    ),
    "list_of_str": "Return a list of str: one message per problem, [] if none.",
    "one_each": "A message too many: report each problem once, and only real problems.",
    "report_problem": "Report the problem at {path}: its message must say {words}.",
    "never_raise": (
        "validate_arguments never raises: every problem becomes a message in the list it returns."
    ),
}

PHRASES = {
    "expected_message": "a message naming {path} and saying {words}",
    "no_message": "no message names {path} with {words}",
    "count": "the number of messages: expected {expected}, got {got}",
    "hidden_case": "validate_arguments(schema, {arguments}) with properties {properties}",
}


@dataclass(frozen=True)
class ValidationCase:
    """Arguments against a named schema, the problems they have, and the case's own hint."""

    schema_name: str
    arguments: Any
    problems: tuple[Problem, ...]
    hint: str | None = None  # the HINTS key for this case's mistake (None: read from messages)
    extra_is_its_mistake: bool = False  # a message too many is this case's mistake too
    schema_value: dict | None = None  # a hidden case's schema, its properties in the label

    @property
    def schema(self) -> dict:
        return self.schema_value if self.schema_value is not None else SCHEMAS[self.schema_name]

    @property
    def label(self) -> str:
        arguments = json.dumps(self.arguments, ensure_ascii=False)
        if self.schema_value is not None:
            shown = json.dumps(self.schema["properties"], ensure_ascii=False)
            return translate(PHRASES, "hidden_case", arguments=arguments, properties=shown)
        return f"validate_arguments({self.schema_name}, {arguments})"


def _valid(schema: str, arguments: Any, key: str | None = None) -> ValidationCase:
    return ValidationCase(schema, arguments, (), key, extra_is_its_mistake=True)


CASES: tuple[ValidationCase, ...] = (
    _valid("WEATHER_SCHEMA", {"city": "北京"}, "valid"),
    _valid("WEATHER_SCHEMA", {"city": "上海", "days": 3, "unit": "f"}),
    ValidationCase("WEATHER_SCHEMA", {}, (("city", ("missing",)),), "missing"),
    ValidationCase("WEATHER_SCHEMA", {"city": "北京", "country": "China"},
                   (("country", ("unexpected",)),), "unexpected"),
    ValidationCase("WEATHER_SCHEMA", {"city": ["Zhang", "San"]},
                   (("city", ("string",)),), "value_problems"),
    ValidationCase("WEATHER_SCHEMA", {"city": "北京", "days": True}, (("days", ("integer",)),)),
    ValidationCase("WEATHER_SCHEMA", {"city": "北京", "unit": "k"}, (("unit", ('"c"', '"f"')),)),
    _valid("NOTES_SCHEMA", {"keyword": "豆腐", "score": 3, "archived": False}),
    ValidationCase("NOTES_SCHEMA", {"keyword": "豆腐", "tags": ["food", 3, "家"]},
                   (("tags[1]", ("string",)),), "items"),
    ValidationCase("NOTES_SCHEMA", {"keyword": 5, "limit": 3, "extra": 1, "archived": "yes"},
                   (("keyword", ("string",)), ("extra", ("unexpected",)),
                    ("archived", ("boolean",))), "every_problem"),
    _valid("NOTES_SCHEMA", {"keyword": "x", "limit": None, "owner": None}),
    ValidationCase("NOTES_SCHEMA", {"keyword": "x", "limit": "ten", "owner": 7},
                   (("limit", ("integer", "null")), ("owner", ("string", "null")))),
    ValidationCase("TRIP_SCHEMA", {"traveller": {"name": "张伟", "age": "30"},
                                   "stops": [{"city": "上海", "nights": 2}]},
                   (("traveller.age", ("integer",)),), "path"),
    ValidationCase("TRIP_SCHEMA", {"traveller": {"age": 30},
                                   "stops": [{"city": "上海"}, {"city": "北京", "nights": 1}]},
                   (("traveller.name", ("missing",)), ("stops[0].nights", ("missing",))),
                   "nested_rules"),
    ValidationCase("TRIP_SCHEMA", {"traveller": {"name": "Ada", "nick": "A"}, "stops": []},
                   (("traveller.nick", ("unexpected",)),)),
    _valid("TRIP_SCHEMA", {"traveller": {"name": "Ada"},
                           "stops": [{"city": "上海", "nights": 2, "hotel": "和平饭店"}]},
           "extra_allowed"),
    ValidationCase("TRIP_SCHEMA", {"traveller": "Bob", "stops": [{"city": "上海", "nights": 2}]},
                   (("traveller", ("object",)),), "not_inside", extra_is_its_mistake=True),
)  # fmt: skip


def case_of(key: str) -> str:
    """The label of the visible case whose hint is ``key``."""
    return next(item.label for item in CASES if item.hint == key)


def unmatched(expected: tuple[Problem, ...], got: list[str]) -> Problem | None:
    """The first expected problem no message covers (longest paths claim messages first)."""
    free = list(got)
    for path, words in sorted(expected, key=lambda problem: -len(problem[0])):
        found = next((m for m in free if path in m and says_all(m, words)), None)
        if found is None:
            return (path, words)
        free.remove(found)
    return None


_VALUES: dict[str, list[Any]] = {
    "string": ["北京", "Paris", ""],
    "integer": [0, 7, -3],
    "number": [1.5, 2, -0.25],
    "boolean": [True, False],
}
_ALL_VALUES = [*[v for vs in _VALUES.values() for v in vs], None, ["a"], {"k": 1}]
_NAMES = ["city", "城市", "days", "limit", "query", "score", "flag", "name"]


def hidden_cases(count: int = 12) -> list[ValidationCase]:
    """Flat schemas with random types and arguments that are partly wrong, with their problems."""
    rng = hidden_rng("04.3")
    cases = []
    for _ in range(count):
        names = rng.sample(_NAMES, 4)
        kinds = {name: rng.choice(list(_VALUES)) for name in names}
        required = sorted(rng.sample(names, 2), key=names.index)
        schema = object_node({name: {"type": kind} for name, kind in kinds.items()}, required)
        arguments: dict[str, Any] = {}
        problems: list[Problem] = []
        for name in names:
            roll = rng.random()
            if roll < 0.2 and name not in required:
                continue
            if roll < 0.2:
                problems.append((name, ("missing",)))
                continue
            value = rng.choice(_ALL_VALUES if roll < 0.5 else _VALUES[kinds[name]])
            arguments[name] = value
            if not fits({"type": kinds[name]}, value):
                problems.append((name, (kinds[name],)))
        if rng.random() < 0.3:
            arguments["debug"] = True
            problems.append(("debug", ("unexpected",)))
        cases.append(ValidationCase("schema", arguments, tuple(problems), schema_value=schema))
    return cases
