"""The real course: every student notebook grades to zero (not attempted, no crash), and every
solution notebook grades to full marks, every check decided in the grader, nothing flagged. The
capstone's scenario check earns partial credit through the same grader, and grades.json keeps
each scenario. The class graded is ``course_class``'s (both editions in one run): the English
students here, the editions compared in ``test_course_editions``."""

from __future__ import annotations

import json

import pytest
from course_class import CAPSTONE, LESSONS, REGISTRY

from course_lib.grading.canonical import default_canonical_dir, load_lessons
from course_lib.grading.reference_use import needs_reference
from course_lib.grading.report import summary_table, to_payload, write_outputs

LATER = ("05_agent_loop", "06_hardening", "07_other_protocols", "08_mcp", CAPSTONE)


@pytest.fixture(scope="module")
def graded(course_class):
    return course_class.results


@pytest.mark.parametrize("slug", LESSONS)
def test_untouched_student_notebook_grades_to_zero_as_not_attempted(graded, slug):
    result = graded[("untouched", slug)]
    assert [(row.exercise, row.status) for row in result.exercises] == [
        (row.exercise, "not_attempted") for row in result.exercises
    ], [row.message for row in result.exercises if row.status != "not_attempted"]
    assert result.points == 0


@pytest.mark.parametrize("slug", LESSONS)
def test_solution_notebook_grades_to_full_marks(graded, slug):
    result = graded[("solutions", slug)]
    assert {row.exercise: (row.status, row.message) for row in result.exercises} == {
        row.exercise: ("passed", "passed") for row in result.exercises
    }
    assert result.points == result.max_points > 0


def test_the_capstone_of_a_student_who_solved_04_to_08_runs_on_their_own_parts_only(graded):
    """The report says how many of the capstone's parts were the student's: all of them, and
    no line names an exercise to finish. (The solutions are one student's folder, so lessons
    04 to 08 were passed in the same run; the full marks of 05-09 after a solved 04 are
    test_solution_notebook_grades_to_full_marks'; the student without a passed 04 is below,
    the others in tests/toolkit/test_grading_toolkit.py.)"""
    if ("solutions", CAPSTONE) not in graded:
        pytest.skip(f"{CAPSTONE} is not built")
    result = graded[("solutions", CAPSTONE)]
    assert result.points == result.max_points == 26
    notes = to_payload([result])["totals"]["solutions"]["notebooks"][CAPSTONE]["notes"]
    assert notes == [
        "Parts from earlier lessons: 7 of 7 were yours (ToolRegistry, run_agent, "
        "run_tool_calls, safe_calculate, to_strict, TracedRegistry, chat_to_responses_input); "
        "each other one was the course's, as its line says."
    ]


@pytest.mark.parametrize("slug", LESSONS)
def test_solution_notebook_raises_no_flag_and_its_kernel_reads_the_reference_only_if_needed(
    graded, slug
):
    result = graded[("solutions", slug)]
    assert result.flags == []
    record = result.isolation
    if needs_reference(load_lessons(default_canonical_dir())[slug]):
        assert "reference_hidden" not in record
    else:
        assert record["reference_hidden"] is bool(record["landlock_filesystem"])


def test_the_lessons_that_need_the_reference_are_those_whose_demos_show_it():
    lessons = load_lessons(default_canonical_dir())
    hidden = sorted(slug for slug, lesson in lessons.items() if not needs_reference(lesson))
    assert hidden == ["00_welcome", "02_reflection", "03_pitfalls"]


def test_a_09_capstone_that_never_asks_the_person_earns_partial_credit_and_keeps_each_scenario(
    graded, tmp_path
):
    if ("wrong", CAPSTONE) not in graded:
        pytest.skip(f"{CAPSTONE} is not built")
    result = graded[("wrong", CAPSTONE)]
    write_outputs(tmp_path, to_payload([result]))
    payload = json.loads((tmp_path / "grades.json").read_text(encoding="utf-8"))
    rows = {row["exercise"]: row for row in payload["grades"]}
    assert {e: (r["status"], r["points"]) for e, r in rows.items()} == {
        "09.1": ("passed", 2),
        "09.2": ("passed", 2),
        "09.3": ("passed", 2),
        "09.4": ("passed", 2),
        "09.5": ("passed", 2),
        "09.6": ("failed", 14),
    }
    assert "2 of 16 scenarios failed" in rows["09.6"]["message"]
    failed = [s["id"] for s in rows["09.6"]["scenarios"] if not s["passed"]]
    assert (failed, len(rows["09.6"]["scenarios"])) == (["approval", "approved"], 16)
    graded_here = payload["totals"]["wrong"]["notebooks"][CAPSTONE]
    assert (graded_here["points"], graded_here["max_points"]) == (24, 26)
    assert graded_here["isolation"]["environment"] == "allowlist"
    report = summary_table(to_payload([result, graded[("solutions", CAPSTONE)]]))
    assert f"scenarios of {CAPSTONE} 09.6 (submissions that passed each):" in report
    assert any(line.split()[:2] == ["1/2", "approval"] for line in report.splitlines())
    assert any(line.split()[:2] == ["2/2", "price"] for line in report.splitlines())


# The student who solved every lesson but 04, handed in from the Chinese edition (the grader's
# notes speak it): lessons 05-09 run on the course's ToolRegistry and lose no point for it.
NO_04 = "zh-skipped-04"
FINISH_04_1 = "使用课程提供的 ToolRegistry：完成练习 04.1 后就会用你自己的。"


@pytest.mark.parametrize("slug", LATER)
def test_a_blank_lesson_04_costs_no_point_in_a_later_lesson(graded, slug):
    assert graded[(NO_04, REGISTRY)].points == 0
    assert graded[(NO_04, slug)].points == graded[(NO_04, slug)].max_points > 0


def test_the_capstone_of_a_student_without_04_uses_the_course_registry_and_says_so_once(graded):
    found = graded[(NO_04, CAPSTONE)].notes
    assert found[0].startswith("来自前面课程的部分：7 个中有 6 个是你自己的"), found
    assert [line for line in found if line.startswith("使用课程提供的")] == [FINISH_04_1]
    assert graded[(NO_04, "05_agent_loop")].notes[1:] == [FINISH_04_1]
