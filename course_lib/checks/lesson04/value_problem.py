"""Exercise 04.2, ``value_problem(schema, value) -> str | None``: does one value fit one schema
node by JSON's rules (``True`` is not an integer, ``1`` is not a boolean, ``3`` is a number)?

Schemas and values are JSON and travel as they are; the answer comes back as JSON: ``None``, or
a message whose wording is the learner's but which must name what was expected.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson04._tool_sources import NOTEBOOK
from course_lib.checks.meaning import first_unsaid
from course_lib.checks.meaning import shown as shown_word
from course_lib.i18n import translate
from course_lib.reference.validation import json_type

TYPE_TESTS = {
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: json_type(value) == "integer",
    "number": lambda value: json_type(value) in ("integer", "number"),
    "boolean": lambda value: isinstance(value, bool),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
    "null": lambda value: value is None,
}


def fits(schema: dict, value: Any) -> bool:
    """The oracle: ``anyOf``, ``type`` (a name or a list) and ``enum`` of this node only."""
    if "anyOf" in schema and not any(fits(option, value) for option in schema["anyOf"]):
        return False
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPE_TESTS[name](value) for name in names):
            return False
    return "enum" not in schema or any(_same(value, allowed) for allowed in schema["enum"])


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``True`` is not ``1``."""
    return json_type(a) == json_type(b) and a == b


def words(schema: dict, value: Any) -> tuple[str, ...]:
    """What a message about ``value`` must say: every expected type name, or the enum's values
    as JSON."""
    if "anyOf" in schema:
        return tuple(dict.fromkeys(w for option in schema["anyOf"] for w in words(option, value)))
    names = schema.get("type", [])
    names = names if isinstance(names, list) else [names]
    if names and not any(TYPE_TESTS[name](value) for name in names):
        return tuple(names)
    return tuple(json.dumps(v, ensure_ascii=False) for v in schema.get("enum", ()))


@dataclass(frozen=True)
class ValueCase:
    schema: dict
    value: Any
    key: str = ""  # the rule this case is the first to catch (its hint key)

    @property
    def label(self) -> str:
        return f"value_problem({self.schema!r}, {self.value!r})"

    @property
    def fits(self) -> bool:
        return fits(self.schema, self.value)


STRING, INTEGER, NUMBER = {"type": "string"}, {"type": "integer"}, {"type": "number"}
STRING_OR_NULL = {"type": ["string", "null"]}
INTEGER_OR_NULL = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
UNIT = {"type": "string", "enum": ["c", "f"]}
CASES = (
    ValueCase(STRING, "北京", "fits_none"),
    ValueCase(STRING, 7),
    ValueCase(INTEGER, 3),
    ValueCase(INTEGER, True, "integer"),
    ValueCase(INTEGER, 2.5),
    ValueCase(NUMBER, 3, "number_int"),
    ValueCase(NUMBER, 1.5),
    ValueCase(NUMBER, True, "number_bool"),
    ValueCase({"type": "boolean"}, False),
    ValueCase({"type": "boolean"}, 1, "boolean"),
    ValueCase({"type": "array"}, ["a"]),
    ValueCase({"type": "object"}, {"k": 1}),
    ValueCase({"type": "null"}, None, "basic"),
    ValueCase({"type": "null"}, 0, "null"),
    ValueCase({"type": "null"}, ""),
    ValueCase({"type": "null"}, False),
    ValueCase({"type": "array"}, {"k": 1}),
    ValueCase({"description": "Anything the model likes."}, [1, "二"], "no_type"),
    ValueCase(STRING_OR_NULL, None, "type_list"),
    ValueCase(STRING_OR_NULL, 7, "every_type"),
    ValueCase(INTEGER_OR_NULL, None),
    ValueCase(INTEGER_OR_NULL, "ten", "any_of"),
    ValueCase(UNIT, "f"),
    ValueCase(UNIT, "k", "enum"),
    ValueCase({"enum": [1, 2]}, True, "enum_bool"),  # True == 1 in Python, not in JSON
    ValueCase({"type": "array", "items": {"type": "string"}}, [1, 2], "this_node"),
    ValueCase({"type": "object", "properties": {"a": INTEGER}, "required": ["a"]}, {}),
    ValueCase({"type": "object", "properties": {"天数": INTEGER}}, {"天数": "三"}, "this_node"),
)


