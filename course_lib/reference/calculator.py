"""Arithmetic from text without ``eval`` (exercise 06.1): a whitelist over the syntax tree.

``eval`` runs whatever the text says, and an attribute walk such as
``().__class__.__base__.__subclasses__()`` needs no name to reach every class in the
interpreter; so the text is parsed, and only numbers and the operators below are evaluated.
Anything else, and any value that is not a finite float, is a ``ValueError``.
"""

from __future__ import annotations

import ast
import math
import operator

BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
MAX_LENGTH = 200
MAX_EXPONENT = 100


def safe_calculate(expression: str) -> float:
    """The value of an arithmetic expression as a float; anything else raises ValueError."""
    if not isinstance(expression, str) or len(expression) > MAX_LENGTH:
        raise ValueError(f"send an expression of at most {MAX_LENGTH} characters")
    try:
        tree = ast.parse(expression, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ValueError(f"not an arithmetic expression: {expression!r}") from None
    try:
        result = _evaluate(tree.body)
    except (ArithmeticError, RecursionError) as exc:
        raise ValueError(f"cannot compute {expression!r}: {exc}") from None
    if not isinstance(result, float) or not math.isfinite(result):
        raise ValueError(f"{expression!r} has no finite real value")
    return result


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise ValueError(f"an exponent of {right:g} is too large (at most {MAX_EXPONENT})")
        return BINARY[type(node.op)](left, right)
    raise ValueError(f"{type(node).__name__} is not allowed; only numbers, + - * / // % ** and ()")
