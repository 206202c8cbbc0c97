"""The command line: ``course grade`` (both forms), shards that merge into exactly one run's
files (the class report included), re-grading that changes no byte, and ``course check``'s
scorecard."""

from __future__ import annotations

from pathlib import Path

import pytest
from grading_lesson import CHECK_MODULE, SLUG, SOLUTIONS, submission, write

from course_lib.cli import build_parser, main

FILES = (
    "grades.csv",
    "grades.json",
    "report.html",
    "feedback/ada.md",
    "feedback/bo.md",
    "feedback/cy.md",
    "feedback/dee.md",
)


@pytest.fixture(scope="module")
def submissions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("submissions")
    write(root / "ada" / f"{SLUG}.ipynb", submission(SOLUTIONS))
    write(root / "bo" / f"{SLUG}.ipynb", submission({"90.1": SOLUTIONS["90.1"]}))
    write(root / "cy" / f"{SLUG}.ipynb", b"not json at all")
    write(root / "cy" / "99_unknown.ipynb", submission())
    (root / "dee").mkdir()  # handed in nothing
    return root


def grade(submissions: Path, out: Path, canonical_dir: Path, *extra: str) -> int:
    return main(
        ["grade", str(submissions), "--out", str(out), "--canonical", str(canonical_dir)]
        + ["--cell-timeout", "30", "--memory-mb", "1500", "--checks", CHECK_MODULE, *extra]
    )


def self_check(notebook: Path, canonical_dir: Path) -> int:
    return main(
        ["check", str(notebook), "--canonical", str(canonical_dir), "--cell-timeout", "30"]
        + ["--checks", CHECK_MODULE]
    )


