"""What lesson 03's checks share: the classes their annotations use, and the check's json_type.

Every annotation is source text evaluated after the classes it names (``CLASSES``), beside
the learner's code for the call and here for the oracle (``lesson02._shared.Source``).
``union_schema`` and ``container_schema`` (03.1, 03.3) take the json_type they call for the
parts; the check passes ``GIVEN``, whose answers for anything but a basic type are a marker
(``{"$comment": "json_type(list[int])"}``), so the expected value shows which part went where.
A few cases pass ``MARKING`` instead, which marks every member, basic types and None included:
code that maps ``int`` or ``None`` itself, instead of calling the json_type it was given, fails
there.
"""

from __future__ import annotations

import re
import typing
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.learner import Learner
from course_lib.checks.lesson02._shared import Source, local

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

HINTS = Catalog() | {
    "bool": (
        "bool came out as integer. bool is a subclass of int, so an issubclass() walk (or a "
        "test for int that comes first) catches it: test bool before int, or compare with `is`."
    ),
}


hint = HINTS.hint


def annotation(expr: str) -> Source:
    """An annotation as source text, evaluated after the classes it names."""
    return Source(expr, setup_for(expr))


def given(learner: Learner) -> dict[str, Any]:
    """The check's json_type, built beside the learner's code."""
    return learner.source("given_json_type", setup=GIVEN)


def given_json_type() -> Any:
    """The same json_type, built here for the oracle."""
    return local(GIVEN, "given_json_type")


def marking(learner: Learner) -> dict[str, Any]:
    """The json_type that marks every member, built beside the learner's code."""
    return learner.source("marking_json_type", setup=MARKING)


def marking_json_type() -> Any:
    """The same marking json_type, built here for the oracle."""
    return local(MARKING, "marking_json_type")


def members(value: Any) -> tuple[Any, ...]:
    return typing.get_args(value)
