"""Disguises for a copied source: statements that do nothing after every statement
(``padded``), its definitions in another order (``reordered``)."""

from __future__ import annotations

import ast

FILLERS = ("pass", "...", "0", "'padding'", "None")


def padded(source: str) -> str:
    """``source`` with a statement that does nothing after the last line of every statement, at
    that statement's indentation (the fillers taking turns; one per line where several end)."""
    tree = ast.parse(source)
    after: dict[int, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not _is_elif(node, tree):
            after.setdefault(node.end_lineno, node.col_offset)
    lines = source.splitlines()
    for number, (line, column) in enumerate(sorted(after.items(), reverse=True)):
        lines.insert(line, " " * column + FILLERS[number % len(FILLERS)])
    return "\n".join(lines) + "\n"


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
