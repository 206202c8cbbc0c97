"""The cells of ``solutions/09_capstone.ipynb`` that lesson 09's check tests run."""

from __future__ import annotations

from functools import cache
from typing import Any

from solution_cells import Edit, load_cells

NOTEBOOK = "09_capstone"
# The imports, the three exercise cells and the calculator the assistant's calculate uses.
CELLS = (
    "w09-setup",
    "w09-route",
    "w09-may-use",
    "w09-approval",
    "w09-memory",
    "w09-budget",
    "w09-calculator",
    "w09-metadata",
    "w09-strict",
    "w09-assistant",
)


@cache
def solution() -> dict[str, Any]:
    """The names the solution notebook's cells define (their printed output is discarded)."""
    return load_cells(NOTEBOOK, CELLS)


def edited(name: str, *edits: Edit) -> Any:
    """The solution's ``name`` with ``edits`` (cell, old, new) applied: one realistic mistake."""
    return load_cells(NOTEBOOK, CELLS, edits=edits)[name]
