"""Message catalogs: the sentences the library says (checks, hints, the stub's words), translated.

The English tables stay where they are used (``course_lib.checks.messages.MESSAGES``, a check
module's ``HINTS``, ...). ``TABLES`` names them, and ``course i18n update`` keeps one PO file per
domain and language in ``course_lib/locale/<lang>/<domain>.po`` in step with them:
``msgctxt`` = ``<module>:<key>``, ``msgid`` = the English sentence with its ``{placeholders}``,
``msgstr`` = the translation with the same placeholders.

At run time ``template(key, english, lang)`` looks a sentence up by its key and its exact English:
a sentence whose English changed is not in the index until a translator reviews it, so the
learner reads the current English rather than a stale translation.
"""

from __future__ import annotations

import functools
import importlib
from pathlib import Path

LOCALE = Path(__file__).resolve().parent.parent / "locale"
# domain -> the English tables it holds, as "module:attribute".
TABLES: dict[str, tuple[str, ...]] = {
    "messages": (
        "course_lib.checks.messages:MESSAGES",
        "course_lib.authoring.blocks:MESSAGES",
    ),
}


def table_entries(domain: str) -> list[tuple[str, str]]:
    """(msgctxt, English) for every sentence of ``domain``'s tables, in table order."""
    found = []
    for name in TABLES[domain]:
        module, attribute = name.split(":")
        table = getattr(importlib.import_module(module), attribute)
        found.extend((f"{module}:{key}", english) for key, english in table.items())
    return found


def catalog_file(lang: str, domain: str, root: Path = LOCALE) -> Path:
    return root / lang / f"{domain}.po"


@functools.cache
def reviewed(lang: str) -> dict[tuple[str, str], str]:
    """(key, English) -> translation, for every reviewed entry of ``lang``'s message catalogs."""
    from course_lib.i18n.catalog import read_catalog  # polib, only when a translation is spoken

    index: dict[tuple[str, str], str] = {}
    for path in sorted((LOCALE / lang).glob("*.po")):
        for entry in read_catalog(path):
            if entry.translated:
                index[(entry.key.rpartition(":")[2], entry.english)] = entry.text
    return index


def template(key: str, english: str, lang: str) -> str:
    """The sentence ``key`` (whose English is ``english``) in ``lang``, or the English."""
    if lang == "en":
        return english
    return reviewed(lang).get((key, english), english)
