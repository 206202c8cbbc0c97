"""Run a solution notebook's cells in-process, and read the message a check rejects with.

The checks' tests never copy a solution: they execute the cells of ``solutions/NN_*.ipynb`` by
cell id, so they always test the code the lesson ships. A wrong solution is that same code with
one realistic mistake edited in (``edits``), so the hint under test can only come from it.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import nbformat
import pytest

from course_lib.checks import CheckFailed, NotDoneYet, evaluate

SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"

# (cell id, old text, new text): the mistake to edit into that cell before it runs.
Edit = tuple[str, str, str]


@cache
def cell_sources(notebook: str) -> dict[str, str]:
    """The source of every cell of ``solutions/<notebook>.ipynb``, by cell id."""
    cells = nbformat.read(SOLUTIONS / f"{notebook}.ipynb", as_version=4).cells
    return {cell.id: cell.source for cell in cells}


def run_source(source: str, filename: str, namespace: dict[str, Any]) -> None:
    """Execute one cell's source into ``namespace``, its printed output discarded.

    ``dont_inherit=True``: the test modules' ``from __future__ import annotations`` must not
    leak into the cell, which runs in the notebook with its annotations evaluated.
    """
    code = compile(source, filename, "exec", dont_inherit=True)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(code, namespace)


def load_cells(
    notebook: str,
    cell_ids: Iterable[str],
    *,
    namespace: dict[str, Any] | None = None,
    edits: Iterable[Edit] = (),
) -> dict[str, Any]:
    """The names the cells ``cell_ids`` define, run in order into ``namespace`` (a fresh dict
    unless given), each with the ``edits`` for it applied first (each old text must be there)."""
    namespace = {} if namespace is None else namespace
    for cell_id, source in edited_sources(notebook, cell_ids, edits):
        run_source(source, f"{notebook}.ipynb:{cell_id}", namespace)
    return namespace


def edited_sources(
    notebook: str, cell_ids: Iterable[str], edits: Iterable[Edit] = ()
) -> list[tuple[str, str]]:
    """(cell id, source) of the cells ``cell_ids`` in order, each with the ``edits`` (cell id,
    old, new) for it applied (each old text must be there)."""
    sources = cell_sources(notebook)
    edits = list(edits)
    edited = []
    for cell_id in cell_ids:
        source = sources[cell_id]
        for edited_cell, old, new in edits:
            if edited_cell == cell_id:
                assert old in source, f"{cell_id} does not contain {old!r}"
                source = source.replace(old, new)
        edited.append((cell_id, source))
    return edited


def notebook_source(notebook: str, cell_ids: Iterable[str], edits: Iterable[Edit] = ()) -> str:
    """The cells ``cell_ids``, edited, as one source to run in a kernel."""
    return "\n\n".join(source for _, source in edited_sources(notebook, cell_ids, edits))


def rejected(exercise_id: str, *targets: Any) -> str:
    """The message of the ``CheckFailed`` the check raises (the test fails if it passes, or if
    it only says "not done yet")."""
    with pytest.raises(CheckFailed) as info:
        evaluate(exercise_id, *targets)
    assert not isinstance(info.value, NotDoneYet), str(info.value)
    return str(info.value)


@contextlib.contextmanager
def driver_kernel(tmp_path_factory: pytest.TempPathFactory, **options: Any) -> Iterator[Any]:
    """A grading kernel (``GuardedKernel``, with ``options``) in a folder of its own, the
    driver loaded as the grader loads it; stopped at the end."""
    from course_lib.grading.kernel import GuardedKernel
    from course_lib.grading.plugin import DRIVER

    folder = str(tmp_path_factory.mktemp("kernel"))
    kernel = GuardedKernel(folder, memory_mb=2048, output_cap=100_000, **options)
    try:
        kernel.evaluate(DRIVER)
        yield kernel
    finally:
        kernel.stop()
