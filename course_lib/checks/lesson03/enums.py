"""Exercise 03.2, ``enum_schema(annotation) -> dict``: ``Literal`` and ``Enum`` as a typed enum.

Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

import enum
import random
import typing
from typing import Any, Literal

from course_lib.checks import function_cases
from course_lib.checks import parameter_schemas as schemas
from course_lib.checks.cases import Case
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Hint, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.function_cases import Source, expect_refusals, run_json_cases
from course_lib.checks.learner import Learner
from course_lib.checks.lesson03._annotation_cases import annotation, refusals


def case_of(expr: str) -> str:
    return f"enum_schema({expr})"


VISIBLE = (
    "Literal['北京', '上海']", "Literal[1, 2, 3]", "Literal[True, False]", "Literal[0.5, 1.5]",
    "Unit", "Priority", "City", "Literal['c']",
)  # fmt: skip
# (source, the text the TypeError must contain, the hint when nothing is raised)
REFUSED = (
    ("Literal[1, 'one']", "Literal", "mixed"),
    ("Literal[1, 2.5]", "Literal", "no_widening"),
    ("Literal[None]", "Literal", "literal_none"),
    ("Nothing", "Nothing", "empty_enum"),
    ("Mixed", "Mixed", "mixed"),
    ("str", "str", "not_enum"),
    ("list[str]", "list", "not_enum"),
)

RULES = (
    Rule("literal", '`Literal[v1, v2]` gives `{"type": T, "enum": [v1, v2]}`, the values in the '
         "order written", case=case_of("Literal['北京', '上海']"), hint="enum_missing"),
    Rule("literal_type", '`T` is the JSON type of the values: `Literal[1, 2, 3]` is `"integer"`',
         case=case_of("Literal[1, 2, 3]"), hint="value_type"),
    Rule("bool", '`bool` values are `"boolean"`, never `"integer"` (look up `type(value)`, or test '
         "`bool` first)", case=case_of("Literal[True, False]"), hint="bool"),
    Rule("float", '`float` values are `"number"`', case=case_of("Literal[0.5, 1.5]"),
         hint="float_number"),
    Rule("enum_values", "an `Enum`'s `enum` lists its members' **values**, not their names: `Unit` "
         'gives `["c", "f"]`', case=case_of("Unit"), hint="names_not_values"),
    Rule("enum_type", "an `Enum`'s `T` is the type of its values: an `IntEnum`'s are `int`, so "
         '`"integer"`', case=case_of("Priority"), hint="value_type"),
    Rule("mixed", 'values of mixed types raise `TypeError`: `Literal[1, "one"]` has no single JSON '
         "type", case=case_of("Literal[1, 'one']"), hint="mixed"),
    Rule("no_widening", "so does `Literal[1, 2.5]`: an `int` and a `float` are two types, do not "
         "widen them to number", case=case_of("Literal[1, 2.5]"), hint="no_widening"),
    Rule("literal_none", "so does `Literal[None]` (whoever means null writes `None`, a union "
         "handles it)", case=case_of("Literal[None]"), hint="literal_none"),
    Rule("empty_enum", "so does an `Enum` without members: no value could be sent",
         case=case_of("Nothing"), hint="empty_enum"),
    Rule("not_enum", "anything that is not a `Literal` or an `Enum` class raises `TypeError`",
         case=case_of("str"), hint="not_enum"),
    Rule("names_it", "and every message names the annotation", case=case_of("Literal[1, 'one']"),
         hint="type_error_names"),
)  # fmt: skip

TEXTS = Catalog() | {"summary": "{visible} visible and {hidden} hidden cases, {refused} refused"}

HINTS = Catalog(also=(function_cases.HINTS, schemas.HINTS)) | {
    "not_a_dict": 'Return a dict: {{"type": ..., "enum": [...]}}.',
    "enum_missing": (
        'Literal and Enum become {{"type": <type of the values>, "enum": [values]}}: without '
        '"enum" the model may send any value of that type.'
    ),
    "value_type": (
        "The type is the JSON type of the values: {values} are {kind}, so it is {name!r}."
    ),
    "float_number": 'float values are JSON numbers: the type is "number".',
    "names_not_values": (
        "List the members' values, [member.value for member in E], not their names: the model "
        'sends the value ("c"), which E("c") turns back into a member.'
    ),
    "members_as_text": (
        "These are the members written as text ({text}), not their values: list "
        "[member.value for member in E], so the model sends {value}."
    ),
    "order": "Keep the values in the order they are written (an Enum's in definition order).",
    "mixed": (
        "Values of different types have no single JSON type: raise TypeError naming {annotation}."
    ),
    "no_widening": (
        "1 is an int and 2.5 a float: two types, so raise TypeError (do not widen them to number)."
    ),
    "literal_none": (
        "Literal values must be str, int, float or bool: raise TypeError for Literal[None] "
        "(whoever means null writes None, and a union handles it)."
    ),
    "empty_enum": (
        "An Enum without members has no values, so no JSON type: raise TypeError naming it (an "
        "empty enum would be a parameter nobody can send)."
    ),
    "not_enum": (
        "{annotation} is neither a Literal nor an Enum class: raise TypeError naming it; "
        "json_type (03.4) decides what else to do with it."
    ),
    "must_not_raise": "{annotation} has values of one JSON type: return its enum, do not raise.",
}

JSON_NAMES = {bool: "boolean", int: "integer", float: "number", str: "string"}


hint = HINTS.hint


def expected_enum(value: Any) -> dict:
    """The oracle: the values of a Literal or an Enum, and their one JSON type."""
    if typing.get_origin(value) is Literal:
        values = list(typing.get_args(value))
    elif isinstance(value, type) and issubclass(value, enum.Enum):
        values = [member.value for member in value]
    else:
        raise TypeError(f"not a Literal or an Enum: {value!r}")
    names = {JSON_NAMES.get(type(item)) for item in values}
    if len(names) != 1 or None in names:
        raise TypeError(f"values of mixed or unsupported types: {values!r}")
    return {"type": names.pop(), "enum": values}


_VALUES = {
    "str": ("'北京'", "'上海'", "'Paris'", "'c'", "'f'", "'metric'", "''"),
    "int": ("0", "1", "2", "7", "-3", "100"),
    "float": ("0.5", "1.25", "-2.0", "10.0"),
    "bool": ("True", "False"),
}


def random_case(rng: random.Random, index: int) -> Source:
    """A Literal, or an Enum class written into the setup, with values of one type."""
    kind = rng.choice(sorted(_VALUES))
    values = rng.sample(_VALUES[kind], rng.randint(1, min(4, len(_VALUES[kind]))))
    if kind == "bool" or rng.random() < 0.5:
        return annotation(f"Literal[{', '.join(values)}]")
    base = rng.choice(
        {"int": ["Enum", "IntEnum"], "str": ["Enum", "str, Enum"]}.get(kind, ["Enum"])
    )
    body = "".join(f"    M{n} = {value}\n" for n, value in enumerate(values))
    return Source(f"Choice{index}", f"class Choice{index}({base}):\n{body}")


def hints(value: Any, expected: dict) -> list[Hint]:
    values = expected["enum"]
    members = list(value) if isinstance(value, type) else []
    names = [getattr(member, "name", None) for member in members]
    texts = [[str(member) for member in members], [repr(member) for member in members]]
    kind = type(values[0]).__name__ if values else ""
    as_text: list[Hint] = []
    if members:
        example = hint("members_as_text", text=repr(str(members[0])), value=repr(values[0]))
        as_text = [(lambda g: g["enum"] in texts, example)]
    return [
        (lambda g: not isinstance(g, dict), hint("not_a_dict")),
        (lambda g: "enum" not in g, hint("enum_missing")),
        (lambda g: g["enum"] == names and names != values, hint("names_not_values")),
        *as_text,
        (lambda g: expected["type"] == "boolean" and g.get("type") == "integer",
         hint("bool")),
        (lambda g: expected["type"] == "number" and g.get("type") != "number",
         hint("float_number")),
        (lambda g: g.get("type") != expected["type"],
         hint("value_type", values=values, kind=kind, name=expected["type"])),
        (lambda g: sorted(map(repr, g["enum"])) == sorted(map(repr, values)), hint("order")),
    ]  # fmt: skip


def enum_case(learner: Learner, source: Source) -> Case:
    value = source.value()
    expected = expected_enum(value)
    raised = [
        (lambda r: expected["type"] == "number", hint("float_number")),
        (lambda r: True, hint("must_not_raise", annotation=source.expr)),
    ]
    hints_ = hints(value, expected)
    return Case(case_of(source.expr), (source.spec(learner),), expected, hints_, raised=raised)


@exercise("03.2", notebook="03_pitfalls", title="enum_schema", points=2, rules=RULES, hints=HINTS)
def check_enum_schema(learner: Learner) -> str:
    rng = hidden_rng("03.2")
    hidden = [random_case(rng, index) for index in range(30)]
    cases = [enum_case(learner, source) for source in (*map(annotation, VISIBLE), *hidden)]
    run_json_cases(learner, "enum_schema", cases)
    expect_refusals(learner, "enum_schema", refusals(learner, case_of, REFUSED, hint))
    return TEXTS.text("summary", visible=len(VISIBLE), hidden=len(hidden), refused=len(REFUSED))
