"""Exercise 03.4, ``json_type(annotation) -> dict``, second version: 03.1-03.3 combined.

Hidden annotations come from a small grammar (scalars, Literal, Enum, unions, containers,
nested). A failure is reported on the smallest part of the annotation that fails on its own: a
recursive json_type gets that part wrong wherever it appears, and a short case reads whole.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.

One module because it is one exercise's check: the contract and hint tables, the grammar of
hidden annotations and the search for the smallest failing part all work on the same case
type (``case_of``); split, each part would import every other.
"""

from __future__ import annotations

import enum
import random
import types
import typing
from typing import Any, Literal

from course_lib.checks import function_cases
from course_lib.checks import parameter_schemas as schemas
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import (
    HintText,
    fail,
    first_difference,
    hidden_rng,
    matching_hint,
    where_they_differ,
)
from course_lib.checks.core import Rule, exercise
from course_lib.checks.function_cases import after_earlier, expect_refusals, local, returned_json
from course_lib.checks.learner import Learner, raise_learner_error
from course_lib.checks.lesson03 import containers
from course_lib.checks.lesson03._annotation_cases import SETUP, annotation, refusals
from course_lib.checks.lesson03.enums import expected_enum
from course_lib.checks.lesson03.enums import hints as enum_hints
from course_lib.checks.lesson03.schema_hints import schema_hint
from course_lib.i18n import translate


def case_of(expr: str) -> str:
    return f"json_type({expr})"


VISIBLE = (
    "bool", "None", "int | None", "Optional[int]", "Union[int, str]", "Optional[Union[int, str]]",
    "Literal['北京', '上海']", "Literal[1, 2, 3]", "Literal[0.5, 1.5]", "Unit", "Priority", "City",
    "list[str]",
    "List[int]", "tuple[float, float]", "tuple[int, ...]", "set[str]", "frozenset[int]",
    "dict[str, int]", "list[int | None]", "list[dict[str, int | None]]",
    "Optional[Literal['c', 'f']]", "list", "set", "dict", "tuple", "List", "Dict",
)  # fmt: skip
# (source, the text the TypeError must contain, the hint key when nothing is raised)
REFUSED = (
    ("complex", "complex", "no_raise"),
    ("Ticket", "Ticket", "no_raise"),
    ("Booking", "Booking", "dataclass"),
    ("'int'", "int", "string_annotation"),
    ("typing.Any", "Any", "any"),
    ("object", "object", "any"),
    ("list[Ticket]", "Ticket", "deep"),
    ("dict[int, str]", "dict", "dict_keys"),
    ("Literal[1, 'one']", "Literal", "enum_refused"),
    ("Literal[None]", "Literal", "enum_refused"),
    ("Nothing", "Nothing", "enum_refused"),
)
# A case label's words, in the learner's language (made at import for the rules' ``case`` and
# again at a failure).
CASE_TEXTS = {
    "fresh": "json_type({source}) called twice; the caller changed the first result",
    "part_of": "{part}, a part of {whole}",
}


def fresh_case(source: str) -> str:
    return translate(CASE_TEXTS, "fresh", source=source)


RULES = (
    Rule("bool", '`bool` is `"boolean"`, never `"integer"` (and `str`, `int`, `float`, `None` as '
         "in 02.1)", case=case_of("bool"), hint="bool"),
    Rule("unions", "a union is `union_schema(annotation, json_type)`", case=case_of("int | None"),
         hint="union_part"),
    Rule("enums", "a `Literal` or an `Enum` is `enum_schema(annotation)`",
         case=case_of("Literal['北京', '上海']"), hint="enum_part"),
    Rule("enum_first", "an `Enum` is recognised before the scalars: `Priority`, an `IntEnum`, is "
         "an enum, not an integer", case=case_of("Priority"), hint="enum_first"),
    Rule("containers", "a container is `container_schema(annotation, json_type)`",
         case=case_of("list[str]"), hint="container_part"),
    Rule("nested", "the parts get `json_type` itself, so annotations nest: `list[int | None]` is "
         '`{"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}`',
         case=case_of("list[int | None]"), hint="nested"),
    Rule("fresh", "every call returns new dicts and lists, nested ones too: whoever uses the "
         'result adds `"default"` to it, so never return a constant such as `NULL = {"type": '
         '"null"}`', case=fresh_case("None"), hint="fresh"),
    Rule("refuse", "anything else raises `TypeError`", case=case_of("complex"), hint="no_raise"),
    Rule("names_it", "with a message that names the annotation (`complex`, a class or a dataclass "
         "of your own)", case=case_of("complex"), hint="type_error_names"),
    Rule("strings", 'a string annotation such as `"int"` raises `TypeError` too: resolving it is '
         "03.5's job, in the function's own module", case=case_of("'int'"),
         hint="string_annotation"),
    Rule("any", "so do `typing.Any` and `object`: a parameter that accepts anything tells the "
         "model nothing", case=case_of("typing.Any"), hint="any"),
    Rule("deep", "so does a container of something it cannot map: the `TypeError` of "
         "`list[Ticket]`'s items reaches the caller", case=case_of("list[Ticket]"), hint="deep"),
)  # fmt: skip

