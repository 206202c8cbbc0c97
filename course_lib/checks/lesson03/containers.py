"""Exercise 03.3, ``container_schema(annotation, json_type) -> dict``: lists, tuples, sets, dicts.

The check passes its own json_type (``_annotation_cases.GIVEN``) for the contents.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

import random
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
    return f"container_schema({expr}, json_type)"


# A case label's words, in the learner's language (made at import for the rules' ``case`` and
# again at a failure).
CASE_TEXTS = {
    "marked": "container_schema({expr}, json_type), with a json_type that marks every part",
}


def marked_case_of(expr: str) -> str:
    return translate(CASE_TEXTS, "marked", expr=expr)


VISIBLE = (
    "list[str]", "list", "List[int]", "List", "tuple[int, ...]", "tuple[float, float]",
    "tuple[str, int, bool]", "tuple", "set[str]", "frozenset[int]", "set", "Set", "dict[str, int]",
    "dict", "Dict", "list[Unit]", "dict[str, list[int]]",
)  # fmt: skip
MARKED = ("list[int]", "tuple[float, str]", "dict[str, bool]")  # code mapping int itself fails
REFUSED = (
    ("dict[int, str]", "dict", "dict_keys"),
    ("int", "int", "not_container"),
    ("Optional[list[int]]", "Optional", "not_container"),
    ("str", "str", "not_container"),  # a str is a sequence, not a list
    ("typing.Sequence[int]", "Sequence", "not_container"),  # an abstract one, not the table's
)

RULES = (
    Rule("list_items", '`list[T]` (also `typing.List[T]`) is `{"type": "array", "items": '
         "json_type(T)}`", case=case_of("list[str]"), hint="items"),
    Rule("bare", 'a bare `list` or `tuple` is `{"type": "array"}`, a bare `set` or `frozenset` '
         'adds `"uniqueItems": true`, a bare `dict` is `{"type": "object"}`', case=case_of("list"),
         hint="bare"),
    Rule("bare_alias", "`typing.List`, `typing.Dict`, `typing.Set`, `typing.Tuple` without `[...]` "
         "are the bare ones (`typing.get_origin` gives `list`, ..., `typing.get_args` gives `()`)",
         case=case_of("List"), hint="bare_alias"),
    Rule("tuple_any", '`tuple[T, ...]` has `"items"`, like a list', case=case_of("tuple[int, ...]"),
         hint="tuple_ellipsis"),
    Rule("tuple_fixed", 'a fixed-length `tuple[A, B]` has `"prefixItems": [json_type(A), '
         'json_type(B)]`, `"minItems": 2` and `"maxItems": 2`', case=case_of("tuple[float, float]"),
         hint="prefix_items"),
    Rule("set", '`set[T]` and `frozenset[T]` also have `"uniqueItems": true`',
         case=case_of("set[str]"), hint="unique"),
    Rule("dict", '`dict[str, V]` is `{"type": "object", "additionalProperties": json_type(V)}`',
         case=case_of("dict[str, int]"), hint="additional"),
    Rule("given", "the contents come from the `json_type` you were given, whatever they are",
         case=case_of("list[Unit]"), hint="use_given"),
    Rule("given_basic", "`int` included (some cases pass a `json_type` that marks every part)",
         case=marked_case_of("list[int]"), hint="use_given"),
    Rule("dict_keys", "a `dict` whose keys are not `str` raises `TypeError`",
         case=case_of("dict[int, str]"), hint="dict_keys"),
    Rule("refuse", "so does anything that is not a list, tuple, set, frozenset or dict (a `str`)",
         case=case_of("int"), hint="not_container"),
    Rule("refuse_abstract", "an abstract container too (`typing.Sequence[int]`)",
         case=case_of("typing.Sequence[int]"), hint="not_container"),
    Rule("names_it", "and every message names the annotation", case=case_of("dict[int, str]"),
         hint="type_error_names"),
)  # fmt: skip

TEXTS = Catalog() | {
    "summary": "{visible} visible and {hidden} hidden containers, {refused} refused"
}

HINTS = Catalog(also=(function_cases.HINTS,)) | {
    "not_a_dict": 'Return a dict such as {{"type": "array", "items": ...}}.',
    "items": (
        'A container needs to say what it holds: list[T] becomes {{"type": "array", "items": '
        "<json_type of T>}}."
    ),
    "bare": (
        'A container without [...] holds anything: list and tuple are {{"type": "array"}}, '
        'set and frozenset add "uniqueItems": true, dict is {{"type": "object"}}, and there are '
        "no items to describe."
    ),
    "bare_alias": (
        "typing.List, typing.Dict, ... without [...] are the bare containers: typing.get_origin() "
        "gives list, dict, ... and typing.get_args() gives (), so treat them like bare list, dict."
    ),
    "tuple_ellipsis": (
        "tuple[T, ...] is a tuple of any length whose items are all T: "
        '{{"type": "array", "items": <json_type of T>}}, like a list. The ... is not a type.'
    ),
    "prefix_items": (
        "A fixed-length tuple[A, B] lists one schema per position: "
        '{{"type": "array", "prefixItems": [A, B], "minItems": 2, "maxItems": 2}}; only '
        'tuple[T, ...] uses "items".'
    ),
    "tuple_length": (
        'A fixed-length tuple also says its length: "minItems" and "maxItems" are both the '
        'number of positions, and nothing else ("items" is for tuple[T, ...] only).'
    ),
    "unique": 'A set or frozenset is an array whose items are unique: add "uniqueItems": true.',
    "additional": (
        'dict[str, V] becomes {{"type": "object", "additionalProperties": <json_type of V>}}: '
        "the values need a schema too."
    ),
    "use_given": (
        "Call the json_type you are given for the contents: it is whatever json_type(T) returns "
        '(the check\'s json_type marks what it would hand on, as {{"$comment": '
        '"json_type(Unit)"}}).'
    ),
    "dict_keys": (
        "JSON object keys are always strings: raise TypeError for a dict whose keys are not str."
    ),
    "not_container": (
        "{annotation} is not a list, tuple, set or dict: raise TypeError naming it; json_type "
        "(03.4) decides what else to do with it."
    ),
    "must_not_raise": "{annotation} is a container the table covers: return its schema.",
}


hint = HINTS.hint


def expected_container(value: Any, json_type: Any = None) -> dict:
    """The oracle: the container's keyword, its contents through ``json_type``."""
    json_type = json_type or given_json_type()
    origin = typing.get_origin(value) or value
    args = typing.get_args(value)
    if origin in (list, tuple) and not args:
        return {"type": "array"}
    if origin is list:
        return {"type": "array", "items": json_type(args[0])}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": json_type(args[0])}
        prefix = [json_type(arg) for arg in args]
        return {
            "type": "array",
            "prefixItems": prefix,
            "minItems": len(args),
            "maxItems": len(args),
        }
    if origin in (set, frozenset):
        schema: dict = {"type": "array", "uniqueItems": True}
        if args:
            schema["items"] = json_type(args[0])
        return schema
    if origin is dict and not args:
        return {"type": "object"}
    if origin is dict and args[0] is str:
        return {"type": "object", "additionalProperties": json_type(args[1])}
    raise TypeError(f"not a container of 03.3: {value!r}")


