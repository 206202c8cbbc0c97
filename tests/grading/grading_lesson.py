"""A small lesson, ``90_test``, written by the tests: real nbformat files, real checks.

Its three exercises are checked by ``lesson90_checks.py``, which the grader loads beside the
course's checks, so the grader meets exactly what it meets in the course: exercise cells, check
cells, metadata, points. Each test submission is the canonical notebook with some cells' sources
replaced.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

SLUG = "90_test"
POINTS = {"90.1": 2, "90.2": 3, "90.3": 1}

# The checks live in lesson90_checks.py and run in the grader; this cell is the lesson's own
# code, which every submission runs first.
CHECK_MODULE = str(Path(__file__).with_name("lesson90_checks.py"))
SETUP = "LESSON = 'a test lesson'\n"
# A lesson whose own code loads the reference (as lessons 04 to 09 do, for their demos): its
# kernels can read course_lib.reference, so taking from it is detected, not prevented.
REFERENCE_SETUP = SETUP + "from course_lib.reference import to_text as reference_to_text\n"

STUBS = {
    "90.1": 'def double(x):\n    raise NotImplementedError("Exercise 90.1: return 2 * x")',
    "90.2": 'def shout(word):\n    raise NotImplementedError("Exercise 90.2: upper-case, add !")',
    "90.3": 'def type_name(annotation):\n    raise NotImplementedError("Exercise 90.3: JSON type")',
}
SOLUTIONS = {
    "90.1": "def double(x):\n    return 2 * x",
    "90.2": 'def shout(word):\n    return word.upper() + "!"',
    "90.3": (
        "NAMES = {str: 'string', int: 'integer', float: 'number', bool: 'boolean'}\n\n"
        "def type_name(annotation):\n    return {'type': NAMES[annotation]}"
    ),
}
TARGETS = {"90.1": "double", "90.2": "shout", "90.3": "type_name"}
# A solution to 90.3 long enough for similarity to judge (the solutions folder's, in the tests).
LONG_SOLUTION = """NAMES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def type_name(annotation):
    if annotation is bool:
        return {"type": "boolean"}
    for python_type, json_name in NAMES.items():
        if annotation is python_type:
            return {"type": json_name}
    raise TypeError(f"no JSON type for {annotation!r}")
"""


def _exercise_cell(exercise_id: str, source: str) -> nbformat.NotebookNode:
    cell = new_code_cell(source, id=f"t-ex{exercise_id[-1]}")
    cell.metadata = {
        "tags": ["exercise"],
        "course": {"exercise": exercise_id, "points": POINTS[exercise_id], "hint": "see stub"},
    }
    return cell


def check_source(exercise_id: str) -> str:
    return f'from course_lib.checks import check\ncheck("{exercise_id}", {TARGETS[exercise_id]})'


def _check_cell(exercise_id: str) -> nbformat.NotebookNode:
    cell = new_code_cell(check_source(exercise_id), id=f"t-ck{exercise_id[-1]}")
    cell.metadata = {
        "tags": ["check"],
        "editable": False,
        "deletable": False,
        "course": {"check": exercise_id},
    }
    return cell


def canonical(setup: str = SETUP) -> nbformat.NotebookNode:
    """The student version: stubs in every exercise cell."""
    cells = [new_markdown_cell("# A test lesson", id="t-intro"), new_code_cell(setup, id="t-setup")]
    cells.append(new_code_cell("print('scratch space')", id="t-scratch"))
    for exercise_id, stub in STUBS.items():
        cells += [_exercise_cell(exercise_id, stub), _check_cell(exercise_id)]
    nb = new_notebook(cells=cells)
    nb.metadata["course"] = {"notebook": SLUG}
    return nb


def submission(
    answers: dict[str, str] | None = None, scratch: str | None = None, setup: str = SETUP
):
    """The canonical notebook with ``answers`` (exercise id -> source) and an optional source
    for the learner's scratch cell (which runs before every exercise); ``setup`` is the
    lesson's own first code cell (``REFERENCE_SETUP`` for a lesson that loads the reference)."""
    nb = canonical(setup)
    for cell in nb.cells:
        exercise_id = cell.metadata.get("course", {}).get("exercise")
        if exercise_id and answers and exercise_id in answers:
            cell.source = answers[exercise_id]
        if cell.get("id") == "t-scratch" and scratch is not None:
            cell.source = scratch
    return nb


def write(path: Path, nb_or_bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(nb_or_bytes, bytes):
        path.write_bytes(nb_or_bytes)
    elif isinstance(nb_or_bytes, dict) and not isinstance(nb_or_bytes, nbformat.NotebookNode):
        path.write_text(json.dumps(nb_or_bytes), encoding="utf-8")
    else:
        nbformat.write(nb_or_bytes, path)
    return path
