"""The course in more than one language: the language switch, and the catalogs' tools.

``language()`` is the language learner-facing text is written in right now. The first of these
that is set decides, never the operating system's locale:

1. ``speaking(lang)``, for the code inside the ``with`` (a grader thread, one submission);
2. ``set_language(lang)``, for this process;
3. the ``COURSE_LANG`` environment variable;
4. the edition of the notebook this kernel runs: the ``course.lang`` metadata the build writes
   into a translated notebook, read from the file JupyterLab started the kernel for
   (``JPY_SESSION_NAME``), or else the folder the kernel runs in (``notebooks/zh-CN/``: nbval and
   ``course execute`` start kernels in the notebook's folder);
5. English.

``translate(table, key, **fields)`` is the lookup every learner-facing sentence goes through.

The modules: ``messages`` (message catalogs in ``course_lib/locale/``), ``parts`` (what of a cell
is translatable), ``catalog`` (the lessons' PO files in ``translations/``), ``update`` (keep them
in step with the English), ``edition`` (write a translated notebook), ``cli`` (``course i18n``).
docs/translating.md is the translator's guide.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import os
from collections.abc import Iterator
from pathlib import Path

ENGLISH = "en"
EDITIONS = ("zh-CN",)
LANGUAGES = (ENGLISH, *EDITIONS)
ENVIRONMENT_VARIABLE = "COURSE_LANG"

_speaking: contextvars.ContextVar[str | None] = contextvars.ContextVar("course_lang", default=None)
_process_language: str | None = None


def known(lang: object) -> str | None:
    """``lang`` as one of ``LANGUAGES`` (``zh_CN``, ``zh-cn`` and ``zh`` are ``zh-CN``), or None."""
    if not isinstance(lang, str):
        return None
    wanted = lang.strip().replace("_", "-").lower()
    for name in LANGUAGES:
        if wanted in (name.lower(), name.split("-")[0].lower()):
            return name
    return None


def set_language(lang: str | None) -> None:
    """Speak ``lang`` in this process from now on (``None``: decide as if it was never set)."""
    global _process_language
    if lang is not None and known(lang) is None:
        raise ValueError(f"unknown language {lang!r}; the course speaks {', '.join(LANGUAGES)}")
    _process_language = known(lang)


@contextlib.contextmanager
def speaking_in_process(lang: str | None) -> Iterator[None]:
    """``set_language(lang)`` for the code inside the ``with``, its threads included; the
    process's language before it comes back after (a command run in process leaves none)."""
    global _process_language
    previous = _process_language
    set_language(lang)
    try:
        yield
    finally:
        _process_language = previous


@contextlib.contextmanager
def speaking(lang: str | None) -> Iterator[None]:
    """Speak ``lang`` inside the ``with`` (this thread or task only); None changes nothing."""
    token = _speaking.set(known(lang))
    try:
        yield
    finally:
        _speaking.reset(token)


def language() -> str:
    """The language learner-facing text is written in now (see the module's docstring)."""
    for chosen in (_speaking.get(), _process_language):
        if chosen:
            return chosen
    return known(os.environ.get(ENVIRONMENT_VARIABLE)) or running_edition() or ENGLISH


def running_edition() -> str | None:
    """The edition of the notebook this kernel was started for, if it is a translated one."""
    session = os.environ.get("JPY_SESSION_NAME")
    if session:
        return notebook_language(Path(session))
    # Only an edition's own folder name (``zh-CN``) marks it: a folder a learner named ``zh``
    # or ``en`` is not an edition.
    return Path.cwd().name if Path.cwd().name in EDITIONS else None


def notebook_language(path: Path) -> str | None:
    """The ``course.lang`` a translated notebook's metadata holds (None for English or unread)."""
    try:
        modified = path.stat().st_mtime_ns
    except OSError:
        return None
    return _metadata_language(path, modified)


@functools.lru_cache(maxsize=8)
def _metadata_language(path: Path, modified: int) -> str | None:
    """(Read once per version of the file: every sentence a check says asks for it.)"""
    try:
        with path.open(encoding="utf-8") as file:
            lang = json.load(file).get("metadata", {}).get("course", {}).get("lang")
    except (OSError, ValueError, AttributeError):
        return None
    found = known(lang)
    return found if found != ENGLISH else None


def translate(table: dict[str, str], key: str, /, lang: str | None = None, **fields: object) -> str:
    """``table[key]`` (English) in ``lang`` (default: ``language()``), placeholders filled.

    Falls back to the English when the language's catalog has no reviewed translation of this
    exact English text.
    """
    from course_lib.i18n.messages import table_template

    english = table[key]
    text = table_template(table, key, lang or language())
    try:
        return text.format(**fields)
    except (KeyError, IndexError, ValueError):  # a broken translation: tests/i18n forbids it
        return english.format(**fields)


def spoken_label(table: dict[str, str], label: str, /) -> str:
    """A case's label in the language in force: a key of ``table`` is said as its text; any
    other label (a hidden case's, made in the language in force already) is returned as it is."""
    return translate(table, label) if label in table else label
