"""A failed check as data: its parts are fields, and the message is rendered from them.

The scorecard, the grader's feedback and the class report all read the fields; nothing parses
the English text back. ``CheckFailed`` is an ``AssertionError`` (nbval and pytest count it as a
failure) whose ``_render_traceback_`` makes IPython show the message alone, without frames.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, replace
from typing import Any

from course_lib.checks import messages


@dataclass(frozen=True)
class Failure:
    """Why a case failed. ``expected``/``got`` are already rendered for display."""

    case: str | None = None
    expected: str | None = None
    got: str | None = None
    raised: str | None = None
    where: str | None = None
    hint: str | None = None
    hint_key: str | None = None  # which entry of the check's HINTS table (see compare.HintText)
    detail: str | None = None  # for "not done yet": what is still missing
    exercise: str | None = None
    title: str | None = None

    def fields(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}


class CheckFailed(AssertionError):
    """A check found a case where the learner's code does not do what the exercise asks."""

    header = "header_failed"

    def __init__(self, failure: Failure | str) -> None:
        # A plain text (the older checks' form) is the whole message below the header.
        self.failure = failure if isinstance(failure, Failure) else Failure(detail=failure)
        super().__init__(render(self.failure, self.header))

    def for_exercise(self, exercise: str, title: str) -> CheckFailed:
        return type(self)(replace(self.failure, exercise=exercise, title=title))

    def _render_traceback_(self) -> list[str]:
        """IPython shows these lines instead of a traceback: the message is the whole story."""
        return [f"\x1b[31m{type(self).__name__}\x1b[0m", *str(self).splitlines()]


class NotDoneYet(CheckFailed):
    """The exercise still holds its placeholder or stub: nothing to check yet."""

    header = "header_not_done"


def render(failure: Failure, header: str = "header_failed") -> str:
    """The message a learner reads, line by line from the catalog."""
    lines = []
    if failure.exercise:
        lines.append(messages.say(header, id=failure.exercise, title=failure.title or ""))
    if header == "header_not_done":
        return sentences(*lines, failure.detail, messages.say("not_done_tail"))
    if failure.case:
        lines.append(messages.say("line_case", case=failure.case))
    if failure.raised:
        lines.append(messages.say("line_raised", raised=failure.raised))
    else:
        if failure.expected is not None:
            lines.append(labelled("line_expected", "expected", failure.expected))
        if failure.got is not None:
            lines.append(labelled("line_got", "got", failure.got))
    if failure.where:
        lines.append(messages.say("line_where", where=failure.where))
    if failure.detail:
        lines.append(failure.detail)
    if failure.hint:
        lines.append(messages.say("line_hint", hint=failure.hint))
    return "\n".join(lines)


def labelled(line: str, field: str, value: str) -> str:
    """``messages.say(line, field=value)`` with the value's later lines under its first: indented
    by the label's width on screen ("Got:      " is 10 columns, "实际：" 6)."""
    width = columns(messages.say(line, **{field: ""}))
    return messages.say(line, **{field: value.replace("\n", "\n" + " " * width)})


def columns(text: str) -> int:
    """The width of ``text`` on a terminal: a wide (Chinese) character takes two columns."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def sentences(*parts: str | None) -> str:
    """Sentences as one paragraph: a space after an English one, none after a full-width
    character (Chinese puts no space after 。 or ）)."""
    text = ""
    for part in filter(None, parts):
        wide = text and unicodedata.east_asian_width(text[-1]) in "WF"
        text += part if not text or wide else f" {part}"
    return text
