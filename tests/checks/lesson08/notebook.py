"""The solution cells of lesson 08, run in process, for the checks' tests (never copied)."""

from __future__ import annotations

from functools import cache
from typing import Any

from solution_cells import load_cells

NOTEBOOK = "08_mcp"
# The imports and helpers, then every exercise cell.
CELLS = ("w08-setup", "w08-ex1", "w08-ex2", "w08-ex3", "w08-ex4")


@cache
def _solution() -> dict[str, Any]:
    return load_cells(NOTEBOOK, CELLS)


def solution(name: str) -> Any:
    """What the solution notebook defines as ``name``."""
    return _solution()[name]


def namespace() -> dict[str, Any]:
    """A fresh namespace holding the solution's definitions (to change one of them in)."""
    return dict(_solution())


def edited(name: str, *edits: tuple[str, str, str]) -> Any:
    """``name`` from the solution's cells with ``edits`` (cell id, old text, new text) applied:
    the solution with one realistic mistake in it."""
    return load_cells(NOTEBOOK, CELLS, edits=edits)[name]
