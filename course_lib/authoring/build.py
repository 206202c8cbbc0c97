"""Build ``notebooks/`` from ``solutions/``, and tell whether ``notebooks/`` is in sync.

``build_notebook`` runs the steps of ``course_lib.authoring.steps`` on a copy of one solution
notebook; ``render`` turns a notebook into the exact text written to disk (the same input always
gives the same bytes). ``stale_notebooks`` compares what the build would write with what is on
disk and names the first differing cell, so ``build --check`` can say what to do.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from course_lib.authoring.steps import STEPS, AuthoringError

REPO_ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = REPO_ROOT / "solutions"
NOTEBOOKS = REPO_ROOT / "notebooks"


def build_notebook(solution: NotebookNode, name: str) -> NotebookNode:
    """The student version of ``solution`` (left untouched)."""
    nb = copy.deepcopy(solution)
    for step in STEPS:
        nb = step(nb, name)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        problem = f"the student version is not a valid notebook: {exc.message}"
        raise AuthoringError(name, problem) from None
    return nb


def render(nb: NotebookNode) -> str:
    """The file text: nbformat's own JSON layout (sorted keys, indent 1) plus a final newline."""
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def read(path: Path) -> NotebookNode:
    """The notebook at ``path``; duplicate cell ids are an error, not silently renamed.

    (nbformat "repairs" a duplicate id with a random one, which would make builds differ.)
    """
    text = path.read_text(encoding="utf-8")
    seen: set[str] = set()
    for index, cell in enumerate(json.loads(text).get("cells", [])):
        cell_id = cell.get("id")
        if cell_id in seen:
            raise AuthoringError(path.stem, f"cell {index}: the id {cell_id!r} is used twice")
        if cell_id:
            seen.add(cell_id)
    return nbformat.reads(text, as_version=nbformat.NO_CONVERT)


def write_text(path: Path, text: str) -> None:
    """Write exactly ``text`` as UTF-8 with ``\\n`` line ends, whatever the platform."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as file:
        file.write(text)


def solution_paths(solutions: Path = SOLUTIONS) -> list[Path]:
    return sorted(solutions.glob("*.ipynb"))


def build_all(solutions: Path = SOLUTIONS, notebooks: Path = NOTEBOOKS) -> list[Path]:
    """Write every student notebook; return the paths written (unchanged files are not touched)."""
    built = {
        path.name: render(build_notebook(read(path), path.stem))
        for path in solution_paths(solutions)
    }
    written = []
    for filename, text in built.items():
        target = notebooks / filename
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            write_text(target, text)
            written.append(target)
    return written


def stale_notebooks(solutions: Path = SOLUTIONS, notebooks: Path = NOTEBOOKS) -> list[str]:
    """One line per student notebook that is missing, extra, or differs from a fresh build."""
    problems = []
    sources = {path.name: path for path in solution_paths(solutions)}
    for filename, path in sources.items():
        target = notebooks / filename
        if not target.exists():
            problems.append(f"notebooks/{filename} is missing")
            continue
        expected = render(build_notebook(read(path), path.stem))
        actual = target.read_text(encoding="utf-8")
        if actual != expected:
            problems.append(
                f"notebooks/{filename} is out of date: {_first_difference(expected, actual)}"
            )
    for target in sorted(notebooks.glob("*.ipynb")):
        if target.name not in sources:
            problems.append(f"notebooks/{target.name} has no source solutions/{target.name}")
    return problems


def _first_difference(expected: str, actual: str) -> str:
    """Name the first cell (or other part) where ``actual`` differs from ``expected``."""
    try:
        want, have = json.loads(expected), json.loads(actual)
    except json.JSONDecodeError:
        return "it is not valid JSON"
    want_cells, have_cells = want.get("cells", []), have.get("cells", [])
    for index, (cell_want, cell_have) in enumerate(zip(want_cells, have_cells, strict=False)):
        if cell_want != cell_have:
            fields = sorted(
                key
                for key in cell_want.keys() | cell_have.keys()
                if cell_want.get(key) != cell_have.get(key)
            )
            return f"cell {index} (id {cell_want.get('id')!r}) differs in {', '.join(fields)}"
    if len(want_cells) != len(have_cells):
        return f"it has {len(have_cells)} cells, the build gives {len(want_cells)}"
    if want != have:
        keys = sorted(
            key
            for key in want.keys() | have.keys()
            if key != "cells" and want.get(key) != have.get(key)
        )
        return f"the notebook's {', '.join(keys)} differ"
    return "only its formatting differs"
