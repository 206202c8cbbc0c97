"""Exercise 03.1, ``union_schema(annotation, json_type) -> dict``: unions and null as ``anyOf``.

The check passes its own json_type (``_annotation_cases.GIVEN``); the expected value is
``{"anyOf": [json_type(m) for m in typing.get_args(annotation)]}``.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

import random
import types
import typing
from typing import Any

from course_lib.checks import function_cases
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Hint, HintText, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson03._annotation_cases import given_json_type, run_given
from course_lib.i18n import translate


def case_of(expr: str) -> str:
    return f"union_schema({expr}, json_type)"


# A case label's words, in the learner's language (made at import for the rules' ``case`` and
# again at a failure).
CASE_TEXTS = {"marked": "union_schema({expr}, json_type), with a json_type that marks every member"}


def marked_case_of(expr: str) -> str:
    return translate(CASE_TEXTS, "marked", expr=expr)


VISIBLE = (
    "Optional[int]", "int | None", "Union[int, str]", "str | int | None",
    "Optional[Union[int, str]]", "Union[list[str], None]", "dict[str, int] | Literal['c', 'f']",
    "Unit | None", "Union[bool, int, float]",
)  # fmt: skip
MARKED = ("Optional[int]", "int | str | None")  # code that maps int or None itself fails here
NOT_UNIONS = (
    ("list[int]", "list", "not_a_union"),
    ("int", "int", "not_a_union"),
    ("Literal['c', 'f']", "Literal", "not_a_union"),
)

RULES = (
    Rule("typing_union", "`Optional[X]` and `Union[A, B]` (origin `typing.Union`) are unions",
         case=case_of("Optional[int]"), hint="typing_union"),
    Rule("any_of", 'the result is `{"anyOf": [...]}` with one branch per member (not the type-list '
         "form)", case=case_of("Optional[int]"), hint="type_list"),
    Rule("null_kept", "`None` is a member, so the model may send `null`",
         case=case_of("Optional[int]"), hint="null_dropped"),
    Rule("null_given", "its branch is `json_type(type(None))` too, never a constant (some cases "
         "pass a `json_type` that marks every member, `int` and `None` included)",
         case=marked_case_of("Optional[int]"), hint="use_given"),
    Rule("order", "the branches are in the order `typing.get_args` gives the members",
         case=case_of("Optional[int]"), hint="order"),
    Rule("union_type", "`X | None` and `A | B` (origin `types.UnionType`) are unions too",
         case=case_of("int | None"), hint="union_type"),
    Rule("every_member", "every member is kept: `Union[int, str]` has two branches",
         case=case_of("Union[int, str]"), hint="collapsed"),
    Rule("given", "each branch is `json_type(member)`, with the `json_type` you were given",
         case=case_of("Union[list[str], None]"), hint="use_given"),
    Rule("refuse", "anything that is not a union raises `TypeError`", case=case_of("list[int]"),
         hint="not_a_union"),
    Rule("names_it", "with a message that names the annotation", case=case_of("list[int]"),
         hint="type_error_names"),
)  # fmt: skip

TEXTS = Catalog() | {"summary": "{visible} visible and {hidden} hidden unions, {refused} refused"}

HINTS = Catalog(also=(function_cases.HINTS,)) | {
    "not_a_dict": 'Return a dict: {{"anyOf": [...]}}.',
    "type_list": (
        'A list of types such as {{"type": ["integer", "null"]}} accepts the same values, so it '
        "is equivalent, but this exercise asks for the form that works for every member: "
        '{{"anyOf": [<json_type of each member>]}}.'
    ),
    "null_dropped": (
        'The null branch was dropped: `Optional[X]` and `X | None` become {{"anyOf": [<json_type '
        'of X>, {{"type": "null"}}]}}, so the model may send null. None is a member like any '
        "other: typing.get_args gives it as type(None)."
    ),
    "collapsed": (
        'The union collapsed to one member: Union[A, B] becomes {{"anyOf": [<json_type of A>, '
        "<json_type of B>]}}, every member kept."
    ),
    "order": "Keep the branches in the order typing.get_args() gives the members.",
    "as_string": (
        "The union became a plain string: your code did not recognise it and fell back to "
        "string. Unions have the origin typing.Union (Optional[X], Union[A, B]) or "
        "types.UnionType (`X | None`); typing.get_args() gives the members."
    ),
    "typing_union": (
        "Optional[X] and Union[A, B] have the origin typing.Union (`A | B` has "
        "types.UnionType): accept both; typing.get_args() gives the members."
    ),
    "union_type": (
        "`A | B` (and `X | None`) is a types.UnionType, not a typing.Union: typing.get_origin() "
        "returns types.UnionType for it. Accept both origins; typing.get_args() reads both."
    ),
    "use_given": (
        "Call the json_type you are given for each member: json_type(member) is the branch, "
        "whatever the member is (the check's json_type marks what it would hand on, as "
        '{{"$comment": "json_type(list[str])"}}).'
    ),
    "not_a_union": (
        "{annotation} is not a union: raise TypeError naming it. Its typing.get_args() are not "
        "members of a union, and an anyOf built from them would describe something else."
    ),
    "must_not_raise": "{annotation} is a union: return its anyOf, do not raise.",
}


hint = HINTS.hint


def expected_union(value: Any, json_type: Any = None) -> dict:
    """The oracle: every member through the check's json_type, in ``get_args`` order."""
    json_type = json_type or given_json_type()
    return {"anyOf": [json_type(member) for member in typing.get_args(value)]}


