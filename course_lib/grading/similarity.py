"""Similar sources, found by token fingerprints and flagged for the instructor (never zeroed).

Each exercise cell is compared with the course's own answers (the solution cell in
``solutions/`` and every function and class of ``course_lib/reference/``) and with classmates'
cells for the same exercise. The comparison is the one plagiarism detectors use (winnowing, as
in MOSS): the source becomes a list of normalised tokens (every name the code chose becomes
``V``, every number ``0``, every string its words; keywords, builtins, attribute names and operators
stay; comments and layout go), every run of ``K`` tokens is hashed, and the smallest hash of
every ``WINDOW`` consecutive ones is kept as a fingerprint. Renaming variables, reformatting,
rewording comments or strings changes nothing; writing the code yourself changes most of it.

Fingerprints the stub already holds (the signature and docstring every learner starts from) are
not counted, and a cell with fewer than ``MIN_FINGERPRINTS`` of its own is too short to say
anything about (``return 2 * x`` is how everybody writes it). A flag is raised when at least
``THRESHOLD`` of the cell's fingerprints are found in the other source.
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
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import nbformat

from course_lib import reference
from course_lib.grading.canonical import Lesson

K = 7
WINDOW = 4
MIN_FINGERPRINTS = 10
THRESHOLD = 0.7
MAX_SOURCE_CHARS = 100_000  # a longer cell is compared on its beginning
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


def tokens(source: str) -> list[str]:
    """The normalised tokens of ``source`` (a rough split when it is not valid Python)."""
    source = source[:MAX_SOURCE_CHARS]
    try:
        return _python_tokens(source)
    except (tokenize.TokenError, IndentationError, SyntaxError, ValueError, RecursionError):
        return [_normalised_word(word, "") for word in FALLBACK_TOKEN.findall(source)]


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
def fingerprints(source: str) -> frozenset[int]:
    """The winnowed hashes of ``source``'s ``K``-token runs (remembered: the course's own
    sources are compared with every answer, and ``load_corpus`` fingerprints them ahead)."""
    words = tokens(source)
    hashes = [_hash(tuple(words[i : i + K])) for i in range(len(words) - K + 1)]
    if len(hashes) <= WINDOW:
        return frozenset(hashes)
    kept = set()
    for start in range(len(hashes) - WINDOW + 1):
        window = hashes[start : start + WINDOW]
        kept.add(min(window))
    return frozenset(kept)


def containment(mine: frozenset[int], other: frozenset[int]) -> float:
    """The share of ``mine`` found in ``other``."""
    return len(mine & other) / len(mine) if mine else 0.0


@dataclass(frozen=True)
class Answer:
    """One exercise cell of one student, as it ran."""

    student: str
    notebook: str
    exercise: str
    source: str


@dataclass(frozen=True)
class Known:
    """A source of the course's own: a solution cell or a reference function."""

    label: str
    source: str


@dataclass(frozen=True)
class Corpus:
    """What each exercise is compared with: ``solutions[(notebook, exercise)]``, every
    ``reference`` piece, and the stub (``stubs[(notebook, exercise)]``) whose fingerprints
    every learner shares."""

    solutions: dict[tuple[str, str], Known]
    reference: tuple[Known, ...]
    stubs: dict[tuple[str, str], str]


@dataclass(frozen=True)
class Compared:
    """One answer, compared with the course's own: its fingerprints (without the stub's) and
    the flag it raised, if any. Kept in ``grades.json``, so a merge of shards needs neither the
    sources of the course nor a recomputation to compare classmates across shards."""

    fingerprints: frozenset[int]
    course_flag: dict | None = None


def compare_with_course(answers: Iterable[Answer], corpus: Corpus) -> dict[Answer, Compared]:
    """Each answer long enough to compare, with its match in the solution or the reference."""
    reference = [(known, fingerprints(known.source)) for known in corpus.reference]
    compared = {}
    for answer in answers:
        key = (answer.notebook, answer.exercise)
        prints = fingerprints(answer.source) - fingerprints(corpus.stubs.get(key, ""))
        if len(prints) < MIN_FINGERPRINTS:
            continue
        known = corpus.solutions.get(key)
        candidates = [(known, fingerprints(known.source))] if known else []
        flag = None
        for other, other_prints in candidates + reference:
            score = containment(prints, other_prints)
            if score >= THRESHOLD:
                flag = _flag(answer, score, other.label, other.source)
                break
        compared[answer] = Compared(prints, flag)
    return compared


