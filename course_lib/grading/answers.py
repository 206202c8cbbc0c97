"""The learner's code in a submission: which cells are theirs, and which of them answer each
exercise.

A cell is the learner's when it is an exercise cell, or when its source is not one of the
lesson's own cells as the course wrote them (a scratch cell, a lesson cell they changed). The
answer to an exercise is more than its exercise cell: an answer pasted into a new cell between
the untouched stub and its check, or written in a scratch cell that defines the target, runs
just the same. So an exercise's answer is every cell of the learner's that runs before its check
and

- is its exercise cell, or lies between the exercise cell and the check;
- binds one of the exercise's targets (``def``, ``class``, an assignment, an import, or
  ``globals()["name"] = ...``: a name written in a string is a name);
- or binds a name that the cells above use, and so on (a helper, a table, an alias), except
  other exercises' cells, which are answers of their own.

Borrowing is looked for, and similarity measured, on these cells. Sources are parsed, never run.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from dataclasses import dataclass

from course_lib.grading import syntax_tree
from course_lib.grading.canonical import Lesson, course_meta
from course_lib.grading.sanitize import Sanitized

CELL_SEPARATOR = "\n\n"
NAMESPACE_CALLS = ("globals", "locals", "vars")


@dataclass(frozen=True)
class Cell:
    """One code cell of the submission that is not a check cell."""

    index: int  # nbval's ``Cell N``
    source: str
    exercise: str  # the exercise whose exercise cell this is, else ""
    own: bool  # the learner's: an exercise cell, or a cell the lesson does not hold as it is


def learner_cells(sanitized: Sanitized, lesson: Lesson) -> list[Cell]:
    """Every code cell that is not a check cell, in order, saying whether it is the learner's."""
    lesson_sources = {
        cell.source
        for cell in lesson.notebook.cells
        if cell.cell_type == "code" and not course_meta(cell)
    }
    code = [cell for cell in sanitized.notebook.cells if cell.cell_type == "code"]
    cells = []
    for role, cell in zip(sanitized.roles, code, strict=False):
        if role.kind == "check":
            continue
        own = role.kind == "exercise" or cell.source not in lesson_sources
        cells.append(Cell(role.index, cell.source, role.exercise, own))
    return cells


def check_positions(sanitized: Sanitized) -> dict[str, int]:
    """Exercise id -> the index of its check cell."""
    return {role.exercise: role.index for role in sanitized.roles if role.kind == "check"}


def answer_cells(
    cells: list[Cell], exercise: str, targets: Iterable[str], check_at: int
) -> list[Cell]:
    """The learner's cells that make up the answer to ``exercise`` (see the module docstring),
    in notebook order."""
    mine = [cell for cell in cells if cell.own and cell.index < check_at]
    start = next((cell.index for cell in mine if cell.exercise == exercise), None)
    wanted = set(targets)
    chosen = {
        cell.index
        for cell in mine
        if cell.exercise == exercise
        or (start is not None and start < cell.index and not cell.exercise)
        or (wanted & names_of(cell.source).bound and not cell.exercise)
    }
    helpers = [cell for cell in mine if not cell.exercise]
    used = _used_by(cell for cell in mine if cell.index in chosen)
    while True:
        more = {
            c.index for c in helpers if c.index not in chosen and used & names_of(c.source).bound
        }
        if not more:
            break
        chosen |= more
        used |= _used_by(cell for cell in helpers if cell.index in more)
    return [cell for cell in mine if cell.index in chosen]


def answer_source(cells: list[Cell]) -> str:
    return CELL_SEPARATOR.join(cell.source for cell in cells)


def _used_by(cells: Iterable[Cell]) -> set[str]:
    used: set[str] = set()
    for cell in cells:
        used |= names_of(cell.source).used
    return used


@dataclass(frozen=True)
class Names:
    """What one cell binds at the notebook's top level, and every name it reads."""

    bound: frozenset[str]
    used: frozenset[str]


@functools.lru_cache(maxsize=4096)
def names_of(source: str) -> Names:
    try:
        tree = syntax_tree.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Names(frozenset(), frozenset())
    bound: set[str] = set()
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.Global):
            bound.update(node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.isidentifier():  # globals()["name"], eval("name"), getattr(m, "name")
                used.add(node.value)
        elif isinstance(node, ast.Subscript) and _is_namespace(node.value):
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                bound.add(key.value)
    bound |= _top_level_bindings(tree)
    return Names(frozenset(bound), frozenset(used))


def _top_level_bindings(tree: ast.Module) -> set[str]:
    """Names the cell's top level binds by definition or import (assignments are found as
    stored names; names stored inside functions are local, unless declared ``global``, but
    counting them too only widens the answer)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                found.add(alias.asname or alias.name.split(".")[0])
    return found


def _is_namespace(node: ast.AST) -> bool:
    """``globals()``, ``locals()`` or ``vars()`` (with no argument)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in NAMESPACE_CALLS
        and not node.args
    )
