"""What the course says a lesson holds: its exercises, their points, and their check cells.

The canonical student notebooks (``notebooks/`` by default) are the grader's source of truth.
Everything comes from their cell metadata, so a new lesson is graded without any grader change.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode

import course_lib
from course_lib.grading import syntax_tree
from course_lib.i18n import translate

# Why the course's own notebooks cannot be graded from (``course grade: {error}``, ``course
# check: {error}``): the instructor, or a learner running the self-check, reads it.
MESSAGES = {
    "no_folder": (
        "The course's notebooks folder {folder} does not exist. Run the command in the course "
        "folder (the one with notebooks/ in it), or pass --canonical DIR with the student "
        "notebooks as `python -m course_lib build` writes them."
    ),
    "not_a_notebook": (
        "{path} is not a notebook nbformat can read: rebuild notebooks/ with "
        "`python -m course_lib build`"
    ),
    "no_check_cell": "{path}: exercise {exercise} has no check cell; rebuild notebooks/",
}


@dataclass(frozen=True)
class ExerciseSpec:
    """One exercise of a lesson as the canonical notebook defines it."""

    id: str
    points: int
    hint: str
    exercise_cell_id: str
    check_cell: NotebookNode
    targets: tuple[str, ...]

    def fresh_check_cell(self) -> NotebookNode:
        """A copy of the canonical check cell, ready to go into a submission."""
        return copy.deepcopy(self.check_cell)


@dataclass(frozen=True)
class Lesson:
    slug: str
    path: Path
    notebook: NotebookNode
    exercises: tuple[ExerciseSpec, ...]

    @property
    def max_points(self) -> int:
        return sum(spec.points for spec in self.exercises)

    @property
    def cell_ids(self) -> tuple[str, ...]:
        return tuple(cell.get("id", "") for cell in self.notebook.cells)


def default_canonical_dir() -> Path:
    """``notebooks/`` next to the ``course_lib`` package (the repository checkout)."""
    return Path(course_lib.__file__).resolve().parent.parent / "notebooks"


def course_meta(cell_or_nb: NotebookNode) -> dict:
    meta = cell_or_nb.get("metadata", {}).get("course", {})
    return meta if isinstance(meta, dict) else {}


def check_targets(source: str) -> tuple[str, ...]:
    """A check cell's target names: ``check("01.1", WEATHER_TOOL)`` gives ``("WEATHER_TOOL",)``."""
    try:
        tree = syntax_tree.parse(source)
    except SyntaxError:
        return ()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check":
            return tuple(arg.id for arg in node.args[1:] if isinstance(arg, ast.Name))
    return ()


def load_lesson(path: Path) -> Lesson:
    """Read one canonical notebook; its exercises come in notebook order."""
    # (A file the system cannot read raises an OSError: ``course grade`` frames its own words.)
    try:
        nb = nbformat.read(path, as_version=4)
    except (ValueError, nbformat.ValidationError):
        raise ValueError(translate(MESSAGES, "not_a_notebook", path=path)) from None
    slug = course_meta(nb).get("notebook") or path.stem
    checks = {
        course_meta(cell)["check"]: cell
        for cell in nb.cells
        if cell.cell_type == "code" and "check" in course_meta(cell)
    }
    exercises = []
    for cell in nb.cells:
        meta = course_meta(cell)
        if cell.cell_type != "code" or "exercise" not in meta:
            continue
        exercise_id = meta["exercise"]
        check_cell = checks.get(exercise_id)
        if check_cell is None:
            raise ValueError(translate(MESSAGES, "no_check_cell", path=path, exercise=exercise_id))
        exercises.append(
            ExerciseSpec(
                id=exercise_id,
                points=int(meta.get("points", 1)),
                hint=str(meta.get("hint", "")),
                exercise_cell_id=cell.get("id", ""),
                check_cell=check_cell,
                targets=check_targets(check_cell.source),
            )
        )
    return Lesson(slug, path, nb, tuple(exercises))


def load_lessons(canonical_dir: Path) -> dict[str, Lesson]:
    """Every ``NN_slug.ipynb`` lesson in ``canonical_dir`` by slug."""
    if not canonical_dir.is_dir():
        raise FileNotFoundError(translate(MESSAGES, "no_folder", folder=canonical_dir))
    lessons = {}
    for path in sorted(canonical_dir.glob("*.ipynb")):
        lesson = load_lesson(path)
        lessons[lesson.slug] = lesson
    return lessons
