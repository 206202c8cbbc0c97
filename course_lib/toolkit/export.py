"""The learner's code as a package: one module per lesson, ``my_toolkit.lessonNN``.

A lesson's module holds the learner's passed exercise cells, in notebook order, after what they
need from the lesson's own cells: the imports and the helpers (``def``, ``class``, plain
assignments) their names reach, found by reading the code (``ast``), never by running it. A
lesson cell that takes parts from the toolkit (``ToolRegistry = toolkit.use("ToolRegistry")``)
becomes an import of whichever version the toolkit chose when the module was written (the
learner's module of an earlier lesson, or the course's), so the package needs no course state
once installed (``pip install ./my_toolkit``).
"""

from __future__ import annotations

import ast
import json
import symtable
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from course_lib.toolkit.messages import say

PACKAGE = "my_toolkit"
# What every toolkit needs whatever its modules import: the parts talk to a model through the
# client of the OpenAI SDK the learner hands them.
BASE_DEPENDENCIES = ("openai",)
# "link" answers where a part comes from: (module, attribute) for the version the toolkit chose.
Link = Callable[[str], tuple[str, str]]


@dataclass(frozen=True)
class LessonCells:
    """A lesson notebook's code, as the export needs it."""

    lesson_sources: tuple[str, ...]  # the code cells that are neither exercises nor checks
    answers: dict[str, str]  # exercise id -> its exercise cell's source, in notebook order


def read_notebook(path: Path) -> LessonCells:
    """The cells of a saved notebook (``OSError`` / ``ValueError`` when it cannot be read)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    lesson, answers = [], {}
    for cell in data.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        meta = (cell.get("metadata") or {}).get("course") or {}
        if meta.get("exercise"):
            answers[str(meta["exercise"])] = source
        elif not meta.get("check"):
            lesson.append(source)
    return LessonCells(tuple(lesson), answers)


def module_name(lesson: str) -> str:
    return f"{PACKAGE}.lesson{lesson}"


def module_source(
    lesson: str, notebook: str, cells: LessonCells, passed: Iterable[str], link: Link
) -> str:
    """The module of ``lesson``: what the ``passed`` answers need, then those answers."""
    answers = [cells.answers[exercise] for exercise in cells.answers if exercise in set(passed)]
    needed = set().union(*map(free_names, answers)) if answers else set()
    needed -= set().union(*(_binds(_parse(a)) for a in answers)) if answers else set()
    statements = [piece for source in cells.lesson_sources for piece in _pieces(source, link)]
    chosen = _needed_statements(statements, needed)
    imports = [text for text, s in chosen if isinstance(s, ast.Import | ast.ImportFrom)]
    others = [text for text, s in chosen if not isinstance(s, ast.Import | ast.ImportFrom)]
    header = _docstring(say("module_doc", lesson=lesson, notebook=notebook))
    blocks = [header, "\n".join(imports), *others, *(a.strip("\n") for a in answers)]
    return "\n\n\n".join(block for block in blocks if block) + "\n"


def free_names(source: str) -> set[str]:
    """The module-level names ``source`` reads at any depth (a function's parameters and locals
    are not; ``symtable`` knows the scopes)."""
    try:
        table = symtable.symtable(source, "<cell>", "exec")
    except SyntaxError:
        return set()
    found: set[str] = set()
    tables = [table]
    while tables:
        current = tables.pop()
        for symbol in current.get_symbols():
            top = current.get_type() == "module"
            if symbol.is_referenced() and (top or symbol.is_global()):
                found.add(symbol.get_name())
        tables.extend(current.get_children())
    return found


def _docstring(text: str) -> str:
    return '"""' + text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') + '"""'