@pytest.fixture(scope="module")
def single_run(submissions: Path, canonical_dir: Path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("single")
    assert grade(submissions, out, canonical_dir, "--jobs", "2") == 0
    return out


def test_grade_and_grade_merge_parse_as_two_forms_of_one_command():
    parser = build_parser()
    graded = parser.parse_args(["grade", "subs", "--out", "o", "--jobs", "3", "--shard", "2/4"])
    merged = parser.parse_args(["grade", "merge", "s1", "s2", "--out", "o"])
    assert (graded.paths, graded.jobs, graded.shard) == (["subs"], 3, "2/4")
    assert merged.paths == ["merge", "s1", "s2"]
    assert graded.handler is merged.handler


def test_gradebook_has_the_promised_columns_and_rows(single_run: Path):
    lines = (single_run / "grades.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "student,notebook,exercise,points,max_points,status,message"
    assert lines[1:4] == [
        "ada,90_test,90.1,2,2,passed,passed",
        "ada,90_test,90.2,3,3,passed,passed",
        "ada,90_test,90.3,1,1,passed,passed",
    ]
    assert any(line.startswith("cy,99_unknown,,0,0,invalid,") for line in lines)
    feedback = (single_run / "feedback" / "bo.md").read_text(encoding="utf-8")
    assert "Total: 2 / 6" in feedback and "not done yet" in feedback


def test_a_student_who_handed_in_nothing_gets_zero_rows_saying_so(single_run: Path):
    lines = (single_run / "grades.csv").read_text(encoding="utf-8").splitlines()
    dee = [line for line in lines if line.startswith("dee,")]
    assert dee == [
        f"dee,90_test,{exercise},0,{points},not_attempted,not submitted: no 90_test.ipynb in dee/"
        for exercise, points in (("90.1", 2), ("90.2", 3), ("90.3", 1))
    ]
    assert "Total: 0 / 6" in (single_run / "feedback" / "dee.md").read_text(encoding="utf-8")


def test_regrading_gives_byte_identical_files(submissions, canonical_dir, single_run, tmp_path):
    assert grade(submissions, tmp_path, canonical_dir) == 0
    for name in FILES:
        assert (tmp_path / name).read_bytes() == (single_run / name).read_bytes(), name


def test_a_fresh_pytest_process_per_submission_grades_exactly_as_the_fork_server(
    submissions, canonical_dir, single_run, tmp_path, monkeypatch
):
    """Where there is no fork (or with COURSE_GRADE_FORK=0) each submission gets a new Python
    process started from ``runner.PYTEST_MAIN``: the same files, byte for byte."""
    monkeypatch.setenv("COURSE_GRADE_FORK", "0")
    # two at once, as the single run (the files are the same whatever the number of jobs)
    assert grade(submissions, tmp_path, canonical_dir, "--jobs", "2") == 0
    for name in FILES:
        assert (tmp_path / name).read_bytes() == (single_run / name).read_bytes(), name


@pytest.fixture(scope="module")
def shards(submissions, canonical_dir, tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("shards")
    outs = [root / "shard1", root / "shard2"]
    assert grade(submissions, outs[0], canonical_dir, "--shard", "1/2") == 0
    assert grade(submissions, outs[1], canonical_dir, "--shard", "2/2") == 0
    return outs


def test_a_shard_holds_whole_students(shards):
    assert (shards[0] / "feedback" / "ada.md").exists()
    assert not (shards[0] / "feedback" / "bo.md").exists()
    assert (shards[1] / "feedback" / "bo.md").exists()


def test_shards_merged_equal_a_single_run(shards, single_run, tmp_path):
    merged = tmp_path / "merged"
    assert main(["grade", "merge", str(shards[1]), str(shards[0]), "--out", str(merged)]) == 0
    for name in FILES:
        assert (merged / name).read_bytes() == (single_run / name).read_bytes(), name


def test_merge_refuses_an_incomplete_set_of_shards(shards, tmp_path, capsys):
    code = main(["grade", "merge", str(shards[0]), "--out", str(tmp_path / "m")])
    assert code == 2
    assert "missing 2/2" in capsys.readouterr().err


def test_self_check_prints_a_scorecard(tmp_path, canonical_dir, capsys):
    notebook = write(tmp_path / f"{SLUG}.ipynb", submission({"90.2": SOLUTIONS["90.2"]}))
    code = self_check(notebook, canonical_dir)
    out = capsys.readouterr().out
    assert code == 1
    assert "90_test: 3 / 6 points" in out
    assert "ok   90.2" in out and "todo 90.1" in out


def test_a_failed_exercise_on_the_scorecard_shows_its_case_and_hint(
    tmp_path, canonical_dir, capsys
):
    wrong = {"90.1": "def double(x):\n    return x + 2", "90.2": SOLUTIONS["90.2"]}
    notebook = write(tmp_path / f"{SLUG}.ipynb", submission(wrong))
    self_check(notebook, canonical_dir)
    out = capsys.readouterr().out
    block = out.split("FAIL 90.1")[1].split("todo 90.3")[0]
    assert "Case:" in block and "Hint:" in block, out


def test_an_exception_on_the_scorecard_is_named(tmp_path, canonical_dir, capsys):
    raising = {"90.1": "def double(x):\n    raise ValueError('no doubling today')"}
    notebook = write(tmp_path / f"{SLUG}.ipynb", submission(raising))
    self_check(notebook, canonical_dir)
    assert "Your code raised ValueError: no doubling today" in capsys.readouterr().out


def test_the_scorecard_shows_every_line_of_a_value_that_spans_lines():
    """A pretty-printed Expected or Got once showed nothing at all (its first line alone would be
    a bracket): a learner reading the scorecard saw a case and a hint but not what came back."""
    from course_lib.grading.results import ExerciseResult
    from course_lib.grading.scorecard import _scorecard_lines
    from course_lib.i18n import speaking

    failure = {
        "case": "names()",
        "expected": '[\n  "a"\n]',
        "got": '[\n  "b",\n  "c"\n]',
        "where": 'at $[0]: expected "a", got "b"',
        "hint": "Keep order.",
    }
    message = "Exercise 04.1 (ToolRegistry) is not right yet.\n(the rest of the message)"
    row = ExerciseResult("ada", "04_registry", "04.1", 0, 3, "failed", message, failure)
    assert _scorecard_lines(row) == [
        "Exercise 04.1 (ToolRegistry) is not right yet.",
        "Case: names()",
        "Expected: [",
        '            "a"',
        "          ]",
        "Got:      [",
        '            "b",',
        '            "c"',
        "          ]",
        'Where:    at $[0]: expected "a", got "b"',
        "Hint: Keep order.",
    ]
    with speaking("zh-CN"):
        chinese = _scorecard_lines(row)
    # 实际：is six columns wide: the value's later lines start under its first.
    got = chinese.index("实际：[")
    assert chinese[got : got + 4] == ["实际：[", '        "b",', '        "c"', "      ]"]


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_a_failure_read_from_its_text_alone_keeps_its_lines_in_either_language(lang):
    """A result with no failure fields (an older check's) is read from its message: the lines
    it kept were found by English prefixes (Case:, Hint:, ...) and its first sentence by ". ",
    so a Chinese message kept only its first line, with an English full stop after 。."""
    from course_lib.checks.failures import Failure, NotDoneYet, render
    from course_lib.grading.results import ExerciseResult
    from course_lib.grading.scorecard import _scorecard_lines
    from course_lib.i18n import speaking

    failure = Failure(case="names()", expected='["a"]', got='["b"]', where="$[0]",
                      hint="保持顺序。", exercise="04.1", title="ToolRegistry")  # fmt: skip
    not_done = Failure(detail="`TOOL` is `...`.", exercise="01.1", title="TOOL")
    with speaking(lang):
        failed = ExerciseResult("a", "04_registry", "04.1", 0, 3, "failed", render(failure))
        todo = render(not_done, NotDoneYet.header)
        lines = _scorecard_lines(failed)
        first = _scorecard_lines(ExerciseResult("a", "01_x", "01.1", 0, 3, "failed", todo))
    shown = render(failure).splitlines()  # (in English: the test speaks it outside the with)
    if lang == "en":
        assert lines == shown and first == ["Exercise 01.1 (TOOL) is not done yet."]
        return
    assert lines == [
        "练习 04.1（ToolRegistry）未通过。", "用例：names()", '期望：["a"]', '实际：["b"]',
        "位置：$[0]", "提示：保持顺序。",
    ]  # fmt: skip
    assert first == ["练习 01.1（TOOL）尚未完成。"]


def test_a_scenario_graded_exercise_on_the_scorecard_lists_its_failed_scenarios_and_hints():
    """09.6 is graded by scenarios: its failure holds no case or hint of its own, so the
    scorecard once showed only "Exercise 09.6 (ShopAssistant) is not right yet." and nothing a
    learner could act on."""
    from course_lib.grading.results import ExerciseResult
    from course_lib.grading.scorecard import _scorecard_lines

    scenarios = [
        {"id": "price", "title": "a price", "points": 1, "passed": True},
        {"id": "budget", "title": "over the budget", "points": 1, "passed": False,
         "failure": {"case": "assistant.ask('x', role='customer')", "hint": "Fit it first."}},
    ]  # fmt: skip
    message = "Exercise 09.6 (ShopAssistant) is not right yet.\n(the rest of the message)"
    row = ExerciseResult(
        "ada", "09_capstone", "09.6", 1, 2, "failed", message, {"detail": "..."}, scenarios
    )
    assert _scorecard_lines(row) == [
        "Exercise 09.6 (ShopAssistant) is not right yet.",
        "1 of 2 scenarios failed; the ones that passed earn 1 of 2 points. What went wrong in "
        "each:",
        "✗ budget (over the budget): Fit it first.",
    ]


def test_the_grader_command_line_goes_without_the_iri_grammar():
    """jsonschema builds the IRI grammar at import (see course_lib.schema_library) when
    rfc3987_syntax is installed; the grader never validates IRIs, so its command line must not
    pay for it."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import course_lib.grading.cli\n"
        "import nbformat\n"
        "print(sys.modules.get('rfc3987_syntax', 'absent'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "None"


def test_a_self_check_of_two_notebooks_of_one_lesson_grades_each_in_the_order_named(
    tmp_path, canonical_dir, capsys
):
    """Both editions of a lesson, or two drafts: each notebook gets its own scorecard (the
    grader grades one notebook per learner and lesson: the second used to get the first's)."""
    done = write(tmp_path / "done" / f"{SLUG}.ipynb", submission(SOLUTIONS))
    half = write(tmp_path / "half" / f"{SLUG}.ipynb", submission({"90.2": SOLUTIONS["90.2"]}))
    code = main(
        ["check", str(half), str(done), "--canonical", str(canonical_dir)]
        + ["--cell-timeout", "30", "--checks", CHECK_MODULE]
    )
    out = capsys.readouterr().out
    assert code == 1
    cards = [line for line in out.splitlines() if line.startswith(f"{SLUG}: ")]
    assert cards == [f"{SLUG}: 3 / 6 points", f"{SLUG}: 6 / 6 points"], out
