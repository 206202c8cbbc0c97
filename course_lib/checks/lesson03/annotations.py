"""Exercise 03.5, ``resolve_annotations(func) -> dict``: real types, whatever the module stored.

The result holds types, which are not JSON: a snippet beside the learner's code writes each one
as text with ``TYPE_TEXT`` (``'str'`` for a string, ``str`` for the class, ``int | None``), and
the oracle writes ``typing.get_type_hints`` of the same function with the same snippet.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

import inspect
import random
import re
import typing
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, fail, first_difference, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.function_cases import FunctionCase, expect_type_error, local, returned_json
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson03._annotation_cases import (
    function_with_classes,
    setup_for,
    spoken_label,
)
from course_lib.checks.lesson03.json_type import random_annotation
from course_lib.checks.parameter_schemas import NAMES

TYPE_TEXT = '''\
def type_text(value):
    """An annotation as text: 'str' (quoted) while it is a string, str once it is the class."""
    if isinstance(value, str):
        return repr(value)
    plain = isinstance(value, type) and typing.get_origin(value) is None
    text = value.__qualname__ if plain else repr(value)
    return text.replace("typing.", "").replace("check_case.", "")
'''
RUN = (
    TYPE_TEXT
    + """
result = resolve_annotations(func)
if isinstance(result, dict):
    answer = {"dict": {str(key): type_text(value) for key, value in result.items()}}
else:
    answer = {"kind": type(result).__name__}
