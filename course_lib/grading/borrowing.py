"""Answers taken from the course's own library, found in the source of the learner's cells.

Where a lesson's kernel needs ``course_lib.reference`` (its demos use it), a notebook can reach
it, so borrowing cannot be prevented there; it can be seen. The cells are read (never run) here,
and every name and attribute chain of each cell of an exercise's answer (``answers``) is
resolved to where it comes from, through every import and plain assignment of the whole notebook
(the lesson's cells, the learner's own cells). An exercise earns zero when its answer uses:

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

from course_lib.grading.routes import (
    CODE_MAGICS,
    NOTEBOOK,
    RUN_TIME,
    chain_of,
    code_in_strings,
    fold,
    guarded,
    item_key,
    memo,
    run_time_route,
)
from course_lib.toolkit.parts import PARTS

MAX_ALIAS_ROUNDS = 8  # chains of aliases longer than this are not followed
NAMESPACE_HEADS = ("builtins", "__builtins__", NOTEBOOK)  # ``builtins.x`` is the name ``x``
MAX_SHOWN = 80  # characters of a store's place or value shown in a flag
MAX_FIELDS = 200  # fields of one written-out container followed (a huge literal is data)


@functools.lru_cache(maxsize=4096)
def parse(source: str) -> ast.Module | None:
    """The cell's tree (shared by every reader: never change it), or ``None``. A cell in
    IPython's syntax (``%%time``, ``%timeit``, ``!pip``) is read as IPython runs it, with the
    code of a magic that times, profiles or captures its cell read as the cell's own."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        tree = ast.parse(TransformerManager().transform_cell(source))
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


def _resolve(chain: str, aliases: dict[str, str]) -> str:
    """The origin of a name or chain: its head through the notebook's aliases, then through
    what the notebook stored where names cannot show it (``json.v = reference_validate``,
    ``vars(builtins).update(v=...)``), the notebook's own names read through a namespace
    (``converse.__globals__['x']``, ``globals()['x']``, ``builtins.x``) read as the names."""
    chain = _head(chain, aliases)
    for _ in range(MAX_ALIAS_ROUNDS):
        normal = _normal(chain)
        if normal != chain:
            chain = _head(normal, aliases)
            continue
        stashed = _stashed(chain, aliases)
        if stashed is None or stashed == chain:
            return chain
        chain = stashed
    return chain


def _head(chain: str, aliases: dict[str, str]) -> str:
    head, _, rest = chain.partition(".")
    origin = aliases.get(head)
    if origin is None:
        return chain
    return f"{origin}.{rest}" if rest else origin


def _normal(chain: str) -> str:
    """``chain`` without the namespaces it reads through: ``m.__dict__.x`` is ``m.x``,
    ``f.__globals__.x`` the ``x`` of ``f``'s module (the notebook's for a notebook function),
    ``sys.modules.m`` is ``m``, ``builtins.x`` and ``__main__.x`` are ``x``."""
    parts = [part for part in chain.split(".") if part != "__dict__"]
    if "__globals__" in parts:
        at = len(parts) - 1 - parts[::-1].index("__globals__")
        parts = parts[: max(at - 1, 0)] + parts[at + 1 :]
    if len(parts) > 2 and parts[:2] == ["sys", "modules"]:
        parts = parts[2:]
    while len(parts) > 1 and parts[0] in NAMESPACE_HEADS:
        parts = parts[1:]
    return ".".join(parts) or NOTEBOOK


def _stashed(chain: str, aliases: dict[str, str]) -> str | None:
    """What the notebook stored at the longest part of ``chain`` that holds a store
    (``json.v`` for ``json.v.x``), followed by the rest; ``None`` where nothing was stored."""
    parts = chain.split(".")
    for end in range(len(parts), 1, -1):
        origin = aliases.get(".".join(parts[:end]))
        if origin is not None:
            return ".".join([origin, *parts[end:]])
    return None


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
        if not chain or _resolve(chain, aliases) != "course_lib.toolkit.use":
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
        origin = _resolve(chain, notebook.aliases) if chain else _first_borrowed(value, notebook)
        if not origin and not chain:
            route = run_time_route(value, _resolver(notebook.aliases), frozenset())
            origin = route.split(" ", 1)[0] if route else None
        if origin and (guarded(origin) or origin == NOTEBOOK):
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = origin
    for store in stores(tree, notebook):
        if store.key is not None:
            found[store.key] = store.origin
    return found


@dataclass(frozen=True)
class Store:
    """The course's code (``origin``), or the notebook's names (``NOTEBOOK``), kept where a
    later cell reads it back by a chain: ``key`` (``json.v``; ``None`` where the place cannot be
    followed: ``setattr(m, name, ...)``), ``place`` as written, and whether that place is a
    plain name's container (``ns = SimpleNamespace(f=...)``: ``ns.f``)."""

    key: str | None
    origin: str
    place: str
    value: str
    in_a_name: bool


def stores(tree: ast.AST, notebook: Notebook) -> list[Store]:
    """Every store of the cell (and of the code in its strings) that keeps a guarded object or
    the notebook's names anywhere but in a plain name: an attribute, an item, ``setattr``, a
    namespace's ``update`` (``vars(builtins).update(v=...)``, ``get_ipython().push``), or the
    fields of a container bound to a name."""
    found = []
    for inner in [tree, *code_in_strings(tree)]:
        for place, value, chain, in_a_name in memo("places", inner, _listed_placements):
            origin = _value_origin(value, notebook)
            if origin is None:
                continue
            key = _store_key(chain, notebook.aliases) if chain else None
            text = chain or _shown(place)
            found.append(Store(key, origin, text, _shown(value), in_a_name))
    return found


