"""Token fingerprints of source code, as plagiarism detectors make them (winnowing, as in MOSS).

The source is first reduced to what it does: statements that do nothing (``pass``, ``...``, a bare
constant, name or string that is not a docstring, a store into a name nobody reads, a function
nobody calls, an ``if False:`` block: ``no_effect``) are dropped and the rest is written out again
by ``ast.unparse``, so padding a copy with such statements after every line, or reformatting it,
changes nothing. It then becomes a list of normalised tokens (every name the code chose becomes
``V``, every number ``0``, every string its words; keywords, builtins, attribute names and operators
stay; comments and layout go), every run of ``K`` tokens is hashed, and the smallest hash of every
``WINDOW`` consecutive ones is kept as a fingerprint. Renaming variables, rewording comments or
strings and reordering functions change little; writing the code yourself changes most of it.
"""

from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import io
import keyword
import re
import tokenize

from course_lib.grading import syntax_tree
from course_lib.grading.no_effect import drop_no_effect

K = 7
WINDOW = 4
MAX_SOURCE_CHARS = 100_000  # a longer source is compared on its beginning
KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(dir(builtins))
FALLBACK_TOKEN = re.compile(r"\w+|[^\w\s]")
STRING_WORD = re.compile(r"\w+|[^\w\s'\"]")
FIELD = re.compile(r"\{[^{}]*\}")  # an f-string's fields: the names in them are the code's
STRING_PREFIX = re.compile(r"^[rbuf]+(?=['\"])")
DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
STRING_PARTS = {tokenize.STRING} | {
    getattr(tokenize, name)
    for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
    if hasattr(tokenize, name)
}
LAYOUT = {tokenize.NEWLINE: ";", tokenize.INDENT: "{", tokenize.DEDENT: "}"}


def effective_source(source: str, live: frozenset[str] | None = None) -> str:
    """``source`` without the statements that have no effect (``no_effect``; ``live``: the
    names read outside it, ``None`` for a source whose top-level names are all read), written
    out by ``ast.unparse`` (the source itself when it does not parse: it is then compared as
    text)."""
    source = source[:MAX_SOURCE_CHARS]
    try:
        return ast.unparse(drop_no_effect(syntax_tree.parse(source), live))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return source


def tokens(source: str, live: frozenset[str] | None = None) -> list[str]:
    """The normalised tokens of ``source``'s effective code (a rough split when it is not
    valid Python)."""
    text = effective_source(source, live)
    try:
        return _python_tokens(text)
    except (tokenize.TokenError, IndentationError, SyntaxError, ValueError, RecursionError):
        return [_normalised_word(word, "") for word in FALLBACK_TOKEN.findall(text)]


def _python_tokens(source: str) -> list[str]:
    out: list[str] = []
    previous = ""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in DROPPED:
            continue
        if token.type in STRING_PARTS:
            out.append(_normalised_string(token.string))
        elif token.type in LAYOUT:
            out.append(LAYOUT[token.type])
        elif token.type == tokenize.NUMBER:
            out.append("0")
        elif token.type == tokenize.NAME:
            out.append(_normalised_word(token.string, previous))
        else:
            out.append(token.string)
        previous = token.string
    return out


def _normalised_string(text: str) -> str:
    """A string literal by its words: quotes, prefixes, case and spacing do not count."""
    body = FIELD.sub("{}", STRING_PREFIX.sub("", text.lower()))
    return "S:" + " ".join(STRING_WORD.findall(body))


def _normalised_word(word: str, previous: str) -> str:
    if word in KEPT_NAMES or previous == ".":
        return word
    if word[:1].isdigit():
        return "0"
    return "V"


def _hash(gram: tuple[str, ...]) -> int:
    """A stable 48-bit hash (JSON readers keep it exact; Python's ``hash`` changes per run)."""
    digest = hashlib.blake2b(" ".join(gram).encode("utf-8"), digest_size=6).digest()
    return int.from_bytes(digest, "big")


@functools.lru_cache(maxsize=8192)
def fingerprints(source: str, live: frozenset[str] | None = None) -> frozenset[int]:
    """The winnowed hashes of ``source``'s ``K``-token runs (remembered: the course's own
    sources are compared with every answer, and ``load_corpus`` fingerprints them ahead).
    ``live``: the names read outside ``source`` (see ``effective_source``)."""
    words = tokens(source, live)
    hashes = [_hash(tuple(words[i : i + K])) for i in range(len(words) - K + 1)]
    if len(hashes) <= WINDOW:
        return frozenset(hashes)
    kept = set()
    for start in range(len(hashes) - WINDOW + 1):
        kept.add(min(hashes[start : start + WINDOW]))
    return frozenset(kept)


def containment(mine: frozenset[int], other: frozenset[int]) -> float:
    """The share of ``mine`` found in ``other``."""
    return len(mine & other) / len(mine) if mine else 0.0


def encode_prints(prints: frozenset[int]) -> str:
    """Fingerprints as one line of 12-digit hex numbers, sorted (compact in ``grades.json``)."""
    return " ".join(f"{value:012x}" for value in sorted(prints))


def decode_prints(text: str) -> frozenset[int]:
    return frozenset(int(part, 16) for part in text.split())
