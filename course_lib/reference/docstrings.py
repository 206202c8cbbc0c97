"""Descriptions from docstrings: the function's text and one line per parameter.

The model reads descriptions as part of its prompt, so the function description is the docstring
without its Args/Returns/Raises sections (those are either per-parameter or useless to a caller),
and each parameter description is unwrapped onto one line.

Google, NumPy and reST styles are parsed with ``docstring_parser``. Asking it to guess the style
parses the text once per style, so we pick the style from its markers first (one parse instead of
four), reuse one parser object per style (``docstring_parser.parse`` builds a new one, with
freshly compiled regular expressions, on every call) and cache by docstring text.
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
    text = inspect.cleandoc(doc)
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
    return _GOOGLE.parse


def _unwrap(text: str) -> str:
    """Join a wrapped description into one line; keep blank-line paragraph breaks."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)
