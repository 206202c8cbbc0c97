"""The same answers graded from the English and the Chinese edition of lesson 00 get identical
statuses and points; the grader records each submission's language, and its messages speak it."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from course_lib.grading import GradeOptions, grade_all
from course_lib.grading.canonical import default_canonical_dir, load_lessons
from course_lib.grading.discover import discover
from course_lib.grading.report import from_payload, to_payload

ROOT = Path(__file__).resolve().parents[2]
LESSON = "00_welcome"
SOLUTION_LINE = '    return f"Hello, {name}!"'
WRONG_LINE = '    return "Hello, Ada!"'


def wrong_answer(solution: Path, target: Path) -> None:
    nb = nbformat.read(solution, as_version=4)
    (cell,) = [cell for cell in nb.cells if cell.get("id") == "w00-ex1"]
    assert SOLUTION_LINE in cell.source
    cell.source = cell.source.replace(SOLUTION_LINE, WRONG_LINE)
    target.mkdir(exist_ok=True)
    nbformat.write(nb, target / f"{LESSON}.ipynb")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("editions")
    for edition, sub in (("en", ""), ("zh", "zh-CN")):
        for kind, folder in (("untouched", "notebooks"), ("solved", "solutions")):
            (root / f"{edition}-{kind}").mkdir()
            source = ROOT / folder / sub / f"{LESSON}.ipynb"
            shutil.copy(source, root / f"{edition}-{kind}" / f"{LESSON}.ipynb")
        wrong_answer(ROOT / "solutions" / sub / f"{LESSON}.ipynb", root / f"{edition}-wrong")
    results = grade_all(discover(root), load_lessons(default_canonical_dir()), GradeOptions(jobs=2))
    return {result.student: result for result in results}


@pytest.mark.parametrize("kind", ["untouched", "solved", "wrong"])
def test_both_editions_of_the_same_answer_get_the_same_statuses_and_points(graded, kind):
    english, chinese = graded[f"en-{kind}"], graded[f"zh-{kind}"]
    said = {e.student: [r.message for r in e.exercises] for e in (english, chinese)}
    assert [(r.exercise, r.status, r.points, r.max_points) for r in chinese.exercises] == [
        (r.exercise, r.status, r.points, r.max_points) for r in english.exercises
    ], said
    assert (english.language, chinese.language) == ("en", "zh-CN")


def test_a_wrong_answer_from_the_chinese_edition_is_told_in_chinese(graded):
    (english,) = graded["en-wrong"].exercises
    (chinese,) = graded["zh-wrong"].exercises
    assert english.status == chinese.status == "failed"
    assert english.failure["case"] == chinese.failure["case"]
    assert "用例：" in chinese.message and "Case:" in english.message


def test_grades_json_keeps_the_language_beside_each_notebook_and_reads_it_back(graded):
    payload = to_payload(list(graded.values()))
    languages = {
        student: totals["notebooks"][LESSON]["language"]
        for student, totals in payload["totals"].items()
    }
    assert languages == {
        "en-untouched": "en", "en-solved": "en", "en-wrong": "en",
        "zh-untouched": "zh-CN", "zh-solved": "zh-CN", "zh-wrong": "zh-CN",
    }  # fmt: skip
    assert {r.student: r.language for r in from_payload(payload)} == languages
    assert all("language" not in row for row in payload["grades"])