def case_of(key: str) -> str:
    return next(item.label for item in CASES if item.key == key)


RULES = (
    Rule("fits_none", 'a value that fits gives `None` (not `""`, not `[]`)',
         case=case_of("fits_none"), hint="fits_none"),
    Rule("integer", '`"integer"`: an `int`, never a `bool`', case=case_of("integer"),
         hint="integer"),
    Rule("number_int", '`"number"`: an `int` or a `float` (`3` is a number)',
         case=case_of("number_int"), hint="number_int"),
    Rule("number_bool", "never a `bool`", case=case_of("number_bool"), hint="number_bool"),
    Rule("boolean", '`"boolean"`: a `bool` only (`1` is not a boolean)', case=case_of("boolean"),
         hint="boolean"),
    Rule("basic", '`"string"`, `"array"`, `"object"`: a `str`, a `list`, a `dict`',
         case=case_of("basic"), hint="missing_type"),
    Rule("null", '`"null"`: `None` only (`0`, `""`, `false` are not null)', case=case_of("null"),
         hint="null"),
    Rule("type_list", '`"type"` may be a list of names: the value fits if it fits any',
         case=case_of("type_list"), hint="type_list"),
    Rule("any_of", '`"anyOf"`: the value fits if it fits at least one listed schema',
         case=case_of("any_of"), hint="any_of"),
    Rule("enum", '`"enum"`: the value must be one of the listed values', case=case_of("enum"),
         hint="enum"),
    Rule("enum_bool", "by JSON's rules (`true` is not one of `[1, 2]`)", case=case_of("enum_bool"),
         hint="enum_bool"),
    Rule("no_type", 'a node without `"type"`, `"anyOf"` or `"enum"` accepts any value',
         case=case_of("no_type"), hint="no_type"),
    Rule("this_node", 'judge this node only: `"properties"` and `"items"` are for 04.3',
         case=case_of("this_node"), hint="this_node"),
    Rule("every_type", "a wrong type's message names every expected type "
         "(`should be a string or null`, or `应为字符串或 null`)", case=case_of("every_type"),
         hint="every_type"),
    Rule("enum_json", 'a value outside the enum: list the allowed values as JSON '
         '(`one of "c", "f"`)', case=case_of("enum"), hint="enum_json"),
)  # fmt: skip

TEXTS = Catalog() | {"summary": "{visible} visible and {hidden} hidden cases"}

HINTS = Catalog() | {
    "fits_none": 'A value that fits gives None, not {got}: None is what means "no problem".',
    "fits": "{value} fits {schema}, so the answer is None: check how your code tests this node.",
    "misfit": ("{value} does not fit {schema}: the answer is a message saying what was expected."),
    "message_str": "A value that does not fit gives its message, one str.",
    "integer": (
        "In Python True is an int (bool is a subclass of int), but in JSON true is not an "
        'integer: "integer" is an int that is not a bool.'
    ),
    "float_integer": '2.5 is a number but not an integer: "integer" is an int only.',
    "number_int": 'An integer is a number in JSON: "number" is an int or a float.',
    "number_bool": 'true is not a number in JSON: "number" is an int or a float, never a bool.',
    "boolean": '1 is not a boolean in JSON: "boolean" is a bool only (True or False).',
    "missing_type": (
        "JSON_TYPES needs a test for each of the seven type names: string, integer, number, "
        "boolean, array, object and null (here {name} is missing)."
    ),
    "null": (
        '"null" is None only: 0, "" and false are values of other types. Test `value is None`, '
        "not `not value`."
    ),
    "type_list": (
        '"type" may be a list of names, like ["string", "null"]: the value fits if it fits any '
        "of them."
    ),
    "any_of": (
        '"anyOf" lists schemas: the value fits if it fits at least one of them (check each with '
        "value_problem itself), and otherwise it has a problem."
    ),
    "enum": 'A value outside "enum" is a problem: check that it is one of the listed values.',
    "no_type": (
        'A schema node without "type", "anyOf" or "enum" (only a description, say) accepts any '
        "value: use schema.get or test for the key first."
    ),
    "this_node": (
        'value_problem looks at this node only: "items" and "properties" are for '
        "validate_arguments (04.3), which checks each item and property itself."
    ),
    "every_type": (
        "Name every expected type in the message ({expected}), in English or in Chinese, so the "
        "model sees all it may send: the helper _expected(schema), below value_problem in the "
        "exercise cell, writes the English names."
    ),
    "enum_bool": (
        "true is not one of [1, 2] in JSON, but `True in [1, 2]` is True in Python (True == 1): "
        "a value matches an allowed one only if its JSON type is the same too."
    ),
    "enum_json": (
        "List the allowed values as JSON in the message ({expected}): json.dumps of each, as the "
        "helper _expected(schema), below value_problem in the exercise cell, writes them."
    ),
    "never_raise": "value_problem never raises: it answers None or a message.",
}

