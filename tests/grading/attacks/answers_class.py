"""One class for the attacks that take the course's answer (``test_answers_stashed``,
``test_answers_taken``), graded once per namespace mode for the whole session.

Grading a notebook of lesson 04 costs seconds whatever it holds (the lesson's own cells run), and
both files hand in the same honest notebooks of it: so each file enrols its students when pytest
imports it (``enrol``), and the first test that reads the class (``conftest.answers_class``)
grades every student enrolled, in three runs per namespace mode:

- ``together``: every attack and every honest student, as one class;
- ``alone``: the honest students alone (each file asserts they are graded exactly as beside the
  attacks);
- ``hidden``: the routes tried where the tests' lesson never loads the reference (its plain
  canonical notebook), alone.

The lessons are the tests' lesson as one whose own code loads ``course_lib.reference`` (as lessons
04 to 09 do) and lesson 04 of the course; each class is compared with their solutions (the
tests' lesson's with ``LONG_SOLUTION``, long enough for similarity to judge). Results are keyed
by (student, lesson), and each file reads only its own students' rows and flags.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from grading_lesson import LONG_SOLUTION, REFERENCE_SETUP, SLUG, canonical, write

from attacks.batch import OPTIONS
from course_lib.grading import GradeOptions, grade_all
from course_lib.grading.canonical import load_lessons
from course_lib.grading.discover import discover
from course_lib.grading.report import to_payload
from course_lib.grading.similarity import compare_results, load_corpus

ROOT = Path(__file__).resolve().parents[3]
REGISTRY = "04_registry"

# student -> the (file name, notebook maker) each file enrolled it with (a student enrolled by
# both files must be handed in alike: ``_notebooks`` checks).
Enrolment = dict[str, list[tuple[str, Callable[[], nbformat.NotebookNode]]]]
ATTACKS: Enrolment = {}
HONEST: Enrolment = {}
HIDDEN: Enrolment = {}

Graded = tuple[dict[tuple[str, str], object], list[dict]]  # results by (student, lesson), flags


def enrol(
    attacks: dict[str, tuple[str, Callable[[], nbformat.NotebookNode]]],
    honest: dict[str, tuple[str, Callable[[], nbformat.NotebookNode]]],
    hidden: dict[str, tuple[str, Callable[[], nbformat.NotebookNode]]] | None = None,
) -> None:
    """Add a file's students (student -> (file name, a function making the notebook))."""
    for enrolment, students in ((ATTACKS, attacks), (HONEST, honest), (HIDDEN, hidden or {})):
        for student, handed_in in students.items():
            enrolment.setdefault(student, []).append(handed_in)


def _notebooks(enrolment: Enrolment) -> dict[str, tuple[str, nbformat.NotebookNode]]:
    notebooks = {}
    for student, ways in enrolment.items():
        made = {(name, nbformat.writes(make())) for name, make in ways}
        assert len(made) == 1, f"{student} is enrolled with different notebooks"
        ((name, text),) = made
        notebooks[student] = (name, nbformat.reads(text, as_version=4))
    return notebooks


def _graded(root: Path, canonical: Path, notebooks: dict, namespaces: bool, solutions: Path):
    """Grade ``notebooks`` (student -> (file name, notebook)) as one class; results by
    (student, lesson), and the flags of ``grades.json``."""
    for student, (name, nb) in notebooks.items():
        write(root / student / name, nb)
    options = GradeOptions(
        **{**OPTIONS.__dict__, "namespaces": namespaces, "accept_isolation_gap": not namespaces}
    )
    lessons = load_lessons(canonical)
    results = grade_all(discover(root), lessons, options)
    compare_results(results, load_corpus(lessons, solutions))
    flags = to_payload(results)["flags"]
    return {(r.student, r.notebook): r for r in results}, flags


class AnswersClass:
    """The enrolled students graded, each namespace mode once (when a test first asks)."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory, canonical_dir: Path) -> None:
        self.factory = tmp_path_factory
        self.plain = canonical_dir  # the tests' lesson as it is: it never loads the reference
        self.canonical = tmp_path_factory.mktemp("canonical-answers")
        write(self.canonical / f"{SLUG}.ipynb", canonical(REFERENCE_SETUP))
        shutil.copy(ROOT / "notebooks" / f"{REGISTRY}.ipynb", self.canonical)
        self.solutions = tmp_path_factory.mktemp("solutions-answers")
        nb = canonical(REFERENCE_SETUP)
        for cell in nb.cells:
            if cell.get("id") == "t-ex3":
                cell.source = LONG_SOLUTION
        write(self.solutions / f"{SLUG}.ipynb", nb)
        shutil.copy(ROOT / "solutions" / f"{REGISTRY}.ipynb", self.solutions)
        self.done: dict[bool, dict[str, Graded]] = {}

    def graded(self, namespaces: bool) -> dict[str, Graded]:
        """``together``, ``alone`` and ``hidden`` (see the module), graded with namespaces or
        without (then accepting the isolation gap)."""
        if namespaces not in self.done:
            self.done[namespaces] = self._grade(namespaces)
        return self.done[namespaces]

    def _grade(self, namespaces: bool) -> dict[str, Graded]:
        base = self.factory.mktemp("answers")
        honest = _notebooks(HONEST)
        runs = {
            "together": (self.canonical, {**_notebooks(ATTACKS), **honest}),
            "alone": (self.canonical, honest),
            "hidden": (self.plain, _notebooks(HIDDEN)),
        }
        return {
            run: _graded(base / run, canonical, notebooks, namespaces, self.solutions)
            if notebooks
            else ({}, [])
            for run, (canonical, notebooks) in runs.items()
        }
