"""Grade one submission, or a whole class in parallel: discover -> analyse (sanitize and read the
sources, in a child: ``analysis``) -> run -> results."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace

from course_lib.grading.analysis import AnalysisFailed, Toolkit, analyse_apart
from course_lib.grading.canonical import Lesson
from course_lib.grading.discover import Submission, UnreadableSubmission
from course_lib.grading.ownership import judge_run
from course_lib.grading.parse import shown
from course_lib.grading.results import (
    ExerciseResult,
    SubmissionResult,
    exercise_results,
    invalid,
    notebook_notes,
)
from course_lib.grading.runner import RunOptions, run_sanitized, submission_language
from course_lib.grading.sanitize import InvalidSubmission
from course_lib.grading.scrub import scrub, stable
from course_lib.grading.toolkit_plan import depends_on, manifest, parts_notes
from course_lib.i18n import speaking, translate

# Learner-facing messages, whole sentences (one place, for the translation).
MESSAGES = {
    "unknown_lesson": (
        "not a lesson of this course: {slug} (lessons: {known}). Name the file after the lesson "
        "it holds, for example {example}.ipynb, and submit it again."
    ),
    "grader_failed": (
        "the grader failed on this file ({error}); nobody else's grading was affected. Your "
        "instructor has the details and will grade it by hand if need be."
    ),
}


@dataclass(frozen=True)
class GradeOptions(RunOptions):
    jobs: int = 1


def grade_submission(
    submission: Submission,
    lessons: dict[str, Lesson],
    options: GradeOptions,
    earlier: list[SubmissionResult] | None = None,
) -> SubmissionResult:
    """Grade one file; every problem becomes a result, never an exception, and the result holds
    no text that would differ on a regrade. ``earlier``: the same student's results of earlier
    lessons, whose passed parts this lesson's kernel uses (``toolkit_plan``)."""
    try:
        result = _grade(submission, lessons, options, earlier or [])
        with speaking(result.language):  # the notes on parts too, in the edition handed in
            result.notes[:0] = parts_notes(submission.notebook, earlier or [], lessons)
        return stable(result)
    except Exception as exc:  # noqa: BLE001 (a bug of ours must not stop the class run)
        error = scrub(f"{type(exc).__name__}: {exc}")[:300]
        lesson = lessons.get(submission.notebook)
        reason = translate(MESSAGES, "grader_failed", error=error)
        rows = invalid(submission.student, submission.notebook, lesson, reason).exercises
        return SubmissionResult(
            submission.student, submission.notebook, [replace(r, status="error") for r in rows]
        )


def _grade(
    submission: Submission,
    lessons: dict[str, Lesson],
    options: GradeOptions,
    earlier: list[SubmissionResult],
) -> SubmissionResult:
    student, slug = submission.student, submission.notebook
    lesson = lessons.get(slug)
    if submission.problem:
        return invalid(student, slug, lesson, submission.problem)
    if lesson is None:
        known = ", ".join(sorted(lessons)) or "none"
        example = min(lessons, default="00_welcome")
        message = translate(
            MESSAGES, "unknown_lesson", slug=shown(slug), known=known, example=example
        )
        return invalid(student, slug, None, message)
    try:  # the sources are read in a child with a memory and a time limit (``analysis``)
        # (with the earlier lessons' answers the toolkit is made of: they are parsed too)
        parts = Toolkit(earlier, lessons) if earlier else None
        analysis = analyse_apart(
            submission.path,
            lesson,
            parts,
            check_modules=options.check_modules,
            scratch_root=options.scratch_root,
        )
    except (InvalidSubmission, UnreadableSubmission, AnalysisFailed) as exc:
        return invalid(student, slug, lesson, str(exc))
    sanitized = analysis.sanitized
    toolkit = analysis.toolkit if earlier else manifest(slug, [], lessons)  # nothing to parse
    language = submission_language(sanitized.notebook)
    run = run_sanitized(sanitized, lesson, options, toolkit)
    if run.failure:
        rows = [
            ExerciseResult(student, slug, spec.id, 0, spec.points, "error", run.failure)
            for spec in lesson.exercises
        ]
        return SubmissionResult(
            student,
            slug,
            rows,
            sanitized.repairs,
            sources=dict(analysis.read.answers),
            prints=analysis.prints,
            isolation=run.isolation,
            language=language,
        )
    with speaking(language):  # what the grader says of a fault, in the edition handed in
        rows = exercise_results(
            student,
            lesson,
            sanitized.roles,
            run.records,
            cell_timeout=options.cell_timeout,
            memory_mb=options.memory_mb,
        )
        found = judge_run(rows, analysis.read, lesson, sanitized, run.records)
        notes = sanitized.repairs + run.notes + notebook_notes(sanitized.roles, run.records)
    return SubmissionResult(
        student,
        slug,
        found.rows,
        notes,
        sources=found.sources,
        prints=analysis.prints,
        isolation=run.isolation,
        flags=found.flags,
        language=language,
    )


def grade_all(
    submissions: list[Submission],
    lessons: dict[str, Lesson],
    options: GradeOptions,
    progress: Callable[[SubmissionResult], None] | None = None,
) -> list[SubmissionResult]:
    """Grade every submission, ``options.jobs`` at a time; results in submission order.

    A student's lesson waits for their earlier lessons that hold toolkit parts
    (``toolkit_plan.depends_on``): its kernel uses the parts that passed there. Submissions are
    queued lesson by lesson, so every lesson waited for was queued, and so started, before the
    one that waits (no deadlock however few workers there are)."""
    ordered = sorted(submissions)
    futures: dict[tuple[str, str], Future[SubmissionResult]] = {}

    def one(submission: Submission) -> SubmissionResult:
        needed = depends_on(submission.notebook, lessons)
        waits = [futures.get((submission.student, slug)) for slug in needed]
        earlier = [future.result() for future in waits if future is not None]
        result = grade_submission(submission, lessons, options, earlier)
        if progress is not None:
            progress(result)
        return result

    by_lesson = sorted(ordered, key=lambda s: (s.notebook, s.student, str(s.path)))
    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        for submission in by_lesson:
            key = (submission.student, submission.notebook)
            futures.setdefault(key, pool.submit(one, submission))
        done = {id(s): futures[(s.student, s.notebook)] for s in ordered}
        return [done[id(s)].result() for s in ordered]
