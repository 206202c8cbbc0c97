"""Statements with no effect, dropped from a source before it is fingerprinted (``fingerprint``).

A copy padded with statements that do nothing (a filler after every statement breaks every run
of tokens a copy shares with its original) must fingerprint as the copy it is. Dropped, until
nothing more is (one may leave another with nothing to do):

- **inert statements**: ``pass``; an expression statement whose expression cannot do anything
  (``PURE``: constants, names, attribute and item reads, arithmetic, comparisons, literals of
  these, lambdas, f-strings of these), unless it is a docstring; ``x = x`` outside a class body;
  an ``if`` whose test is a constant (its live branch takes its place) and a ``while`` whose
  test is a false constant (its ``else``); an ``if`` of a ``PURE`` test with nothing left in
  either branch; a ``try`` with nothing left in its body (its ``else`` and ``finally`` stay);
- **dead stores**: statements whose only effect is to bind names nobody reads. A name is read
  when a statement that is kept loads it, or a kept string names it (``globals()["name"]``,
  ``getattr(module, "name")``), or it is one of the ``live`` names: what the rest of the
  notebook reads and the exercise's targets, or, for the course's own sources
  (``live=None``), every name the source binds at its top level. The statements that can be
  dead: an assignment (plain, augmented, annotated) to plain names of a ``PURE`` value; ``del``
  of plain names; ``global`` and ``nonlocal``; a function without decorators whose defaults
  and annotations are ``PURE``; a class without decorators or keywords, whose bases are
  builtins and whose body only defines (functions without decorators but ``property``,
  ``staticmethod`` and ``classmethod``, ``PURE`` assignments). Statements in a class body are
  attributes, and ``__dunder__`` names are read by Python itself: never dead.

Sound as far as a source says what it reads: a name read only through ``locals()``,
``vars()``, ``eval`` of a computed string or a frame counts as not read (for similarity, a value
nobody names is not part of what the code does). What does something stays, however useless:
a call (``print(end="")``), an import, a loop, a store into something that is read.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from dataclasses import dataclass, field

# Statements whose bodies are lists of statements, by field.
BODIES = ("body", "orelse", "finalbody")
DOCUMENTED = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
MAX_DEPTH = 200  # statements nested deeper keep their inert statements
MAX_EXPRESSION_DEPTH = 60  # a deeper expression is not judged: it is not PURE
MAX_ROUNDS = 8  # of dropping, each of which may leave more to drop
# Expressions that read and compute but do nothing (a lambda's body does not run).
PURE = (
    ast.Constant, ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.BinOp, ast.UnaryOp,
    ast.BoolOp, ast.Compare, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.IfExp, ast.JoinedStr,
    ast.FormattedValue, ast.Starred, ast.expr_context, ast.operator, ast.unaryop, ast.boolop,
    ast.cmpop,
)  # fmt: skip
BUILTIN_NAMES = frozenset(dir(builtins))
CLASS_DECORATORS = frozenset({"property", "staticmethod", "classmethod"})


def drop_no_effect(tree: ast.Module, live: frozenset[str] | None = None) -> ast.Module:
    """``tree`` without its statements of no effect (see the module docstring), changed in
    place; ``live``: the names read outside it (``None``: its own top-level names)."""
    for _ in range(MAX_ROUNDS):
        changed = _drop_inert(tree)
        if not _drop_dead(tree, live) and not changed:
            break
    return tree


# --- inert statements ----------------------------------------------------------------------


def _drop_inert(node: ast.AST, depth: int = 0) -> bool:
    """Whether anything was dropped."""
    if depth > MAX_DEPTH:
        return False
    changed = False
    for name in BODIES:
        statements = getattr(node, name, None)
        if isinstance(statements, list) and statements and isinstance(statements[0], ast.stmt):
            documented = name == "body" and isinstance(node, DOCUMENTED)
            kept = _kept(statements, documented, isinstance(node, ast.ClassDef))
            changed |= len(kept) != len(statements) or any(map(_differ, kept, statements))
            setattr(node, name, kept)
            for statement in kept:
                changed |= _drop_inert(statement, depth + 1)
    for handler in getattr(node, "handlers", ()):  # try: ... except: ...
        changed |= _drop_inert(handler, depth + 1)
    for case in getattr(node, "cases", ()):  # match: case ...:
        changed |= _drop_inert(case, depth + 1)
    return changed


def _differ(one: ast.stmt, other: ast.stmt) -> bool:
    return one is not other


def _kept(statements: list[ast.stmt], documented: bool, in_class: bool) -> list[ast.stmt]:
    kept: list[ast.stmt] = []
    for position, statement in enumerate(statements):
        if documented and position == 0 and _is_string(statement):
            kept.append(statement)  # the docstring
        else:
            kept += _instead(statement, in_class)
    return kept


def _instead(statement: ast.stmt, in_class: bool) -> list[ast.stmt]:
    """What ``statement`` comes to: nothing, its live branch, or itself."""
    if isinstance(statement, ast.Pass):
        return []
    if isinstance(statement, ast.Expr) and pure(statement.value):
        return []
    if _self_assignment(statement) and not in_class:
        return []
    if isinstance(statement, ast.If):
        test = _constant_truth(statement.test)
        if test is not None:
            return statement.body if test else statement.orelse
        if not statement.body and not statement.orelse and pure(statement.test):
            return []
    if isinstance(statement, ast.While) and _constant_truth(statement.test) is False:
        return statement.orelse
    if isinstance(statement, ast.Try | getattr(ast, "TryStar", ast.Try)) and not statement.body:
        return statement.orelse + statement.finalbody
    return [statement]


def _is_string(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _self_assignment(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and isinstance(statement.value, ast.Name)
        and statement.targets[0].id == statement.value.id
    )


def _constant_truth(test: ast.expr) -> bool | None:
    """The truth of a constant test (``True``, ``0``, ``""``, ``not 1``), else ``None``."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _constant_truth(test.operand)
        return None if inner is None else not inner
    return None


