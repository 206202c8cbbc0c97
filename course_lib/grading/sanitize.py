"""Never trust a submission: make the copy that will run, from what the learner handed in.

A short pipeline of named steps, each doing one job:

1. ``parse`` refuses what is not a version-4 notebook of the lesson (``InvalidSubmission``);
2. ``strip_outputs`` drops stored outputs and nbval markers (nothing stored is ever believed);
3. ``restore_checks`` rebuilds every check cell from the canonical notebook by exercise id:
   edited ones are overwritten, deleted ones re-inserted after their exercise cell, moved ones
   put back, impostors removed;
4. ``roles`` names what each code cell is (exercise, check or the learner's own cell), which is
   how nbval's positional ``Cell N`` ids are mapped back to exercise ids later.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nbformat import NotebookNode

from course_lib.grading.canonical import ExerciseSpec, Lesson, course_meta
from course_lib.grading.parse import InvalidSubmission, edition, parse, shown
from course_lib.i18n import speaking, translate

__all__ = ["InvalidSubmission", "Sanitized", "parse", "roles", "sanitize"]

# Tags that would change how nbval runs a cell (skip it, accept its errors).
NBVAL_TAGS = {
    "nbval-skip",
    "nbval-ignore-output",
    "nbval-check-output",
    "nbval-raises-exception",
    "raises-exception",
    "pytest-validate-ignore-output",
}


@dataclass(frozen=True)
class CellRole:
    """What one code cell of the sanitized notebook is; ``index`` is nbval's ``Cell N``."""

    index: int
    kind: str  # "exercise", "check" or "cell" (anything else the notebook holds)
    exercise: str = ""
    cell_id: str = ""


@dataclass
class Sanitized:
    notebook: NotebookNode
    roles: list[CellRole]
    repairs: list[str] = field(default_factory=list)


# Repair lines for the feedback, whole sentences (one place, for the translation).
REPAIRS = {
    "extra_check": "an extra check cell (for {claimed}) was removed",
    "check_deleted": "check cell {id} was deleted: re-inserted",
    "check_moved": "check cell {id} was moved: put back after its exercise",
    "check_edited": "check cell {id} was edited: restored",
    "exercise_missing": "exercise cell {id} was not found: its check runs where it was",
}


def say(key: str, **values: object) -> str:
    return translate(REPAIRS, key, **values)


def sanitize(raw: bytes, lesson: Lesson) -> Sanitized:
    """The notebook to run for a submission of ``lesson``, or ``InvalidSubmission``."""
    nb, repairs = parse(raw, lesson)
    strip_outputs(nb)
    with speaking(edition(nb)):
        repairs += restore_checks(nb, lesson)
    return Sanitized(nb, roles(nb), repairs)