"""
)

TEXTS = Catalog() | {
    "chained": "a TypeError raised from the NameError (`raise TypeError(...) from exc`)",
    "no_cause": "no cause",
    "a_kind": "a {kind}",
    "summary": "{visible} visible and {hidden} hidden functions, {refused} refused",
}
HOTEL = "@dataclass\nclass Hotel:\n    name: str\n    stars: int = 3\n\n\n"
TYPE_CHECKING_IMPORT = (
    "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from hotels import Hotel\n\n\n"
)
PLAN_TRIP = FunctionCase(
    "plan_trip", ("city: str", "days: int", "budget: float | None", "by_train: bool = True"),
    returns="str", future=True,
)  # fmt: skip
BOOK = FunctionCase(
    "book",
    ("hotel: 'Hotel'", "nights: int = 1"),
    returns="'Hotel'",
    before=HOTEL,
    context="where Hotel is a dataclass of that module",
)
GREET = FunctionCase("greet", ("name", "polite: bool = True"), returns="str")
VISIBLE = (
    PLAN_TRIP,
    BOOK,
    GREET,
    FunctionCase("查询天气", ("城市: str", "*", "天数: int = 3"), future=True),
    FunctionCase(
        "rate",
        ("city: City", "stars: Literal[1, 2, 3] = 3"),
        before=setup_for("City"),
        future=True,
        context="where City is an Enum of that module",
    ),  # fmt: skip
    FunctionCase("now", (), returns="str"),
)
FIND = FunctionCase(
    "find",
    ("hotel: Hotel", "city: str"),
    returns="list",
    future=True,
    before=TYPE_CHECKING_IMPORT,
    context="where Hotel is imported only under `if TYPE_CHECKING:`",
)
ROUTE = FunctionCase("route", ("city: 'Ctiy'", "days: int = 1"), context="a typo in 'Ctiy'")
UNRESOLVED = ((FIND, "Hotel"), (ROUTE, "Ctiy"))


def case_of(function: FunctionCase) -> str:
    return f"resolve_annotations({spoken_label(function)})"


RULES = (
    Rule("real_types", "annotations stored as text (the future import, or quotes such as `hotel: "
         '"Hotel"`) come back as real types: `typing.get_type_hints(func)` resolves them',
         case=case_of(PLAN_TRIP), hint="strings"),
    Rule("no_return", "only parameters: the return annotation is left out", case=case_of(PLAN_TRIP),
         hint="no_return"),
    Rule("own_module", "names are looked up in the function's own module (where the check's "
         '`book(hotel: "Hotel")` finds its dataclass `Hotel`), not with `eval` in yours',
         case=case_of(BOOK), hint="own_module"),
    Rule("unannotated", "a parameter without an annotation has no entry (03.6 refuses it, by name)",
         case=case_of(GREET), hint="unannotated"),
    Rule("type_error", "an annotation that cannot be resolved raises `TypeError`, not `NameError`: "
         "catch the `NameError` (`except NameError as exc:`)", case=case_of(FIND),
         hint="name_error"),
    Rule("names_it", "with a message that names the function and the name that could not be "
         "resolved (`find` and `Hotel` above)", case=case_of(FIND), hint="type_error_names"),
    Rule("from_exc", "and raise the `TypeError` from it, `raise TypeError(...) from exc`, so the "
         "traceback keeps the cause", case=case_of(FIND), hint="from_exc"),
)  # fmt: skip

HINTS = Catalog() | {
    "not_a_dict": "Return a dict from each annotated parameter's name to its type.",
    "strings": (
        "Some types came back as text, such as {text}: this function's module starts with `from "
        "__future__ import annotations` (or quotes the annotation), so Python stored the source "
        "text. typing.get_type_hints(func) evaluates it and gives the real types."
    ),
    "no_return": (
        "'return' is not a parameter: typing.get_type_hints() includes the return annotation; "
        "keep only the names of inspect.signature(func).parameters."
    ),
    "own_module": (
        "A name in an annotation belongs to the function's own module: typing.get_type_hints("
        "func) evaluates it in func.__globals__, where {name} is defined. eval() in your own "
        "module does not see it."
    ),
    "unannotated": (
        "A parameter without an annotation has no type to resolve: leave it out of the result "
        "(03.6 refuses it, by name)."
    ),
    "extra": "Only parameters with an annotation belong in the result.",
    "name_error": (
        "typing.get_type_hints raises NameError when a name in an annotation does not exist in "
        "the module (a typo, or a name imported only under `if TYPE_CHECKING:`): catch it and "
        "raise TypeError naming the function and the name, `raise TypeError(...) from exc`."
    ),
    "must_not_raise": (
        "Every annotation of this function can be resolved in its module: return the types."
    ),
    "from_exc": (
        "Your TypeError is right, but it was not raised from the NameError ({cause}): write "
        "`raise TypeError(...) from exc` inside `except NameError as exc:`, so the traceback "
        "still shows where the name was looked up and what was missing."
    ),
}


hint = HINTS.hint


def expected_types(function: FunctionCase) -> dict:
    """The oracle: get_type_hints of the parameters that have an annotation, as text."""
    func = function.value()
    type_text = local(TYPE_TEXT, "type_text")
    hints = typing.get_type_hints(func)
    names = [name for name in inspect.signature(func).parameters if name in hints]
    return {"dict": {name: type_text(hints[name]) for name in names}}


def random_function(rng: random.Random, index: int) -> FunctionCase:
    """A function of annotated and unannotated parameters, its annotations stored as text
    (the future import, or quotes) or as objects."""
    future = rng.random() < 0.5
    parts = []
    for name in rng.sample(NAMES, rng.randint(1, 4)):
        if rng.random() < 0.15:
            parts.append(name)
            continue
        text = random_annotation(rng)
        if not future and rng.random() < 0.4:
            text = repr(text)
        parts.append(f"{name}: {text}")
    returns = rng.choice([None, "str", "'list[str]'"])
    return function_with_classes(f"tool_{index}", tuple(parts), future, returns)


def mistake(function: FunctionCase, expected: dict, got: Any) -> HintText | None:
    want = expected["dict"]
    found = got.get("dict") if isinstance(got, dict) else None
    if not isinstance(found, dict):
        return hint("not_a_dict")
    texts = [text for name, text in found.items() if want.get(name, text) != text]
    texts = [text for text in texts if text.startswith("'")]
    if "return" in found:
        return hint("no_return")
    if texts:
        return hint("strings", text=texts[0])
    if set(found) - set(want):
        parameters = inspect.signature(function.value()).parameters.values()
        unannotated = {p.name for p in parameters if p.annotation is inspect.Parameter.empty}
        return hint("unannotated" if set(found) & unannotated else "extra")
    return None


def raised_hint(function: FunctionCase, reply: Any) -> HintText:
    """A function whose annotations all resolve raised: a NameError, or the TypeError 03.5
    asks for when its message names a class the function's module defines, means the names
    were looked up somewhere else (eval in the notebook)."""
    defined = re.findall(r"^class (\w+)", function.before, flags=re.M)
    named = [name for name in defined if re.search(rf"\b{name}\b", reply.message)]
    if named:
        return hint("own_module", name=named[0])
    if reply.raised_a("NameError"):
        name = reply.message.split("'")[1] if reply.message.count("'") >= 2 else ""
        return hint("own_module", name=name)
    return hint("must_not_raise")


def check_function(learner: Learner, function: FunctionCase) -> None:
    __tracebackhide__ = True
    case = case_of(function)
    expected = expected_types(function)
    bind = {
        "resolve_annotations": learner.target("resolve_annotations"),
        "func": function.spec(learner),
    }
    reply = learner.run(RUN, result="answer", bind=bind)
    shown = Plain(_python(expected["dict"]))
    if reply.raised:
        raise_learner_error(case, reply, [(lambda r: True, raised_hint(function, reply))])
    got = returned_json(case, reply, shown)
    if got == expected:
        return
    found = got.get("dict") if isinstance(got, dict) else None
    if not isinstance(found, dict):
        fail(case, shown, Plain(TEXTS.text("a_kind", kind=got.get("kind"))), hint("not_a_dict"))
    difference = first_difference(expected["dict"], found)
    fail(case, shown, Plain(_python(found)), mistake(function, expected, got), where=difference)


def expect_chained(learner: Learner, function: FunctionCase) -> None:
    """The TypeError (already judged by ``expect_type_error``) keeps the NameError as its
    ``__cause__``: ``from exc``, not ``from None`` and not a new error without ``from``."""
    __tracebackhide__ = True
    reply: Reply = learner.attempt("resolve_annotations", function.spec(learner))
    if "NameError" in reply.cause_types:
        return
    cause = reply.cause_types[0] if reply.cause_types else TEXTS.text("no_cause")
    fail(case_of(function), Plain(TEXTS.text("chained")), Plain(reply.raised_text),
         hint("from_exc", cause=cause))  # fmt: skip


def _python(texts: dict[str, str]) -> str:
    """``{'city': str, 'days': 'int'}``: the types as a notebook would print them."""
    return "{" + ", ".join(f"{name!r}: {text}" for name, text in texts.items()) + "}"


@exercise("03.5", notebook="03_pitfalls", title="resolve_annotations", points=1, rules=RULES)
def check_resolve_annotations(learner: Learner) -> str:
    rng = hidden_rng("03.5")
    hidden = [random_function(rng, index) for index in range(24)]
    for function in (*VISIBLE, *hidden):
        check_function(learner, function)
    for function, missing in UNRESOLVED:
        expect_type_error(
            learner,
            "resolve_annotations",
            function.spec(learner),
            case=case_of(function),
            names=[function.name, missing],
            no_raise=hint("name_error"),
            other_exception=hint("name_error"),
        )
        expect_chained(learner, function)
    return TEXTS.text("summary", visible=len(VISIBLE), hidden=len(hidden), refused=len(UNRESOLVED))
