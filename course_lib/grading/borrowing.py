"""Answers taken from the course's own library, found in the source of the learner's cells.

Where a lesson's kernel needs ``course_lib.reference`` (its demos use it), a notebook can reach
it, so borrowing cannot be prevented there; it can be seen. The cells are read (never run) here,
and every name and attribute chain of each cell of an exercise's answer (``answers``) is
resolved to where it comes from, through every import and plain assignment of the whole notebook
(the lesson's cells, the learner's own cells), and through what a cell keeps on an attribute,
an item or a namespace (``stores``). An exercise earns zero when its answer uses:

- anything under ``course_lib.reference`` or ``course_lib.checks`` that the lesson's own cells do
  not use (``from course_lib.reference import type_schema as type_name``, ``r.type_schema`` after
  ``import course_lib.reference as r`` in a scratch cell, ``reference.run_tool_calls`` where the
  lesson imported ``reference`` for something else);
- the course's own version of what the exercise asks for, even under a name the lesson provides
  (``class ToolRegistry(ReferenceRegistry)``), or written in a string
  (``globals()['reference_validate']``, ``eval('reference_validate')``: a string that is a name
  or code is read as one);
- a name another cell defined from a borrowed answer (a helper or a lambda in a scratch cell
  that calls the reference, a module object imported at run time);
- the guarded modules reached at run time (``routes.run_time_route``).

What the source cannot show (a module name decoded from bytes, an object found by walking
``gc``) is seen at run time instead (``provenance``) and flagged (``routes.opaque_routes``).
Names bound in a cell itself by anything but a plain alias shadow the notebook's imports, so a
local variable that happens to share a scratch import's name is not mistaken for it.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from dataclasses import dataclass, field

from course_lib.grading import syntax_tree
from course_lib.grading.routes import (
    NOTEBOOK,
    RUN_TIME,
    chain_of,
    code_in_strings,
    guarded,
    memo,
    run_time_route,
)
from course_lib.grading.run_code import CODE_MAGICS
from course_lib.grading.stores import MAX_ALIAS_ROUNDS, resolve, resolver, stores
from course_lib.toolkit.parts import PARTS


@functools.lru_cache(maxsize=4096)
def parse(source: str) -> ast.Module | None:
    """The cell's tree (shared by every reader: never change it), or ``None``. A cell in
    IPython's syntax (``%%time``, ``%timeit``, ``!pip``) is read as IPython runs it, with the
    code of a magic that times, profiles or captures its cell read as the cell's own."""
    try:
        return syntax_tree.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        tree = syntax_tree.parse(TransformerManager().transform_cell(source))
    except Exception:  # noqa: BLE001 (not Python in IPython's syntax either)
        return None
    body: list[ast.stmt] = []
    for statement in tree.body:
        body += _magic_code(statement) or [statement]
    tree.body = body
    return tree


def _magic_code(statement: ast.stmt) -> list[ast.stmt]:
    """The statements of ``get_ipython().run_cell_magic('time', '', code)``'s code."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not (
        isinstance(call, ast.Call)
        and getattr(call.func, "attr", "") == "run_cell_magic"
        and len(call.args) == 3
        and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args)
        and call.args[0].value in CODE_MAGICS
    ):
        return []
    inner = parse(call.args[2].value)
    return [statement, *inner.body] if inner is not None else []


def _imports(tree: ast.AST) -> dict[str, str]:
    """Names bound by the imports of a tree: name -> full dotted origin (a shared answer:
    never change it)."""
    return memo("imports", tree, _imports_of)


def _imports_of(tree: ast.AST) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    found[head] = head
    return found


@dataclass
class Notebook:
    """What the notebook's cells bind (``aliases``: name -> origin, through imports and plain
    assignments, followed to a fixed point) and which guarded origins the lesson itself uses."""

    aliases: dict[str, str] = field(default_factory=dict)
    lesson_uses: set[str] = field(default_factory=set)


def notebook_aliases(lesson_sources: Iterable[str], learner_sources: Iterable[str]) -> Notebook:
    """Aliases of every cell, and the guarded origins the lesson's own cells use (resolved
    through the lesson's aliases alone: a learner's alias must not widen what the lesson uses)."""
    lesson = _lesson_notebook(tuple(lesson_sources))
    learner_trees = [tree for tree in map(parse, learner_sources) if tree is not None]
    notebook = Notebook(lesson_uses=set(lesson.lesson_uses))
    lesson_trees = [tree for tree in map(parse, lesson.sources) if tree is not None]
    return _aliases(lesson_trees + learner_trees, notebook)


@dataclass(frozen=True)
class _Lesson:
    sources: tuple[str, ...]
    lesson_uses: frozenset[str]
    parts: tuple[str, ...] = ()  # what its cells take from the toolkit, in order


def lesson_parts(lesson_sources: Iterable[str]) -> tuple[str, ...]:
    """The toolkit parts the lesson's own cells take (``toolkit.use("run_tool_calls")``)."""
    return _lesson_notebook(tuple(lesson_sources)).parts


