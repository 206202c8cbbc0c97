"""Which of a student's earlier parts a lesson's grading kernel uses (``course_lib.toolkit``).

The grader has a student's submitted notebooks side by side. It grades them in lesson order
(``grader.grade_all`` waits for a student's earlier lessons before starting a later one), and
lesson N's kernel is told (``manifest``) which parts of lessons before N are the student's: those
whose exercises all passed the grader's *own* checks, with full points, in this very run. Their
code is the answer the grader judged (``SubmissionResult.sources``), placed after what it needs
from the lesson's own cells (``toolkit.export``), exactly as the learner's ``my_toolkit`` is
built. Nothing in a submission can make a part the student's: no recorded pass, no notebook of
theirs is read here. Every other part is the course's reference. Each lesson is still graded on
its own: a part only changes what the lesson's demo cells run, never what a check judges.
"""

from __future__ import annotations

import json
from typing import Any

from course_lib.grading.borrowing import lesson_parts
from course_lib.grading.canonical import Lesson, course_meta
from course_lib.grading.results import SubmissionResult
from course_lib.toolkit import export
from course_lib.toolkit.messages import say
from course_lib.toolkit.parts import PARTS, Part


def lesson_number(slug: str) -> str:
    return slug.partition("_")[0]


def providing_lessons(lessons: dict[str, Lesson]) -> dict[str, str]:
    """Lesson number -> slug, for every lesson that holds a toolkit part."""
    wanted = {part.lesson for part in PARTS.values()}
    return {lesson_number(slug): slug for slug in lessons if lesson_number(slug) in wanted}


def depends_on(slug: str, lessons: dict[str, Lesson]) -> list[str]:
    """The lessons (slugs) whose results ``slug``'s manifest needs: those with parts, before it."""
    number = lesson_number(slug)
    return [s for n, s in sorted(providing_lessons(lessons).items()) if n < number]


def passed_answers(result: SubmissionResult) -> dict[str, str]:
    """Exercise id -> answer source, for the exercises that passed with full points."""
    return {
        row.exercise: result.sources[row.exercise]
        for row in result.exercises
        if row.status == "passed"
        and row.points == row.max_points
        and row.exercise in result.sources
    }


def _passed_before(
    number: str, earlier: list[SubmissionResult]
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The passed answers of the lessons before ``number``: all of them, and by lesson."""
    answers: dict[str, str] = {}
    by_lesson: dict[str, dict[str, str]] = {}
    for result in earlier:
        if lesson_number(result.notebook) < number:
            passed = passed_answers(result)
            answers.update(passed)
            by_lesson[lesson_number(result.notebook)] = passed
    return answers, by_lesson


def manifest(slug: str, earlier: list[SubmissionResult], lessons: dict[str, Lesson]) -> str:
    """The JSON ``toolkit.grading.configure`` takes in ``slug``'s kernel."""
    number = lesson_number(slug)
    answers, by_lesson = _passed_before(number, earlier)
    mine = {
        part.name: part
        for part in PARTS.values()
        if part.lesson < number and all(exercise in answers for exercise in part.exercises)
    }
    modules: dict[str, str] = {}
    for lesson in sorted({part.lesson for part in mine.values()}):
        canonical = lessons[providing_lessons(lessons)[lesson]]
        cells = export.LessonCells(_lesson_sources(canonical), by_lesson[lesson])
        link = _linker(mine, lesson)
        modules[export.module_name(lesson)] = export.module_source(
            lesson, canonical.slug, cells, list(by_lesson[lesson]), link
        )
    chosen = {name: [export.module_name(p.lesson), p.target] for name, p in mine.items()}
    return json.dumps({"lesson": number, "modules": modules, "mine": chosen}, sort_keys=True)


def parts_notes(
    slug: str, earlier: list[SubmissionResult], lessons: dict[str, Lesson]
) -> list[str]:
    """What the report says about the parts ``slug``'s own cells take from the toolkit: how many
    were the student's, then one line per part that was the course's, naming the exercise to
    finish (the line the learner's kernel prints). Nothing for a lesson that takes none."""
    lesson = lessons.get(slug)
    taken = lesson_parts(_lesson_sources(lesson)) if lesson is not None else ()
    if not taken:
        return []
    number = lesson_number(slug)
    answers, _ = _passed_before(number, earlier)
    mine, lines = [], []
    for name in taken:
        missing = [e for e in PARTS[name].exercises if e not in answers]
        if missing:
            lines.append(say("course_missing", part=name, exercise=missing[0]))
        else:
            mine.append(name)
    names = ", ".join(mine) or say("parts_none")
    summary = say("parts_graded", mine=len(mine), count=len(taken), names=names)
    return [summary, *lines]


def _lesson_sources(lesson: Lesson) -> tuple[str, ...]:
    return tuple(
        cell.source
        for cell in lesson.notebook.cells
        if cell.cell_type == "code" and not course_meta(cell)
    )


def _linker(mine: dict[str, Part], lesson: str):
    def link(name: str) -> tuple[str, str]:
        part = PARTS[name]
        if name in mine and part.lesson < lesson:
            return export.module_name(part.lesson), part.target
        if part.reference is None:
            raise LookupError(name)
        module, _, attribute = part.reference.partition(":")
        return module, attribute

    return link


def configure_expression(manifest_json: str) -> str:
    """The expression the grader evaluates in a fresh kernel, before the notebook's cells."""
    return f"__import__('course_lib.toolkit.grading', fromlist=['_']).configure({manifest_json!r})"


def empty_manifest(slug: str) -> str:
    return manifest(slug, [], {})


__all__: list[Any] = [
    "configure_expression",
    "depends_on",
    "empty_manifest",
    "manifest",
    "parts_notes",
]