TEXTS = Catalog() | {
    "summary": "{visible} visible and {hidden} hidden annotations, {refused} refused",
    "title": "json_type, second version",
}

HINTS = Catalog(also=(function_cases.HINTS, schemas.HINTS)) | {
    "union_part": (
        "{annotation} is a union (typing.Union or types.UnionType: accept both origins): "
        "return union_schema(annotation, json_type), passing json_type itself for the members."
    ),
    "enum_part": "{annotation} is a Literal or an Enum: return enum_schema(annotation).",
    "enum_first": (
        "{annotation} is an Enum that is also an int or a str (IntEnum, a str mixin): test for "
        "Enum before the scalars, or compare scalars with `is`, so it becomes an enum."
    ),
    "container_part": (
        "{annotation} is a container: return container_schema(annotation, json_type), passing "
        "json_type itself for the contents."
    ),
    "nested": (
        "The contents and members of {annotation} are annotations themselves: pass json_type "
        "itself to union_schema and container_schema, so every part is mapped the same way."
    ),
    "fresh": (
        "Return new dicts on every call, nested ones included: whoever uses the result adds "
        '"default" or "description" to it, and a dict (or list) kept in a table or a constant '
        "then changes for every later caller. Build it inside json_type, or copy it."
    ),
    "no_raise": (
        "Anything outside the table must raise TypeError naming it, never get a guessed schema."
    ),
    "dataclass": (
        "Booking is a dataclass, a class of your own: 03.4 refuses it with TypeError naming it. "
        "(The reference library describes a dataclass as an object of its fields; 03.4 keeps to "
        "the table.)"
    ),
    "string_annotation": (
        "A string annotation must not become a schema: raise TypeError and say to resolve "
        "annotations with typing.get_type_hints() first (03.5). Evaluating the text here would "
        "look names up in the wrong module."
    ),
    "any": (
        "typing.Any and object tell the model nothing about what to send: in 03.4 they are "
        "outside the table, so raise TypeError. (The reference library maps them to {{}} on "
        "purpose; the notebook explains why the two differ.)"
    ),
    "deep": (
        "Containers are checked all the way down: the items of list[Ticket] cannot be mapped, so "
        "the TypeError from json_type(Ticket) must reach the caller, not become a bare array."
    ),
    "dict_keys": containers.HINTS["dict_keys"],
    "enum_refused": (
        "enum_schema (03.2) refuses {annotation}: let its TypeError through, do not catch it or "
        "guess a schema."
    ),
    "must_not_raise": (
        "{annotation} is in the table of 03.4, so json_type must not raise for it: which part "
        "raised? Run json_type on its members or contents one by one."
    ),
}


hint = HINTS.hint


# --- the oracle ----------------------------------------------------------------------------

SCALARS = {bool: "boolean", int: "integer", float: "number", str: "string"}


def expected_schema(value: Any) -> dict:
    """03.4's contract: 03.1-03.3 combined, with itself for the parts."""
    if value is None or value is type(None):
        return {"type": "null"}
    origin = typing.get_origin(value)
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [expected_schema(member) for member in typing.get_args(value)]}
    if origin is Literal or (isinstance(value, type) and issubclass(value, enum.Enum)):
        return expected_enum(value)
    for python_type, name in SCALARS.items():
        if value is python_type:
            return {"type": name}
    if (origin or value) in (list, tuple, set, frozenset, dict):
        return containers.expected_container(value, expected_schema)
    raise TypeError(f"not in the table of 03.4: {value!r}")