@functools.lru_cache(maxsize=64)
def _lesson_notebook(sources: tuple[str, ...]) -> _Lesson:
    """The guarded origins the lesson's own cells use (the same for every submission: computed
    once)."""
    trees = [tree for tree in map(parse, sources) if tree is not None]
    lesson = _aliases(trees, Notebook())
    uses: set[str] = set()
    parts: list[str] = []
    for tree in trees:
        uses |= _used_origins(tree, lesson.aliases)
        parts += _lent_parts(tree, lesson.aliases)
    # Where an earlier exercise has not passed, the lesson itself hands the learner the course's
    # version of a part it takes from the toolkit: reaching that is not borrowing.
    uses |= {_course_version(name) for name in parts if PARTS[name].reference is not None}
    return _Lesson(sources, frozenset(uses), tuple(dict.fromkeys(parts)))


def _lent_parts(tree: ast.Module, aliases: dict[str, str]) -> list[str]:
    """The names of the parts ``toolkit.use(...)`` calls in ``tree`` take, in order."""
    found: list[str] = []
    for node in ast.walk(tree):
        chain = chain_of(node.func) if isinstance(node, ast.Call) else None
        if not chain or resolve(chain, aliases) != "course_lib.toolkit.use":
            continue
        for argument in node.args:
            if isinstance(argument, ast.Constant) and argument.value in PARTS:
                found.append(argument.value)
    return found


def _course_version(name: str) -> str:
    """``course_lib.reference.loop.run_tool_calls`` for the part ``run_tool_calls``."""
    module, _, attribute = str(PARTS[name].reference).partition(":")
    return f"{module}.{attribute}"


def _aliases(trees: list[ast.Module], notebook: Notebook) -> Notebook:
    for tree in trees:
        notebook.aliases.update(_imports(tree))
    changed, rounds = True, 0
    while changed and rounds < MAX_ALIAS_ROUNDS:  # x = reference; y = x.Registry; def f(): y()
        changed, rounds = False, rounds + 1
        for tree in trees:
            for name, origin in _bindings(tree, notebook).items():
                if notebook.aliases.get(name) != origin:
                    notebook.aliases[name] = origin
                    changed = True
    return notebook


def _bindings(tree: ast.Module, notebook: Notebook) -> dict[str, str]:
    """Top-level names bound to a guarded origin: ``x = <chain>``, ``x = <a run-time route>``,
    or a ``def``/``class``/assignment whose body uses a guarded origin the lesson does not."""
    found = {}
    for statement in tree.body:
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            borrowed = _first_borrowed(statement, notebook)
            if borrowed:
                found[statement.name] = borrowed
            continue
        else:
            continue
        chain = chain_of(value)
        origin = resolve(chain, notebook.aliases) if chain else _first_borrowed(value, notebook)
        if not origin and not chain:
            route = run_time_route(value, resolver(notebook.aliases), frozenset())
            origin = route.split(" ", 1)[0] if route else None
        if origin and (guarded(origin) or origin == NOTEBOOK):
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = origin
    for store in stores(tree, notebook):
        if store.key is not None:
            found[store.key] = store.origin
    return found


