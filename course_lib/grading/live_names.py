"""The names an answer's statements are kept for when its fingerprints are made (``no_effect``
drops a statement whose only effect is to bind names nobody reads): the exercise's targets, and
every name a code cell outside the answer reads (a check, a later exercise, a cell of the lesson's
or the learner's), parsed from the sources, never run."""

from __future__ import annotations

from collections.abc import Iterable

import nbformat

from course_lib.grading.answers import Cell, answer_cells, check_positions, names_of
from course_lib.grading.canonical import Lesson, course_meta
from course_lib.grading.sanitize import Sanitized

FAR = 1 << 30  # the position of a check cell that is missing


def notebook_live(
    nb: nbformat.NotebookNode, targets: dict[str, Iterable[str]]
) -> dict[str, frozenset[str]]:
    """For each exercise cell of ``nb``: its targets, and every name the other code cells
    read."""
    code = [cell for cell in nb.cells if cell.get("cell_type") == "code"]
    live = {}
    for number, cell in enumerate(code):
        exercise = _exercise_id(cell)
        if exercise:
            read = set(targets.get(exercise, ()))
            for other, elsewhere in enumerate(code):
                if other != number:
                    read |= names_of(elsewhere.source).used
            live[exercise] = frozenset(read)
    return live


def answer_live(
    sanitized: Sanitized, lesson: Lesson, cells: list[Cell]
) -> dict[str, frozenset[str]]:
    """For each exercise of a submission: the names its answer's statements are kept for (the
    exercise's targets, and every name a code cell outside its answer reads: a check, a later
    exercise, a cell of the lesson's or the learner's)."""
    checks = check_positions(sanitized)
    code = [cell for cell in sanitized.notebook.cells if cell.cell_type == "code"]
    sources = [(role.index, cell.source) for role, cell in zip(sanitized.roles, code, strict=False)]
    live = {}
    for spec in lesson.exercises:
        found = answer_cells(cells, spec.id, spec.targets, checks.get(spec.id, FAR))
        mine = {cell.index for cell in found}
        read = set(spec.targets)
        for index, source in sources:
            if index not in mine:
                read |= names_of(source).used
        live[spec.id] = frozenset(read)
    return live


def _exercise_id(cell: nbformat.NotebookNode) -> str:
    exercise = course_meta(cell).get("exercise") if cell.get("cell_type") == "code" else None
    return exercise if isinstance(exercise, str) else ""
