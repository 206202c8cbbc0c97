"""The solution cells of lesson 05, run in process, for the checks' tests (never copied)."""

from __future__ import annotations

from functools import cache
from types import ModuleType
from typing import Any

from solution_cells import load_cells

NOTEBOOK = "05_agent_loop"
# The imports, the helpers the exercises use, the given buggy loop, and every exercise cell.
LOADED_CELLS = (
    "w05-imports",
    "w05-helpers",
    "w05-buggy-loop",
    "w05-ex1",
    "w05-ex2",
    "w05-ex3",
    "w05-ex4",
    "w05-ex5",
    "w05-ex6",
)


@cache
def _solution() -> dict[str, Any]:
    return load_cells(NOTEBOOK, LOADED_CELLS)


def solution(name: str) -> Any:
    """What the solution notebook defines as ``name``."""
    return _solution()[name]


def assistant_message(message: Any) -> dict:
    return solution("assistant_message")(message)


def one_call_at_a_time(monkeypatch: Any, check: ModuleType) -> None:
    """For an answer that runs its calls one at a time: a short meeting bound in ``check`` (05.3's
    or 05.5's module). Only such an answer waits for the bound, and with one call running the
    meeting breaks alike at any bound; at the check's own (10 s, generous for a loaded machine)
    each of these tests sat idle for it. Answers with several calls running keep the check's
    bound: how many of them arrive before it is what their verdict reports."""
    monkeypatch.setattr(check, "WAIT", 0.2)


def a_pool_too_small(monkeypatch: Any, check: ModuleType) -> None:
    """For an answer whose pool is smaller than the batch: its calls never all meet, so each
    of these tests sat idle for the check's whole bound (10 s). A pool's threads all start
    within milliseconds of the first call (each submit starts one), so 3 s still lets every one
    of them arrive, and the verdict report the peak it reports at any bound, on a machine far
    busier than a CI runner."""
    monkeypatch.setattr(check, "WAIT", 3.0)