# --- hidden annotations --------------------------------------------------------------------

_LEAVES = (
    "str", "int", "float", "bool", "Unit", "Priority", "City",
    "Literal['北京', '上海', 'Paris']", "Literal[1, 2, 3]", "Literal['c', 'f']", "Literal[True]",
    "list", "dict", "tuple", "set", "Tuple", "Set",
)  # fmt: skip
_HASHABLE = ("str", "int", "bool", "City", "Literal['c', 'f']", "Priority")


def evaluate(source: str) -> Any:
    return local(SETUP, source)


def random_annotation(rng: random.Random, depth: int = 0) -> str:
    """The source text of a random annotation from the grammar of exercise 03.4."""
    if depth >= 3 or rng.random() < 0.3:
        return rng.choice(_LEAVES)
    inner = random_annotation(rng, depth + 1)
    form = rng.randrange(11)
    if form in (0, 1):
        return f"{('list', 'List')[form]}[{inner}]"
    if form == 2:
        return f"dict[str, {inner}]"
    if form == 3:
        return f"tuple[{inner}, ...]"
    if form == 4:
        extra = [random_annotation(rng, depth + 1) for _ in range(rng.randint(1, 2))]
        return f"tuple[{', '.join([inner, *extra])}]"
    if form == 5:
        return f"{rng.choice(['set', 'frozenset'])}[{rng.choice(_HASHABLE)}]"
    first = evaluate(inner)
    if form in (6, 7, 8):
        if _nullable(first):  # `X | None | None` would be written, and read, as `X | None`
            return inner
        return f"Optional[{inner}]" if form == 8 else f"{inner} | None"
    other = random_annotation(rng, depth + 1)
    second = evaluate(other)
    if _nullable(first) or _nullable(second) or _schemas_collide(first, second):
        return inner if _nullable(first) else f"Optional[{inner}]"
    return f"Union[{inner}, {other}]" if form == 9 else f"{inner} | {other}"


def _nullable(value: Any) -> bool:
    return value in (None, type(None)) or type(None) in typing.get_args(value)


def _schemas_collide(first: Any, second: Any) -> bool:
    """Would Union[first, second] hold two members with the same schema (or flatten oddly)?"""
    try:
        branches = expected_schema(typing.Union[first, second]).get("anyOf")
    except TypeError:
        return True
    if not branches:  # the union collapsed to one member
        return True
    return any(branches.count(branch) > 1 for branch in branches)


# --- the smallest failing part ---------------------------------------------------------------


def parts(value: Any) -> list[Any]:
    """The annotations inside ``value`` (members, items, values), innermost first."""
    origin = typing.get_origin(value)
    if origin is None or origin is Literal:
        return []
    found: list[Any] = []
    for arg in typing.get_args(value):
        if arg is not Ellipsis:
            found.extend([*parts(arg), arg])
    return found


def source_of(value: Any) -> str | None:
    """How the annotation is written in a notebook (`int | None`, `Unit`, `list[str]`), or
    ``None`` when that text does not build the same annotation again."""
    if value is type(None):
        return "None"
    plain = isinstance(value, type) and typing.get_origin(value) is None
    text = value.__name__ if plain else repr(value)
    text = text.replace("typing.", "").replace("check_case.", "")
    try:
        return text if evaluate(text) == value else None
    except Exception:  # noqa: BLE001 (a text that does not evaluate is no case)
        return None


def agrees(learner: Learner, source: str) -> bool:
    reply = learner.attempt("json_type", annotation(source).spec(learner))
    if not reply.returned:
        return False
    return first_difference(expected_schema(evaluate(source)), reply.value) is None


def smallest_failing(learner: Learner, source: str) -> str:
    """``source``, or the first of its parts for which the learner's json_type fails alone."""
    for part in parts(evaluate(source)):
        text = source_of(part)
        if text is not None and not agrees(learner, text):
            return text
    return source


def raised_hint(value: Any, source: str) -> HintText:
    origin = typing.get_origin(value)
    if origin in (typing.Union, types.UnionType):
        nested = any(typing.get_args(member) for member in typing.get_args(value))
        return hint("nested" if nested else "union_part", annotation=source)
    if origin is Literal or (isinstance(value, type) and issubclass(value, enum.Enum)):
        return hint("enum_part", annotation=source)
    if (origin or value) in (list, tuple, set, frozenset, dict):
        inner = [arg for arg in typing.get_args(value) if arg is not Ellipsis]
        nested = any(arg not in SCALARS and arg is not type(None) for arg in inner)
        nested = nested or any(typing.get_args(arg) for arg in inner)
        return hint("nested" if nested else "container_part", annotation=source)
    return hint("must_not_raise", annotation=source)


