"""Answers taken from the course's own library, found in the source of an exercise cell.

A notebook can read the installed ``course_lib`` (the reference solutions and the checks' oracles
are in it), so borrowing cannot be prevented; it can be seen. The cells are read (never run)
here, and every name and attribute chain of the exercise cell is resolved to where it comes
from, through every import and plain assignment of the whole notebook (the lesson's cells, the
learner's own cells, the exercise cell itself). An exercise cell earns zero when it uses:

- anything under ``course_lib.reference`` or ``course_lib.checks`` that the lesson's own cells do
  not use (``from course_lib.reference import type_schema as type_name``, ``r.type_schema`` after
  ``import course_lib.reference as r`` in a scratch cell, ``reference.run_tool_calls`` where the
  lesson imported ``reference`` for something else);
- the course's own version of what the exercise asks for, even under a name the lesson provides
  (``class ToolRegistry(ReferenceRegistry)``);
- a name another cell defined from a borrowed answer (a helper or a lambda in a scratch cell
  that calls the reference);
- the guarded modules reached at run time: a string naming them
  (``importlib.import_module("course_lib.reference")``), or the words ``course_lib`` and
  ``reference`` / ``checks`` / ``solutions`` together with a dynamic access (``__import__``,
  ``getattr``, ``sys.modules``, ``exec``, ``open``...), however the string is assembled from
  literals.

What this cannot see (a module name decoded from bytes or computed, an object found by walking
``gc`` or ``sys.modules`` without naming it) is left to the similarity flags and to the
instructor; the README says so. Names bound in the exercise cell itself by anything but a plain
alias shadow the notebook's imports, so a local variable that happens to share a scratch import's
name is not mistaken for it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

GUARDED = ("course_lib.reference", "course_lib.checks")
GUARDED_PATHS = ("course_lib/reference", "course_lib/checks", "course_lib\\reference")
GUARDED_WORDS = ("reference", "checks", "solutions")
DYNAMIC = {
    "__import__", "import_module", "importlib", "getattr", "vars", "globals", "modules", "exec",
    "eval", "compile", "open", "read_text", "runpy", "run_path", "run_module", "getsource",
    "find_spec", "spec_from_file_location", "SourceFileLoader", "__dict__", "__globals__",
}  # fmt: skip
RUN_TIME = "{module} (reached at run time)"
INTROSPECTION_CALLS = ("getattr", "vars", "dir")
MAX_ALIAS_ROUNDS = 8  # chains of aliases longer than this are not followed


def _guarded(origin: str) -> str | None:
    for prefix in GUARDED:
        if origin == prefix or origin.startswith(prefix + "."):
            return prefix
    return None


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _chain(node: ast.AST) -> str | None:
    """``a.b.c`` for an attribute chain on a name, else ``None``."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _resolve(chain: str, aliases: dict[str, str]) -> str:
    head, _, rest = chain.partition(".")
    origin = aliases.get(head)
    if origin is None:
        return chain
    return f"{origin}.{rest}" if rest else origin


def _imports(tree: ast.AST) -> dict[str, str]:
    """Names bound by the imports of a tree: name -> full dotted origin."""
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
    lesson_trees = [tree for tree in map(_parse, lesson_sources) if tree is not None]
    learner_trees = [tree for tree in map(_parse, learner_sources) if tree is not None]
    lesson = _aliases(lesson_trees, Notebook())
    for tree in lesson_trees:
        lesson.lesson_uses |= _used_origins(tree, lesson.aliases)
    notebook = Notebook(lesson_uses=lesson.lesson_uses)
    return _aliases(lesson_trees + learner_trees, notebook)


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
    """Top-level names bound to a guarded origin: ``x = <chain>``, or a ``def``/``class``/
    assignment whose body uses a guarded origin the lesson does not."""
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
        chain = _chain(value)
        origin = _resolve(chain, notebook.aliases) if chain else _first_borrowed(value, notebook)
        if origin and _guarded(origin):
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = origin
    return found


def _first_borrowed(node: ast.AST, notebook: Notebook) -> str | None:
    origins = sorted(_used_origins(node, notebook.aliases) - notebook.lesson_uses)
    return next((origin for origin in origins if _guarded(origin)), None)


def _used_origins(tree: ast.AST, aliases: dict[str, str], shadowed: frozenset = frozenset()):
    """The full origins of every name and longest attribute chain read in ``tree``."""
    used: set[str] = set()
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            chain = _chain(node)
            if chain is not None:
                inner.update(id(part) for part in ast.walk(node))
                if chain.split(".")[0] not in shadowed:
                    used.add(_resolve(chain, aliases))
        elif isinstance(node, ast.Name) and id(node) not in inner:
            if isinstance(node.ctx, ast.Load) and node.id not in shadowed:
                used.add(_resolve(node.id, aliases))
        elif isinstance(node, ast.Import):
            used.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            used.update(_imports(node).values())
    return used


