"""The cells of ``solutions/03_pitfalls.ipynb`` that lesson 03's check tests run."""

from __future__ import annotations

from functools import cache
from typing import Any

from solution_cells import Edit, load_cells

NOTEBOOK = "03_pitfalls"
CELLS = ("w03-setup", "w03-ex1", "w03-ex2", "w03-ex3", "w03-ex4", "w03-ex5", "w03-ex6")


@cache
def solution() -> dict[str, Any]:
    """The names the solution notebook's cells define (their printed output is discarded)."""
    return load_cells(NOTEBOOK, CELLS)


def fresh() -> dict[str, Any]:
    """A namespace of its own, for a wrong answer that replaces one of the functions in it."""
    return load_cells(NOTEBOOK, CELLS)


def edited(name: str, *edits: Edit) -> Any:
    """The solution's ``name`` with ``edits`` (cell, old, new) applied: one realistic mistake."""
    return load_cells(NOTEBOOK, CELLS, edits=edits)[name]


def replaced(name: str, wrong: Any, target: str) -> Any:
    """``target`` from a fresh namespace in which ``name`` is ``wrong(correct)``: the later
    function calls the wrong earlier one through its global name, as in the notebook."""
    namespace = fresh()
    namespace[name] = wrong(namespace[name])
    return namespace[target]