def pure(node: ast.AST | None, depth: int = 0) -> bool:
    """Whether evaluating ``node`` can only read and compute (``PURE``)."""
    if node is None:
        return True
    if depth > MAX_EXPRESSION_DEPTH:
        return False
    if isinstance(node, ast.Lambda):
        arguments = node.args
        return all(pure(d, depth + 1) for d in [*arguments.defaults, *arguments.kw_defaults])
    if not isinstance(node, PURE):
        return False
    return all(pure(child, depth + 1) for child in ast.iter_child_nodes(node))


# --- dead stores ---------------------------------------------------------------------------


@dataclass
class _Candidate:
    """A statement that may be dead: the names it binds, and what it reads if kept."""

    statement: ast.stmt
    binds: frozenset[str]
    reads: set[str] = field(default_factory=set)


def _drop_dead(tree: ast.Module, live: frozenset[str] | None) -> bool:
    """Whether anything was dropped."""
    candidates: list[_Candidate] = []
    roots: set[str] = set(live or ())
    _collect(tree, candidates, roots, in_class=False, depth=0)
    if live is None:  # the course's own source: its top level is what others read
        top = {id(statement) for statement in tree.body}
        for candidate in candidates:
            if id(candidate.statement) in top:
                roots |= candidate.binds
    binders: dict[str, list[int]] = {}
    for number, candidate in enumerate(candidates):
        for name in candidate.binds:
            binders.setdefault(name, []).append(number)
    kept: set[int] = set()
    waiting, seen = list(roots), set(roots)
    while waiting:
        name = waiting.pop()
        for number in binders.get(name, ()):
            if number not in kept:
                kept.add(number)
                fresh = candidates[number].reads - seen
                seen |= fresh
                waiting += fresh
    dead = {id(c.statement) for n, c in enumerate(candidates) if n not in kept}
    if dead:
        _remove(tree, dead, 0)
    return bool(dead)


