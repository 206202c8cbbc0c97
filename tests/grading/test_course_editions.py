"""Issue 28: the same answers graded from the English and the Chinese edition get identical
statuses and points, in every lesson. ``course_class`` hands in each lesson's solution and
untouched student notebook from both editions, and two wrong answers (lesson 00's and the
capstone's), all graded in one run; here each Chinese notebook's rows of ``grades.csv`` and
``grades.json`` are compared with its English twin's, on what is language-free (ids, statuses,
points, the case that failed, each scenario's outcome). The grader records each notebook's
language, and its messages and feedback pages speak it.

(That a regrade writes byte-identical files in either edition is ``test_determinism``'s.)"""

from __future__ import annotations

import pytest
from course_class import CAPSTONE, LESSONS, WELCOME, WRONG, twin

from course_lib.grading.report import from_payload

HANDED_IN = [("untouched", slug) for slug in LESSONS] + [("solutions", slug) for slug in LESSONS]
HANDED_IN += [("wrong", slug) for slug in sorted(WRONG) if slug in LESSONS]
CSV_COLUMNS = ("notebook", "exercise", "points", "max_points", "status")


def csv_rows(course_class, student: str, slug: str) -> list[tuple[str, ...]]:
    return [
        tuple(row[column] for column in CSV_COLUMNS)
        for row in course_class.csv_rows()
        if (row["student"], row["notebook"]) == (student, slug)
    ]


def json_rows(payload: dict, student: str, slug: str) -> list[dict]:
    """The language-free part of each grades.json row: no message, hint or scenario title."""
    rows = []
    for row in payload["grades"]:
        if (row["student"], row["notebook"]) != (student, slug):
            continue
        kept = {column: row[column] for column in CSV_COLUMNS}
        kept["case"] = (row.get("failure") or {}).get("case")
        kept["scenarios"] = [
            (s["id"], s["points"], s["passed"]) for s in row.get("scenarios") or []
        ]
        rows.append(kept)
    return rows


@pytest.fixture(scope="module")
def payload(course_class) -> dict:
    return course_class.payload()


@pytest.mark.parametrize(("student", "slug"), HANDED_IN, ids=[f"{s}-{n}" for s, n in HANDED_IN])
def test_both_editions_of_the_same_answer_get_the_same_rows(course_class, payload, student, slug):
    chinese = twin(student, slug)
    english_csv = csv_rows(course_class, student, slug)
    assert english_csv and csv_rows(course_class, chinese, slug) == english_csv
    english_json = json_rows(payload, student, slug)
    assert json_rows(payload, chinese, slug) == english_json
    totals = payload["totals"]
    here, there = totals[student]["notebooks"][slug], totals[chinese]["notebooks"][slug]
    assert (there["points"], there["max_points"]) == (here["points"], here["max_points"])
    assert (here["language"], there["language"]) == ("en", "zh-CN")


def test_every_chinese_notebook_handed_in_has_an_english_twin(course_class):
    chinese = {key for key in course_class.results if key[0].startswith("zh-")}
    assert chinese == {(twin(student, slug), slug) for student, slug in HANDED_IN}
    english = {key for key in course_class.results if not key[0].startswith("zh-")}
    assert english == set(HANDED_IN)


def test_each_wrong_answer_fails_the_same_way_in_both_editions(course_class, payload):
    """Not a vacuous comparison: each wrong answer fails, with points lost, in both editions."""
    for slug in sorted(set(WRONG) & set(LESSONS)):
        for student in ("wrong", "zh-wrong"):
            result = course_class.results[(student, slug)]
            assert "failed" in {row.status for row in result.exercises}, (student, slug)
            assert 0 <= result.points < result.max_points
    if CAPSTONE in LESSONS:
        scenarios = json_rows(payload, "zh-wrong", CAPSTONE)[-1]["scenarios"]
        assert [id for id, _, passed in scenarios if not passed] == ["approval", "approved"]


def test_a_wrong_answer_from_the_chinese_edition_is_told_in_chinese(course_class):
    (english,) = course_class.results[("wrong", WELCOME)].exercises
    (chinese,) = course_class.results[("zh-wrong", WELCOME)].exercises
    assert english.status == chinese.status == "failed"
    assert english.failure["case"] == chinese.failure["case"]
    assert "用例：" in chinese.message and "Case:" in english.message
    page = (course_class.out / "feedback" / "zh-wrong.md").read_text(encoding="utf-8")
    assert "用例：" in page and "Case:" not in page
    assert "Case:" in (course_class.out / "feedback" / "wrong.md").read_text(encoding="utf-8")


def test_grades_json_keeps_the_language_beside_each_notebook_and_reads_it_back(payload):
    languages = {
        (student, slug): summary["language"]
        for student, totals in payload["totals"].items()
        for slug, summary in totals["notebooks"].items()
    }
    assert languages == {key: "zh-CN" if key[0].startswith("zh-") else "en" for key in languages}
    assert {(r.student, r.notebook): r.language for r in from_payload(payload)} == languages
    assert all("language" not in row for row in payload["grades"])
