"""The solution cells of lesson 07, run in process, for the checks' tests (never copied)."""

from __future__ import annotations

from functools import cache
from typing import Any

from solution_cells import load_cells

NOTEBOOK = "07_other_protocols"
# The imports, the registry, the helpers the exercises may use, and every exercise cell.
LOADED_CELLS = (
    "w07-imports",
    "w07-tools",
    "w07-ex1",
    "w07-ex2",
    "w07-anthropic-helpers",
    "w07-ex3",
    "w07-extraction-error",
    "w07-ex4",
)


@cache
def _solution() -> dict[str, Any]:
    return load_cells(NOTEBOOK, LOADED_CELLS)


def solution(name: str) -> Any:
    """What the solution notebook defines as ``name``."""
    return _solution()[name]
