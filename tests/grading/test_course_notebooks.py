"""The real course: every student notebook grades to zero (not attempted, no crash), and every
solution notebook grades to full marks, every check decided in the grader, nothing flagged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from course_lib.grading import GradeOptions, grade_all
from course_lib.grading.canonical import default_canonical_dir, load_lessons
from course_lib.grading.discover import discover

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted(path.stem for path in (ROOT / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory):
    if not LESSONS:
        pytest.skip("no lesson notebooks built yet")
    root = tmp_path_factory.mktemp("course")
    for slug in LESSONS:
        for student, folder in (("untouched", "notebooks"), ("solutions", "solutions")):
            (root / student).mkdir(exist_ok=True)
            shutil.copy(ROOT / folder / f"{slug}.ipynb", root / student / f"{slug}.ipynb")
    lessons = load_lessons(default_canonical_dir())
    results = grade_all(discover(root), lessons, GradeOptions(jobs=2))
    return {(result.student, result.notebook): result for result in results}


@pytest.mark.parametrize("slug", LESSONS)
def test_untouched_student_notebook_grades_to_zero_as_not_attempted(graded, slug):
    result = graded[("untouched", slug)]
    assert [(row.exercise, row.status) for row in result.exercises] == [
        (row.exercise, "not_attempted") for row in result.exercises
    ]
    assert result.points == 0


@pytest.mark.parametrize("slug", LESSONS)
def test_solution_notebook_grades_to_full_marks(graded, slug):
    result = graded[("solutions", slug)]
    assert {row.exercise: (row.status, row.message) for row in result.exercises} == {
        row.exercise: ("passed", "passed") for row in result.exercises
    }
    assert result.points == result.max_points > 0