def schema_mistake(value: Any, source: str, expected: dict, got: Any) -> HintText | None:
    """The hint for a wrong schema of ``value`` at the top (03.4's own mistakes first)."""
    if not isinstance(got, dict):
        return None
    if isinstance(value, type) and issubclass(value, enum.Enum) and "enum" not in got:
        if issubclass(value, int | str):
            return hint("enum_first", annotation=source)
        return hint("enum_part", annotation=source)
    if typing.get_origin(value) is Literal and "enum" not in got:
        return hint("enum_part", annotation=source)
    if "enum" in expected:  # the mistakes 03.2 names: names for values, the values' type, order
        found = matching_hint(got, enum_hints(value, expected))
        if found is not None:
            return found
    if expected == {"type": "boolean"} and got.get("type") == "integer":
        return hint("bool")
    return schema_hint(expected, got)


def check_annotation(learner: Learner, source: str, label: str) -> None:
    __tracebackhide__ = True
    if agrees(learner, source):
        return
    part = smallest_failing(learner, source)
    case = case_of(part)
    if part != source:
        case = translate(CASE_TEXTS, "part_of", part=case, whole=label)
    value = evaluate(part)
    expected = expected_schema(value)
    raised = [(lambda r: True, raised_hint(value, part))]
    reply = learner.call("json_type", annotation(part).spec(learner), case=case, hints=raised)
    got = returned_json(case, reply, expected)
    where = where_they_differ(expected, got)
    fail(case, expected, got, schema_mistake(value, part, expected, got), where=where)


FRESH_CODE = """\
import copy
MARK = "changed by the caller"
first = json_type(annotation)
changed, stack = [], [first]
while stack:
    item = stack.pop()
    if isinstance(item, dict):
        changed.append(item)
        stack.extend(item.values())
    elif isinstance(item, list):
        changed.append(item)
        stack.extend(item)
for item in changed:
    if isinstance(item, dict):
        item["default"] = MARK
    else:
        item.append(MARK)
try:
    seen = copy.deepcopy(json_type(annotation))
finally:
    for item in changed:
        if isinstance(item, dict):
            item.pop("default", None)
        elif item and item[-1] == MARK:
            item.pop()
"""


def check_fresh(learner: Learner, source: str) -> None:
    """Change every dict and list of a first result; a second call must not see the change.
    The change is undone afterwards, so a shared constant of the learner's is left as it was
    and the next run of the check reports the same case again."""
    __tracebackhide__ = True
    case = fresh_case(source)
    expected = expected_schema(evaluate(source))
    bind = {
        "json_type": learner.target("json_type"),
        "annotation": annotation(source).spec(learner),
    }
    reply = learner.run(FRESH_CODE, result="seen", bind=bind)
    if reply.raised:
        raise_learner_error(case, reply, [(lambda r: True, raised_hint(evaluate(source), source))])
    got = returned_json(case, reply, expected)
    if first_difference(expected, got) is not None:
        fail(case, expected, got, hint("fresh"))


def run(learner: Learner) -> str:
    rng = hidden_rng("03.4")
    hidden = [random_annotation(rng) for _ in range(80)]
    for source in (*VISIBLE, *hidden):
        check_annotation(learner, source, case_of(source))
    expect_refusals(learner, "json_type", refusals(learner, case_of, REFUSED, hint))
    for source in VISIBLE:
        check_fresh(learner, source)
    return TEXTS.text("summary", visible=len(VISIBLE), hidden=len(hidden), refused=len(REFUSED))


EARLIER = (("union_schema", "03.1"), ("enum_schema", "03.2"), ("container_schema", "03.3"))


@exercise("03.4", notebook="03_pitfalls", title=HintText.of(TEXTS, "title"), points=2,
          targets=("json_type",), rules=RULES, hints=HINTS)  # fmt: skip
def check_json_type(learner: Learner) -> str:
    return after_earlier(learner, "json_type", EARLIER, lambda: run(learner))
