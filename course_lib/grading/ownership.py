"""Whether each exercise's answer is the learner's own: zero for an answer taken from the
course, flags for what suggests it without proving it. A flag never changes a grade.

Everything the learner wrote or changed is read (``answers``), not only the exercise cells:

- **zero** (``tampered``) when a cell of the exercise's answer borrows the course's answer
  (``borrowing``); when a cell of the learner's that runs before the check touches the driver
  that carries the checks' requests, or fills the notebook's namespace at run time from the
  course's answers (``globals().update(vars(reference))``); or when the objects the check called
  were, or reach, the course's own code (``provenance``, judged from what the driver reported);
- **flag** (for the instructor, in ``grades.json`` and the report) when the exercise cell is the
  lesson's stub, unchanged, and its check still earned points (the answer was written
  elsewhere: in a cell after the stub, or taken); when a cell reaches objects by a route nobody
  can follow from its source (``routes.opaque_routes``); or when a target was not written in a
  cell of this notebook.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Any

from course_lib.grading import provenance
from course_lib.grading.answers import Cell, answer_cells, answer_source, check_positions
from course_lib.grading.borrowing import Notebook, borrowing, notebook_aliases, parse
from course_lib.grading.canonical import Lesson, course_meta
from course_lib.grading.fingerprint import tokens
from course_lib.grading.results import ExerciseResult
from course_lib.grading.routes import NOTEBOOK, opaque_routes, touches_driver
from course_lib.grading.run_code import run_time_code
from course_lib.grading.sanitize import Sanitized
from course_lib.grading.stores import stores
from course_lib.i18n import translate

# Learner-facing messages and flag phrases, whole sentences (one place, for the translation).
MESSAGES = {
    "borrowed": (
        "no points: the exercise's answer uses {origin}, the course's own answer, instead of "
        "your code. Write the solution yourself (the lesson's prose and the check's hints show "
        "the way)."
    ),
    "driver": (
        "no points: code cell {cell} changes the driver that carries the grader's checks. Leave "
        "it alone: write the solution in the exercise cell and let the check call it."
    ),
    "filled": (
        "no points: code cell {cell} fills the notebook's names at run time from {origin}, the "
        "course's own answers. Write the solution yourself."
    ),
}
FLAGS = {
    "stub": "the exercise cell is the lesson's stub, unchanged, yet its check earned points",
    "route": "code cell {cell} {route}",
    "stash": (
        "code cell {cell} keeps {origin}, the course's own code, in {place}, where a later cell "
        "can read it back"
    ),
    "names": (
        "code cell {cell} keeps the notebook's names ({value}) in {place}, where a later cell "
        "can read any of them"
    ),
}
UNGRADED = ("not_attempted", "invalid")
NAMESPACE_WRITERS = (
    "globals", "locals", "vars", "setattr", "__dict__", "__builtins__", "builtins", "push",
    "user_ns", "user_global_ns",
)  # fmt: skip
FAR = 1 << 30  # the position of a check cell that is missing


@dataclass(frozen=True)
class Findings:
    """The rows after judging, each exercise's answer as it ran, and the flags raised."""

    rows: list[ExerciseResult]
    sources: dict[str, str]
    flags: list[dict[str, Any]]


@dataclass(frozen=True)
class SourceFindings:
    """What the learner's sources alone show, before anything runs (``read_sources``: read in
    the analysis child, see ``analysis``): per exercise, why it earns zero (or ``None``), the
    flag phrases, and its answer's source (for those it has cells of); and the guarded names
    the lesson itself uses."""

    reasons: dict[str, str | None]
    phrases: dict[str, list[str]]
    answers: dict[str, str]
    allowed: frozenset[str]


def judge_answers(
    rows: list[ExerciseResult],
    sanitized: Sanitized,
    lesson: Lesson,
    cells: list[Cell],
    records: dict[int, dict[str, Any]],
) -> Findings:
    """Zero what was taken, flag what looks taken: see the module docstring."""
    return judge_run(rows, read_sources(sanitized, lesson, cells), lesson, sanitized, records)


def read_sources(sanitized: Sanitized, lesson: Lesson, cells: list[Cell]) -> SourceFindings:
    """Everything ``judge_answers`` learns from the sources (parsed here, never run)."""
    checks = check_positions(sanitized)
    notebook = notebook_aliases(_lesson_sources(lesson), [cell.source for cell in cells])
    everywhere = _notebook_wide(cells, notebook)
    reasons, phrases, answers = {}, {}, {}
    for spec in lesson.exercises:
        mine = answer_cells(cells, spec.id, spec.targets, checks.get(spec.id, FAR))
        before = [cell for cell in cells if cell.own and cell.index < checks.get(spec.id, FAR)]
        reasons[spec.id] = _zeroed(mine, before, everywhere, notebook, spec.targets)
        phrases[spec.id] = _source_phrases(spec.id, mine, before, everywhere, lesson)
        if mine:
            answers[spec.id] = answer_source(mine)
    allowed = provenance.lesson_names(notebook.lesson_uses)
    return SourceFindings(reasons, phrases, answers, allowed)


