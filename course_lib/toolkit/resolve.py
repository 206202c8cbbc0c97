"""Which version of a part ``use`` hands out, and why: the learner's when every exercise of the
part passed on the code their notebook holds now (or, when grading, when the grader's own result
passed), else the course's with one line saying what to do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from course_lib.toolkit import state
from course_lib.toolkit.messages import say
from course_lib.toolkit.parts import Part


@dataclass(frozen=True)
class Choice:
    value: Any
    mine: bool
    why: str  # for ``parts()``
    line: str | None  # what ``use`` prints (None for the learner's own part)


def choose(part: Part, *, quiet: bool = False) -> Choice:
    """The learner's version of ``part`` or the course's, with the reason."""
    if _preference(part.name) == "course":
        return _course(part, say("why_chosen"), say("course_chosen", part=part.name), quiet)
    exercise = part.exercises[0]
    return _course(
        part,
        say("why_missing", exercise=exercise),
        say("course_missing", part=part.name, exercise=exercise),
        quiet,
    )


def _course(part: Part, why: str, line: str, quiet: bool) -> Choice:
    """The course's version (``LookupError`` with the exercise to finish when it has none)."""
    if quiet:
        return Choice(None, False, why, line)
    try:
        value = part.course_version()
    except LookupError:
        raise LookupError(say("no_reference", part=part.name, exercise=part.exercise)) from None
    return Choice(value, False, why, line)


def _preference(name: str) -> str:
    return state.load()["prefer"].get(name, "mine")


def set_preference(name: str, side: str) -> None:
    state.set_preference(name, side)