def _listed_placements(tree: ast.AST) -> list:
    return list(_placements(tree))


def _placements(tree: ast.AST):
    """(place, value, chain of the place or ``None``, whether the place is a field of a
    container bound to a name) for each store of ``tree``."""
    for node in ast.walk(tree):
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, ast.Assign):
            pairs = [(target, node.value) for target in node.targets]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
            pairs = [(node.target, node.value)]
        elif isinstance(node, ast.Call):
            yield from _call_placements(node)
        for target, value in _unpacked(pairs):
            if isinstance(target, ast.Name):
                for key, item in _fields(value):
                    yield f"{target.id}.{key}", item, f"{target.id}.{key}", True
            elif isinstance(target, ast.Attribute | ast.Subscript):
                chain = chain_of(target)
                yield target, value, chain, False
                for key, item in _fields(value) if chain else ():
                    yield f"{chain}.{key}", item, f"{chain}.{key}", False


def _unpacked(pairs):
    for target, value in pairs:
        if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
            if len(target.elts) == len(value.elts):
                yield from _unpacked(list(zip(target.elts, value.elts, strict=True)))
                continue
        yield target, value


def _call_placements(node: ast.Call):
    """``setattr(m, 'x', v)``, ``ns.update(x=v)``, ``ns.update({'x': v})``,
    ``ns.setdefault('x', v)``, ``ns.__setitem__('x', v)``, ``get_ipython().push({'x': v})``."""
    func = node.func
    if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) == 3:
        owner, name = chain_of(node.args[0]), fold(node.args[1])
        chain = f"{owner}.{name}" if owner and name and name.isidentifier() else None
        yield node, node.args[2], chain, False
        return
    if not isinstance(func, ast.Attribute):
        return
    owner = NOTEBOOK if func.attr == "push" else chain_of(func.value)
    if func.attr in ("update", "push"):
        for keyword in node.keywords:
            if keyword.arg is not None:
                yield node, keyword.value, owner and f"{owner}.{keyword.arg}", False
            else:
                yield from _mapping(node, keyword.value, owner)
        for argument in node.args[:1]:
            yield from _mapping(node, argument, owner)
    elif func.attr in ("setdefault", "__setitem__", "__setattr__") and len(node.args) == 2:
        key = item_key(node.args[0])
        yield node, node.args[1], owner and key and f"{owner}.{key}", False


def _mapping(node: ast.Call, value: ast.expr, owner: str | None):
    fields = _fields(value)
    if not fields:  # ``ns.update(mapping)``: what it holds cannot be followed
        yield node, value, None, False
    for key, item in fields:
        yield node, item, owner and f"{owner}.{key}", False


def _fields(value: ast.expr, depth: int = 0) -> list[tuple[str, ast.expr]]:
    """The fields of a container written out: ``{'k': v}``, ``dict(k=v)``,
    ``SimpleNamespace(k=v)``, ``[v]`` (``k``, ``0``), nested ones as ``k.j``."""
    found: list[tuple[str, ast.expr]] = []
    if isinstance(value, ast.Dict):
        found = [(item_key(k), v) for k, v in zip(value.keys, value.values, strict=True) if k]
    elif isinstance(value, ast.List | ast.Tuple | ast.Set):
        found = [(str(n), item) for n, item in enumerate(value.elts)]
    elif isinstance(value, ast.Call):
        found = [(k.arg, k.value) for k in value.keywords if k.arg is not None]
        found += [(str(n), item) for n, item in enumerate(value.args)]
    found = [(key, item) for key, item in found[:MAX_FIELDS] if key is not None]
    if depth < 3:
        for key, item in list(found):
            if len(found) >= MAX_FIELDS:
                break
            found += [(f"{key}.{k}", v) for k, v in _fields(item, depth + 1)]
    return found[:MAX_FIELDS]


def _value_origin(value: ast.expr, notebook: Notebook) -> str | None:
    """The guarded origin ``value`` is (or ``NOTEBOOK``: the notebook's names), else ``None``."""
    chain = chain_of(value)
    if chain:
        origin = _resolve(chain, notebook.aliases)
    elif isinstance(value, ast.Dict | ast.List | ast.Tuple | ast.Set | ast.Call):
        return None  # a container is followed field by field; a call's result is no alias
    else:
        origin = run_time_route(value, _resolver(notebook.aliases), frozenset())
        origin = origin.split(" ", 1)[0] if origin else None
    return origin if origin and (guarded(origin) or origin == NOTEBOOK) else None


def _store_key(chain: str, aliases: dict[str, str]) -> str | None:
    """Where a store puts its value, as a later chain reads it (``json.v``; ``v`` for
    ``builtins.v``)."""
    chain = _head(chain, aliases)
    for _ in range(MAX_ALIAS_ROUNDS):
        normal = _normal(chain)
        if normal == chain:
            break
        chain = _head(normal, aliases)
    return None if chain == NOTEBOOK else chain


def _shown(node: ast.AST) -> str:
    text = ast.unparse(node) if isinstance(node, ast.AST) else str(node)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def _resolver(aliases: dict[str, str]):
    return lambda chain: _resolve(chain, aliases)


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
    used = {_resolve(chain, aliases) for chain in reads if chain.split(".")[0] not in shadowed}
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
        origin = _resolve(chain, aliases)
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
    return run_time_route(tree, _resolver(aliases), shadowed)


__all__ = [
    "RUN_TIME",
    "Notebook",
    "Store",
    "borrowing",
    "lesson_parts",
    "notebook_aliases",
    "parse",
    "stores",
]