PHRASES = {
    "none": "None",
    "a_message": "a message saying {words}",
    "not_said": "the message does not say {word}",
}


hint = HINTS.hint


# The rules whose own hint also explains an exception (a wrong test that raised).
RAISED_KEYS = ("integer", "number_int", "number_bool", "boolean", "any_of", "enum", "enum_bool")


def raised_hint(item: ValueCase, message: str) -> HintText:
    names = item.schema.get("type", [])
    names = names if isinstance(names, list) else [names]
    if isinstance(item.schema.get("type"), list) and "unhashable" in message:
        return hint("type_list")
    if item.key == "no_type" or "'type'" in message and "type" not in item.schema:
        return hint("no_type")
    missing = next((name for name in names if repr(name) in message), None)
    if missing is not None:
        return hint("missing_type", name=missing)
    if item.key in RAISED_KEYS:
        return hint(item.key)
    return hint("never_raise")


def mistake(item: ValueCase, got: Any) -> HintText:
    """The hint for a wrong answer to a case: the rule the case is the first to catch, else
    what the answer shows (a "no problem" that is not None, a fit or a misfit missed)."""
    shown = {"value": repr(item.value), "schema": repr(item.schema), "got": repr(got)}
    if item.fits and (got == "" or got == [] or got == {} or got is False):
        return hint("fits_none", **shown)
    if item.key and item.key not in ("fits_none", "basic", "enum_json", "every_type"):
        return hint(item.key, **shown)
    kind, value = item.schema.get("type"), item.value
    if kind == "integer" and isinstance(value, float):
        return hint("float_integer", **shown)
    if kind == "null" and value is not None:
        return hint("null", **shown)
    return hint("fits" if item.fits else "misfit", **shown)


def check_case(learner: Learner, item: ValueCase) -> None:
    __tracebackhide__ = True
    case = item.label
    reply = learner.attempt("value_problem", item.schema, item.value)
    expected_words = words(item.schema, item.value)
    said = " / ".join(map(shown_word, expected_words))  # "none" has no field to fill
    expected = Plain(translate(PHRASES, "none" if item.fits else "a_message", words=said))
    if reply.raised:
        fail(case, expected, Plain(reply.raised_text), raised_hint(item, reply.message))
    got = reply.value
    if (got is None) != item.fits:
        fail(case, expected, Plain(repr(got)), mistake(item, got))
    if item.fits:
        return
    if not isinstance(got, str) or not got:
        fail(case, expected, Plain(repr(got)), hint("message_str"))
    absent = first_unsaid(got, expected_words)
    if absent is not None:
        key = "every_type" if absent in TYPE_TESTS else "enum_json"
        shown = ", ".join(map(shown_word, expected_words))
        fail(case, expected, got, hint(key, expected=shown),
             where=translate(PHRASES, "not_said", word=shown_word(absent)))  # fmt: skip


def hidden_cases(count: int = 16) -> list[ValueCase]:
    """Random type names (one or two) and values of every JSON type."""
    rng = hidden_rng("04.2")
    values = ["上海", "", 0, -4, 2.75, True, False, None, ["x"], {"城市": "北京"}]
    names = list(TYPE_TESTS)
    cases = []
    for index in range(count):
        kinds = rng.sample(names, 2 if index % 3 == 2 else 1)
        schema: dict[str, Any] = {"type": kinds if len(kinds) > 1 else kinds[0]}
        cases.append(ValueCase(schema, rng.choice(values)))
    return cases


@exercise("04.2", notebook=NOTEBOOK, title="value_problem", points=1, rules=RULES, hints=HINTS)
def check_value_problem(learner: Learner) -> str:
    hidden = hidden_cases()
    for item in (*CASES, *hidden):
        check_case(learner, item)
    return translate(TEXTS, "summary", visible=len(CASES), hidden=len(hidden))
