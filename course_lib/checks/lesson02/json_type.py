"""Exercise 02.1, ``json_type(annotation) -> dict``: the seven basic annotations as JSON Schema.

Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

import json

from course_lib.checks import function_cases
from course_lib.checks.cases import Case, run_cases
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Hint, HintText, expect_equal
from course_lib.checks.core import Rule, exercise
from course_lib.checks.function_cases import Refusal, Source, expect_refusals
from course_lib.checks.learner import Learner, raise_learner_error

# An annotation stored as text is not a type either: 02.2 reads real types with get_type_hints.
TEXT_ANNOTATION = "'str'"

RULES = (
    Rule("a_dict", 'it returns a dict `{"type": ...}`, not the name of the type',
         case="json_type(str)", hint="not_a_dict"),
    Rule("json_names", "the names are JSON Schema's: `str` is `\"string\"`, `int` `\"integer\"`, "
         '`float` `"number"`, `list` `"array"`, `dict` `"object"`', case="json_type(str)",
         hint="python_names"),
    Rule("bool", '`bool` is `"boolean"`, never `"integer"`. Compare types with `is` (or look them '
         "up in a dict), not with `issubclass`: `bool` is a subclass of `int`",
         case="json_type(bool)", hint="bool"),
    Rule("none", '`None` and `type(None)` are both `"null"` (`get_type_hints` turns a `None` '
         "annotation into `type(None)`)", case="json_type(None)", hint="none"),
    Rule("fresh", 'it returns a **new** dict on every call: later exercises add `"default"` and '
         '`"description"` to the result, and a dict kept in a table would collect them for every '
         "later caller",
         case="json_type(str) called twice; the caller added a key to the first result",
         hint="fresh"),
    Rule("refuse", "any other annotation raises `TypeError`, a subclass of `str`, `list[int]` and "
         '`str | None` too: silently guessing `"string"` would give the model a wrong schema '
         "without anyone noticing", case="json_type(complex)", hint="no_raise"),
    Rule("text", "so does an annotation stored as text, such as the string `'str'`: turning text "
         "into types is `get_type_hints`'s job, in 02.2", case=f"json_type({TEXT_ANNOTATION})",
         hint="text_annotation"),
    Rule("names_it", "the message names the annotation, for example `TypeError: json_type cannot "
         "map <class 'complex'>`", case="json_type(complex)", hint="type_error_names"),
)  # fmt: skip

TEXTS = Catalog() | {
    "summary": "{count} cases",
    "fresh_case": "json_type(str) called twice; the caller added a key to the first result",
}

HINTS = Catalog(also=(function_cases.HINTS,)) | {
    "not_a_dict": 'Return a dict such as {{"type": "string"}}, not the name of the type.',
    "python_names": (
        'JSON Schema has its own names for the types: str is "string", int is "integer", float '
        'is "number", list is "array", dict is "object" (see the table).'
    ),
    "bool": (
        "bool came out as integer. bool is a subclass of int, so an issubclass() walk (or a "
        "test for int that comes first) catches it: test bool before int, or compare with `is`."
    ),
    "none": (
        'None and type(None) both become {{"type": "null"}} (get_type_hints turns a None '
        "annotation into type(None)): compare with `is`."
    ),
    "only_type": 'Return only {{"type": ...}}: the basic types have no other keys.',
    "one_name": (
        'Give one type name, not a list: int is "integer" alone. JSON counts an integer as a '
        "number too, but the schema of an int says only what it is."
    ),
    "in_table": (
        "{label} is in the table of 02.1, so json_type must return {expected} for it, not raise."
    ),
    "fresh": (
        "Return a new dict on every call (build it in the function, or copy the one from your "
        "table): the dict you return gets changed by whoever uses it."
    ),
    "no_raise": (
        "Anything outside the table must raise TypeError: a guessed schema gives the model wrong "
        "instructions and nobody notices."
    ),
    "text_annotation": (
        "The text 'str' is an annotation stored as a string, not the type str: json_type maps "
        "types only and raises TypeError for text. Turning text into types is the job of "
        "typing.get_type_hints, in parameters_schema (02.2)."
    ),
    "subclass": (
        "{label} is a subclass of {base}, not {base} itself: an issubclass() test maps it to "
        "{got} like every other subclass. Compare with `is` (or look the type up in a dict), so "
        "that only the seven annotations of the table are mapped."
    ),
    "parametrized": (
        "{label} is not the bare {base}: it also says what the items are, and {got} would drop "
        "that. json_type maps the seven annotations of the table only (compare with `is`); "
        "lesson 03 maps {label}."
    ),
}

TICKET = "class Ticket:\n    'A class of our own: nothing in the type map.'\n"
CITY_NAME = "class CityName(str):\n    'A str of our own: a subclass, not str itself.'\n"
OUTSIDE = (
    ("complex", ""), ("bytes", ""), ("object", ""), ("Ticket", TICKET), ("tuple", ""),
    ("str | None", ""), ("Optional[str]", "from typing import Optional\n"),
)  # fmt: skip
# Annotations an issubclass() or get_origin() lookup maps to a row of the table: (label, setup,
# the row's type, the hint that names that lookup).
LOOKALIKES = (
    ("CityName", CITY_NAME, "str", "subclass"),
    ("list[int]", "", "list", "parametrized"),
)  # fmt: skip
# The table of 02.1, in the notebook's order: each annotation (the case's label and source) and
# its JSON type.
JSON_NAMES = {
    "str": "string", "int": "integer", "float": "number", "bool": "boolean", "list": "array",
    "dict": "object", "None": "null", "type(None)": "null",
}  # fmt: skip
FRESH_CODE = """\
first = json_type(str)
if isinstance(first, dict):
    first["default"] = "北京"
