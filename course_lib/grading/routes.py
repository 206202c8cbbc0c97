"""Run-time routes to the course's answers, read from a cell's source (never run).

``borrowing`` resolves the names a cell uses; this module finds what names cannot show:

- a guarded module named in a string, however the string is assembled from literals (joined,
  concatenated, formatted, reversed, upper- or lower-cased: ``'COURSE_LIB.REFERENCE'.lower()``),
  or spelled in pieces beside a dynamic access (``getattr``, ``__import__``, ``sys.modules``);
- the strings that are names or code (``globals()['reference_validate']``,
  ``eval('R.type_schema')``, ``exec('type_name = helper')``), parsed so that their names are
  resolved like the cell's own (``code_in_strings``);
- the driver that answers the grader's checks, touched by a cell (``touches_driver``): nothing
  a learner writes needs it;
- routes nobody can follow from the source (``opaque_routes``): walking the interpreter's objects
  (``gc.get_objects()``), every loaded module, a class's subclasses or the call stack; a module
  imported by a name computed at run time; code objects rebuilt. An honest answer to this
  course needs none of them, but they prove nothing either: they are flagged, never zeroed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from course_lib.grading import syntax_tree

# The toolkit hands out the reference's parts (``course_lib.toolkit``): an answer that reaches
# into it further than the lesson's own cells do is borrowing too.
GUARDED = ("course_lib.reference", "course_lib.checks", "course_lib.toolkit")
GUARDED_PATHS = ("course_lib/reference", "course_lib/checks", "course_lib\\reference")
GUARDED_WORDS = ("reference", "checks", "solutions")
DYNAMIC = {
    "__import__", "import_module", "importlib", "getattr", "vars", "globals", "modules", "exec",
    "eval", "compile", "open", "read_text", "runpy", "run_path", "run_module", "getsource",
    "find_spec", "spec_from_file_location", "SourceFileLoader", "__dict__", "__globals__",
}  # fmt: skip
RUN_TIME = "{module} (reached at run time)"
INTROSPECTION_CALLS = ("getattr", "vars", "dir")
# The driver's names (course_lib/driver.py): the grader sends its requests through them.
DRIVER_WORDS = ("__course_driver__", "course_lib.driver", "_kerneldriver", "course-driver")
# Calls and attributes that reach objects without naming them, by what they do.
OPAQUE_ATTRIBUTES = {
    "get_objects": "walks the interpreter's objects (gc.get_objects)",
    "get_referrers": "walks the interpreter's objects (gc.get_referrers)",
    "get_referents": "walks the interpreter's objects (gc.get_referents)",
    "__subclasses__": "walks a class's subclasses (__subclasses__)",
    "_getframe": "walks the call stack (sys._getframe)",
    "currentframe": "walks the call stack (inspect.currentframe)",
    "f_back": "walks the call stack (f_back)",
    "f_globals": "reads another frame's globals (f_globals)",
    "CodeType": "builds code objects (CodeType)",
    "co_filename": "rewrites code objects (co_filename)",
    "co_code": "rewrites code objects (co_code)",
}
NOTEBOOK = "__main__"  # what a chain through ``globals()`` starts with: the notebook's names
MODULE_WALK = "walks every loaded module (sys.modules)"
COMPUTED_IMPORT = "imports a module by a name computed at run time ({call})"
IMPORT_CALLS = ("__import__", "import_module", "find_spec", "spec_from_file_location")
NAMESPACES = ("globals", "locals", "vars")
CASE_METHODS = ("lower", "upper", "casefold", "strip", "lstrip", "rstrip", "title", "swapcase")
NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
MAX_CODE_STRING = 5_000  # longer strings are not parsed as code
MAX_FOLD_DEPTH = 50


_MEMO: dict[tuple[str, int], tuple[ast.AST, Any]] = {}
MAX_MEMO = 100_000


def memo(kind: str, node: ast.AST, compute: Callable[[ast.AST], Any]) -> Any:
    """``compute(node)``, remembered for this very node (trees are parsed once per source and
    shared, and a notebook's cells are read once per exercise: the same questions come back).
    The node is kept with its answer, so that its ``id`` is not reused while remembered."""
    key = (kind, id(node))
    hit = _MEMO.get(key)
    if hit is not None and hit[0] is node:
        return hit[1]
    if len(_MEMO) > MAX_MEMO:
        _MEMO.clear()
    value = compute(node)
    _MEMO[key] = (node, value)
    return value


def guarded(origin: str) -> str | None:
    """The guarded package ``origin`` lies in, or ``None``."""
    for prefix in GUARDED:
        if origin == prefix or origin.startswith(prefix + "."):
            return prefix
    return None


# --- strings --------------------------------------------------------------------------------


def texts(tree: ast.AST) -> list[str]:
    """Every string the code uses, and every string expression assembled from literals
    (``"course_lib." + "re" + "ference"``, ``".".join([...])``, f-strings, path joins, case
    changes, reversals)."""
    return memo("texts", tree, _texts)


def _texts(tree: ast.AST) -> list[str]:
    found = [node.value for node in strings(tree)]
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp | ast.JoinedStr | ast.Call | ast.Subscript):
            folded = fold(node)
            if folded is not None:
                found.append(folded)
    return found


def fold(node: ast.AST, depth: int = 0) -> str | None:
    """The string an expression of literals evaluates to, or ``None`` if it is not one."""
    if depth > MAX_FOLD_DEPTH:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = fold(node.left, depth + 1), fold(node.right, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts = [fold(getattr(v, "value", v), depth + 1) for v in node.values]
        return None if None in parts else "".join(parts)  # type: ignore[arg-type]
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        return _sliced(node, depth)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
        return _method_result(node, depth)
    return None


def _sliced(node: ast.Subscript, depth: int) -> str | None:
    text = fold(node.value, depth + 1)
    bounds = [node.slice.lower, node.slice.upper, node.slice.step]  # type: ignore[attr-defined]
    values = [_small_int(bound) for bound in bounds]
    if text is None or any(v is False for v in values):
        return None
    return text[slice(*values)]  # type: ignore[misc]


def _small_int(node: ast.AST | None) -> int | None | bool:
    """A slice bound: ``None`` when absent, an int literal, else ``False``."""
    if node is None:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _small_int(node.operand)
        return -inner if isinstance(inner, int) and not isinstance(inner, bool) else False
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return False


def _method_result(node: ast.Call, depth: int) -> str | None:
    method = node.func.attr  # type: ignore[attr-defined]
    if method == "join":
        items = node.args
        if len(items) == 1 and isinstance(items[0], ast.List | ast.Tuple):
            items = items[0].elts
        parts = [fold(item, depth + 1) for item in items]
        if None in parts:
            return None
        separator = fold(node.func.value, depth + 1)  # type: ignore[attr-defined]
        return (separator if separator is not None else "/").join(parts)  # type: ignore[arg-type]
    subject = fold(node.func.value, depth + 1)  # type: ignore[attr-defined]
    if subject is None:
        return None
    if method in CASE_METHODS and not node.args:
        return getattr(subject, method)()
    if method == "replace" and len(node.args) == 2:
        old, new = (fold(arg, depth + 1) for arg in node.args)
        return None if old is None or new is None else subject.replace(old, new)
    return None


def strings(tree: ast.AST) -> list[ast.Constant]:
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


def code_in_strings(tree: ast.AST) -> list[ast.AST]:
    """The strings of ``tree`` that are a name, a dotted name or Python code, parsed: what
    ``globals()[...]``, ``eval``, ``exec`` or ``getattr`` would make of them."""
    return memo("code", tree, _code_in_strings)


def _code_in_strings(tree: ast.AST) -> list[ast.AST]:
    parsed = []
    for text in dict.fromkeys(texts(tree)):
        if len(text) > MAX_CODE_STRING or not any(c.isalpha() for c in text):
            continue
        if NAME.fullmatch(text):
            parsed.append(syntax_tree.parse(text, mode="eval"))
            continue
        try:
            parsed.append(syntax_tree.parse(text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return parsed


# --- routes ---------------------------------------------------------------------------------


def run_time_route(tree: ast.AST, resolve, shadowed: frozenset) -> str | None:
    """A guarded module named in a string (any case), handed to ``getattr``/``vars``, or spelled
    out in pieces (strings, attributes of a call's result) beside a dynamic access.
    ``resolve`` turns a name or chain into its origin (``borrowing``'s aliases)."""
    facts = memo("route", tree, _route_facts)
    if facts.named:
        return RUN_TIME.format(module=facts.named)
    for chain in facts.introspected:
        if chain.split(".")[0] not in shadowed:
            origin = resolve(chain)
            if guarded(origin):
                return RUN_TIME.format(module=origin)
    package = facts.package_word or any(
        resolve(name) == "course_lib" for name in facts.names if name not in shadowed
    )
    if package and facts.word and facts.dynamic:
        return RUN_TIME.format(module=f"course_lib.{facts.word}")
    return None


@dataclass(frozen=True)
class _RouteFacts:
    """What ``run_time_route`` needs of a tree, whatever the notebook's aliases."""

    named: str  # the guarded module a string names outright, or ""
    introspected: tuple[str, ...]  # chains handed to getattr/vars/dir
    names: tuple[str, ...]
    package_word: bool  # "course_lib" as a whole word of a loose string or attribute
    word: str | None  # the first guarded word found loose
    dynamic: bool  # a dynamic access is named


def _route_facts(tree: ast.AST) -> _RouteFacts:
    found = texts(tree)
    named = ""
    for text in found:
        folded = text.casefold()
        prefix = next((p for p in (*GUARDED, *GUARDED_PATHS) if p in folded), None)
        if prefix is not None:
            named = _module_of(prefix)
            break
    introspected = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in INTROSPECTION_CALLS
            and node.args
        ):
            chain = chain_of(node.args[0])
            if chain:
                introspected.append(chain)
    names = [node.id for node in ast.walk(tree) if isinstance(node, ast.Name)]
    attributes = [node for node in ast.walk(tree) if isinstance(node, ast.Attribute)]
    # Whole words of names and paths only: ``lesson90_checks.py`` and "run the checks" name no
    # module, ``"re" + "ference"`` does.
    loose = [text.casefold() for text in found if not any(ch.isspace() for ch in text)]
    loose += [node.attr for node in attributes if chain_of(node) is None]
    word = next((w for w in GUARDED_WORDS if any(_has_word(text, w) for text in loose)), None)
    return _RouteFacts(
        named=named,
        introspected=tuple(introspected),
        names=tuple(names),
        package_word=any(_has_word(text, "course_lib") for text in loose),
        word=word,
        dynamic=any(name in DYNAMIC for name in names + [node.attr for node in attributes]),
    )


def touches_driver(tree: ast.AST) -> bool:
    """Whether the cell names the grader's driver: as a name, an attribute, an import or in a
    string (any case)."""
    words = [node.id for node in ast.walk(tree) if isinstance(node, ast.Name)]
    words += [node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            words += [f"{getattr(node, 'module', '') or ''}.{a.name}" for a in node.names]
            words += [a.name for a in node.names]
    words += texts(tree)
    folded = [word.casefold() for word in words]
    return any(marker in word for word in folded for marker in DRIVER_WORDS)


def opaque_routes(tree: ast.AST) -> list[str]:
    """What the cell does that reaches objects without naming them, as phrases (sorted)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in OPAQUE_ATTRIBUTES:
            found.add(OPAQUE_ATTRIBUTES[node.attr])
        elif isinstance(node, ast.Name) and node.id in OPAQUE_ATTRIBUTES:
            found.add(OPAQUE_ATTRIBUTES[node.id])
        elif isinstance(node, ast.Attribute) and node.attr == "modules" and _walked(node, tree):
            found.add(MODULE_WALK)
        elif isinstance(node, ast.Call) and _computed_import(node):
            found.add(COMPUTED_IMPORT.format(call=_call_name(node)))
    return sorted(found)


def _walked(modules: ast.Attribute, tree: ast.AST) -> bool:
    """``sys.modules`` iterated, listed or looked up by a key that is not a literal."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.value is modules:
            return node.attr in ("values", "items", "keys", "copy")
        if isinstance(node, ast.For | ast.comprehension) and node.iter is modules:
            return True
        if isinstance(node, ast.Call) and modules in node.args:
            return True
        if isinstance(node, ast.Subscript) and node.value is modules:
            key = node.slice  # ``sys.modules[func.__module__]`` resolves annotations: allowed
            return fold(key) is None and getattr(key, "attr", "") != "__module__"
    return False


def _computed_import(node: ast.Call) -> bool:
    return _call_name(node) in IMPORT_CALLS and bool(node.args) and fold(node.args[0]) is None


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def chain_of(node: ast.AST) -> str | None:
    """``a.b.c`` for an attribute chain on a name, else ``None``. A name looked up by a string
    is that name: ``globals()['a'].b`` and ``eval('a.b')`` are ``a.b``."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    head = _looked_up(node)
    if head is not None:
        parts.append(head)
        return ".".join(reversed(parts))
    return None


def _looked_up(node: ast.AST) -> str | None:
    """The name (or dotted name) ``node`` reads: a name, ``globals()['x']`` (also ``locals()``,
    ``vars()``), ``eval('x')``, or ``getattr(a, 'x')`` (``a.x``)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call):
        call = node.value
        if isinstance(call.func, ast.Name) and call.func.id in NAMESPACES and not call.args:
            key = fold(node.slice)
            return key if key is not None and NAME.fullmatch(key) else None
    if isinstance(node, ast.Subscript):  # ``d['x']``, ``vars(m)['x']``: ``d.x``, ``m.x``
        key = item_key(node.slice)
        owner = chain_of(node.value) if key is not None else None
        return f"{owner}.{key}" if owner else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id == "vars" and len(node.args) == 1:  # ``vars(m)`` is ``m``'s names
            return chain_of(node.args[0])
        if node.func.id in NAMESPACES and not node.args:  # the notebook's own names
            return NOTEBOOK
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "eval":
        text = fold(node.args[0]) if len(node.args) == 1 else None
        return text if text is not None and NAME.fullmatch(text) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
        owner = chain_of(node.args[0]) if len(node.args) in (2, 3) else None
        name = fold(node.args[1]) if owner else None
        return f"{owner}.{name}" if name is not None and name.isidentifier() else None
    return None


def item_key(node: ast.AST) -> str | None:
    """The key of a subscript as a part of a chain: a name (or dotted name) in a string, or an
    integer (``d['x']``, ``items[0]``); else ``None``."""
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
        return str(node.value)
    key = fold(node)
    return key if key is not None and NAME.fullmatch(key) else None


def _has_word(text: str, word: str) -> bool:
    """``word`` in ``text`` as a whole module or path part (not inside a longer name)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])", text) is not None


def _module_of(prefix: str) -> str:
    return "course_lib." + prefix.replace("\\", "/").split("/")[-1].split(".")[-1]
