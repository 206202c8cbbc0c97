"""argparse's own words (``usage:``, ``options``, "the following arguments are required", "invalid
choice", the ``-h`` line) in the language a ``course`` command speaks.

argparse looks each of its words up at the moment it says it, through ``gettext.gettext``
(``ngettext`` for its one plural), which its module binds to the names ``_`` and ``ngettext``
(Python 3.10 to 3.13 alike). ``argparse_speaking(lang)`` binds those two names to ``WORDS`` for
the code inside the ``with`` (the command's parser built, its arguments parsed, its help or its
error printed) and binds back what it found after, exit included: nothing outlives the parse,
and for English nothing is bound at all, so English stays argparse's own text byte for byte. A
word argparse says that is not in ``WORDS`` (the errors a course author makes defining a parser)
stays English.

``WORDS`` holds argparse's English with named placeholders; ``SPECS`` the printf spec argparse
fills each with, so ``WORDS[key].format(**SPECS[key])`` is argparse's message id. The catalog
is the ``grading`` domain's (``course_lib/locale/<lang>/grading.po``): no ``%`` in a translation.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator

from course_lib.i18n import ENGLISH, ENVIRONMENT_VARIABLE, known, translate

# argparse's words a learner or an instructor can meet: its help's frame, and what it says of a
# command line it cannot take.
WORDS = {
    "usage": "usage: ",
    "positionals": "positional arguments",
    "options": "options",
    "help": "show this help message and exit",
    "error": "{prog}: error: {message}\n",
    "argument": "argument {argument_name}: {message}",
    "required": "the following arguments are required: {arguments}",
    "one_required": "one of the arguments {arguments} is required",
    "not_allowed": "not allowed with argument {argument}",
    "unrecognized": "unrecognized arguments: {arguments}",
    "ambiguous": "ambiguous option: {option} could match {matches}",
    "invalid_choice": "invalid choice: {value} (choose from {choices})",
    "invalid_value": "invalid {type} value: {value}",
    "expected_one": "expected one argument",
    "expected_at_most_one": "expected at most one argument",
    "expected_at_least_one": "expected at least one argument",
    "expected_count": "expected {count} argument",
    "expected_count_plural": "expected {count} arguments",
    "ignored": "ignored explicit argument {value}",
}
# The printf spec argparse puts where each placeholder is.
SPECS = {
    "error": {"prog": "%(prog)s", "message": "%(message)s"},
    "argument": {"argument_name": "%(argument_name)s", "message": "%(message)s"},
    "required": {"arguments": "%s"},
    "one_required": {"arguments": "%s"},
    "not_allowed": {"argument": "%s"},
    "unrecognized": {"arguments": "%s"},
    "ambiguous": {"option": "%(option)s", "matches": "%(matches)s"},
    "invalid_choice": {"value": "%(value)r", "choices": "%(choices)s"},
    "invalid_value": {"type": "%(type)s", "value": "%(value)r"},
    "expected_count": {"count": "%s"},
    "expected_count_plural": {"count": "%s"},
    "ignored": {"value": "%r"},
}
# argparse's message id -> the key of ``WORDS`` that says it.
KEYS = {english.format(**SPECS.get(key, {})): key for key, english in WORDS.items()}


def command_language(arguments: list[str], environ: dict[str, str] | None = None) -> str:
    """The language a ``course`` command speaks, chosen as the launcher chooses it: ``--lang X``
    or ``--lang=X`` anywhere in ``arguments``, else ``COURSE_LANG``, else English (never the
    system's locale, nor the folder the command runs in)."""
    found = None
    items = iter(arguments)
    for item in items:
        if item == "--lang":
            found = next(items, "")
        elif item.startswith("--lang="):
            found = item.partition("=")[2]
    environ = os.environ if environ is None else environ
    return known(found) or known(environ.get(ENVIRONMENT_VARIABLE)) or ENGLISH


def argparse_word(message: str, lang: str) -> str:
    """argparse's ``message`` (its English message id) in ``lang``, its printf specs kept."""
    key = KEYS.get(message)
    if key is None or lang == ENGLISH:
        return message
    return translate(WORDS, key, lang, **SPECS.get(key, {}))


@contextlib.contextmanager
def argparse_speaking(lang: str) -> Iterator[None]:
    """argparse says its words in ``lang`` inside the ``with`` (see the module's docstring)."""
    if known(lang) in (None, ENGLISH):
        yield
        return
    found = argparse._, argparse.ngettext  # type: ignore[attr-defined]

    def gettext(message: str) -> str:
        return argparse_word(message, lang)

    def ngettext(singular: str, plural: str, count: int) -> str:
        return argparse_word(singular if count == 1 else plural, lang)

    argparse._, argparse.ngettext = gettext, ngettext  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = found  # type: ignore[attr-defined]
