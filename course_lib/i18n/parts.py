"""The translatable parts of a notebook cell: how they are cut out, and how they are put back.

A translation may change what a learner reads and nothing that runs. So:

- a **markdown** cell is one part, its whole source (prose, Mermaid labels, code fences and all;
  the placeholder test keeps fences, code spans and links intact);
- a **code** cell yields only its comments (the ``COMMENT`` tokens Python's own ``tokenize``
  finds, so a ``#`` inside a string is never taken for one) and, for an exercise cell, its hint
  (the ``course.hint`` metadata the build turns into the stub's message). Solution markers,
  tool pragmas (``# noqa``, ``# fmt: skip``, ``# type: ...``) and comments without a letter are
  left alone; docstrings and strings are code (lesson 02 reflects docstrings into schemas) and
  are never translated.

Putting a comment back replaces that token's text and nothing else, and ``put_back`` proves it:
the translated cell must tokenize to the same non-comment tokens as the English one, or it raises
``PartError``. A cell that does not tokenize (an IPython ``%%magic`` cell) has no comment parts.

Each part has a key: the cell id for a markdown cell, ``<cell id>#comment`` for every comment of
a code cell (the English text tells them apart), ``<cell id>#hint`` for the hint. These keys are
the catalogs' ``msgctxt`` (``course_lib.i18n.catalog``); keep them stable.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

from nbformat import NotebookNode

COMMENT_PART = "comment"
HINT_PART = "hint"
# Comments that belong to tools, not to the learner: never translated.
KEPT_COMMENTS = re.compile(
    r"#\s*(BEGIN SOLUTION|END SOLUTION|noqa\b|fmt:|type:|pragma\b|pyright:|mypy:|ruff:|!)"
)
LETTER = re.compile(r"[^\W\d_]")
COMMENT = re.compile(r"(#+\s*)(.*?)\s*")


class PartError(ValueError):
    """A translation would change a cell's code, or cannot be put back where it came from."""


@dataclass(frozen=True)
class Part:
    """One translatable text of a cell: ``key`` (the catalog's msgctxt), ``text`` (the English),
    ``kind`` (``markdown``, ``comment`` or ``hint``)."""

    key: str
    text: str
    kind: str


def cell_parts(cell: NotebookNode) -> list[Part]:
    """The translatable parts of ``cell``, in reading order, without duplicates."""
    cell_id = cell.get("id", "")
    if cell.cell_type == "markdown":
        return [Part(cell_id, cell.source, "markdown")] if cell.source.strip() else []
    if cell.cell_type != "code":
        return []
    key = f"{cell_id}#{COMMENT_PART}"
    parts = [Part(key, text, COMMENT_PART) for text in comments(cell.source)]
    hint = cell.get("metadata", {}).get("course", {}).get("hint")
    if isinstance(hint, str) and hint.strip():
        parts.append(Part(f"{cell_id}#{HINT_PART}", hint, HINT_PART))
    return list(dict.fromkeys(parts))


def comments(source: str) -> list[str]:
    """The text of every translatable comment in ``source`` (after ``#`` and its spaces)."""
    return [text for _, _, text in _comment_tokens(source)]


def _comment_tokens(source: str) -> list[tuple[tuple[int, int], str, str]]:
    """(start, prefix, text) of each translatable comment; prefix is ``#`` and its spaces."""
    found = []
    for token in _tokens(source):
        if token.type != tokenize.COMMENT or KEPT_COMMENTS.match(token.string):
            continue
        prefix, text = COMMENT.fullmatch(token.string).groups()
        if LETTER.search(text):
            found.append((token.start, prefix, text))
    return found


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []


def code_tokens(source: str) -> list[tuple[int, str]]:
    """Everything Python runs in ``source``: its tokens without comments and layout."""
    ignored = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    return [(t.type, t.string) for t in _tokens(source) if t.type not in ignored]


def put_back(cell: NotebookNode, translate: Callable[[Part], str]) -> NotebookNode:
    """``cell`` (changed in place) with each part replaced by ``translate(part)``.

    ``translate`` returns the text to show: a translation, or the English with a pending note.
    """
    parts = {(part.key, part.text): part for part in cell_parts(cell)}
    cell_id = cell.get("id", "")
    if cell.cell_type == "markdown":
        if parts:
            cell.source = translate(next(iter(parts.values())))
        return cell
    if cell.cell_type != "code":
        return cell
    english = cell.source
    lines = english.splitlines(keepends=True)
    for (row, column), prefix, text in reversed(_comment_tokens(english)):
        shown = translate(parts[(f"{cell_id}#{COMMENT_PART}", text)])
        if "\n" in shown or "\r" in shown:
            raise PartError(f"cell {cell_id!r}: the comment {text!r} must stay on one line")
        line = lines[row - 1]
        end = len(line.rstrip("\r\n"))
        lines[row - 1] = line[:column] + prefix + shown + line[end:]
    cell.source = "".join(lines)
    if code_tokens(cell.source) != code_tokens(english):
        raise PartError(f"cell {cell_id!r}: a translated comment changed the code")
    hint_key = (f"{cell_id}#{HINT_PART}", cell.get("metadata", {}).get("course", {}).get("hint"))
    if hint_key in parts:
        cell.metadata["course"]["hint"] = translate(parts[hint_key])
    return cell
