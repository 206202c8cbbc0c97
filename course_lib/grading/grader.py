"""Grade one submission, or a whole class in parallel: discover -> sanitize -> run -> results."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from course_lib.grading.canonical import Lesson
from course_lib.grading.discover import Submission
from course_lib.grading.results import (
    ExerciseResult,
    SubmissionResult,
    exercise_results,
    invalid,
    notebook_notes,
)
from course_lib.grading.runner import RunOptions, run_sanitized
from course_lib.grading.sanitize import InvalidSubmission, sanitize

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
        return SubmissionResult(student, slug, rows, sanitized.repairs)
    rows = exercise_results(
        student,
        lesson,
        sanitized.roles,
        run.records,
        cell_timeout=options.cell_timeout,
        memory_mb=options.memory_mb,
        guarded=options.guard,
    )
    notes = sanitized.repairs + run.notes + notebook_notes(sanitized.roles, run.records)
    return SubmissionResult(student, slug, rows, notes)


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