def similarity_flags(compared: dict[Answer, Compared]) -> list[dict]:
    """Every flag, sorted: each answer that matches the course's own, and each pair of
    classmates whose answers to one exercise match (unless both match the course's answer)."""
    flags = [c.course_flag for c in compared.values() if c.course_flag is not None]
    by_exercise: dict[tuple[str, str], list[Answer]] = {}
    for answer in compared:
        by_exercise.setdefault((answer.notebook, answer.exercise), []).append(answer)
    for group in by_exercise.values():
        for first, second in combinations(sorted(group, key=lambda a: a.student), 2):
            mine, theirs = compared[first], compared[second]
            if mine.course_flag is not None and theirs.course_flag is not None:
                continue
            overlap = len(mine.fingerprints & theirs.fingerprints)
            score = overlap / min(len(mine.fingerprints), len(theirs.fingerprints))
            if score >= THRESHOLD:
                match = f"student {second.student}"
                flags.append(_flag(first, score, match, second.source, second.student))
    return sorted(flags, key=lambda f: (f["notebook"], f["exercise"], f["student"], f["match"]))


def _flag(answer: Answer, score: float, match: str, matched_source: str, other: str = "") -> dict:
    flag = {
        "kind": "similarity",
        "student": answer.student,
        "notebook": answer.notebook,
        "exercise": answer.exercise,
        "match": match,
        "score": round(score, 2),
        "source": answer.source,
        "matched_source": matched_source,
    }
    if other:
        flag["other_student"] = other
    return flag


def load_corpus(lessons: dict[str, Lesson], solutions_dir: Path | None) -> Corpus:
    """The course's own answers for ``lessons``: their solution cells (when ``solutions_dir``
    holds the lesson), every top-level function and class of ``course_lib.reference``, and the
    stubs of the canonical notebooks."""
    solutions: dict[tuple[str, str], Known] = {}
    stubs: dict[tuple[str, str], str] = {}
    for slug, lesson in sorted(lessons.items()):
        for cell in lesson.notebook.cells:
            exercise = _exercise_id(cell)
            if exercise:
                stubs[(slug, exercise)] = cell.source
        path = solutions_dir / f"{slug}.ipynb" if solutions_dir else None
        if path is None or not path.is_file():
            continue
        for cell in nbformat.read(path, as_version=4).cells:
            exercise = _exercise_id(cell)
            if exercise:
                label = f"solutions/{slug}.ipynb, exercise {exercise}"
                solutions[(slug, exercise)] = Known(label, cell.source)
    corpus = Corpus(solutions, reference_pieces(), stubs)
    # Fingerprinted here, while the notebooks run (the grader reads the corpus in a thread of
    # its own), rather than once the last one has.
    for known in [*solutions.values(), *corpus.reference]:
        fingerprints(known.source)
    for stub in stubs.values():
        fingerprints(stub)
    return corpus


def _exercise_id(cell: nbformat.NotebookNode) -> str:
    meta = cell.get("metadata", {}).get("course", {})
    exercise = meta.get("exercise") if isinstance(meta, dict) else None
    return exercise if cell.get("cell_type") == "code" and isinstance(exercise, str) else ""


def reference_pieces() -> tuple[Known, ...]:
    """Each top-level function and class of ``course_lib/reference/``, labelled by file."""
    pieces = []
    folder = Path(reference.__file__).parent
    for path in sorted(folder.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                source = ast.get_source_segment(text, node) or ""
                label = f"course_lib/reference/{path.name}: {node.name}"
                pieces.append(Known(label, source))
    return tuple(pieces)


def encode_prints(prints: frozenset[int]) -> str:
    """Fingerprints as one line of 12-digit hex numbers, sorted (compact in ``grades.json``)."""
    return " ".join(f"{value:012x}" for value in sorted(prints))


def decode_prints(text: str) -> frozenset[int]:
    return frozenset(int(part, 16) for part in text.split())


def compare_results(results: Iterable[Any], corpus: Corpus) -> None:
    """Fill each ``SubmissionResult.similarity`` from its exercise sources."""
    owners = {}
    for result in results:
        for exercise, source in sorted(result.sources.items()):
            owners[Answer(result.student, result.notebook, exercise, source)] = result
    for answer, entry in compare_with_course(owners, corpus).items():
        owners[answer].similarity[answer.exercise] = entry
