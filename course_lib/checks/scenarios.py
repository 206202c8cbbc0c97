"""Checks graded by scenarios, with partial credit: the capstone's form.

A scenario is one conversation with the learner's assistant and the outcomes a user cares about
(the right answer reached, no forbidden tool run, every call answered, ...). A check returns its
scenarios' outcomes; each scenario is worth some of the exercise's points, and the exercise earns
the points of the scenarios that passed. A learner's ``check()`` raises ``PartlyRight`` (still a
``CheckFailed``) listing what failed and where to look; the grader records every scenario, so
the class report can show a pass rate per scenario.
"""

from __future__ import annotations

from dataclasses import dataclass

from course_lib.checks import messages
from course_lib.checks.failures import CheckFailed, Failure, render


@dataclass(frozen=True)
class ScenarioOutcome:
    """How one scenario went: its points, and why it failed (``None`` when it passed).

    ``title`` is the English one the grader records; ``spoken``, when given, is the title in the
    learner's language that the check's message shows."""

    id: str
    title: str
    points: int
    failure: Failure | None = None
    spoken: str = ""

    @property
    def passed(self) -> bool:
        return self.failure is None

    def record(self) -> dict:
        data: dict = {"id": self.id, "title": self.title, "points": self.points}
        data["passed"] = self.passed
        if self.failure is not None:
            data["failure"] = self.failure.fields()
        return data


def earned(outcomes: list[ScenarioOutcome]) -> int:
    return sum(outcome.points for outcome in outcomes if outcome.passed)


class PartlyRight(CheckFailed):
    """Some scenarios failed: the message lists each, the exercise keeps the others' points."""

    def __init__(
        self, outcomes: list[ScenarioOutcome], exercise: str = "", title: str = ""
    ) -> None:
        self.outcomes = list(outcomes)
        total = sum(outcome.points for outcome in outcomes)
        failed = [outcome for outcome in outcomes if not outcome.passed]
        head = messages.say(
            "scenarios_failed",
            failed=len(failed),
            count=len(outcomes),
            earned=earned(outcomes),
            total=total,
        )
        summary = [head]  # one line a failed scenario first, so the whole picture fits a screen
        for outcome in failed:
            hint = outcome.failure.hint or outcome.failure.detail or ""
            said = outcome.spoken or outcome.title
            summary.append(messages.say("scenario_line", id=outcome.id, title=said, hint=hint))
        summary.append(messages.say("scenario_details"))
        parts = ["\n".join(summary)]
        for outcome in failed:
            said = outcome.spoken or outcome.title
            heading = messages.say("scenario_title", id=outcome.id, title=said)
            parts.append(heading + "\n" + render(outcome.failure))
        super().__init__(
            Failure(detail="\n\n".join(parts), exercise=exercise or None, title=title or None)
        )

    def for_exercise(self, exercise: str, title: str) -> PartlyRight:
        return PartlyRight(self.outcomes, exercise, title)