def _first_borrowed(node: ast.AST, notebook: Notebook) -> str | None:
    origins = sorted(_used_origins(node, notebook.aliases) - notebook.lesson_uses)
    return next((origin for origin in origins if guarded(origin)), None)


def _used_origins(tree: ast.AST, aliases: dict[str, str], shadowed: frozenset = frozenset()):
    """The full origins of every name and longest attribute chain read in ``tree``, and in the
    strings of ``tree`` that are names or code."""
    used = _read_origins(tree, aliases, shadowed)
    for inner in code_in_strings(tree):
        used |= _read_origins(inner, aliases, shadowed)
    return used


def _read_origins(tree: ast.AST, aliases: dict[str, str], shadowed: frozenset) -> set[str]:
    reads, imported = memo("reads", tree, _reads)
    used = {resolve(chain, aliases) for chain in reads if chain.split(".")[0] not in shadowed}
    return used | imported


def _reads(tree: ast.AST) -> tuple[tuple[str, ...], frozenset[str]]:
    """The names and longest attribute chains ``tree`` reads (unresolved), and the full names
    its imports bring in."""
    chains: list[str] = []
    imported: set[str] = set()
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute | ast.Subscript) and id(node) not in inner:
            chain = chain_of(node)
            if chain is not None:
                inner.update(id(part) for part in ast.walk(node))
                chains.append(chain)
        elif isinstance(node, ast.Name) and id(node) not in inner:
            if isinstance(node.ctx, ast.Load):
                chains.append(node.id)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.update(_imports(node).values())
    return tuple(dict.fromkeys(chains)), frozenset(imported)


def _local_bindings(tree: ast.Module, aliases: dict[str, str]) -> tuple[frozenset, dict]:
    """What the cell binds itself, at any depth: aliases of a guarded origin (``r = reference``
    inside a function counts), and the other names it binds, which shadow the notebook's aliases
    of the same name."""
    names, assigned = memo("binds", tree, _binds)
    local_aliases = {}
    for target, chain in assigned:
        origin = resolve(chain, aliases)
        if guarded(origin):
            local_aliases[target] = origin
    return frozenset(names - set(local_aliases) - set(_imports(tree))), local_aliases


def _binds(tree: ast.Module) -> tuple[frozenset[str], tuple[tuple[str, str], ...]]:
    """Every name the tree binds, and its assignments of a name or chain to a name."""
    names: set[str] = set()
    assigned: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            chain = chain_of(node.value)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and chain:
                    assigned.append((target.id, chain))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
    return frozenset(names), tuple(assigned)


def borrowing(source: str, notebook: Notebook, targets: Iterable[str] = ()) -> str | None:
    """What a cell of an exercise's answer borrows, as a phrase
    (``"course_lib.reference.type_schema"``), or ``None``. ``notebook`` is ``notebook_aliases``
    of the lesson's and the learner's cells; ``targets`` the names the exercise asks the learner
    to write."""
    tree = parse(source)
    if tree is None:
        return None
    aliases = {**notebook.aliases, **_imports(tree)}
    shadowed, local_aliases = _local_bindings(tree, aliases)
    aliases.update(local_aliases)
    wanted = set(targets)
    own = {**_imports(tree), **local_aliases}
    bound = sorted(name for name in wanted & set(own) if guarded(own[name]))
    if bound:  # the target is the course's object itself, whatever the lesson uses
        return own[bound[0]]
    used = _used_origins(tree, aliases, shadowed)
    for origin in sorted(used, key=lambda o: (-o.count("."), o)):  # the most specific first
        if not guarded(origin):
            continue
        if origin not in notebook.lesson_uses or origin.rsplit(".", 1)[-1] in wanted:
            return origin
    return run_time_route(tree, resolver(aliases), shadowed)


__all__ = [
    "RUN_TIME",
    "Notebook",
    "borrowing",
    "lesson_parts",
    "notebook_aliases",
    "parse",
]
