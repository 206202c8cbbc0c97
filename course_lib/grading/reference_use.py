"""Whether a lesson's grading kernel needs ``course_lib.reference``; where it does not, the kernel
cannot read it (``isolation.grants``), so the course's answers are not there to take.

A lesson needs the reference when its own code cells (its demos, its stubs) import it, directly
or through a module of ``course_lib`` that imports it when loaded (followed through their
module-level imports, read from the source, never imported here). Lessons 04 to 09 show the
reference at work (the registry, the loop) and their checks build reference registries beside
the learner's code: their kernels keep it, and taking from it is detected instead
(``borrowing``, ``provenance``). A lesson that does not need it (the reflection lessons, whose
schema explorer loads it only when it draws the reference's side) grades with it hidden. The
solution notebooks grade to full marks either way (``tests/grading/test_course_notebooks.py``).
"""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path

import course_lib
from course_lib.grading.borrowing import parse
from course_lib.grading.canonical import Lesson, course_meta

REFERENCE = "course_lib.reference"
# Modules that load the reference when they are used, not when they are imported: the toolkit
# hands out the reference's parts where the learner's are not there (``course_lib.toolkit``).
LENDS_REFERENCE = ("course_lib.toolkit",)
PACKAGE = "course_lib"
MAX_MODULES = 500


def needs_reference(lesson: Lesson) -> bool:
    """Whether ``lesson``'s own code (every code cell but its check cells) loads the reference."""
    sources = tuple(
        cell.source
        for cell in lesson.notebook.cells
        if cell.cell_type == "code" and "check" not in course_meta(cell)
    )
    return _sources_need(sources)


@functools.lru_cache(maxsize=64)
def _sources_need(sources: tuple[str, ...]) -> bool:
    wanted: list[str] = []
    for source in sources:
        tree = parse(source)
        if tree is not None:
            wanted += _imported(tree, PACKAGE, everywhere=True)
    return _reaches_reference(tuple(wanted))


@functools.lru_cache(maxsize=64)
def _reaches_reference(modules: tuple[str, ...]) -> bool:
    seen: set[str] = set()
    todo = [name for name in modules if name.startswith(PACKAGE)]
    while todo and len(seen) < MAX_MODULES:
        name = todo.pop()
        if name == REFERENCE or name.startswith(REFERENCE + ".") or name in LENDS_REFERENCE:
            return True
        if name in seen:
            continue
        seen.add(name)
        for parent in _parents(name):
            todo.append(parent)
        todo += _module_imports(name)
    return False


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]


@functools.lru_cache(maxsize=512)
def _module_imports(name: str) -> tuple[str, ...]:
    """The ``course_lib`` modules that module ``name`` imports when it is loaded."""
    path = _file_of(name)
    if path is None:
        return ()
    tree = parse(path.read_text(encoding="utf-8"))
    if tree is None:
        return ()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return tuple(m for m in _imported(tree, package, everywhere=False) if m.startswith(PACKAGE))


def _file_of(name: str) -> Path | None:
    root = Path(os.path.dirname(os.path.realpath(course_lib.__file__)))
    parts = name.split(".")[1:]
    base = root.joinpath(*parts)
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _imported(tree: ast.Module, package: str, *, everywhere: bool) -> list[str]:
    """Modules a tree imports (and, for ``from m import n``, ``m.n`` in case it is a module):
    at any depth for a cell, at the top level (and in its ``if``/``try``) for a module."""
    nodes = ast.walk(tree) if everywhere else _top_level(tree.body)
    found = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, package)
            if module:
                found.append(module)
                found += [f"{module}.{alias.name}" for alias in node.names]
    return found


def _top_level(statements: list[ast.stmt]):
    for statement in statements:
        yield statement
        if isinstance(statement, ast.If | ast.Try):
            for field in ("body", "orelse", "finalbody"):
                yield from _top_level(getattr(statement, field, []))
            for handler in getattr(statement, "handlers", []):
                yield from _top_level(handler.body)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".")
    if node.level > 1:
        base = base[: -(node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)
