"""Regrading writes byte-identical files, even for notebooks built to make every run differ:
memory addresses, temporary folders, clock readings and set orders in their error messages, a
kernel that dies. Graded twice, with different parallelism and in different scratch folders,
every file of the gradebook (CSV, JSON, report, feedback) is the same to the byte, in either
edition (issue 28): some answers are handed in from the Chinese edition too, and their feedback
pages speak Chinese."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
from grading_lesson import CHECK_MODULE, SLUG, SOLUTIONS, submission, write

from course_lib.checks.failures import Failure
from course_lib.grading.scrub import scrub, scrub_log

SOLVED_90_2 = {"90.2": SOLUTIONS["90.2"]}
# student -> the exercise cell of 90.1
RUN_DEPENDENT = {
    "address_from_the_check": "def double(x):\n    raise ValueError(f'broken {object()}')",
    "address_in_the_cell": "raise ValueError(repr(object()))",
    "temporary_folder": "import tempfile\nraise RuntimeError(tempfile.mkdtemp())",
    "clock": "import datetime, time\nraise ValueError(f'{datetime.datetime.now()} {time.time()}')",
    "clock_from_the_check": (
        "import datetime\n\ndef double(x):\n    raise ValueError(str(datetime.datetime.now()))"
    ),
    # the red team's: readings of a clock or of the process in an exception's text
    "clock_digits": (
        "import threading, time\nraise ValueError(f'{time.time_ns()} {time.monotonic_ns()} "
        "{time.perf_counter()} {time.process_time()} {threading.get_ident()} {id(object())}')"
    ),
    "clock_formats": (
        "import datetime, time\nnow = datetime.datetime.now()\nraise ValueError(f'{time.ctime()} | "
        '{time.strftime("%H:%M:%S")} | {time.strftime("%Y%m%d%H%M%S")} | '
        "{datetime.date.today()} | {now:%d %b %Y %H:%M}')"
    ),
    "process_names": (
        "import tempfile, uuid\n"
        "raise ValueError(f'{tempfile.mktemp(dir=\".\")} {uuid.uuid4().hex} {tempfile.mktemp()}')"
    ),
    "clock_raised_from_the_check": (
        "import time\n\ndef double(x):\n    raise KeyError(time.time_ns())"
    ),
    "set_order": "raise ValueError(str({'pear', 'apple', 'fig', 'kiwi', 'plum', 'lime'}))",
    "dies": "import os\nos._exit(3)",
    # random is seeded in grading kernels (from the submission): the same draws every time
    "random_in_the_cell": (
        "import random\nraise ValueError(f'{random.random()} {random.randrange(10**9)}')"
    ),
    "random_from_the_check": (
        "import random\n\ndef double(x):\n    return 2 * x + random.randint(1, 10**9)"
    ),
}

# A plain wrong answer: what the check got back is data the learner needs, kept as it was.
WRONG = "def double(x):\n    return 2 ** 100 + x"
# Students whose notebook is handed in again from the Chinese edition, as ``<student>_zh``.
CHINESE = ("honest", "wrong", "clock_from_the_check", "dies")


@pytest.fixture(scope="module")
def runs(tmp_path_factory, canonical_dir) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("class")
    for student, source in RUN_DEPENDENT.items():
        write(root / student / f"{SLUG}.ipynb", submission({**SOLVED_90_2, "90.1": source}))
    write(root / "honest" / f"{SLUG}.ipynb", submission(SOLUTIONS))
    write(root / "wrong" / f"{SLUG}.ipynb", submission({**SOLUTIONS, "90.1": WRONG}))
    for student in CHINESE:
        nb = nbformat.read(root / student / f"{SLUG}.ipynb", as_version=4)
        nb.metadata["course"]["lang"] = "zh-CN"
        write(root / f"{student}_zh" / f"{SLUG}.ipynb", nb)
    # Each grading is a grader process of its own (as a regrade is: its own fork server and
    # kernel zygote, whose random state every kernel forked from it would otherwise share), with
    # its own parallelism and scratch folders. The two run at the same time: the one that grades
    # a submission at a time leaves the other core to the one that grades two.
    outs = [tmp_path_factory.mktemp(f"out{jobs}") for jobs in (1, 2)]
    graders = [grader(root, out, canonical_dir, jobs) for jobs, out in enumerate(outs, 1)]
    codes = [process.wait() for process in graders]
    for code, out in zip(codes, outs, strict=True):
        assert code == 0, log_of(out)[-3000:]
    return outs[0], outs[1]


def grader(root: Path, out: Path, canonical_dir: Path, jobs: int) -> subprocess.Popen:
    """``course_lib grade`` of the class under ``root`` into ``out``, started in a process of
    its own; what it prints goes to ``log_of(out)``."""
    command = ["grade", str(root), "--out", str(out), "--canonical", str(canonical_dir)]
    command += ["--checks", CHECK_MODULE, "--cell-timeout", "60", "--jobs", str(jobs)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with open(out.with_suffix(".log"), "w", encoding="utf-8") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "course_lib", *command], env=env, stdout=log, stderr=log
        )


def log_of(out: Path) -> str:
    return out.with_suffix(".log").read_text(encoding="utf-8")


def files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_two_gradings_write_byte_identical_files(runs):
    first, second = files(runs[0]), files(runs[1])
    assert sorted(first) == sorted(second)
    assert {"grades.csv", "grades.json", "report.html", "feedback/wrong_zh.md"} <= set(first)
    for name in first:
        assert first[name] == second[name], name


def test_the_chinese_editions_answers_get_the_english_rows_and_chinese_feedback(runs):
    payload = json.loads((runs[0] / "grades.json").read_text(encoding="utf-8"))
    rows = {}
    for row in payload["grades"]:
        rows.setdefault(row["student"], []).append(
            (row["exercise"], row["status"], row["points"], (row.get("failure") or {}).get("case"))
        )
    for student in CHINESE:
        assert rows[f"{student}_zh"] == rows[student], student
        assert payload["totals"][f"{student}_zh"]["notebooks"][SLUG]["language"] == "zh-CN"
    chinese = (runs[0] / "feedback" / "wrong_zh.md").read_text(encoding="utf-8")
    english = (runs[0] / "feedback" / "wrong.md").read_text(encoding="utf-8")
    assert "用例：" in chinese and "Case:" not in chinese and "Case:" in english


def messages(out: Path) -> dict[str, str]:
    payload = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    return {
        row["student"]: row["message"] for row in payload["grades"] if row["exercise"] == "90.1"
    }


@pytest.mark.parametrize(
    ("student", "shown"),
    [
        ("address_from_the_check", "<object object at 0x…>"),
        ("address_in_the_cell", "<object object at 0x…>"),
        ("clock", "<time> <time>"),
        ("clock_from_the_check", "Your code raised ValueError: <time>"),
        ("clock_digits", "ValueError: <n> <n> <n> <n> <n> <n>"),
        ("clock_formats", "ValueError: <time> | <time> | <n> | <date> | <date> <time>"),
        ("process_names", "ValueError: ./tmp<id> <id> <scratch>"),
        ("clock_raised_from_the_check", "Your code raised KeyError: <n>"),
    ],
)
def test_what_differs_between_runs_is_replaced_by_a_placeholder(runs, student, shown):
    assert shown in messages(runs[0])[student]


def test_a_temporary_folder_in_a_message_is_replaced(runs):
    message = messages(runs[0])["temporary_folder"]
    assert ("<scratch>" in message or "<temp>" in message) and "/tmp" not in message, message


@pytest.mark.parametrize("student", ["random_in_the_cell", "random_from_the_check"])
def test_an_answer_that_uses_random_draws_the_same_numbers_on_a_regrade(runs, student):
    assert messages(runs[0])[student] == messages(runs[1])[student]
    assert any(char.isdigit() for char in messages(runs[0])[student])


def test_what_a_check_got_back_is_shown_as_it_was(runs):
    got = str(2**100 + 1)
    assert f"Got:      {got}\n" in messages(runs[0])["wrong"]
    feedback = (runs[0] / "feedback" / "wrong.md").read_text(encoding="utf-8")
    assert f"Got:      {got}" in feedback


def test_a_set_in_a_message_comes_out_in_the_same_order(runs):
    assert messages(runs[0])["set_order"] == messages(runs[1])["set_order"]
    assert "pear" in messages(runs[0])["set_order"]


def test_the_run_dependent_notebooks_cost_only_their_exercise(runs):
    payload = json.loads((runs[0] / "grades.json").read_text(encoding="utf-8"))
    expected = {**dict.fromkeys(RUN_DEPENDENT, 3), "honest": 6, "wrong": 4}
    expected |= {f"{student}_zh": expected[student] for student in CHINESE}
    assert {s: t["points"] for s, t in payload["totals"].items()} == expected


@pytest.mark.parametrize(
    ("text", "scrubbed"),
    [
        ("<Foo object at 0x7f3a2b1c0d90>", "<Foo object at 0x…>"),
        ("/tmp/course-grade-k2j3_x/notebook/a.txt", "<scratch>"),
        ("/var/tmp/course-grade-abc/grader/plan.json: bad", "<scratch>: bad"),
        ("kernel-1b4e28ba-2fa1-11d2-883f-0016d3cca427.json", "kernel-<id>.json"),
        ("pid 31337 ended", "pid <n> ended"),
        ("Expected: 2024-05-01T12:00:00", "Expected: 2024-05-01T12:00:00"),
        ("expected 12 got 13", "expected 12 got 13"),
        ("0x1F is hex", "0x1F is hex"),
    ],
)
def test_scrub_replaces_only_what_differs_between_runs(text, scrubbed):
    assert scrub(text) == scrubbed


def test_a_log_tail_loses_its_durations_and_clock_readings_too():
    assert scrub_log("1 failed in 3.52s") == "1 failed in <time>"
    assert scrub_log("at 2025-03-01T10:20:30.123456+00:00 done") == "at <time> done"


def test_a_date_a_check_compares_is_kept_in_a_failed_row():
    from course_lib.grading.results import ExerciseResult, SubmissionResult
    from course_lib.grading.scrub import stable

    failure = {"case": "to_text(d)", "expected": '"2024-05-01"', "got": '"2024-5-1"'}
    message = 'Case: to_text(d)\nExpected: "2024-05-01T00:00:00"'
    row = ExerciseResult("a", "04_registry", "04.4", 0, 2, "failed", message, failure)
    [kept] = stable(SubmissionResult("a", "04_registry", [row])).exercises
    assert kept.message == message and kept.failure == failure


def test_each_scenario_of_a_row_is_scrubbed_like_the_row():
    from course_lib.grading.results import ExerciseResult, SubmissionResult
    from course_lib.grading.scrub import stable

    raised = "ValueError: <object object at 0x7f3a2b1c> at 2025-03-01 10:20:30"
    scenarios = [
        {"id": "refund", "title": "a refund", "points": 2, "passed": True},
        {"id": "late", "title": "a late order", "points": 1, "passed": False,
         "failure": {"case": "late", "raised": raised, "expected": '"2024-05-01 00:00:00"'}},
    ]  # fmt: skip
    message = f"1 of 2 scenarios failed\nYour code raised {raised}"
    row = ExerciseResult("a", "09_capstone", "09.1", 2, 3, "failed", message, None, scenarios)
    [kept] = stable(SubmissionResult("a", "09_capstone", [row])).exercises
    failure = kept.scenarios[1]["failure"]
    assert failure["raised"] == "ValueError: <object object at 0x…> at <time>"
    assert failure["expected"] == '"2024-05-01 00:00:00"'  # data a check compares stays
    assert kept.message == f"1 of 2 scenarios failed\nYour code raised {failure['raised']}"
    assert kept.scenarios[0] == scenarios[0]


# What a check compared stays as the learner needs it, in either edition: only an exception's
# text loses its clock readings (the course's own expected text never does).
NORMAL_FAILURES = [
    Failure(case="double(1)", expected="2", got="13", hint="Multiply by two."),
    Failure(case="add(0.1, 0.2)", expected="0.3", got="0.30000000000000004"),
    Failure(
        case="to_text(datetime(2024, 5, 1, 9, 30))",
        expected='"2024-05-01T09:30:00"',
        got='"2024-05-01 09:30:00"',
        hint="Dates use ISO 8601: value.isoformat(), not str(value).",
    ),
    Failure(
        case='safe_calculate("2 ** 100")',
        expected="1.2676506002282294e+30",
        got="1267650600228229401496703205376",
    ),
    Failure(case="tool_call_id()", expected='"call_1"', got='"call_0123456789abcdef"'),
    Failure(case="at_noon()", expected='"12:00"', got='"12:00:00.250000"'),
    Failure(
        case='safe_calculate("10 ** 10")',
        expected="ValueError: that power is too large (10000000000 > 10 ** 9)",
        got="10000000000.0",
    ),
    Failure(case="parse('')", raised="ValueError: the expression must not be empty"),
    Failure(detail="3 of 5 tools are registered: add, ask.\nStill missing: time, date."),
]


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("failure", NORMAL_FAILURES, ids=lambda f: f.case or "detail")
def test_a_normal_failing_answer_is_written_as_the_check_said_it(failure, lang):
    from course_lib.grading.results import ExerciseResult, SubmissionResult
    from course_lib.grading.scrub import stable

    message = render_in(lang, failure)
    row = ExerciseResult("a", "04_registry", "04.4", 0, 2, "failed", message, failure.fields())
    [kept] = stable(SubmissionResult("a", "04_registry", [row])).exercises
    assert kept == row


@pytest.mark.parametrize(
    ("text", "scrubbed"),
    [
        ("ValueError: 1796528295534354697 51339.226269873", "ValueError: <n> <n>"),
        (
            "ValueError: 0.115280762 s of CPU, thread 140144611146624",
            "ValueError: <n> s of CPU, thread <n>",
        ),
        ("ValueError: Sun Dec  6 03:38:06 2026", "ValueError: <time>"),
        ("ValueError: at 03:38:06.25 on 2026-12-06", "ValueError: at <time> on <date>"),
        ("ValueError: 06 Dec 2026 03:38, Dec 6, 2026", "ValueError: <date> <time>, <date>"),
        ("ValueError: 20261206033806 1765000000", "ValueError: <n> <n>"),
        (
            "ValueError: 064b347325d8417982ba21ef32ffa71c in ./tmpab_3kx9z",
            "ValueError: <id> in ./tmp<id>",
        ),
        ("ValueError: 0.30000000000000004 != 0.3 (3.14159, 2 ** 100)", None),
        ("ValueError: slice 1:10 of 'deadbeefcafe', line 12", None),
    ],
)
def test_an_exceptions_text_loses_every_reading_of_a_clock_or_the_process(text, scrubbed):
    from course_lib.grading.scrub import volatile

    assert volatile(text) == (text if scrubbed is None else scrubbed)


def test_an_exception_a_check_quotes_as_what_it_got_is_scrubbed_alike():
    from course_lib.grading.results import ExerciseResult, SubmissionResult
    from course_lib.grading.scrub import stable

    failure = Failure(
        case="to_tool(f)", expected="a ValueError naming f", got="KeyError: 1796528321239328884"
    )
    message = render_in("en", failure)
    row = ExerciseResult("a", "02_reflection", "02.3", 0, 2, "failed", message, failure.fields())
    [kept] = stable(SubmissionResult("a", "02_reflection", [row])).exercises
    assert kept.failure["got"] == "KeyError: <n>"
    assert kept.message == render_in("en", replace(failure, got="KeyError: <n>"))


def render_in(lang: str, failure: Failure) -> str:
    from course_lib.checks.failures import render
    from course_lib.i18n import speaking

    with speaking(lang):
        return render(replace(failure, exercise="04.4", title="to_text"))
