"""Where a cell keeps the course's code out of plain names, and how a chain is read back.

A name bound to ``course_lib.reference``'s code is easy to follow; the same code put on an
attribute (``json.v = reference_validate``), in an item, in ``builtins`` or in a namespace's
``update`` is reached later by a chain (``json.v``) that names cannot explain. ``stores`` finds
those places in a cell's source (never run), and the places the notebook's own names are put,
and ``resolve`` follows a chain through the notebook's aliases, then through what was stored at
its longest stored part. ``borrowing`` adds the stores to its aliases, so that a later read is
judged like a read of the original; ``ownership`` flags the stores outside a name's own
container, and every store of the notebook's names.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from course_lib.grading.routes import (
    NOTEBOOK,
    chain_of,
    code_in_strings,
    fold,
    guarded,
    item_key,
    memo,
    run_time_route,
)

if TYPE_CHECKING:  # for annotations only: ``borrowing`` imports this module
    from course_lib.grading.borrowing import Notebook

MAX_ALIAS_ROUNDS = 8  # chains of aliases longer than this are not followed
NAMESPACE_HEADS = ("builtins", "__builtins__", NOTEBOOK)  # ``builtins.x`` is the name ``x``
MAX_SHOWN = 80  # characters of a store's place or value shown in a flag
MAX_FIELDS = 200  # fields of one written-out container followed (a huge literal is data)


def resolve(chain: str, aliases: dict[str, str]) -> str:
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
        origin = resolve(chain, notebook.aliases)
    elif isinstance(value, ast.Dict | ast.List | ast.Tuple | ast.Set | ast.Call):
        return None  # a container is followed field by field; a call's result is no alias
    else:
        origin = run_time_route(value, resolver(notebook.aliases), frozenset())
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


def resolver(aliases: dict[str, str]):
    return lambda chain: resolve(chain, aliases)
