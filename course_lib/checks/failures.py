"""A failed check as data: its parts are fields, and the message is rendered from them.

The scorecard, the grader's feedback and the class report all read the fields; nothing parses
the English text back. ``CheckFailed`` is an ``AssertionError`` (nbval and pytest count it as a
failure) whose ``_render_traceback_`` makes IPython show the message alone, without frames.
"""

from __future__ import annotations

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
        text = " ".join(part for part in (failure.detail, messages.say("not_done_tail")) if part)
        return f"{lines[0]} {text}" if lines else text
    if failure.case:
        lines.append(messages.say("line_case", case=failure.case))
    if failure.raised:
        lines.append(messages.say("line_raised", raised=failure.raised))
    else:
        if failure.expected is not None:
            lines.append(messages.say("line_expected", expected=_indent(failure.expected)))
        if failure.got is not None:
            lines.append(messages.say("line_got", got=_indent(failure.got)))
    if failure.where:
        lines.append(messages.say("line_where", where=failure.where))
    if failure.detail:
        lines.append(failure.detail)
    if failure.hint:
        lines.append(messages.say("line_hint", hint=failure.hint))
    return "\n".join(lines)


def _indent(text: str) -> str:
    return text.replace("\n", "\n          ")
