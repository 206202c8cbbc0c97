"""A translated edition of a solution notebook: the English cells, ids, code and metadata, with
each translatable part (``course_lib.i18n.parts``) taken from the lesson's catalog.

A part is shown translated only when the catalog holds a reviewed translation of the English as
it is now (``Entry.translated`` for the same ``(key, English)``). Otherwise the English shows,
marked with a one-line note in Chinese and English: a markdown cell gets the note above it, a
comment or a hint gets it at its end. A stale translation can never show.

Outputs: the code is the English code, so a new or changed cell takes the English cell's outputs;
a cell whose code is unchanged keeps the outputs the edition itself stored, which
``course execute solutions/<lang>/NN_slug.ipynb`` refreshes (checks speak the edition's language,
so their outputs differ from the English ones).
"""

from __future__ import annotations

import copy

from nbformat import NotebookNode

from course_lib.i18n.catalog import Entry
from course_lib.i18n.parts import Part, code_tokens, put_back

# The note on a part whose translation is missing or older than its English (one line each).
PENDING = {
    "markdown": "> ⚠️ **翻译待更新（translation pending）**：本单元暂时显示英文原文。"
    "This cell shows the English until its translation is updated.",
    "inline": "（翻译待更新 · translation pending）",
}


def translate_notebook(
    english: NotebookNode,
    lang: str,
    entries: list[Entry],
    stored: NotebookNode | None = None,
) -> NotebookNode:
    """The ``lang`` edition of the solution notebook ``english`` (left untouched).

    ``stored`` is the edition as it is on disk, if any: its outputs are kept for code cells whose
    code has not changed.
    """
    translations = {(entry.key, entry.english): entry.text for entry in entries if entry.translated}

    def shown(part: Part) -> str:
        text = translations.get((part.key, part.text))
        if text is not None:
            return text
        if part.kind == "markdown":
            return f"{PENDING['markdown']}\n\n{part.text}"
        return f"{part.text} {PENDING['inline']}"

    nb = copy.deepcopy(english)
    for cell in nb.cells:
        put_back(cell, shown)
    nb.metadata.setdefault("course", {})["lang"] = lang
    if stored is not None:
        _keep_stored_outputs(nb, stored)
    return nb


def _keep_stored_outputs(nb: NotebookNode, stored: NotebookNode) -> None:
    kept = {
        cell.get("id"): cell for cell in stored.cells if cell.cell_type == "code" and cell.get("id")
    }
    for cell in nb.cells:
        old = kept.get(cell.get("id"))
        if cell.cell_type != "code" or old is None:
            continue
        if code_tokens(old.source) == code_tokens(cell.source):
            cell.outputs = copy.deepcopy(old.outputs)
            cell.execution_count = old.execution_count
