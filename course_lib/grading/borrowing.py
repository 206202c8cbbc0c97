"""Answers taken from the course's own library, found in the source of an exercise cell.

A notebook can read the installed ``course_lib`` (the reference solutions and the checks' oracles
are in it), so borrowing cannot be prevented; it can be seen. An exercise cell earns zero when
its source, read (never run) here:

- imports ``course_lib.reference`` or ``course_lib.checks`` (or anything under them), unless it
  is a name the lesson itself imports from there for the learner to build on;
- names either module in a string or an attribute chain (``importlib.import_module(...)``,
  ``course_lib.reference.type_map``);
- uses a name that another cell of the notebook imported from either module and the lesson does
  not (an alias of a borrowed answer).

What this cannot see (code assembled at run time from pieces of strings, say) is left to the
similarity flags and to the instructor; the README says so.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

GUARDED = ("course_lib.reference", "course_lib.checks")
SHORT = {"reference": "course_lib.reference", "checks": "course_lib.checks"}


def _guarded(module: str) -> str | None:
    for prefix in GUARDED:
        if module == prefix or module.startswith(prefix + "."):
            return prefix
    return None


def _parse(source: str) -> ast.AST | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def imported_names(source: str) -> dict[str, str]:
    """Names a cell binds by importing from a guarded module: name -> what it came from."""
    tree = _parse(source)
    found: dict[str, str] = {}
    if tree is None:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if _guarded(node.module) or (node.module == "course_lib" and alias.name in SHORT):
                    found[alias.asname or alias.name] = full
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _guarded(alias.name) and alias.asname:
                    found[alias.asname] = alias.name
    return found


def lesson_allowed(sources: Iterable[str]) -> set[str]:
    """What the lesson's own cells import from the guarded modules (for the learner to use)."""
    allowed: set[str] = set()
    for source in sources:
        allowed.update(imported_names(source))
    return allowed


def borrowing(exercise_source: str, other_sources: Iterable[str], allowed: set[str]) -> str | None:
    """What the exercise cell borrows, as a phrase (``"course_lib.reference.type_schema"``), or
    ``None``. ``other_sources`` are the notebook's other code cells; ``allowed`` the names the
    lesson itself imports from the guarded modules."""
    tree = _parse(exercise_source)
    if tree is None:
        return None
    for name, origin in imported_names(exercise_source).items():
        if name not in allowed:
            return origin
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _guarded(alias.name):
                    return alias.name
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for prefix in GUARDED:
                if prefix in node.value:
                    return prefix
        if isinstance(node, ast.Attribute) and _dotted(node) is not None:
            dotted = _dotted(node)
            if dotted and _guarded(dotted):
                return dotted
    aliases: dict[str, str] = {}
    for source in other_sources:
        aliases.update(imported_names(source))
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    for name in sorted(used):
        if name in aliases and name not in allowed:
            return aliases[name]
    return None


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None