_MEMBERS = (
    "int", "str", "float", "bool", "None", "list[int]", "list[str]", "Unit", "City",
    "Literal['北京', '上海']", "dict[str, float]", "tuple[int, int]", "set[str]",
)  # fmt: skip


def random_union(rng: random.Random) -> str:
    """A union of two to four distinct members, written in one of the three spellings."""
    chosen = rng.sample(_MEMBERS, rng.randint(2, 4))
    form = rng.randrange(3)
    if form == 0 and len(chosen) == 2 and "None" in chosen:
        other = next(member for member in chosen if member != "None")
        return f"Optional[{other}]"
    if form == 1 or chosen[0] in ("None", "Literal['北京', '上海']"):
        return f"Union[{', '.join(chosen)}]"
    return " | ".join(chosen)


def hints(value: Any, expected: dict, json_type: Any = None) -> list[Hint]:
    branches = expected["anyOf"]
    json_type = json_type or given_json_type()
    non_null = [json_type(m) for m in typing.get_args(value) if m is not type(None)]
    null = {"type": "null"} in branches
    return [
        (lambda g: not isinstance(g, dict), hint("not_a_dict")),
        (lambda g: "anyOf" not in g and isinstance(g.get("type"), list), hint("type_list")),
        (lambda g: g == {"type": "string"} and {"type": "string"} not in branches,
         hint("as_string")),
        (lambda g: null and "anyOf" not in g and g in non_null, hint("null_dropped")),
        (lambda g: "anyOf" not in g and g in branches, hint("collapsed")),
        (lambda g: null and {"type": "null"} not in g["anyOf"], hint("null_dropped")),
        (lambda g: len(g["anyOf"]) < len(branches) and all(b in branches for b in g["anyOf"]),
         hint("collapsed")),
        (lambda g: sorted(map(repr, g["anyOf"])) == sorted(map(repr, branches)), hint("order")),
        (lambda g: True, hint("use_given")),
    ]  # fmt: skip


def raised_hint(value: Any, expr: str) -> list[tuple[Any, HintText]]:
    origin = typing.get_origin(value)
    return [
        # A member the check's json_type marks: code mapping members itself fails there.
        (lambda r: any("$comment" in given_json_type()(m) for m in typing.get_args(value)),
         hint("use_given")),
        (lambda r: origin is types.UnionType and origin is not typing.Union, hint("union_type")),
        (lambda r: origin is typing.Union, hint("typing_union")),
        (lambda r: True, hint("must_not_raise", annotation=expr)),
    ]  # fmt: skip


@exercise("03.1", notebook="03_pitfalls", title="union_schema", points=1, rules=RULES, hints=HINTS)
def check_union_schema(learner: Learner) -> str:
    rng = hidden_rng("03.1")
    hidden = [random_union(rng) for _ in range(30)]
    run_given(
        learner,
        "union_schema",
        labels=(case_of, marked_case_of),
        exprs=(*VISIBLE, *hidden),
        marked=MARKED,
        refused=NOT_UNIONS,
        expected=expected_union,
        hints=hints,
        raised=raised_hint,
        hint=hint,
    )
    shown = len(VISIBLE) + len(MARKED)
    return TEXTS.text("summary", visible=shown, hidden=len(hidden), refused=len(NOT_UNIONS))
