"""A check graded by scenarios earns partial credit in the gradebook, with every scenario kept."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from course_lib.grading import GradeOptions, grade_all
from course_lib.grading.canonical import load_lessons
from course_lib.grading.discover import discover

CHECKS = str(Path(__file__).with_name("lesson91_checks.py"))
SLUG = "91_scenarios"
PARTLY = "def forecast(city):\n    return {'北京': '晴'}.get(city, '?')"
FULLY = "def forecast(city):\n    return {'北京': '晴', '上海': '多云'}.get(city, '?')"
STUB = "def forecast(city):\n    raise NotImplementedError('Exercise 91.1: look it up')"


def notebook(answer: str) -> nbformat.NotebookNode:
    exercise = new_code_cell(answer, id="s-ex1")
    exercise.metadata = {"tags": ["exercise"], "course": {"exercise": "91.1", "points": 4}}
    check = new_code_cell(
        'from course_lib.checks import check\ncheck("91.1", forecast)', id="s-ck1"
    )
    check.metadata = {"tags": ["check"], "course": {"check": "91.1"}}
    nb = new_notebook(cells=[exercise, check])
    nb.metadata["course"] = {"notebook": SLUG}
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    canonical = tmp_path_factory.mktemp("canonical")
    nbformat.write(notebook(STUB), canonical / f"{SLUG}.ipynb")
    root = tmp_path_factory.mktemp("subs")
    for student, answer in (("partly", PARTLY), ("fully", FULLY)):
        (root / student).mkdir()
        nbformat.write(notebook(answer), root / student / f"{SLUG}.ipynb")
    options = GradeOptions(cell_timeout=60, jobs=2, check_modules=(CHECKS,))
    results = grade_all(discover(root), load_lessons(canonical), options)
    return {result.student: result.exercises[0] for result in results}


def test_the_points_of_the_passed_scenarios_are_earned(graded):
    row = graded["partly"]
    assert (row.status, row.points, row.max_points) == ("failed", 3, 4)
    assert "1 of 3 scenarios failed" in row.message
    assert [(s["id"], s["passed"]) for s in row.scenarios] == [
        ("beijing", True),
        ("shanghai", False),
        ("empty", True),
    ]


def test_a_fully_right_answer_passes_and_still_records_each_scenario(graded):
    row = graded["fully"]
    assert (row.status, row.points) == ("passed", 4)
    assert all(scenario["passed"] for scenario in row.scenarios)
