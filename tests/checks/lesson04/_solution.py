"""The cells of ``solutions/04_registry.ipynb`` that lesson 04's check tests run."""

from __future__ import annotations

from functools import cache
from typing import Any

from solution_cells import Edit, load_cells

NOTEBOOK = "04_registry"
# The setup cell (imports), then every exercise cell.
CELLS = (
    "w04-setup",
    "w04-ex1-code",
    "w04-ex2-code",
    "w04-ex3-code",
    "w04-ex4-code",
    "w04-ex5-code",
)


@cache
def solution() -> dict[str, Any]:
    """The names the solution notebook's cells define (their printed output is discarded)."""
    return load_cells(NOTEBOOK, CELLS)


def edited(name: str, *edits: Edit) -> Any:
    """The solution's ``name`` with ``edits`` (cell, old, new) applied: one realistic mistake,
    so a hint can only come from it."""
    return load_cells(NOTEBOOK, CELLS, edits=edits)[name]


def namespace_with(*edits: Edit) -> dict[str, Any]:
    return load_cells(NOTEBOOK, CELLS, edits=edits)
