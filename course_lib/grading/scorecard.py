"""The scorecard ``course check`` prints: a line per exercise, and for each one not passed
the parts of its failure a learner acts on (what failed, the case, expected, got, where, the
hint), one line each, shortened to a screen's width."""

from __future__ import annotations

import functools
import re
from typing import Any

from course_lib.grading.results import SubmissionResult
from course_lib.grading.texts import say, status_text
from course_lib.i18n import LANGUAGES, speaking

# Where a message's first sentence ends (the header of a failure, in English or in Chinese).
FIRST_SENTENCE = re.compile(r"(?<=。)|(?<=\.) ")


def scorecard(result: SubmissionResult) -> str:
    lines = [say("scorecard_title", notebook=result.notebook, points=result.points,
                 max_points=result.max_points)]  # fmt: skip
    marks = {"passed": "mark_passed", "not_attempted": "mark_todo"}
    for row in result.exercises:
        mark = say(marks.get(row.status, "mark_failed"))
        status = status_text(row.status)
        lines.append(say("scorecard_row", mark=mark, exercise=row.exercise or "-", status=status))
        if row.status != "passed":
            lines += [f"       {line}" for line in _scorecard_lines(row)]
    lines += [say("scorecard_note", note=note) for note in result.notes]
    return "\n".join(lines)


def _scorecard_lines(row: Any) -> list[str]:
    """A failed check's parts, one line each, from its fields (older checks: from its text)."""
    if getattr(row, "scenarios", None):
        return _scenario_lines(row)
    if not row.failure:
        return _scorecard_message(row.message)
    from course_lib.checks.failures import labelled

    first = row.message.splitlines()[0] if row.message else ""
    lines = [_shorten(first)] if first else []
    fields = row.failure
    for key, line in SCORECARD_LINES:
        value = fields.get(key)
        # A value spread over several lines (pretty JSON) shows every line, under its first.
        if value:
            lines += [_shorten(part) for part in labelled(line, key, value).splitlines()]
    return lines


def _scenario_lines(row: Any) -> list[str]:
    """A check graded by scenarios: its points and one line per failed scenario with its hint
    (its failure's own fields hold no case or hint: those are per scenario)."""
    from course_lib.checks import messages

    scenarios = row.scenarios
    failed = [s for s in scenarios if not s.get("passed")]
    first = row.message.splitlines()[0] if row.message else ""
    lines = [_shorten(first)] if first else []
    lines.append(_shorten(messages.say(
        "scenarios_failed", failed=len(failed), count=len(scenarios),
        earned=sum(s.get("points", 0) for s in scenarios if s.get("passed")),
        total=sum(s.get("points", 0) for s in scenarios),
    )))  # fmt: skip
    for scenario in failed:
        failure = scenario.get("failure") or {}
        hint = failure.get("hint") or failure.get("detail") or ""
        line = messages.say("scenario_line", id=scenario.get("id"), title=scenario.get("title"),
                            hint=hint)  # fmt: skip
        lines.append(_shorten(line.strip()))
    return lines


SCORECARD_LINES = (
    ("case", "line_case"),
    ("raised", "line_raised"),
    ("expected", "line_expected"),
    ("got", "line_got"),
    ("where", "line_where"),
    ("hint", "line_hint"),
)


def _scorecard_message(message: str) -> list[str]:
    """The first sentence of a check's message, then its case, expected, got and hint lines."""
    if not message:
        return []
    first, *rest = message.splitlines()
    sentence = FIRST_SENTENCE.split(first, maxsplit=1)[0].rstrip()
    shown = [_shorten(sentence if sentence.endswith((".", "。")) else sentence + ".")]
    shown += [
        _shorten(line)
        for line in rest
        # A value spread over several lines would show only its opening bracket: the Where:
        # line, which names the first difference, says more in one line.
        if line.startswith(_field_prefixes()) and not line.rstrip().endswith(("[", "{"))
    ]
    return shown


@functools.cache
def _field_prefixes() -> tuple[str, ...]:
    """How each line of a check's message that a scorecard repeats starts (Case:, 用例：, ...),
    in every language: the message is in the language of the edition handed in."""
    from course_lib.checks import messages

    prefixes = []
    for lang in LANGUAGES:
        with speaking(lang):
            prefixes += [
                messages.say(key, **{field: ""}).rstrip() for field, key in SCORECARD_LINES
            ]
    return tuple(prefixes)


def _shorten(line: str, width: int = 200) -> str:
    return line if len(line) <= width else line[: width - 1].rsplit(" ", 1)[0] + " …"
