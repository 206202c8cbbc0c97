"""An exercise's contract as the learner reads it: the rule list of its markdown cell.

A solution notebook marks each exercise's contract with a markdown cell whose metadata is
``{"course": {"contract": "NN.K"}}``; the cell states the rules as a list. Each check states the
same rules again as ``Rule.text`` (``course_lib/checks``), and ``tests/test_lesson_shape.py`` holds
the two equal, word for word, through :func:`contract_items` and :func:`same_words`.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from course_lib.authoring.steps import course_meta

ITEM = re.compile(r"^(?P<indent>[ \t]*)(?:[-*]|\d+\.)[ \t]+(?P<text>\S.*)$")
# What ends a list item but is not part of the rule: the list's own punctuation.
LIST_PUNCTUATION = re.compile(r"(?:[;.,:]|;\s+and|;\s+or|,\s+and|,\s+or)\s*$")


def contract_cell(nb: NotebookNode, exercise_id: str) -> NotebookNode | None:
    """The markdown cell marked as ``exercise_id``'s contract, or None."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and course_meta(cell).get("contract") == exercise_id:
            return cell
    return None


def contract_items(markdown: str) -> list[str]:
    """The list items of a contract cell, each as one line of its markdown.

    An item runs from its marker to the next item, a blank line or a line that is not indented;
    its wrapped lines are joined with one space. The item keeps its markdown (code spans, bold)
    and loses only the list's punctuation at its end (``;`` or ``.``).
    """
    items: list[list[str]] = []
    open_item = False
    for line in markdown.splitlines():
        match = ITEM.match(line)
        if match:
            items.append([match["text"].strip()])
            open_item = True
        elif open_item and line.strip() and line[:1] in " \t":
            items[-1].append(line.strip())
        else:
            open_item = False
    return [LIST_PUNCTUATION.sub("", " ".join(parts)).strip() for parts in items]


def same_words(item: str) -> str:
    """``item`` as the equality test compares it: whitespace runs collapsed, list punctuation
    dropped. Nothing else is forgiven: words, case, code spans and bold all count."""
    return LIST_PUNCTUATION.sub("", " ".join(item.split())).strip()


def notebook_contract(solutions: Path, notebook: str, exercise_id: str) -> list[str]:
    """The contract items of ``exercise_id`` in ``solutions/<notebook>.ipynb`` (empty if none)."""
    nb = nbformat.read(solutions / f"{notebook}.ipynb", as_version=4)
    cell = contract_cell(nb, exercise_id)
    return contract_items(cell.source) if cell is not None else []