def judge_run(
    rows: list[ExerciseResult],
    read: SourceFindings,
    lesson: Lesson,
    sanitized: Sanitized,
    records: dict[int, dict[str, Any]],
) -> Findings:
    """The rows judged from ``read`` and what the checks' driver reported (no source is parsed
    here)."""
    checks = check_positions(sanitized)
    specs = {spec.id: spec for spec in lesson.exercises}
    out, flags = [], []
    for row in rows:
        spec = specs.get(row.exercise)
        if spec is None:
            out.append(row)
            continue
        verdict = (records.get(checks.get(spec.id, FAR)) or {}).get("verdict") or {}
        judged = provenance.judge(verdict.get("origins") or {}, spec.targets, read.allowed)
        reason = read.reasons.get(spec.id)
        if reason is None and judged.borrowed:
            reason = translate(MESSAGES, "borrowed", origin=judged.borrowed)
        if reason is not None and row.status not in UNGRADED:
            row = replace(row, points=0, status="tampered", message=reason, failure=None)
        if row.points > 0:
            phrases = [*judged.flags, *read.phrases.get(spec.id, [])]
            source = read.answers.get(spec.id, "")
            for phrase in dict.fromkeys(phrases):
                flags.append(_flag(row, phrase, source, _stub(lesson, spec.id)))
        out.append(row)
    return Findings(out, dict(read.answers), flags)


def _zeroed(mine, before, everywhere, notebook: Notebook, targets) -> str | None:
    """Why the exercise earns zero, from its sources, or ``None``."""
    for cell in sorted(mine, key=lambda cell: not cell.exercise):  # its exercise cell first
        origin = borrowing(cell.source, notebook, targets)
        if origin is not None:
            return translate(MESSAGES, "borrowed", origin=origin)
    for cell in before:
        found = everywhere.get(cell.index)
        if found and found.driver:
            return translate(MESSAGES, "driver", cell=cell.index)
        if found and found.filled:
            return translate(MESSAGES, "filled", cell=cell.index, origin=found.filled)
    return None


def _source_phrases(exercise_id, mine, before, everywhere, lesson: Lesson) -> list[str]:
    """The flag phrases the sources raise (only used when the exercise earned points)."""
    phrases = []
    exercise = next((cell for cell in mine if cell.exercise == exercise_id), None)
    stub = _stub(lesson, exercise_id)
    if exercise is not None and stub and tokens(exercise.source) == tokens(stub):
        phrases.append(FLAGS["stub"])
    for cell in before:
        facts = everywhere.get(cell.index)
        for route in facts.opaque if facts else ():
            phrases.append(FLAGS["route"].format(cell=cell.index, route=route))
        phrases += [phrase.format(cell=cell.index) for phrase in facts.kept] if facts else []
    return phrases


@dataclass(frozen=True)
class _CellFacts:
    driver: bool
    filled: str | None  # the borrowed origin a run-time namespace write puts in, if any
    opaque: tuple[str, ...]  # routes nobody can follow, and code run from strings
    kept: tuple[str, ...] = ()  # the course's code or the notebook's names kept out of names


def _kept(tree: ast.AST, notebook: Notebook) -> tuple[str, ...]:
    """Flag phrases (``{cell}`` left to fill) for what the cell keeps where names cannot show
    it: the course's code on an attribute, an item or ``builtins`` (a container bound to a name
    is followed, not flagged), the notebook's names anywhere."""
    found = []
    for store in stores(tree, notebook):
        if store.origin == NOTEBOOK:
            found.append(FLAGS["names"].format(cell="{cell}", value=store.value, place=store.place))
        elif not store.in_a_name:
            found.append(
                FLAGS["stash"].format(cell="{cell}", origin=store.origin, place=store.place)
            )
    return tuple(dict.fromkeys(found))


def _notebook_wide(cells: list[Cell], notebook: Notebook) -> dict[int, _CellFacts]:
    """What each of the learner's cells does that matters wherever it stands."""
    facts = {}
    for cell in cells:
        tree = parse(cell.source) if cell.own else None
        if tree is None:
            continue
        filled = borrowing(cell.source, notebook) if _writes_namespace(tree) else None
        routes = (*opaque_routes(tree), *run_time_code(tree))
        facts[cell.index] = _CellFacts(touches_driver(tree), filled, routes, _kept(tree, notebook))
    return facts


def _writes_namespace(tree: ast.AST) -> bool:
    """``globals().update(...)``, ``setattr(module, ...)``, ``__dict__`` or builtins changed."""
    for node in ast.walk(tree):
        name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if name in NAMESPACE_WRITERS:
            return True
    return False


def _lesson_sources(lesson: Lesson) -> tuple[str, ...]:
    return tuple(
        cell.source
        for cell in lesson.notebook.cells
        if cell.cell_type == "code" and "exercise" not in course_meta(cell)
    )


def _stub(lesson: Lesson, exercise: str) -> str:
    for cell in lesson.notebook.cells:
        if cell.cell_type == "code" and course_meta(cell).get("exercise") == exercise:
            return cell.source
    return ""


def _flag(row: ExerciseResult, phrase: str, source: str, stub: str) -> dict[str, Any]:
    return {
        "kind": "borrowing",
        "student": row.student,
        "notebook": row.notebook,
        "exercise": row.exercise,
        "match": phrase,
        "source": source,
        "matched_source": stub,
    }
