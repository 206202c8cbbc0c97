"""Disguises for a copied source: statements that do nothing after every statement
(``padded``: ``pass``, bare constants; ``dead_stored``: stores into names nobody reads, as the
red team padded; ``dead_coded``: what a padder tries next), its definitions in another order
(``reordered``)."""

from __future__ import annotations

import ast

FILLERS = ("pass", "...", "0", "'padding'", "None")
# The red team's: a store into a fresh name after every statement.
DEAD_STORES = ("_p{n} = {n}",)
# What a padder tries next: chains, annotations, deletions, declarations, definitions nobody
# calls, blocks that never run, and their mixtures (``{n}``: the filler's number).
DEAD_CODE = (
    "_p{n} = {n}\n_p{n} = _p{n} + 1\n_p{n} += _p{n} * 2",
    "_p{n}: int = {n} * 3 - 1",
    "_p{n} = _q{n} = ({n}, 'x{n}', None)\ndel _p{n}",
    "if False:\n    print('never {n}')",
    "def _p{n}(a, b={n}):\n    return a * b",
    "global _g{n}\n_g{n} = -{n}",
    "class _P{n}:\n    k = {n}\n\n    def m(self):\n        return self.k",
    "try:\n    _p{n} = {n} // 1\nexcept Exception:\n    pass",
    '"""padding {n}"""\n_p{n} = lambda: {n}',
    "while 0:\n    _p{n} = {n}",
)


def padded(source: str, fillers: tuple[str, ...] = FILLERS) -> str:
    """``source`` with a statement that does nothing after the last line of every statement, at
    that statement's indentation (the fillers taking turns, each numbered afresh; one per line
    where several end)."""
    tree = ast.parse(source)
    after: dict[int, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not _is_elif(node, tree):
            after.setdefault(node.end_lineno, node.col_offset)
    lines = source.splitlines()
    for number, (line, column) in enumerate(sorted(after.items(), reverse=True)):
        filler = fillers[number % len(fillers)].replace("{n}", str(number))
        lines[line:line] = [" " * column + part for part in filler.split("\n")]
    return "\n".join(lines) + "\n"


def dead_stored(source: str) -> str:
    return padded(source, DEAD_STORES)


def dead_coded(source: str) -> str:
    return padded(source, DEAD_CODE)


def _is_elif(node: ast.stmt, tree: ast.AST) -> bool:
    return isinstance(node, ast.If) and any(
        isinstance(parent, ast.If) and parent.orelse == [node] for parent in ast.walk(tree)
    )


def reordered(source: str) -> str:
    """``source`` with its top-level statements, and each class's methods, in reverse order."""
    tree = ast.parse(source)
    imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    rest = [node for node in tree.body if node not in imports]
    tree.body = imports + rest[::-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            head = node.body[:1] if ast.get_docstring(node) is not None else []
            node.body = head + node.body[len(head) :][::-1]
    return ast.unparse(tree)