def strip_outputs(nb: NotebookNode) -> None:
    """Stored outputs prove nothing: drop them, and the tags that change how nbval runs a cell."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs = []
        cell.execution_count = None
        tags = cell.get("metadata", {}).get("tags")
        if isinstance(tags, list):
            cell.metadata["tags"] = [tag for tag in tags if tag not in NBVAL_TAGS]


def restore_checks(nb: NotebookNode, lesson: Lesson) -> list[str]:
    """Put every canonical check cell back; return one line per repair, for the feedback."""
    repairs: list[str] = []
    cells = list(nb.cells)
    check_ids = {spec.check_cell.get("id") for spec in lesson.exercises}
    exercise_at = {spec.id: _find_exercise(cells, spec) for spec in lesson.exercises}
    canonical_meta = {
        cell.get("id"): course_meta(cell) for cell in lesson.notebook.cells if course_meta(cell)
    }
    for spec in lesson.exercises:  # points and ids come from the course, not the submission
        if exercise_at[spec.id] is not None:
            meta = cells[exercise_at[spec.id]].setdefault("metadata", {})
            meta["course"] = dict(canonical_meta.get(spec.exercise_cell_id, {}))
    exercise_positions = sorted(pos for pos in exercise_at.values() if pos is not None)

    def is_check(cell: NotebookNode) -> bool:
        return cell.cell_type == "code" and (
            "check" in course_meta(cell) or cell.get("id") in check_ids
        )

    found: dict[str, int] = {}
    for pos, cell in enumerate(cells):
        if not is_check(cell):
            continue
        claimed = course_meta(cell).get("check") or _check_for_id(cell.get("id"), lesson)
        if claimed in found or claimed not in {spec.id for spec in lesson.exercises}:
            repairs.append(say("extra_check", claimed=shown(claimed)))
            continue
        found[claimed] = pos

    anchors: dict[int, list[ExerciseSpec]] = {}  # position of the cell a check goes after
    for spec in lesson.exercises:
        pos = found.get(spec.id)
        exercise_pos = exercise_at[spec.id]
        anchor = _anchor(cells, is_check, spec, pos, exercise_pos, exercise_positions, lesson)
        if pos is None:
            repairs.append(say("check_deleted", id=spec.id))
        elif anchor is not None and _anchor_of_found(cells, is_check, pos) != anchor:
            repairs.append(say("check_moved", id=spec.id))
        elif cells[pos].source != spec.check_cell.source or course_meta(cells[pos]) != course_meta(
            spec.check_cell
        ):
            repairs.append(say("check_edited", id=spec.id))
        if exercise_pos is None:
            repairs.append(say("exercise_missing", id=spec.id))
        anchors.setdefault(-1 if anchor is None else anchor, []).append(spec)

    rebuilt = [spec.fresh_check_cell() for spec in anchors.get(-2, [])]
    for pos, cell in enumerate(cells):
        if not is_check(cell):
            rebuilt.append(cell)
        rebuilt.extend(spec.fresh_check_cell() for spec in anchors.get(pos, []))
    rebuilt.extend(spec.fresh_check_cell() for spec in anchors.get(-1, []))
    nb.cells = rebuilt
    return repairs


def _find_exercise(cells: list[NotebookNode], spec: ExerciseSpec) -> int | None:
    """The exercise cell: by its metadata, else by its stable cell id."""
    for pos, cell in enumerate(cells):
        if cell.cell_type == "code" and course_meta(cell).get("exercise") == spec.id:
            return pos
    for pos, cell in enumerate(cells):
        if cell.cell_type == "code" and cell.get("id") == spec.exercise_cell_id:
            return pos
    return None


def _check_for_id(cell_id: str | None, lesson: Lesson) -> str | None:
    for spec in lesson.exercises:
        if spec.check_cell.get("id") == cell_id:
            return spec.id
    return None


def _anchor_of_found(cells: list[NotebookNode], is_check, pos: int) -> int | None:
    """The nearest cell before ``pos`` that stays (check cells are all taken out)."""
    for before in range(pos - 1, -1, -1):
        if not is_check(cells[before]):
            return before
    return None


def _anchor(cells, is_check, spec, pos, exercise_pos, exercise_positions, lesson) -> int | None:
    """Where the check cell goes: where the learner left it if that is between its exercise and
    the next exercise, else right after its exercise cell; without an exercise cell, after the
    nearest canonical cell that precedes it. ``None`` means at the end; ``-2`` at the start."""
    if exercise_pos is not None:
        next_exercise = min((p for p in exercise_positions if p > exercise_pos), default=len(cells))
        if pos is not None and exercise_pos < pos < next_exercise:
            return _anchor_of_found(cells, is_check, pos)
        return exercise_pos
    canonical = lesson.notebook.cells
    ids = [cell.get("id") for cell in canonical]
    start = ids.index(spec.check_cell.get("id")) if spec.check_cell.get("id") in ids else 0
    position_of = {cell.get("id"): p for p, cell in enumerate(cells) if not is_check(cell)}
    for earlier in range(start - 1, -1, -1):
        if ids[earlier] in position_of:
            return position_of[ids[earlier]]
    return -2 if start == 0 else None


def roles(nb: NotebookNode) -> list[CellRole]:
    """Name every code cell; positions count code cells only, like nbval's ``Cell N``."""
    result = []
    seen_exercises: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        meta = course_meta(cell)
        index = len(result)
        if "check" in meta:
            result.append(CellRole(index, "check", meta["check"], cell.get("id", "")))
        elif "exercise" in meta and meta["exercise"] not in seen_exercises:
            seen_exercises.add(meta["exercise"])
            result.append(CellRole(index, "exercise", meta["exercise"], cell.get("id", "")))
        else:
            result.append(CellRole(index, "cell", "", cell.get("id", "")))
    return result