def _parse(source: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def _pieces(source: str, link: Link) -> list[tuple[str, ast.stmt]]:
    """The top-level statements of a lesson cell, each with its text; a ``toolkit.use``
    assignment becomes the imports of the versions chosen."""
    tree = _parse(source)
    lines = source.splitlines()
    found = []
    for statement in tree.body:
        linked = _linked_use(statement, link)
        text = linked if linked is not None else _text(statement, lines)
        for piece in _parse(text).body:
            if not any(isinstance(node, ast.Await) for node in ast.walk(piece)):
                found.append((ast.get_source_segment(text, piece) or text, piece))
    return found


def _text(statement: ast.stmt, lines: list[str]) -> str:
    decorators = getattr(statement, "decorator_list", [])
    start = min([statement.lineno, *(d.lineno for d in decorators)])
    return "\n".join(lines[start - 1 : statement.end_lineno])


def _linked_use(statement: ast.stmt, link: Link) -> str | None:
    """``A, B = toolkit.use("A", "B")`` as ``from m import x as A`` lines, else ``None``."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    call = statement.value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "use"
        and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args)
    ):
        return None
    target = statement.targets[0]
    names = target.elts if isinstance(target, ast.Tuple) else [target]
    if len(names) != len(call.args) or not all(isinstance(n, ast.Name) for n in names):
        return None
    lines = []
    for name, part in zip(names, call.args, strict=True):
        module, attribute = link(part.value)
        lines.append(f"from {module} import {attribute} as {name.id}")
    return "\n".join(lines)


def _needed_statements(statements: list[tuple[str, ast.stmt]], needed: set[str]):
    """The statements that bind a needed name, and what those need, to a fixed point."""
    chosen: set[int] = set()
    changed = True
    while changed:
        changed = False
        for index, (text, statement) in enumerate(statements):
            if index not in chosen and _binds_statement(statement) & needed:
                chosen.add(index)
                needed |= free_names(text)
                changed = True
    return [statements[index] for index in sorted(chosen)]


def _binds(tree: ast.Module) -> set[str]:
    return set().union(*(_binds_statement(s) for s in tree.body)) if tree.body else set()


def _binds_statement(statement: ast.stmt) -> set[str]:
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in statement.names if a.name != "*"}
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {statement.name}
    if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


# --- the package on disk -----------------------------------------------------------------------


def init_source(mine: dict[str, tuple[str, str]]) -> str:
    """``my_toolkit/__init__.py``: the learner's parts by their course names."""
    lines = [_docstring(say("package_doc")), ""]
    for part, (module, attribute) in sorted(mine.items()):
        lines.append(f"from {module} import {attribute} as {part}")
    lines += ["", f"__all__ = {sorted(mine)!r}"]
    return "\n".join(lines) + "\n"


def pyproject_source(dependencies: Iterable[str]) -> str:
    """A ``pyproject.toml`` that ``pip install ./my_toolkit`` builds with setuptools."""
    listed = "".join(f'    "{dependency}",\n' for dependency in sorted(set(dependencies)))
    return (
        "[build-system]\n"
        'requires = ["setuptools>=69", "wheel"]\n'
        'build-backend = "setuptools.build_meta"\n\n'
        "[project]\n"
        f'name = "{PACKAGE.replace("_", "-")}"\n'
        'version = "0.1.0"\n'
        f"description = {json.dumps(say('package_description'), ensure_ascii=False)}\n"
        f'requires-python = ">={sys.version_info.major}.{sys.version_info.minor}"\n'
        f"dependencies = [\n{listed}]\n\n"
        "[tool.setuptools]\n"
        f'packages = ["{PACKAGE}"]\n'
    )


def dependencies(sources: Iterable[str]) -> list[str]:
    """The distributions the modules import (``openai``, ...); the course's own library by the
    course folder's address, since it is not on PyPI."""
    from importlib.metadata import packages_distributions

    from course_lib.toolkit.state import COURSE_ROOT

    modules = set()
    for source in sources:
        for node in ast.walk(_parse(source)):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                modules.add(node.module.split(".")[0])
    distributions = packages_distributions()
    found = set(BASE_DEPENDENCIES)
    for module in modules - set(sys.stdlib_module_names) - {PACKAGE, "__future__"}:
        if module == "course_lib":
            found.add(f"course-lib @ {COURSE_ROOT.as_uri()}")
        else:
            found.update(distributions.get(module, [module])[:1])
    return sorted(found)