_INNER = ("str", "int", "float", "bool", "None", "Unit", "list[int]", "int | None")


def random_container(rng: random.Random) -> str:
    inner = [rng.choice(_INNER) for _ in range(3)]
    form = rng.randrange(7)
    if form == 0:
        return f"{rng.choice(['list', 'List'])}[{inner[0]}]"
    if form == 1:
        return f"tuple[{inner[0]}, ...]"
    if form == 2:
        return f"tuple[{', '.join(inner[: rng.randint(1, 3)])}]"
    if form == 3:
        return f"{rng.choice(['set', 'frozenset'])}[{rng.choice(['str', 'int', 'Unit'])}]"
    if form == 4:
        return f"{rng.choice(['dict', 'Dict'])}[str, {inner[0]}]"
    return rng.choice(["list", "tuple", "set", "frozenset", "dict", "List", "Dict", "Tuple"])


def hints(value: Any, expected: dict, json_type: Any = None) -> list[Hint]:
    """Likely mistakes, most specific first (``json_type``, which 03.1's hints read, is unused)."""
    bare = not typing.get_args(value)
    length = {key: expected.get(key) for key in ("minItems", "maxItems", "items")}
    return [
        (lambda g: not isinstance(g, dict), hint("not_a_dict")),
        (lambda g: "prefixItems" in expected and "prefixItems" not in g, hint("prefix_items")),
        (lambda g: "prefixItems" in expected
         and {key: g.get(key) for key in length} != length, hint("tuple_length")),
        (lambda g: "prefixItems" not in expected and "prefixItems" in g, hint("tuple_ellipsis")),
        (lambda g: expected.get("uniqueItems") and not g.get("uniqueItems"), hint("unique")),
        (lambda g: "items" in expected and "items" not in g, hint("items")),
        (lambda g: "additionalProperties" in expected and "additionalProperties" not in g,
         hint("additional")),
        (lambda g: bare, hint("bare")),
        (lambda g: True, hint("use_given")),
    ]  # fmt: skip


def raised_hints(value: Any, expr: str) -> list[tuple[Any, HintText]]:
    bare = not typing.get_args(value)
    alias = bare and value not in (list, tuple, set, frozenset, dict)
    ellipsis = Ellipsis in typing.get_args(value)
    return [
        (lambda r: alias, hint("bare_alias")),
        (lambda r: bare, hint("bare")),
        (lambda r: ellipsis, hint("tuple_ellipsis")),
        (lambda r: "Unit" in expr, hint("use_given")),
        (lambda r: True, hint("must_not_raise", annotation=expr)),
    ]


@exercise(
    "03.3", notebook="03_pitfalls", title="container_schema", points=2, rules=RULES, hints=HINTS
)
def check_container_schema(learner: Learner) -> str:
    rng = hidden_rng("03.3")
    hidden = [random_container(rng) for _ in range(30)]
    run_given(
        learner,
        "container_schema",
        labels=(case_of, marked_case_of),
        exprs=(*VISIBLE, *hidden),
        marked=MARKED,
        refused=REFUSED,
        expected=expected_container,
        hints=hints,
        raised=raised_hints,
        hint=hint,
    )
    shown = len(VISIBLE) + len(MARKED)
    return TEXTS.text("summary", visible=shown, hidden=len(hidden), refused=len(REFUSED))