def _collect(
    node: ast.AST,
    candidates: list[_Candidate],
    reads: set[str],
    *,
    in_class: bool,
    depth: int,
) -> None:
    """Walk ``node``: each statement that may be dead becomes a candidate (reading into its
    own set), every other name read goes into ``reads``."""
    if depth > MAX_DEPTH:  # too deep to judge: everything below is read
        reads.update(_names_in(node))
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            binds = None if in_class else _dead_binds(child)
            if binds is not None:
                candidate = _Candidate(child, binds)
                candidates.append(candidate)
                target = candidate.reads
            else:
                target = reads
            if isinstance(child, ast.AugAssign) and isinstance(child.target, ast.Name):
                target.add(child.target.id)  # ``x += 1`` reads x
            _collect(
                child, candidates, target,
                in_class=isinstance(child, ast.ClassDef), depth=depth + 1,
            )  # fmt: skip
        else:
            _read(child, reads)
            _collect(child, candidates, reads, in_class=False, depth=depth + 1)


def _read(node: ast.AST, reads: set[str]) -> None:
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        reads.add(node.id)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        if node.value.isidentifier():  # globals()["name"], getattr(m, "name"), eval("name")
            reads.add(node.value)


def _names_in(node: ast.AST) -> Iterator[str]:
    for inner in ast.walk(node):
        found: set[str] = set()
        _read(inner, found)
        yield from found


def _dead_binds(statement: ast.stmt) -> frozenset[str] | None:
    """The names ``statement`` binds if all it does is bind them, else ``None``."""
    names: list[str] | None = None
    if isinstance(statement, ast.Assign) and pure(statement.value):
        names = _plain_names(statement.targets)
    elif isinstance(statement, ast.AugAssign) and pure(statement.value):
        names = _plain_names([statement.target])
    elif isinstance(statement, ast.AnnAssign) and statement.simple:
        if pure(statement.value) and pure(statement.annotation):
            names = _plain_names([statement.target])
    elif isinstance(statement, ast.Delete):
        names = _plain_names(statement.targets)
    elif isinstance(statement, ast.Global | ast.Nonlocal):
        names = list(statement.names)
    elif isinstance(statement, FUNCTIONS) and _bare_function(statement, frozenset()):
        names = [statement.name]
    elif isinstance(statement, ast.ClassDef) and _bare_class(statement):
        names = [statement.name]
    if not names or any(name.startswith("__") and name.endswith("__") for name in names):
        return None
    return frozenset(names)


def _plain_names(targets: list[ast.expr]) -> list[str] | None:
    names: list[str] = []
    for target in targets:
        if isinstance(target, ast.Starred):
            target = target.value
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, ast.Tuple | ast.List):
            inner = _plain_names(target.elts)
            if inner is None:
                return None
            names += inner
        else:
            return None
    return names


def _bare_function(function: ast.FunctionDef | ast.AsyncFunctionDef, allowed: frozenset) -> bool:
    """Defining it only binds its name: its decorators are ``allowed`` builtins, its defaults
    and annotations ``PURE``."""
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return (
        all(isinstance(d, ast.Name) and d.id in allowed for d in function.decorator_list)
        and all(pure(d) for d in [*arguments.defaults, *arguments.kw_defaults])
        and all(pure(a.annotation) for a in every)
        and pure(function.returns)
    )


def _bare_class(klass: ast.ClassDef) -> bool:
    """Defining it only binds its name (see the module docstring)."""
    if klass.decorator_list or klass.keywords:
        return False
    if not all(isinstance(b, ast.Name) and b.id in BUILTIN_NAMES for b in klass.bases):
        return False
    for statement in klass.body:
        if isinstance(statement, FUNCTIONS):
            if not _bare_function(statement, CLASS_DECORATORS):
                return False
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            if not pure(statement.value) or _plain_names(_targets(statement)) is None:
                return False
        elif not (isinstance(statement, ast.Pass) or _is_string(statement)):
            return False
    return True


def _targets(statement: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return statement.targets if isinstance(statement, ast.Assign) else [statement.target]


def _remove(node: ast.AST, dead: set[int], depth: int) -> None:
    if depth > MAX_DEPTH:
        return
    for name in BODIES:
        statements = getattr(node, name, None)
        if isinstance(statements, list) and statements and isinstance(statements[0], ast.stmt):
            setattr(node, name, [s for s in statements if id(s) not in dead])
    for child in ast.iter_child_nodes(node):
        _remove(child, dead, depth + 1)