second = json_type(str)
seen = dict(second) if isinstance(second, dict) else second
if isinstance(first, dict):
    first.pop("default", None)
"""


def expected_json_type(label: str) -> dict:
    """The oracle: exercise 02.1's table, by the annotation's label."""
    return {"type": JSON_NAMES[label]}


hint = HINTS.hint


def hints(label: str) -> list[Hint]:
    """Likely mistakes for ``json_type(label)``, most specific first (on the returned JSON)."""
    python_names = {"str", "int", "float", "bool", "list", "dict", "NoneType", "None"}
    return [
        (lambda got: isinstance(got, str), hint("not_a_dict")),
        (lambda got: label == "bool" and got == {"type": "integer"}, hint("bool")),
        (lambda got: label in ("None", "type(None)"), hint("none")),
        (lambda got: isinstance(got.get("type"), list), hint("one_name")),
        (lambda got: got.get("type") in python_names, hint("python_names")),
        (lambda got: set(got) != {"type"}, hint("only_type")),
    ]


def raised_hint(label: str) -> HintText:
    if label in ("None", "type(None)"):
        return hint("none")
    return hint("in_table", label=label, expected=json.dumps(expected_json_type(label)))


@exercise("02.1", notebook="02_reflection", title="json_type", points=1, rules=RULES, hints=HINTS)
def check_json_type(learner: Learner) -> str:
    in_table = [
        Case(f"json_type({label})", (learner.source(label),), expected_json_type(label),
             hints(label), raised=[(lambda r: True, raised_hint(label))])
        for label in JSON_NAMES
    ]  # fmt: skip
    lookalikes = [
        (label, setup, hint(key, label=label, base=base, got=json.dumps(expected_json_type(base))))
        for label, setup, base, key in LOOKALIKES
    ]
    refused = [
        *(refusal(learner, label, setup, hint("no_raise")) for label, setup in OUTSIDE),
        *(refusal(learner, *row) for row in lookalikes),
        refusal(learner, TEXT_ANNOTATION, "", hint("text_annotation"), names=["str"]),
    ]
    count = run_cases(learner, "json_type", in_table)
    count += expect_refusals(learner, "json_type", refused)
    case = TEXTS.text("fresh_case")  # RULES[4].case, in the learner's language
    reply = learner.run(FRESH_CODE, result="seen", bind={"json_type": learner.target("json_type")})
    if reply.raised:
        raise_learner_error(case, reply, [(lambda r: True, raised_hint("str"))])
    expect_equal(case, {"type": "string"}, reply.value, hint=hint("fresh"))
    return TEXTS.text("summary", count=count + 1)


def refusal(
    learner: Learner, label: str, setup: str, no_raise: HintText, names: list[str] | None = None
) -> Refusal:
    """``json_type(label)`` must raise TypeError naming ``label`` (or ``names``)."""
    spec = Source(label, setup).spec(learner)
    return Refusal(f"json_type({label})", (spec,), names or [label], no_raise)
