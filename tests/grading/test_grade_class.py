"""Grade one small class end to end (real kernels, real nbval) and look at every row.

The cell timeout (10 s) is still generous: it counts a cell's own time, not the time it spent
waiting for a CPU (``own_time``), so a loaded machine does not bring a cell nearer to it; the
other cells need a small part of a second, and only the endless loop may reach it. The endless
loop waits it out: named to be graded first (the grader goes by student name), it waits beside
the class's other gradings rather than after them.

Each student is one situation: untouched, solved, one fault, or one tampering route. Every
faulty or tampered submission also solves 90.2, which must keep its 3 points. (The red-team
suite, ``attacks/``, tries many more routes.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from grading_lesson import CHECK_MODULE, SLUG, SOLUTIONS, submission, write

from course_lib.grading import GradeOptions, grade_all
from course_lib.grading.canonical import load_lessons
from course_lib.grading.discover import discover

OPTIONS = GradeOptions(cell_timeout=10, memory_mb=1500, jobs=2, check_modules=(CHECK_MODULE,))
SOLVED_90_2 = {"90.2": SOLUTIONS["90.2"]}
WRONG_DOUBLE = "def double(x):\n    return x + 2"

SUBMISSIONS = {
    "untouched": submission(),
    "solved": submission(SOLUTIONS),
    # faults, each in the exercise cell of 90.1
    "an_endless_loop": submission({**SOLVED_90_2, "90.1": "while True:\n    pass"}),
    "os_exit": submission({**SOLVED_90_2, "90.1": "import os\nos._exit(7)"}),
    "segfault": submission({**SOLVED_90_2, "90.1": "import ctypes\nctypes.string_at(0)"}),
    "memory_hog": submission({**SOLVED_90_2, "90.1": "hog = bytearray(3 * 1024**3)"}),
    "asks_input": submission(
        {**SOLVED_90_2, "90.1": "n = int(input('n?'))\ndef double(x):\n    return 2 * x"}
    ),
    "calls_exit": submission(
        {**SOLVED_90_2, "90.1": "import sys\nsys.exit(0)\ndef double(x):\n    return 2 * x"}
    ),
    "huge_output": submission(
        # 10 MB in one message: received (less than bounds.MAX_MESSAGE_BYTES), counted, not kept
        {**SOLVED_90_2, "90.1": SOLUTIONS["90.1"] + "\nprint('x' * 10_000_000)"}
    ),
    # tampering in the kernel, which cannot reach the check (it runs in the grader)
    "rebinds_check": submission(
        {**SOLVED_90_2, "90.1": WRONG_DOUBLE}, scratch="def check(*args):\n    print('passed')"
    ),
    "patches_check": submission(
        {**SOLVED_90_2, "90.1": WRONG_DOUBLE},
        scratch="import course_lib.checks as c\nc.check = lambda *args: None",
    ),
    "patches_json": submission(
        {**SOLVED_90_2, "90.1": WRONG_DOUBLE},
        scratch="import json\njson.loads = lambda text, **kw: 0",
    ),
    "replaces_assertionerror": submission(
        {**SOLVED_90_2, "90.1": WRONG_DOUBLE},
        scratch="import builtins\nbuiltins.AssertionError = type('AssertionError', (), {})",
    ),
    "hides_errors": submission(
        {**SOLVED_90_2, "90.1": WRONG_DOUBLE},
        scratch="get_ipython().set_custom_exc((Exception,), lambda *a, **k: None)",
    ),
    # cheating that earns zero for that exercise
    "patches_during_check": submission(
        {
            **SOLVED_90_2,
            "90.1": "def double(x):\n    import course_lib.checks.core as core\n"
            "    core.first_difference = lambda *a, **k: None\n    return 0",
        }
    ),
    "rigged_eq": submission(
        {
            **SOLVED_90_2,
            "90.1": "class Anything:\n    def __eq__(self, other):\n        return True\n\n"
            "def double(x):\n    return Anything()",
        }
    ),
    "borrows_reference": submission(
        {**SOLVED_90_2, "90.3": "from course_lib.reference import type_schema as type_name"}
    ),
    "wraps_reference": submission(
        {
            **SOLVED_90_2,
            "90.3": "import course_lib.reference as ref\n\n"
            "def type_name(annotation):\n    return ref.type_schema(annotation)",
        }
    ),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory, canonical_dir: Path):
    root = tmp_path_factory.mktemp("class")
    for student, nb in SUBMISSIONS.items():
        write(root / student / f"{SLUG}.ipynb", nb)
    write(root / "corrupted" / f"{SLUG}.ipynb", b'{"cells": [{"cell_type": "co')
    lessons = load_lessons(canonical_dir)
    results = grade_all(discover(root), lessons, OPTIONS)
    return {result.student: result for result in results}


def rows(graded, student):
    return {row.exercise: row for row in graded[student].exercises}


def statuses(graded, student):
    return {exercise: row.status for exercise, row in rows(graded, student).items()}


def test_untouched_notebook_grades_to_zero_as_not_attempted(graded):
    assert statuses(graded, "untouched") == dict.fromkeys(("90.1", "90.2", "90.3"), "not_attempted")
    assert graded["untouched"].points == 0


def test_solved_notebook_gets_full_marks(graded):
    assert statuses(graded, "solved") == dict.fromkeys(("90.1", "90.2", "90.3"), "passed")
    assert graded["solved"].points == graded["solved"].max_points == 6


@pytest.mark.parametrize(
    ("student", "status", "words"),
    [
        ("an_endless_loop", "timeout", "more than 10 s"),
        ("os_exit", "kernel_died", "exit code 7"),
        ("segfault", "kernel_died", "SIGSEGV"),
        ("memory_hog", "kernel_died", "out of memory (limit 1500 MB)"),
        ("asks_input", "error", "input()"),
        ("calls_exit", "error", "sys.exit()"),
    ],
)
def test_fault_costs_only_its_own_exercise(graded, student, status, words):
    row = rows(graded, student)["90.1"]
    assert (row.status, row.points) == (status, 0)
    assert words in row.message
    assert rows(graded, student)["90.2"].status == "passed"
    assert rows(graded, student)["90.2"].points == 3


def test_huge_output_is_cut_and_the_exercise_still_passes(graded):
    assert statuses(graded, "huge_output")["90.1"] == "passed"
    assert statuses(graded, "huge_output")["90.2"] == "passed"


def test_dead_kernel_is_restarted_and_noted(graded):
    assert any("restarted" in note for note in graded["os_exit"].notes)


@pytest.mark.parametrize(
    "student",
    [
        "rebinds_check",
        "patches_check",
        "patches_json",
        "replaces_assertionerror",
        "hides_errors",
        "rigged_eq",
    ],
)
def test_tampering_in_the_kernel_cannot_reach_the_check_which_runs_in_the_grader(graded, student):
    row = rows(graded, student)["90.1"]
    assert (row.status, row.points) == ("failed", 0)  # the wrong answer is found by the check
    assert "Multiply by two." in row.message
    assert rows(graded, student)["90.2"].status == "passed"


@pytest.mark.parametrize(
    ("student", "exercise", "words"),
    [
        ("patches_during_check", "90.1", "course_lib.checks"),
        ("borrows_reference", "90.3", "course_lib.reference"),
        ("wraps_reference", "90.3", "course_lib.reference"),
    ],
)
def test_borrowing_earns_zero_for_that_exercise_and_says_why(graded, student, exercise, words):
    row = rows(graded, student)[exercise]
    assert (row.status, row.points) == ("tampered", 0)
    assert words in row.message
    assert rows(graded, student)["90.2"].status == "passed"


def test_corrupted_file_is_invalid_and_the_batch_goes_on(graded):
    assert set(statuses(graded, "corrupted").values()) == {"invalid"}
    assert "not a notebook" in rows(graded, "corrupted")["90.1"].message
    assert len(graded) == len(SUBMISSIONS) + 1


def test_a_scratch_folder_that_cannot_be_made_is_an_error_row_not_a_crash(tmp_path, canonical_dir):
    root = tmp_path / "subs"
    write(root / "ada" / f"{SLUG}.ipynb", submission(SOLUTIONS))
    options = GradeOptions(
        scratch_root=str(tmp_path / "no" / "such" / "folder"), check_modules=(CHECK_MODULE,)
    )
    [result] = grade_all(discover(root), load_lessons(canonical_dir), options)
    assert {row.status for row in result.exercises} == {"error"}
    assert "could not make a scratch folder" in result.exercises[0].message