def _local_bindings(tree: ast.Module, aliases: dict[str, str]) -> tuple[frozenset, dict]:
    """What the exercise cell binds itself, at any depth: aliases of a guarded origin
    (``r = reference`` inside a function counts), and the other names it binds, which shadow the
    notebook's aliases of the same name."""
    names, local_aliases = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            chain = _chain(node.value)
            origin = _resolve(chain, aliases) if chain else ""
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and _guarded(origin):
                    local_aliases[target.id] = origin
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
    return frozenset(names - set(local_aliases) - set(_imports(tree))), local_aliases


def borrowing(exercise_source: str, notebook: Notebook, targets: Iterable[str] = ()) -> str | None:
    """What the exercise cell borrows, as a phrase (``"course_lib.reference.type_schema"``), or
    ``None``. ``notebook`` is ``notebook_aliases`` of the lesson's and the learner's other
    cells; ``targets`` the names the exercise asks the learner to write."""
    tree = _parse(exercise_source)
    if tree is None:
        return None
    aliases = {**notebook.aliases, **_imports(tree)}
    shadowed, local_aliases = _local_bindings(tree, aliases)
    aliases.update(local_aliases)
    wanted = set(targets)
    used = _used_origins(tree, aliases, shadowed)
    for origin in sorted(used, key=lambda o: (-o.count("."), o)):  # the most specific first
        if not _guarded(origin):
            continue
        if origin not in notebook.lesson_uses or origin.rsplit(".", 1)[-1] in wanted:
            return origin
    return _run_time_route(tree, aliases, shadowed)


def _run_time_route(tree: ast.Module, aliases: dict[str, str], shadowed: frozenset) -> str | None:
    """A guarded module named in a string, handed to ``getattr``/``vars``, or spelled out in
    pieces (strings, attributes of a call's result) beside a dynamic access."""
    texts = _texts(tree)
    for text in texts:
        for prefix in (*GUARDED, *GUARDED_PATHS):
            if prefix in text:
                return RUN_TIME.format(module=_module_of(prefix))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in INTROSPECTION_CALLS
            and node.args
        ):
            chain = _chain(node.args[0])
            if chain and chain.split(".")[0] not in shadowed:
                origin = _resolve(chain, aliases)
                if _guarded(origin):
                    return RUN_TIME.format(module=origin)
    names = [node.id for node in ast.walk(tree) if isinstance(node, ast.Name)]
    attributes = [node for node in ast.walk(tree) if isinstance(node, ast.Attribute)]
    # Whole words of names and paths only: ``lesson90_checks.py`` and "run the checks" name no
    # module, ``"re" + "ference"`` does.
    loose = [text for text in texts if not any(ch.isspace() for ch in text)]
    loose += [node.attr for node in attributes if _chain(node) is None]
    package = any(_has_word(text, "course_lib") for text in loose) or any(
        _resolve(name, aliases) == "course_lib" for name in names if name not in shadowed
    )
    word = next((w for w in GUARDED_WORDS if any(_has_word(text, w) for text in loose)), None)
    dynamic = any(name in DYNAMIC for name in names + [node.attr for node in attributes])
    if package and word and dynamic:
        return RUN_TIME.format(module=f"course_lib.{word}")
    return None


def _has_word(text: str, word: str) -> bool:
    """``word`` in ``text`` as a whole module or path part (not inside a longer name)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])", text) is not None


def _texts(tree: ast.Module) -> list[str]:
    """Every string the cell uses, and every string expression assembled from literals
    (``"course_lib." + "re" + "ference"``, ``".".join([...])``, f-strings, path joins)."""
    texts = [node.value for node in _strings(tree)]
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.JoinedStr, ast.Call)):
            folded = _fold(node)
            if folded is not None:
                texts.append(folded)
    return texts


def _fold(node: ast.AST, depth: int = 0) -> str | None:
    """The string an expression of literals evaluates to, or ``None`` if it is not one."""
    if depth > 50:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _fold(node.left, depth + 1), _fold(node.right, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts = [_fold(getattr(v, "value", v), depth + 1) for v in node.values]
        return None if None in parts else "".join(parts)  # type: ignore[arg-type]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr != "join" or node.keywords:
            return None
        items = node.args
        if len(items) == 1 and isinstance(items[0], (ast.List, ast.Tuple)):
            items = items[0].elts
        parts = [_fold(item, depth + 1) for item in items]
        if None in parts:
            return None
        separator = _fold(node.func.value, depth + 1)
        return (separator if separator is not None else "/").join(parts)  # type: ignore[arg-type]
    return None


def _module_of(prefix: str) -> str:
    return "course_lib." + prefix.replace("\\", "/").split("/")[-1].split(".")[-1]


def _strings(tree: ast.Module) -> list[ast.Constant]:
    """String constants that do something: docstrings and bare string statements are left out
    (mentioning the reference in a comment-like string is not using it)."""
    bare = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in bare
    ]
