"""Descriptions from docstrings: the function's text and one line per parameter.

The model reads descriptions as part of its prompt, so the function description is the docstring
without its Args/Returns/Raises sections (those are either per-parameter or useless to a caller),
and each parameter description is unwrapped onto one line.

Google, NumPy and reST styles are parsed with ``docstring_parser``. A docstring may be nothing
but an ``Args:`` (or ``Raises:``) section: the description is then empty. Class docstrings are
parsed the same way, so an ``Args:`` or ``Attributes:`` section describes a class's fields.

Asking docstring_parser to guess the style parses the text once per style, so we pick the style
from its markers first (one parse instead of four), reuse one parser object per style
(``docstring_parser.parse`` builds a new one, with freshly compiled regular expressions, on every
call) and cache by docstring text.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import docstring_parser as dp
from docstring_parser import google, numpydoc, rest

__all__ = ["DocstringInfo", "parse_docstring"]

_REST = re.compile(r"^\s*:(param|parameter|arg|argument|key|keyword|type|returns?|raises?)\b", re.M)
_NUMPY = re.compile(r"^\s*[A-Z][A-Za-z ]+\n\s*-{3,}\s*$", re.M)


@dataclass(frozen=True)
class DocstringInfo:
    """What a docstring says: the description and each documented parameter."""

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> DocstringInfo:
    """Parse a (possibly indented) docstring; ``None`` or blank gives an empty result."""
    if not doc or not doc.strip():
        return DocstringInfo()
    return _parse(doc)


@lru_cache(maxsize=2048)
def _parse(doc: str) -> DocstringInfo:
    text = _indent_first_section(inspect.cleandoc(doc))
    parsed = _style_of(text)(text)
    parts = [parsed.short_description, parsed.long_description]
    description = "\n\n".join(part.strip() for part in parts if part and part.strip())
    params = {
        param.arg_name: _unwrap(param.description)
        for param in parsed.params
        if param.description and param.description.strip()
    }
    return DocstringInfo(description=description, params=params)


_GOOGLE = google.GoogleParser()
_NUMPYDOC = numpydoc.NumpydocParser()


def _style_of(text: str) -> Callable[[str], dp.Docstring]:
    if _REST.search(text):
        return rest.parse
    if _NUMPY.search(text):
        return _NUMPYDOC.parse
    return _google


def _google(text: str) -> dp.Docstring:
    # The parser cleans the text again, and PEP 257 cleaning treats the first line on its own: a
    # docstring that opens with "Args:" would lose its body's indentation. After a newline the
    # first line is an ordinary one, and already-clean text comes back unchanged.
    return _GOOGLE.parse("\n" + text)


def _indent_first_section(text: str) -> str:
    """Re-indent the body of a docstring that *starts* with a section (``Args:`` and nothing
    before it): cleaning dedents every line after the first, so that body ends up flush left."""
    lines = text.split("\n")
    if not _GOOGLE.titles_re.match(lines[0]):
        return text
    body = [line for line in lines[1:] if line.strip()]
    if not body or body[0][0] in " \t":
        return text
    out = [lines[0]]
    for index, line in enumerate(lines[1:], start=1):
        if _GOOGLE.titles_re.match(line):  # the next section starts: leave the rest as it is
            return "\n".join(out + lines[index:])
        out.append("    " + line if line.strip() else line)
    return "\n".join(out)


def _unwrap(text: str) -> str:
    """Join a wrapped description into one line; keep blank-line paragraph breaks."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)
