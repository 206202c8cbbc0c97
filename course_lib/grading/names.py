"""Student folder names as the gradebook shows them, and the file names made from them.

A folder name is whatever the collection tool (or a student's zip file) produced: bytes that are
not UTF-8, newlines, control characters, right-to-left marks, names hundreds of characters long,
or two names that differ only in Unicode normalisation (``José`` typed on macOS and on Windows).
The gradebook must show each student as one unambiguous, printable name, the same on every run,
and the feedback file written for a student must never be a path outside ``feedback/`` nor
collide with a classmate's. Everything here is a pure function of the names, so a shard, a merge
and a single run agree.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections.abc import Iterable

# Character categories shown as escapes: controls, format characters (bidi marks, zero-width
# spaces), surrogates, private use, unassigned, and line/paragraph separators.
INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
PLAIN_FILE_NAME = re.compile(r"[^\W_][\w.-]{0,59}")
HASHED_FILE_NAME = re.compile(r".*-[0-9a-f]{10}")  # what a slug and hash look like
SLUG_CHARACTER = re.compile(r"[^\w.-]")
WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10))} | {
    f"lpt{n}" for n in range(10)
}


def raw_bytes(name: str) -> bytes:
    """The bytes of a name as the file system holds them (``os.listdir`` escapes what is not
    UTF-8 as lone surrogates)."""
    return os.fsencode(name) if os.name != "nt" else name.encode("utf-8", "surrogatepass")


def printable(name: str) -> str:
    """``name`` with every byte that is not UTF-8 written as ``\\xNN`` and every invisible
    character written as ``\\uNNNN``: what a reader sees is what the name holds."""
    text = raw_bytes(name).decode("utf-8", "backslashreplace")
    return "".join(
        f"\\u{ord(ch):04x}" if unicodedata.category(ch) in INVISIBLE_CATEGORIES else ch
        for ch in text
    )


def short_hash(name: str) -> str:
    return hashlib.sha256(raw_bytes(name)).hexdigest()[:8]


def student_ids(folder_names: Iterable[str]) -> dict[str, str]:
    """Each folder name -> the student's name in the gradebook.

    Names that would look the same (equal after NFKC normalisation and case folding, or after
    escaping) get the first characters of a hash of their bytes appended, so two folders are
    never merged into one student and never confused by a reader."""
    names = sorted(set(folder_names))
    shown = {name: printable(name) for name in names}
    groups: dict[str, list[str]] = {}
    for name in names:
        key = unicodedata.normalize("NFKC", shown[name]).casefold()
        groups.setdefault(key, []).append(name)
    ids = {}
    for members in groups.values():
        for name in members:
            ids[name] = shown[name] if len(members) == 1 else f"{shown[name]} ~{short_hash(name)}"
    return ids


def feedback_file_name(student: str) -> str:
    """The feedback page's file name for a gradebook name: the name itself when it is a short
    run of letters, digits, ``.``, ``_`` and ``-``, else a slug of it and a hash (so no name can
    reach outside the folder, be too long for the file system, or collide with another)."""
    plain = PLAIN_FILE_NAME.fullmatch(student) and not HASHED_FILE_NAME.fullmatch(student)
    if plain and student.split(".")[0].lower() not in WINDOWS_RESERVED:
        return f"{student}.md"
    slug = SLUG_CHARACTER.sub("_", student).strip("._-")[:40] or "student"
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{slug}-{digest}.md"
