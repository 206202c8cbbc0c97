"""The cells of ``solutions/02_reflection.ipynb`` that lesson 02's check tests run."""

from __future__ import annotations

from functools import cache
from typing import Any

from solution_cells import Edit, load_cells

NOTEBOOK = "02_reflection"
# The setup cell (imports), the cell that defines the ENTRY regex, and every exercise cell.
CELLS = ("w02-setup", "w02-regex", "w02-ex1", "w02-ex2", "w02-ex3", "w02-ex4", "w02-ex5")


@cache
def solution() -> dict[str, Any]:
    """The names the solution notebook's cells define (their printed output is discarded)."""
    return load_cells(NOTEBOOK, CELLS)


def edited(name: str, *edits: Edit) -> Any:
    """The solution's ``name`` from the notebook's cells with ``edits`` (cell, old, new) applied:
    one realistic mistake, so a hint can only come from it."""
    return load_cells(NOTEBOOK, CELLS, edits=edits)[name]


def namespace_with(*edits: Edit) -> dict[str, Any]:
    return load_cells(NOTEBOOK, CELLS, edits=edits)
