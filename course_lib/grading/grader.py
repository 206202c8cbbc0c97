"""Grade one submission, or a whole class in parallel: discover -> sanitize -> run -> results."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from course_lib.grading.borrowing import borrowing, lesson_allowed
from course_lib.grading.canonical import Lesson, course_meta
from course_lib.grading.discover import Submission
from course_lib.grading.results import (
    ExerciseResult,
    SubmissionResult,
    exercise_results,
    invalid,
    notebook_notes,
)
from course_lib.grading.runner import RunOptions, run_sanitized
from course_lib.grading.sanitize import InvalidSubmission, Sanitized, sanitize

MAX_FILE_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True)
class GradeOptions(RunOptions):
    jobs: int = 1


def grade_submission(
    submission: Submission, lessons: dict[str, Lesson], options: GradeOptions
) -> SubmissionResult:
    """Grade one file; every problem becomes a result, never an exception."""
    student, slug = submission.student, submission.notebook
    lesson = lessons.get(slug)
    if lesson is None:
        known = ", ".join(sorted(lessons)) or "none"
        return invalid(
            student, slug, None, f"not a lesson of this course: {slug!r} (lessons: {known})"
        )
    try:
        if submission.path.stat().st_size > MAX_FILE_BYTES:
            raise InvalidSubmission(
                f"the file is larger than {MAX_FILE_BYTES // 2**20} MB; clear the outputs "
                "(Edit > Clear Outputs of All Cells), save and submit again"
            )
        sanitized = sanitize(submission.path.read_bytes(), lesson)
    except (InvalidSubmission, OSError) as exc:
        return invalid(student, slug, lesson, str(exc))
    run = run_sanitized(sanitized, lesson, options)
    if run.failure:
        rows = [
            ExerciseResult(student, slug, spec.id, 0, spec.points, "error", run.failure)
            for spec in lesson.exercises
        ]
        return SubmissionResult(student, slug, rows, sanitized.repairs, run.isolation)
    rows = exercise_results(
        student,
        lesson,
        sanitized.roles,
        run.records,
        cell_timeout=options.cell_timeout,
        memory_mb=options.memory_mb,
    )
    rows = zero_borrowed(rows, sanitized, lesson)
    notes = sanitized.repairs + run.notes + notebook_notes(sanitized.roles, run.records)
    return SubmissionResult(student, slug, rows, notes, run.isolation)


BORROWED = (
    "no points: the exercise cell uses {origin}, the course's own answer, instead of your code. "
    "Write the solution yourself (the lesson's prose and the check's hints show the way)."
)


def zero_borrowed(
    rows: list[ExerciseResult], sanitized: Sanitized, lesson: Lesson
) -> list[ExerciseResult]:
    """Each exercise whose cell borrows from course_lib.reference or .checks gets zero."""
    code = [cell for cell in sanitized.notebook.cells if cell.cell_type == "code"]
    sources = {
        role.exercise: cell.source
        for role, cell in zip(sanitized.roles, code, strict=False)
        if role.kind == "exercise"
    }
    others = [
        cell.source
        for role, cell in zip(sanitized.roles, code, strict=False)
        if role.kind != "check"
    ]
    allowed = lesson_allowed(
        cell.source
        for cell in lesson.notebook.cells
        if cell.cell_type == "code" and "exercise" not in course_meta(cell)
    )
    out = []
    for row in rows:
        origin = borrowing(sources.get(row.exercise, ""), others, allowed)
        if origin is not None and row.status not in ("not_attempted", "invalid"):
            row = replace(
                row,
                points=0,
                status="tampered",
                message=BORROWED.format(origin=origin),
                failure=None,
            )
        out.append(row)
    return out


def grade_all(
    submissions: list[Submission],
    lessons: dict[str, Lesson],
    options: GradeOptions,
    progress: Callable[[SubmissionResult], None] | None = None,
) -> list[SubmissionResult]:
    """Grade every submission, ``options.jobs`` at a time; results in submission order."""

    def one(submission: Submission) -> SubmissionResult:
        result = grade_submission(submission, lessons, options)
        if progress is not None:
            progress(result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        return list(pool.map(one, sorted(submissions)))
