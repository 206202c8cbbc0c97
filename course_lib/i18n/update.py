"""Keep each catalog in step with its English notebook, and count where the translation stands.

``updated_entries`` is the whole rule of ``course i18n update``:

- a part whose ``(key, English)`` is in the catalog keeps its entry (translation, flags);
- a new part whose key held a different English text before (the cell was edited) becomes
  **fuzzy**: the old translation stays as the reference, with the English it was made from
  (``#| msgid``), and is not shown until a translator reviews it; when a code cell had several
  comments, the most similar old one is the reference;
- a part never seen before is added untranslated;
- entries whose part no longer exists (a removed cell or comment) are dropped.

``lesson_status`` counts translated, pending (fuzzy or untranslated) and stale (the catalog and
the English disagree: ``i18n update`` has not run since the English changed) entries.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from nbformat import NotebookNode

from course_lib.i18n.catalog import Entry
from course_lib.i18n.parts import Part, cell_parts

NOTES = {
    "markdown": "A markdown cell: translate the prose and diagram labels; keep code, links, "
    "placeholders and fences as they are.",
    "comment": "A comment in a code cell: one line.",
    "hint": "An exercise's hint: the stub's message (one line).",
    "message": "A sentence the course says to a learner: keep every {placeholder} as it is.",
}


def notebook_parts(nb: NotebookNode) -> list[Part]:
    """Every translatable part of a notebook, in reading order."""
    return [part for cell in nb.cells for part in cell_parts(cell)]


def updated_entries(parts: list[Part], old: list[Entry]) -> list[Entry]:
    """The catalog for ``parts`` (in their order), keeping what ``old`` already holds."""
    by_pair = {(entry.key, entry.english): entry for entry in old}
    wanted = {(part.key, part.text) for part in parts}
    # Old entries whose English is gone: the reference for a part that replaced them.
    orphans: dict[str, list[Entry]] = {}
    for entry in old:
        if (entry.key, entry.english) not in wanted and (entry.text or entry.previous):
            orphans.setdefault(entry.key, []).append(entry)
    entries = []
    for part in parts:
        note = NOTES[part.kind]
        kept = by_pair.get((part.key, part.text))
        if kept is not None:
            entries.append(_with_note(kept, note).stamped())
            continue
        reference = _closest(part.text, orphans.get(part.key, []))
        if reference is None:
            entries.append(Entry(part.key, part.text, note=note))
            continue
        orphans[part.key].remove(reference)
        entries.append(
            Entry(
                part.key,
                part.text,
                text=reference.text,
                fuzzy=bool(reference.text),
                previous=reference.previous if reference.fuzzy else reference.english,
                note=note,
            )
        )
    return entries


def _with_note(entry: Entry, note: str) -> Entry:
    return entry if entry.note == note else Entry(**{**entry.__dict__, "note": note})


def _closest(text: str, candidates: list[Entry]) -> Entry | None:
    """The candidate whose English is most like ``text`` (the first one on a tie)."""
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0]
    ratios = [difflib.SequenceMatcher(None, c.english, text).ratio() for c in candidates]
    return candidates[ratios.index(max(ratios))]


@dataclass(frozen=True)
class LessonStatus:
    """Where one lesson's translation stands (counts of catalog entries)."""

    notebook: str
    total: int
    translated: int
    pending: int
    stale: int

    @property
    def percent(self) -> int:
        return 100 * self.translated // self.total if self.total else 100


def lesson_status(notebook: str, parts: list[Part], entries: list[Entry]) -> LessonStatus:
    """Counts for one lesson: ``parts`` from the English, ``entries`` from its catalog."""
    wanted = {(part.key, part.text) for part in parts}
    have = {(entry.key, entry.english): entry for entry in entries}
    translated = sum(1 for pair in wanted if pair in have and have[pair].translated)
    missing = sum(1 for pair in wanted if pair not in have)
    extra = sum(1 for pair in have if pair not in wanted)
    return LessonStatus(
        notebook=notebook,
        total=len(wanted),
        translated=translated,
        pending=len(wanted) - translated,
        stale=missing + extra,
    )


def relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
