"""From nbval's positional cell results to one result per exercise.

nbval names items ``Cell N`` by position; ``sanitize.roles`` says which position holds which
exercise's exercise cell and check cell, so the mapping never trusts the submission's layout.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from course_lib.grading.canonical import ExerciseSpec, Lesson
from course_lib.grading.sanitize import CellRole

STATUSES = (
    "passed",
    "failed",
    "not_attempted",
    "error",
    "timeout",
    "kernel_died",
    "tampered",
    "invalid",
)


@dataclass(frozen=True)
class ExerciseResult:
    """One row of the gradebook."""

    student: str
    notebook: str
    exercise: str
    points: int
    max_points: int
    status: str
    message: str
    # A failed check's parts (case, expected, got, raised, where, hint), for the scorecard and
    # the feedback; the message is the same text, rendered.
    failure: dict[str, str] | None = None

    def as_row(self) -> dict[str, Any]:
        row = asdict(self)
        if row["failure"] is None:
            del row["failure"]
        return row


@dataclass
class SubmissionResult:
    student: str
    notebook: str
    exercises: list[ExerciseResult]
    notes: list[str] = field(default_factory=list)
    # The source of each exercise cell as it ran (exercise id -> source), for similarity flags.
    sources: dict[str, str] = field(default_factory=dict)
    # What the similarity comparison found (exercise id -> ``similarity.Compared``).
    similarity: dict[str, Any] = field(default_factory=dict)

    @property
    def points(self) -> int:
        return sum(result.points for result in self.exercises)

    @property
    def max_points(self) -> int:
        return sum(result.max_points for result in self.exercises)


def invalid(student: str, notebook: str, lesson: Lesson | None, reason: str) -> SubmissionResult:
    """Every exercise of the lesson at zero with the reason; one row if the lesson is unknown."""
    if lesson is None:
        rows = [ExerciseResult(student, notebook, "", 0, 0, "invalid", reason)]
    else:
        rows = [
            ExerciseResult(student, notebook, spec.id, 0, spec.points, "invalid", reason)
            for spec in lesson.exercises
        ]
    return SubmissionResult(student, notebook, rows)


def not_submitted(student: str, lesson: Lesson) -> SubmissionResult:
    """A lesson the student handed in no file for: every exercise at zero, saying so."""
    reason = f"not submitted: no {lesson.slug}.ipynb in {student}/"
    rows = [
        ExerciseResult(student, lesson.slug, spec.id, 0, spec.points, "not_attempted", reason)
        for spec in lesson.exercises
    ]
    return SubmissionResult(student, lesson.slug, rows)


def exercise_results(
    student: str,
    lesson: Lesson,
    roles: list[CellRole],
    records: dict[int, dict[str, Any]],
    *,
    cell_timeout: float,
    memory_mb: int,
    guarded: bool = True,
) -> list[ExerciseResult]:
    where = {(role.kind, role.exercise): role.index for role in roles if role.kind != "cell"}
    results = []
    for spec in lesson.exercises:
        exercise = records.get(where.get(("exercise", spec.id), -1))
        checked = records.get(where.get(("check", spec.id), -1))
        status, message = _judge(exercise, checked, guarded, cell_timeout, memory_mb)
        points = spec.points if status == "passed" else 0
        verdict = (checked or {}).get("verdict") or {}
        failure = verdict.get("failure") if status == verdict.get("status") else None
        results.append(
            ExerciseResult(
                student, lesson.slug, spec.id, points, spec.points, status, message, failure
            )
        )
    return results


def _judge(
    exercise: dict[str, Any] | None,
    checked: dict[str, Any] | None,
    guarded: bool,
    cell_timeout: float,
    memory_mb: int,
) -> tuple[str, str]:
    if checked is None:
        return "error", "the check cell did not run"
    for record, which in ((exercise, "exercise cell"), (checked, "check")):
        if record is not None and record["kind"] in ("timeout", "kernel_died"):
            return record["kind"], _fault_message(record, which, cell_timeout, memory_mb)
    verdict = checked.get("verdict")
    if verdict is not None:  # a trusted check: decided in the grader, nothing to second-guess
        if verdict["status"] != "passed" and exercise is not None and exercise["kind"] == "error":
            return "error", "the exercise cell raised " + _error_text(exercise)
        return verdict["status"], verdict["message"]
    guard = checked.get("guard") or {}
    undone = (guard.get("before") or {}).get("restored", [])
    note = (
        " [tampering undone before the check, graded as if it had not happened: "
        + "; ".join(undone)
        + "]"
        if undone
        else ""
    )
    cheats = (guard.get("before") or {}).get("cheats", []) + (guard.get("after") or {}).get(
        "cheats", []
    )
    if cheats:
        return "tampered", "no points: " + "; ".join(dict.fromkeys(cheats)) + note
    if guarded and "error" in guard:
        return "tampered", (
            "no points: the grader's guard could not run before or after the check "
            f"({guard['error'].splitlines()[0]}); something in the notebook broke the check "
            "machinery" + note
        )
    if checked["kind"] == "passed":
        if guarded and not (guard.get("after") or {}).get("passed"):
            return "tampered", (
                "no points: the check cell ended without an error, but the real check did not "
                "pass; something in the notebook hid the failure" + note
            )
        return "passed", "passed" + note
    if checked["kind"] == "skipped":
        return "error", "the check cell was skipped" + note
    ename, evalue = checked.get("ename", ""), checked.get("evalue", checked.get("message", ""))
    if ename == "NotDoneYet":
        return "not_attempted", evalue + note
    if ename == "CheckFailed":
        return "failed", evalue + note
    if exercise is not None and exercise["kind"] == "error":
        return "error", "the exercise cell raised " + _error_text(exercise) + note
    return "error", "the check raised " + _error_text(checked) + note


def _error_text(record: dict[str, Any]) -> str:
    ename, evalue = record.get("ename", ""), record.get("evalue", "")
    if ename == "StdinNotImplementedError":
        return "an error: input() cannot be answered during grading; remove the input() call"
    if ename == "SystemExit":
        return f"SystemExit({evalue}): sys.exit() stops a script, not a notebook cell; remove it"
    if not ename:
        return record.get("message", "an error")
    return f"{ename}: {evalue}"


def _fault_message(record: dict[str, Any], which: str, cell_timeout: float, memory_mb: int) -> str:
    if record["kind"] == "timeout":
        return (
            f"the {which} ran for more than {cell_timeout:g} s and was stopped (an endless loop, "
            "or waiting for something that never comes?); later exercises were still graded"
        )
    if record.get("ename") == "MemoryError":
        return (
            f"the {which} ran out of memory (limit {memory_mb} MB); the kernel was restarted "
            "and later exercises were still graded"
        )
    return (
        f"the {which} ended the kernel: {record.get('message', 'the kernel died')}; it was "
        "restarted and later exercises were still graded"
    )


def notebook_notes(roles: list[CellRole], records: dict[int, dict[str, Any]]) -> list[str]:
    """Faults in cells that belong to no exercise (the learner's own cells, the lesson's cells)."""
    notes = []
    for role in roles:
        record = records.get(role.index)
        if role.kind == "cell" and record and record["kind"] in ("timeout", "kernel_died"):
            what = "timed out" if record["kind"] == "timeout" else "ended the kernel"
            notes.append(f"code cell {role.index} ({role.cell_id or 'no id'}) {what}")
    return notes


def specs_by_id(lesson: Lesson) -> dict[str, ExerciseSpec]:
    return {spec.id: spec for spec in lesson.exercises}
