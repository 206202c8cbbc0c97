from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from course_class import LESSONS, hand_in
from grading_lesson import REFERENCE_SETUP, SLUG, canonical, write

from course_lib.grading import GradeOptions, grade_all
from course_lib.grading.canonical import default_canonical_dir, load_lessons
from course_lib.grading.discover import discover
from course_lib.grading.report import to_payload, write_outputs
from course_lib.grading.results import SubmissionResult


@pytest.fixture(scope="session")
def canonical_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("canonical")
    write(directory / f"{SLUG}.ipynb", canonical())
    return directory


@pytest.fixture(scope="session")
def lesson(canonical_dir: Path):
    return load_lessons(canonical_dir)[SLUG]


@pytest.fixture(scope="session")
def reference_lesson_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tests' lesson as one whose own code loads ``course_lib.reference`` (as lessons 04 to
    09 do): its kernels can read the reference, so taking from it is detected, not prevented."""
    directory = tmp_path_factory.mktemp("canonical-with-reference")
    write(directory / f"{SLUG}.ipynb", canonical(REFERENCE_SETUP))
    return directory


@dataclass(frozen=True)
class GradedClass:
    """``course_class.hand_in``'s class graded: each result by (student, lesson), and the
    gradebook the grader writes from them (``grades.csv``, ``grades.json``, feedback pages)."""

    results: dict[tuple[str, str], SubmissionResult]
    out: Path

    def payload(self) -> dict:
        return json.loads((self.out / "grades.json").read_text(encoding="utf-8"))

    def csv_rows(self) -> list[dict[str, str]]:
        with (self.out / "grades.csv").open(encoding="utf-8", newline="") as file:
            return list(csv.DictReader(file))


@pytest.fixture(scope="session")
def course_class(tmp_path_factory: pytest.TempPathFactory) -> GradedClass:
    """The course handed in from both editions (``course_class``), graded once for the session:
    the English grades and the editions compared are read from the same run."""
    if not LESSONS:
        pytest.skip("no lesson notebooks built yet")
    root = hand_in(tmp_path_factory.mktemp("course") / "class")
    lessons = load_lessons(default_canonical_dir())
    results = grade_all(discover(root), lessons, GradeOptions(jobs=2))
    out = tmp_path_factory.mktemp("course-gradebook")
    write_outputs(out, to_payload(results))
    return GradedClass({(r.student, r.notebook): r for r in results}, out)
