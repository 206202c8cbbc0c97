"""Similar sources, found by token fingerprints and flagged for the instructor (never zeroed).

Each exercise's answer (its exercise cell and every cell of the learner's that feeds it: see
``answers``) is compared with the course's own answers (the solution cell in ``solutions/`` and
every function and class of ``course_lib/reference/``) and with classmates' answers to the same
exercise, by the fingerprints of ``fingerprint`` (statements that do nothing dropped, names and
layout normalised, winnowed 7-token runs).

Fingerprints the stub already holds (the signature and docstring every learner starts from) are
not counted. The comparison goes both ways: a flag is raised when at least ``THRESHOLD`` of the
answer's own fingerprints are found in the other source (a copy, however renamed), or when at
least ``THRESHOLD`` of the other source's own fingerprints are found in the answer (a copy with
code of one's own around it, or spread over several cells). A side with fewer than
``MIN_FINGERPRINTS`` is too short to say anything about (``return 2 * x`` is how everybody
writes it), and is not measured.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import nbformat

from course_lib import reference
from course_lib.grading import syntax_tree
from course_lib.grading.canonical import Lesson
from course_lib.grading.fingerprint import (
    decode_prints,
    encode_prints,
    fingerprints,
)
from course_lib.grading.live_names import answer_live, notebook_live

__all__ = [
    "Answer",
    "Compared",
    "Corpus",
    "Known",
    "answer_live",
    "notebook_live",
    "compare_results",
    "compare_with_course",
    "decode_prints",
    "encode_prints",
    "fingerprints",
    "load_corpus",
    "similarity_flags",
    "sorted_flags",
]

MIN_FINGERPRINTS = 10
THRESHOLD = 0.7


@dataclass(frozen=True)
class Answer:
    """One student's answer to one exercise, as it ran: the source of its cells
    (``answers.answer_cells``)."""

    student: str
    notebook: str
    exercise: str
    source: str


@dataclass(frozen=True)
class Known:
    """A source of the course's own: a solution cell or a reference function (fingerprinted
    with every name it binds at its top level taken as read: ``no_effect``)."""

    label: str
    source: str


@dataclass(frozen=True)
class Corpus:
    """What each exercise is compared with: ``solutions[(notebook, exercise)]``, every
    ``reference`` piece, and the stub (``stubs[(notebook, exercise)]``) whose fingerprints
    every learner shares; ``live[(notebook, exercise)]``: the names the lesson's other cells
    read, and the exercise's targets (what an answer's statements are kept for when its own
    notebook's are not known: ``live_names``)."""

    solutions: dict[tuple[str, str], Known]
    reference: tuple[Known, ...]
    stubs: dict[tuple[str, str], str]
    live: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Compared:
    """One answer, compared with the course's own: its fingerprints (without the stub's) and
    the flag it raised, if any. Kept in ``grades.json``, so a merge of shards needs neither the
    sources of the course nor a recomputation to compare classmates across shards."""

    fingerprints: frozenset[int]
    course_flag: dict | None = None


def compare_with_course(
    answers: Iterable[Answer],
    corpus: Corpus,
    made: dict[Answer, frozenset[int]] | None = None,
) -> dict[Answer, Compared]:
    """Each answer long enough to compare, with its match in the solution or the reference.
    ``made``: answers' fingerprints made already (where the sources were read: ``analysis``);
    the others are made here."""
    index = _Index(corpus.reference)
    compared = {}
    for answer in answers:
        key = (answer.notebook, answer.exercise)
        live = corpus.live.get(key, frozenset())
        stub = fingerprints(corpus.stubs.get(key, ""))
        own = (made or {}).get(answer)
        prints = (fingerprints(answer.source, live) if own is None else own) - stub
        if len(prints) < MIN_FINGERPRINTS:
            continue
        known = corpus.solutions.get(key)
        flag = None
        for other in ([known] if known else []) + index.near(prints):
            score = both_ways(prints, fingerprints(other.source) - stub)
            if score >= THRESHOLD:
                flag = _flag(answer, score, other.label, other.source)
                break
        compared[answer] = Compared(prints, flag)
    return compared


def both_ways(mine: frozenset[int], theirs: frozenset[int]) -> float:
    """How much of either side is found in the other: the larger containment, each measured
    only when its side has at least ``MIN_FINGERPRINTS``."""
    overlap = len(mine & theirs)
    shares = [overlap / len(side) for side in (mine, theirs) if len(side) >= MIN_FINGERPRINTS]
    return max(shares, default=0.0)


class _Index:
    """The reference's pieces by fingerprint: an answer is measured only against the pieces it
    shares enough fingerprints with to reach the threshold (a few of some two hundred)."""

    def __init__(self, pieces: Iterable[Known]) -> None:
        self.pieces = list(pieces)
        self.holders: dict[int, list[int]] = {}
        for number, piece in enumerate(self.pieces):
            for value in fingerprints(piece.source):
                self.holders.setdefault(value, []).append(number)
        self.enough = int(THRESHOLD * MIN_FINGERPRINTS)

    def near(self, prints: frozenset[int]) -> list[Known]:
        shared = Counter(number for value in prints for number in self.holders.get(value, ()))
        return [self.pieces[n] for n in sorted(n for n, c in shared.items() if c >= self.enough)]


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
            score = both_ways(mine.fingerprints, theirs.fingerprints)
            if score >= THRESHOLD:
                match = f"student {second.student}"
                flags.append(_flag(first, score, match, second.source, second.student))
    return sorted_flags(flags)


def sorted_flags(flags: list[dict]) -> list[dict]:
    """Flags in the order ``grades.json`` and the report list them."""
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
    live: dict[tuple[str, str], frozenset[str]] = {}
    for slug, lesson in sorted(lessons.items()):
        targets = {spec.id: spec.targets for spec in lesson.exercises}
        lesson_live = notebook_live(lesson.notebook, targets)
        for cell in lesson.notebook.cells:
            exercise = _exercise_id(cell)
            if exercise:
                stubs[(slug, exercise)] = cell.source
                live[(slug, exercise)] = lesson_live[exercise]
        path = solutions_dir / f"{slug}.ipynb" if solutions_dir else None
        if path is None or not path.is_file():
            continue
        for cell in nbformat.read(path, as_version=4).cells:
            exercise = _exercise_id(cell)
            if exercise:
                label = f"solutions/{slug}.ipynb, exercise {exercise}"
                solutions[(slug, exercise)] = Known(label, cell.source)
    corpus = Corpus(solutions, reference_pieces(), stubs, live)
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
        lines = text.splitlines(keepends=True)
        for node in syntax_tree.parse(text).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                # top-level: whole lines, from the ``def`` or ``class`` line to the last one
                source = "".join(lines[node.lineno - 1 : node.end_lineno])
                label = f"course_lib/reference/{path.name}: {node.name}"
                pieces.append(Known(label, source))
    return tuple(pieces)


def compare_results(results: Iterable[Any], corpus: Corpus) -> None:
    """Fill each ``SubmissionResult.similarity`` from its exercise sources."""
    owners, made = {}, {}
    for result in results:
        for exercise, source in sorted(result.sources.items()):
            answer = Answer(result.student, result.notebook, exercise, source)
            owners[answer] = result
            if exercise in getattr(result, "prints", {}):
                made[answer] = result.prints[exercise]
    for answer, entry in compare_with_course(owners, corpus, made).items():
        owners[answer].similarity[answer.exercise] = entry
