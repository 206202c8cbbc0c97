"""Independently written correct solutions (``independent_02``, ``independent_04``) as whole
notebooks: the solution notebook of the lesson with every exercise cell replaced by the n-th
variant, and a way to prove each passes the course's checks by running it in process (every code
cell in order, in one namespace; a check cell raises when its check fails)."""

from __future__ import annotations

import contextlib
import io
import linecache
from pathlib import Path

import independent_02
import independent_04
import nbformat

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = {"02_reflection": independent_02.ANSWERS, "04_registry": independent_04.ANSWERS}
VARIANTS = 5


def exercise_of(cell: nbformat.NotebookNode) -> str:
    course = cell.get("metadata", {}).get("course", {})
    return course.get("exercise", "") if cell.get("cell_type") == "code" else ""


def notebook_with(slug: str, variant: int) -> nbformat.NotebookNode:
    """``solutions/<slug>.ipynb`` with each exercise cell replaced by its ``variant``-th
    independent solution."""
    nb = nbformat.read(ROOT / "solutions" / f"{slug}.ipynb", as_version=4)
    for cell in nb.cells:
        exercise = exercise_of(cell)
        if exercise:
            cell.source = ANSWERS[slug][exercise][variant]
            cell.outputs = []
    return nb


def run_in_process(nb: nbformat.NotebookNode) -> None:
    """Every code cell in order in one namespace, its printing swallowed; a failing check (or
    any cell that raises) raises here."""
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for number, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                name = f"<independent cell {number}>"  # known to linecache, as IPython does
                lines = cell.source.splitlines(keepends=True)
                linecache.cache[name] = (len(cell.source), None, lines, name)
                code = compile(cell.source, name, "exec", dont_inherit=True)
                exec(code, namespace)  # the course's own lesson, with our answers: trusted
