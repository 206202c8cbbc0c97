"""Solution blocks: find ``# BEGIN SOLUTION`` / ``# END SOLUTION`` in a cell and write the stub.

Pure text in, text out, so the rules can be read (and tested) apart from notebooks:

- a block inside a function or method body becomes
  ``raise NotImplementedError("Exercise NN.K: <hint>")`` at the block's indentation;
- a block at the top level may only hold assignments and becomes
  ``NAME = ...  # Exercise NN.K: <hint>`` for each assigned name (``check()`` reads ``...`` as
  "not done yet").

Problems raise ``BlockError`` with a sentence saying what is wrong and what to do; the build
adds the notebook and cell to it.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass

from course_lib.i18n import ENGLISH, translate

# What a stub says, per exercise (translated in course_lib/locale/<lang>/messages.po). The checks
# recognise a stub by its start in every language (course_lib.checks.learner.STUB_ID).
MESSAGES = {"stub": "Exercise {id}: {hint}"}
BEGIN = "# BEGIN SOLUTION"
END = "# END SOLUTION"


class BlockError(ValueError):
    """A solution block is malformed; the message says how to fix it."""


@dataclass(frozen=True)
class Block:
    """One solution block: the lines between (not including) its markers, 0-based."""

    begin: int
    end: int
    indent: str


def has_markers(source: str) -> bool:
    """Does any line of ``source`` hold a solution marker?"""
    return any(line.strip() in (BEGIN, END) for line in source.splitlines())


def find_blocks(source: str) -> list[Block]:
    """Every solution block in ``source``, in order; malformed markers raise ``BlockError``."""
    blocks: list[Block] = []
    open_at: int | None = None
    lines = source.splitlines()
    for number, line in enumerate(lines):
        marker = line.strip()
        if marker == BEGIN:
            if open_at is not None:
                raise BlockError(
                    f"line {number + 1}: {BEGIN} inside the block opened on line {open_at + 1}; "
                    "blocks cannot nest: close the first block before opening another."
                )
            open_at = number
        elif marker == END:
            if open_at is None:
                raise BlockError(f"line {number + 1}: {END} without a {BEGIN} before it.")
            indent = lines[open_at][: len(lines[open_at]) - len(lines[open_at].lstrip())]
            blocks.append(Block(open_at, number, indent))
            open_at = None
    if open_at is not None:
        raise BlockError(f"line {open_at + 1}: {BEGIN} is never closed; add {END} after it.")
    return blocks


def stub_source(source: str, exercise_id: str, hint: str, lang: str = ENGLISH) -> str:
    """``source`` with every solution block replaced by its stub (its message in ``lang``)."""
    blocks = find_blocks(source)
    if not blocks:
        raise BlockError(f"an exercise cell needs a solution block ({BEGIN} ... {END}).")
    lines = source.splitlines()
    message = translate(MESSAGES, "stub", lang, id=exercise_id, hint=hint)
    out: list[str] = []
    position = 0
    for block in blocks:
        out.extend(lines[position : block.begin])
        body = lines[block.begin + 1 : block.end]
        if block.indent:
            # A JSON string literal is a valid Python string literal (quotes, backslashes, Unicode).
            literal = json.dumps(message, ensure_ascii=False)  # a translated hint stays readable
            out.append(f"{block.indent}raise NotImplementedError({literal})")
        else:
            out.extend(f"{name} = ...  # {message}" for name in assigned_names(body, block))
        position = block.end + 1
    out.extend(lines[position:])
    return "\n".join(out) + ("\n" if source.endswith("\n") else "")


def assigned_names(body: list[str], block: Block) -> list[str]:
    """The names a top-level block assigns; anything but assignments is a ``BlockError``."""
    try:
        tree = ast.parse("\n".join(body))
    except SyntaxError as exc:
        raise BlockError(f"line {block.begin + 1}: the block does not parse: {exc.msg}.") from None
    names: list[str] = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets = [statement.target]
        else:
            raise BlockError(
                f"line {block.begin + 1 + statement.lineno}: a top-level block may only assign "
                f"names (found {type(statement).__name__}); put code inside a function body, "
                "or move it out of the block."
            )
        for target in targets:
            names.extend(_target_names(target, block, statement))
    if not names:
        raise BlockError(f"line {block.begin + 1}: the top-level block assigns nothing.")
    return list(dict.fromkeys(names))


def _target_names(target: ast.expr, block: Block, statement: ast.stmt) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for item in target.elts for name in _target_names(item, block, statement)]
    raise BlockError(
        f"line {block.begin + 1 + statement.lineno}: a top-level block may only assign plain "
        f"names, not {ast.unparse(target)}."
    )
