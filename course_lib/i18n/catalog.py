"""Translation catalogs: one gettext PO file per lesson and language, read and written by polib.

``translations/<lang>/<NN_slug>.po`` holds one entry per translatable part of the English
solution notebook (``course_lib.i18n.parts``):

- ``msgctxt``: the part's key: the cell id (``w00-intro``), or ``<cell id>#comment`` /
  ``<cell id>#hint`` for a code cell's comments and an exercise's hint;
- ``msgid``: the English text it translates, exactly;
- ``msgstr``: the translation; empty until someone translates it;
- ``#, fuzzy`` with ``#| msgid``: the English changed since it was translated; the old
  translation is kept for reference and is not used until a translator updates it and removes the
  flag;
- ``#.`` comments (written by ``i18n update``): what kind of part it is, for the translator;
- ``# source <hash>`` (written by ``i18n update`` on a translated entry): a hash of the English the
  translation was made from. A merge of two branches can pair new English from one with an old
  translation from the other (each side changed different lines of the entry); the hash then no
  longer matches, the translation is not used, and ``i18n update`` marks the entry fuzzy.

A translation is used only when its entry's ``(msgctxt, msgid)`` is the English as it is now and
it is neither empty nor fuzzy; anything else shows the English with a "translation pending" note.
``write_catalog`` always writes the same bytes for the same entries (a fixed header: no dates, no
line numbers, no wrapping), so the catalogs diff cleanly.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

import polib

from course_lib.authoring.build import TRANSLATIONS  # noqa: F401 (one place for the folder)
from course_lib.i18n import EDITIONS  # noqa: F401 (re-exported for the command line)

PROJECT = "Tool Calling from Scratch"


@dataclass(frozen=True)
class Entry:
    """One catalog entry (``key`` = msgctxt, ``english`` = msgid, ``text`` = msgstr)."""

    key: str
    english: str
    text: str = ""
    fuzzy: bool = False
    previous: str = ""  # the English the (fuzzy) translation was made from
    note: str = ""  # what kind of part this is, for the translator
    source: str = ""  # source_hash() of the English the translation was made from ("": not yet)

    @property
    def translated(self) -> bool:
        """Usable as it stands: translated, not waiting for a translator's review, and made from
        this English (an entry not stamped yet counts; ``i18n update --check`` fails on it)."""
        made_from_this = not self.source or self.source == source_hash(self.english)
        return bool(self.text) and not self.fuzzy and made_from_this

    def stamped(self) -> Entry:
        """This entry as ``i18n update`` writes it: a translation is stamped with the English it
        was made from; one stamped with other English is fuzzy (and unstamped, so that a
        translator's review, removing the flag, is stamped by the next update)."""
        if not self.text or self.fuzzy:
            return replace(self, source="")
        if self.source and self.source != source_hash(self.english):
            return replace(self, fuzzy=True, source="")
        return replace(self, source=source_hash(self.english))


SOURCE_PREFIX = "source "


def source_hash(english: str) -> str:
    """A short, stable hash of an entry's English (12 hex digits of SHA-256)."""
    return hashlib.sha256(english.encode("utf-8")).hexdigest()[:12]


def _source(tcomment: str) -> str:
    for line in (tcomment or "").splitlines():
        if line.startswith(SOURCE_PREFIX):
            return line[len(SOURCE_PREFIX) :].strip()
    return ""


def catalog_path(lang: str, notebook: str, root: Path = TRANSLATIONS) -> Path:
    return root / lang / f"{notebook}.po"


def locale_name(lang: str) -> str:
    """gettext's spelling of a language tag (``zh-CN`` -> ``zh_CN``)."""
    return lang.replace("-", "_")


def read_catalog(path: Path) -> list[Entry]:
    """The entries of the PO file at ``path`` (none if it does not exist), in file order."""
    if not path.exists():
        return []
    return [
        Entry(
            key=item.msgctxt or "",
            english=item.msgid,
            text=item.msgstr,
            fuzzy=item.fuzzy,
            previous=item.previous_msgid or "",
            note=item.comment,
            source=_source(item.tcomment),
        )
        for item in polib.pofile(str(path), encoding="utf-8", wrapwidth=0)
        if not item.obsolete
    ]


def render_catalog(lang: str, title: str, entries: list[Entry]) -> str:
    """The exact PO text for ``entries`` (deterministic: same entries, same bytes); ``title``
    names what is translated (``lesson 00_welcome``)."""
    catalog = polib.POFile(wrapwidth=0, encoding="utf-8")
    catalog.header = (
        f"{PROJECT}, {title}: the {lang} translation.\n"
        "Entries are updated by `python -m course_lib i18n update`; translators fill msgstr\n"
        "and remove the fuzzy flag once they have reviewed it (see docs/translating.md)."
    )
    catalog.metadata = {
        "Project-Id-Version": PROJECT,
        "Language": locale_name(lang),
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        "Plural-Forms": "nplurals=1; plural=0;",
    }
    for entry in entries:
        catalog.append(
            polib.POEntry(
                msgctxt=entry.key,
                msgid=entry.english,
                msgstr=entry.text,
                flags=["fuzzy"] if entry.fuzzy else [],
                previous_msgid=entry.previous or None,
                comment=entry.note,
                tcomment=f"{SOURCE_PREFIX}{entry.source}" if entry.source else "",
            )
        )
    return str(catalog) + "\n"


def write_catalog(path: Path, lang: str, title: str, entries: list[Entry]) -> bool:
    """Write the catalog if its text changed; return whether it was written."""
    text = render_catalog(lang, title, entries)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as file:
        file.write(text)
    return True
