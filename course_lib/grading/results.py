"""From nbval's positional cell results to one result per exercise.

nbval names items ``Cell N`` by position; ``sanitize.roles`` says which position holds which
exercise's exercise cell and check cell, so the mapping never trusts the submission's layout.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from course_lib.grading.canonical import ExerciseSpec, Lesson
from course_lib.grading.sanitize import CellRole
from course_lib.grading.texts import say

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
    # A scenario check's scenarios (id, title, points, passed, failure), for the class report.
    scenarios: list[dict[str, Any]] | None = None

    def as_row(self) -> dict[str, Any]:
        row = asdict(self)
        for optional in ("failure", "scenarios"):
            if row[optional] is None:
                del row[optional]
        return row


@dataclass
class SubmissionResult:
    student: str
    notebook: str
    exercises: list[ExerciseResult]
    notes: list[str] = field(default_factory=list)
    # Each exercise's answer as it ran (exercise id -> the source of its cells, see
    # ``answers``), for similarity flags.
    sources: dict[str, str] = field(default_factory=dict)
    # Each answer's fingerprints (exercise id -> ``fingerprint.fingerprints`` of its source),
    # made where the sources were read (``analysis``), so the comparison parses nothing.
    prints: dict[str, frozenset[int]] = field(default_factory=dict)
    # What the similarity comparison found (exercise id -> ``similarity.Compared``).
    similarity: dict[str, Any] = field(default_factory=dict)
    # What kept this notebook's kernel apart (course_lib.grading.isolation); empty when no
    # kernel ran (an invalid or missing file).
    isolation: dict[str, Any] = field(default_factory=dict)
    # Flags for the instructor found while grading (``ownership``: an unchanged stub that
    # passed, a route the source cannot follow, a target written outside the notebook's cells).
    flags: list[dict[str, Any]] = field(default_factory=list)
    # The edition the learner submitted (its ``course.lang``; ``course_lib.i18n``): the language
    # of the messages. Statuses, ids and points never depend on it.
    language: str = "en"

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
    reason = say("not_submitted", notebook=lesson.slug, student=student)
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
) -> list[ExerciseResult]:
    where = {(role.kind, role.exercise): role.index for role in roles if role.kind != "cell"}
    results = []
    for spec in lesson.exercises:
        exercise = records.get(where.get(("exercise", spec.id), -1))
        checked = records.get(where.get(("check", spec.id), -1))
        status, message = _judge(exercise, checked, cell_timeout, memory_mb)
        points = spec.points if status == "passed" else 0
        verdict = (checked or {}).get("verdict") or {}
        decided = status == verdict.get("status")
        failure = verdict.get("failure") if decided else None
        scenarios = verdict.get("scenarios") if decided else None
        if decided and "points" in verdict:  # partial credit, never more than the exercise's
            points = max(0, min(int(verdict["points"]), spec.points))
        results.append(
            ExerciseResult(
                student,
                lesson.slug,
                spec.id,
                points,
                spec.points,
                status,
                message,
                failure,
                scenarios,
            )
        )
    return results


def _judge(
    exercise: dict[str, Any] | None,
    checked: dict[str, Any] | None,
    cell_timeout: float,
    memory_mb: int,
) -> tuple[str, str]:
    for record in (exercise, checked):
        if record is not None and record["kind"] == "no_kernel":
            return "error", say("no_kernel", problem=record.get("message", ""))
        if record is not None and record["kind"] == "out_of_time":
            return "timeout", record.get("message", "")
    if checked is None:
        return "error", say("check_did_not_run")
    for record, which in ((exercise, "exercise"), (checked, "check")):
        if record is not None and record["kind"] in ("timeout", "kernel_died"):
            return record["kind"], _fault_message(record, which, cell_timeout, memory_mb)
    verdict = checked.get("verdict")
    if verdict is not None:  # decided by the check, in the grader: nothing to second-guess
        if verdict["status"] != "passed" and exercise is not None and exercise["kind"] == "error":
            return "error", say("exercise_raised", error=_error_text(exercise))
        return verdict["status"], verdict["message"]
    if checked["kind"] == "skipped":
        return "error", say("check_skipped")
    # No verdict: the check itself could not run (an exercise no check module registers).
    return "error", say("check_raised", error=_error_text(checked))


def _error_text(record: dict[str, Any]) -> str:
    ename, evalue = record.get("ename", ""), record.get("evalue", "")
    if ename == "StdinNotImplementedError":
        return say("input_called")
    if ename == "SystemExit":
        return say("system_exit", value=evalue)
    if not ename:
        return record["message"] if "message" in record else say("an_error")
    return f"{ename}: {evalue}"


def _fault_message(record: dict[str, Any], which: str, cell_timeout: float, memory_mb: int) -> str:
    """``which``: ``exercise`` (the exercise cell) or ``check``."""
    if record["kind"] == "timeout":
        return say(f"timeout_{which}", seconds=cell_timeout)
    if record.get("ename") == "MemoryError":
        return say(f"memory_{which}", memory_mb=memory_mb)
    reason = record["message"] if "message" in record else say("kernel_died")
    return say(f"died_{which}", reason=reason)


def notebook_notes(roles: list[CellRole], records: dict[int, dict[str, Any]]) -> list[str]:
    """Faults in cells that belong to no exercise (the learner's own cells, the lesson's cells)."""
    notes = []
    for role in roles:
        record = records.get(role.index)
        if role.kind == "cell" and record and record["kind"] in ("timeout", "kernel_died"):
            key = "cell_timed_out" if record["kind"] == "timeout" else "cell_ended_kernel"
            notes.append(say(key, index=role.index, cell_id=role.cell_id or say("no_cell_id")))
    return notes


def specs_by_id(lesson: Lesson) -> dict[str, ExerciseSpec]:
    return {spec.id: spec for spec in lesson.exercises}
