"""Lesson 03's cases are annotations: the classes they use, and the json_type the check passes.

Every annotation is source text evaluated after the classes it names (``CLASSES``), beside
the learner's code for the call and here for the oracle (``function_cases.Source``).
``union_schema`` and ``container_schema`` (03.1, 03.3) take the json_type they call for the
parts; the check passes ``GIVEN``, whose answers for anything but a basic type are a marker
(``{"$comment": "json_type(list[int])"}``), so the expected value shows which part went where.
A few cases pass ``MARKING`` instead, which marks every member, basic types and None included:
code that maps ``int`` or ``None`` itself, instead of calling the json_type it was given, fails
there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from course_lib.checks.cases import Case
from course_lib.checks.compare import Hint, HintText
from course_lib.checks.function_cases import (
    FunctionCase,
    Refusal,
    Source,
    expect_refusals,
    local,
    run_json_cases,
)
from course_lib.checks.learner import Learner
from course_lib.i18n import translate

CLASSES = {
    "Unit": 'class Unit(Enum):\n    CELSIUS = "c"\n    FAHRENHEIT = "f"\n',
    "Priority": "class Priority(IntEnum):\n    LOW = 1\n    NORMAL = 2\n    HIGH = 3\n",
    "City": 'class City(str, Enum):\n    BEIJING = "北京"\n    SHANGHAI = "上海"\n',
    "Ticket": 'class Ticket:\n    "A class of our own: JSON cannot describe it."\n',
    "Nothing": 'class Nothing(Enum):\n    "An Enum without members: no value would be valid."\n',
    "Mixed": 'class Mixed(Enum):\n    ONE = 1\n    TWO = "two"\n',
    "Booking": "@dataclass\nclass Booking:\n    hotel: str\n    nights: int = 1\n",
}
SETUP = "\n\n".join(CLASSES.values())


def setup_for(text: str) -> str:
    """The definitions of the classes ``text`` names (a case builds only what it uses)."""
    return "\n\n".join(
        source for name, source in CLASSES.items() if re.search(rf"\b{name}\b", text)
    )


GIVEN = '''\
def given_json_type(annotation):
    """The check's own json_type: the basic types, and a marker naming anything else."""
    basic = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}
    for python_type, name in basic.items():
        if annotation is python_type or (annotation is None and python_type is type(None)):
            return {"type": name}
    plain = isinstance(annotation, type) and typing.get_origin(annotation) is None
    text = annotation.__name__ if plain else repr(annotation)
    text = text.replace("typing.", "").replace("check_case.", "")
    return {"$comment": f"json_type({text})"}
'''

MARKING = '''\
def marking_json_type(annotation):
    """A json_type that marks every annotation it is given, basic types and None included."""
    if annotation is None:
        annotation = type(None)
    plain = isinstance(annotation, type) and typing.get_origin(annotation) is None
    text = annotation.__name__ if plain else repr(annotation)
    text = text.replace("typing.", "").replace("check_case.", "")
    return {"$comment": f"json_type({text})"}
'''


def annotation(expr: str) -> Source:
    """An annotation as source text, evaluated after the classes it names."""
    return Source(expr, setup_for(expr))


# What a case label adds about a function's module (``FunctionCase.context``), in the learner's
# language (``spoken_label``); a context not listed here is shown as it is.
CASE_TEXTS = {
    "with_context": "{label}, {context}",
    "classes_above": "where its classes are defined above it",
    "hotel_dataclass": "where Hotel is a dataclass of that module",
    "city_enum": "where City is an Enum of that module",
    "type_checking": "where Hotel is imported only under `if TYPE_CHECKING:`",
    "typo": "a typo in 'Ctiy'",
}


def spoken_label(function: FunctionCase) -> str:
    """``function.label``, its context said in the language in force."""
    key = next((key for key, said in CASE_TEXTS.items() if said == function.context), None)
    if not function.context or key is None:
        return function.label
    label = replace(function, context="").label
    return translate(CASE_TEXTS, "with_context", label=label, context=translate(CASE_TEXTS, key))


def function_with_classes(
    name: str, parts: tuple[str, ...], future: bool = False, returns: str | None = None
) -> FunctionCase:
    """The function, after the classes its annotations and defaults name."""
    before = setup_for(" ".join(parts))
    context = "where its classes are defined above it" if before else ""
    return FunctionCase(
        name, parts, returns, future=future, before=before and before + "\n\n", context=context
    )


def json_type_given(learner: Learner, marked: bool = False) -> tuple[dict[str, Any], Any]:
    """The json_type a case passes: built beside the learner's code (a spec), and built here for
    the oracle. ``marked``: the one that marks every member (``MARKING``), else ``GIVEN``."""
    setup, name = (MARKING, "marking_json_type") if marked else (GIVEN, "given_json_type")
    return learner.source(name, setup=setup), local(setup, name)


def given_json_type() -> Any:
    """The check's json_type, built here for the oracle."""
    return local(GIVEN, "given_json_type")


def run_given(
    learner: Learner,
    target: str,
    *,
    labels: tuple[Callable[[str], str], Callable[[str], str]],
    exprs: Iterable[str],
    marked: Iterable[str],
    refused: Iterable[tuple[str, str, str]],
    expected: Callable[[Any, Any], dict],
    hints: Callable[[Any, dict, Any], list[Hint]],
    raised: Callable[[Any, str], list[tuple[Any, HintText]]],
    hint: Callable[..., HintText],
) -> None:
    """03.1's or 03.3's whole check: ``target(annotation, json_type)`` on ``exprs`` with the
    check's json_type, on ``marked`` with the one that marks every member (whatever goes wrong
    there, the hint is ``use_given``), then the ``refused`` rows (see ``refusals``). ``labels``:
    the case label with the check's json_type, and with the marking one; ``expected(value,
    json_type)`` is the oracle, ``hints(value, expected, json_type)`` the likely mistakes,
    ``raised(value, expr)`` the hints for an exception."""
    use_given = [(lambda r: True, hint("use_given"))]
    cases = []
    for marking, label, rows in ((False, labels[0], exprs), (True, labels[1], marked)):
        spec, json_type = json_type_given(learner, marking)
        for expr in rows:
            source = annotation(expr)
            value = source.value()
            want, args = expected(value, json_type), (source.spec(learner), spec)
            case_raised = use_given if marking else raised(value, expr)
            case_hints = hints(value, want, json_type)
            cases.append(Case(label(expr), args, want, case_hints, raised=case_raised))
    run_json_cases(learner, target, cases)
    spec = json_type_given(learner)[0]
    expect_refusals(learner, target, refusals(learner, labels[0], refused, hint, spec))


def refusals(
    learner: Learner,
    label: Callable[[str], str],
    rows: Iterable[tuple[str, str, str]],
    hint: Callable[..., HintText],
    *extra: Any,
) -> list[Refusal]:
    """``(annotation, the name its TypeError must contain, the hint key when nothing is raised)``
    rows as refusals of ``label(annotation)``, the annotation built beside the learner's code
    (then ``extra``, such as the json_type passed)."""
    return [
        Refusal(
            label(expr),
            (annotation(expr).spec(learner), *extra),
            [name],
            hint(key, annotation=expr),
        )
        for expr, name, key in rows
    ]
