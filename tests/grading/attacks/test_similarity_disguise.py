"""Similarity that survives disguise, and spares honest work.

A copy of the course's solution, of a reference function or of a classmate's cell flags however
it is padded (``pass``, ``...``, bare constants and strings after every statement), relocated
(pasted into a new cell between the untouched stub and its check, or split over helper cells)
or reordered (its functions and methods in another order). Five solutions per exercise of
lessons 02 and 04, written independently in different styles (``independent_02``,
``independent_04``), each first proven correct by the course's own checks, flag nothing: not
against the course, not against each other.
"""

from __future__ import annotations

import copy
from pathlib import Path

import independent
import nbformat
import pytest
from nbformat.v4 import new_code_cell

from attacks.disguise import dead_coded, dead_stored, padded, reordered
from course_lib.grading.answers import answer_cells, answer_source, check_positions, learner_cells
from course_lib.grading.canonical import default_canonical_dir, load_lessons
from course_lib.grading.sanitize import sanitize
from course_lib.grading.similarity import (
    Answer,
    compare_with_course,
    load_corpus,
    reference_pieces,
    similarity_flags,
)

ROOT = Path(__file__).resolve().parents[3]
SLUGS = sorted(independent.ANSWERS)
EXERCISES = [(slug, exercise) for slug in SLUGS for exercise in independent.ANSWERS[slug]]


@pytest.fixture(scope="module")
def lessons():
    return load_lessons(default_canonical_dir())


@pytest.fixture(scope="module")
def corpus(lessons):
    return load_corpus(lessons, ROOT / "solutions")


def flags_for(corpus, *answers: Answer) -> list[dict]:
    return similarity_flags(compare_with_course(answers, corpus))


def solution(corpus, slug: str, exercise: str) -> str:
    return corpus.solutions[(slug, exercise)].source


# --- disguises -------------------------------------------------------------------------------


def relocated(lessons, slug: str, exercise: str, source: str) -> str:
    """The answer the grader reads when the learner leaves the stub untouched and pastes
    ``source`` into a new cell between it and its check."""
    lesson = lessons[slug]
    nb = copy.deepcopy(lesson.notebook)
    exercises = [independent.exercise_of(cell) for cell in nb.cells]
    position = exercises.index(exercise)
    nb.cells.insert(position + 1, new_code_cell(source))
    sanitized = sanitize(nbformat.writes(nb).encode("utf-8"), lesson)
    spec = next(spec for spec in lesson.exercises if spec.id == exercise)
    cells = learner_cells(sanitized, lesson)
    found = answer_cells(cells, exercise, spec.targets, check_positions(sanitized)[exercise])
    assert any(cell.source == source for cell in found), "the pasted cell is part of the answer"
    return answer_source(found)


DISGUISES = {
    "padded": lambda lessons, slug, exercise, source: padded(source),
    "reordered": lambda lessons, slug, exercise, source: reordered(source),
    "relocated": relocated,
    "padded, reordered and relocated": lambda lessons, slug, exercise, source: relocated(
        lessons, slug, exercise, padded(reordered(source))
    ),
    "dead stores": lambda lessons, slug, exercise, source: dead_stored(source),
    "dead code": lambda lessons, slug, exercise, source: dead_coded(source),
    "dead code, reordered and relocated": lambda lessons, slug, exercise, source: relocated(
        lessons, slug, exercise, dead_coded(reordered(source))
    ),
}


# A function with branches, for the disguises' own tests: padding must keep what it does.
BRANCHES = "def f(x):\n    if x:\n        y = 1\n    elif x is None:\n        y = 2\n    return y\n"


def still_branches(disguised: str) -> bool:
    """Whether ``disguised`` (of ``BRANCHES``) still defines an ``f`` that does what it did."""
    namespace: dict = {}
    exec(disguised, namespace)
    return namespace["f"](True) == 1 and namespace["f"](None) == 2


def test_padding_keeps_the_code_and_follows_every_statement_with_one_that_does_nothing():
    source = BRANCHES
    disguised = padded(source)
    assert still_branches(disguised)
    assert disguised.splitlines()[2:4] == ["        y = 1", "        0"]
    assert len(disguised.splitlines()) == len(source.splitlines()) + 3  # lines 3, 5 and 6 end one


@pytest.mark.parametrize("disguise", [dead_stored, dead_coded])
def test_dead_padding_keeps_the_code_working(disguise):
    source = BRANCHES
    disguised = disguise(source)
    assert still_branches(disguised)
    assert len(disguised.splitlines()) >= len(source.splitlines()) + 3


# --- copies of the course's own answers flag ----------------------------------------------------


@pytest.mark.parametrize("disguise", sorted(DISGUISES))
@pytest.mark.parametrize(("slug", "exercise"), EXERCISES)
def test_a_disguised_copy_of_the_solution_flags(lessons, corpus, slug, exercise, disguise):
    original = solution(corpus, slug, exercise)
    source = DISGUISES[disguise](lessons, slug, exercise, original)
    assert source != original
    flags = flags_for(corpus, Answer("copycat", slug, exercise, source))
    assert [flag["match"] for flag in flags] == [f"solutions/{slug}.ipynb, exercise {exercise}"]
    assert flags[0]["score"] >= 0.7


@pytest.mark.parametrize("disguise", ["padded", "reordered", "dead stores", "dead code"])
def test_a_disguised_reference_function_pasted_beside_code_of_ones_own_flags(corpus, disguise):
    piece = next(p for p in reference_pieces() if p.label.endswith("results.py: to_text"))
    own = independent.ANSWERS["04_registry"]["04.5"][3]
    source = own + "\n\n" + DISGUISES[disguise](None, "", "", piece.source)
    flags = flags_for(corpus, Answer("copycat", "04_registry", "04.5", source))
    assert [flag["match"] for flag in flags] == [piece.label]


# --- copies of a classmate's cells flag ---------------------------------------------------------


@pytest.mark.parametrize("disguise", sorted(DISGUISES))
@pytest.mark.parametrize(("slug", "exercise"), EXERCISES)
def test_a_disguised_copy_of_a_classmates_answer_flags_the_pair(
    lessons, corpus, slug, exercise, disguise
):
    original = independent.ANSWERS[slug][exercise][1]
    source = DISGUISES[disguise](lessons, slug, exercise, original)
    flags = flags_for(
        corpus,
        Answer("author", slug, exercise, original),
        Answer("copier", slug, exercise, source),
        Answer("other", slug, exercise, independent.ANSWERS[slug][exercise][2]),
    )
    assert [(f["student"], f["match"]) for f in flags] == [("author", "student copier")]


# --- independent work does not flag -------------------------------------------------------------


@pytest.mark.parametrize("variant", range(independent.VARIANTS))
@pytest.mark.parametrize("slug", SLUGS)
def test_each_independent_solution_passes_the_courses_checks(slug, variant):
    independent.run_in_process(independent.notebook_with(slug, variant))


@pytest.mark.parametrize(("slug", "exercise"), EXERCISES)
def test_five_independently_written_correct_solutions_flag_nothing(corpus, slug, exercise):
    sources = independent.ANSWERS[slug][exercise]
    assert len(sources) >= 5 and len(set(sources)) == len(sources)
    answers = [Answer(f"s{n}", slug, exercise, source) for n, source in enumerate(sources)]
    assert flags_for(corpus, *answers) == []
