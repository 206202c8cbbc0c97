"""The solution cells of lesson 06, run in process, for the checks' tests (never copied).

The exercise cells use what earlier cells define: the setup cell's imports and ``error_text``,
``ROLES`` and ``PERMISSIONS`` (cell ``w06-roles``) and ``error_message``/``parsed_arguments``
(cell ``w06-trace-helpers``). Only those definitions are run from the two cells, not their demos.
A wrong solution is the same cells with one realistic mistake edited in (``wrong``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from solution_cells import Edit, cell_sources, load_cells, run_source

NOTEBOOK = "06_hardening"
EX1, EX2, EX3, EX4 = "w06-ex1-code", "w06-ex2-code", "w06-ex3-code", "w06-ex4-code"
EX5 = "w06-ex5-code"
TARGETS = {
    "06.1": ("safe_calculate",),
    "06.2": ("to_strict",),
    "06.3": ("select_tools", "call_as"),
    "06.4": ("TracedRegistry",),
    "06.5": ("anthropic_strict",),
}


def load(*edits: Edit) -> dict[str, Any]:
    """The names the exercise cells define, ``edits`` (cell id, old, new) applied first."""
    namespace = load_cells(NOTEBOOK, ["w06-setup"])
    sources = cell_sources(NOTEBOOK)
    roles = sources["w06-roles"].split("\n\nnotes = ToolRegistry()")[0]
    run_source(roles, "w06-roles", namespace)  # ROLES and PERMISSIONS only
    helpers = sources["w06-trace-helpers"].split("\n\n\nfor result in")[0]
    run_source(helpers, "w06-trace-helpers", namespace)  # error_message, parsed_arguments
    return load_cells(NOTEBOOK, (EX1, EX2, EX5, EX3, EX4), namespace=namespace, edits=edits)


@cache
def _solution() -> dict[str, Any]:
    return load()


def solution(name: str) -> Any:
    return _solution()[name]


def targets(exercise_id: str) -> list[Any]:
    return [solution(name) for name in TARGETS[exercise_id]]


def wrong(exercise_id: str, cell: str, old: str, new: str, *more: tuple[str, str]) -> list[Any]:
    """The targets of ``exercise_id`` with ``old`` replaced by ``new`` in ``cell`` (and each
    further ``(old, new)`` pair of ``more`` in the same cell)."""
    namespace = load((cell, old, new), *((cell, *pair) for pair in more))
    return [namespace[name] for name in TARGETS[exercise_id]]
