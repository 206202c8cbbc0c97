"""The solution cells of lesson 01, run in process, for the checks' tests (never copied)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import cache
from typing import Any

from solution_cells import load_cells

NOTEBOOK = "01_handwritten_schemas"
# The cells whose definitions the tests use: the imports, the functions the exercises describe,
# the example tools, and every exercise cell.
LOADED_CELLS = (
    "w01-imports",
    "w01-get-time",
    "w01-time-tool",
    "w01-get-weather",
    "w01-search-notes",
    "w01-ex1",
    "w01-ex2",
    "w01-ex7",
    "w01-ex3",
    "w01-ex4",
    "w01-ex5",
    "w01-desc-tools",
    "w01-desc-orders",
    "w01-ex6",
)


@cache
def _solution() -> dict[str, Any]:
    return load_cells(NOTEBOOK, LOADED_CELLS)


def solution(name: str) -> Any:
    """What the solution notebook defines as ``name`` (a deep copy of a value)."""
    value = _solution()[name]
    return copy.deepcopy(value) if isinstance(value, (dict, list)) else value


def changed(name: str, change: Callable[[Any], object] | None = None) -> Any:
    """The solution's ``name`` (a deep copy) with one change made to it (in place, by
    ``change``)."""
    value = solution(name)
    if change is not None:
        change(value)
    return value


def parameters(tool: dict) -> dict:
    """A Chat Completions tool's parameters schema."""
    return tool["function"]["parameters"]
