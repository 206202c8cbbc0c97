"""What ``course grade`` and ``course check`` say to an instructor (their errors, their ``--help``,
why a class was refused) speaks ``--lang``, else ``COURSE_LANG``, else English, as the launcher
does; the note on output the grader cut speaks the submission's edition. Each in both languages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib import cli
from course_lib.grading import cli as grading_cli
from course_lib.grading.isolation import refusal
from course_lib.grading.report import to_payload
from course_lib.grading.results import ExerciseResult, SubmissionResult
from course_lib.i18n import language, set_language, speaking, translate

ROOT = Path(__file__).resolve().parents[2]
MISSING = "/nonexistent/course-folder"
# Each message of ``course grade`` and ``course check``: the command that says it, and what it
# says in English and in Chinese (a ``...`` ends a line whose rest is the error's own text).
CASES = {
    "merge_no_shards": (
        ["grade", "merge", "--out", "OUT"],
        "course grade merge: give the --out folders of the shards",
        "course grade merge：请给出各个分片（shard）的 --out 文件夹",
    ),
    "merge_failed": (
        ["grade", "merge", MISSING, "--out", "OUT"],
        f"course grade merge: {MISSING}/grades.json is missing: pass the --out folders of the "
        "shards",
        f"course grade merge：缺少 {MISSING}/grades.json：请给出各个分片的 --out 文件夹",
    ),
    "one_folder": (
        ["grade", "a", "b", "--out", "OUT"],
        "course grade: give one SUBMISSIONS folder (or `merge SHARD_DIR...`)",
        "course grade：请只给出一个 SUBMISSIONS 文件夹（或者 `merge SHARD_DIR...`）",
    ),
    "grade_failed": (
        ["grade", "SUBS", "--out", "OUT", "--shard", "5/4"],
        "course grade: --shard 5/4: i must be between 1 and n",
        "course grade：--shard 5/4：i 必须在 1 到 n 之间",
    ),
    "check_failed": (
        ["check", "00_welcome.ipynb", "--canonical", MISSING],
        f"course check: The course's notebooks folder {MISSING} does not exist. Run the command...",
        f"course check：课程的 notebooks 文件夹 {MISSING} 不存在。请在课程文件夹...",
    ),
    "system_error": (  # a folder where a lesson's notebook should be
        ["check", "00_welcome.ipynb", "--canonical", "FOLDER"],
        "course check: FOLDER/00_folder.ipynb could not be read or written: Is a directory",
        "course check：无法读取或写入 FOLDER/00_folder.ipynb：Is a directory",
    ),
}
# What the code under those commands raises, which reaches the instructor as their {error}: each
# message of ``shard``'s and ``canonical``'s tables and ``discover``'s ``no_folder``, the command
# that raises it (in the folders ``command`` makes) and what it says in English and in Chinese.
GRADE = ["grade", "SUBS", "--out", "OUT"]
ERRORS = {
    "shard:shard_syntax": (
        [*GRADE, "--shard", "2of4"],
        "course grade: --shard takes i/n, like 2/4, not '2of4'",
        "course grade：--shard 的格式是 i/n，例如 2/4，而不是 '2of4'",
    ),
    "shard:shard_range": (
        [*GRADE, "--shard", "0/4"],
        "course grade: --shard 0/4: i must be between 1 and n",
        "course grade：--shard 0/4：i 必须在 1 到 n 之间",
    ),
    "shard:missing": (
        ["grade", "merge", "SUBS", "--out", "OUT"],
        "course grade merge: SUBS/grades.json is missing: pass the --out folders of the shards",
        "course grade merge：缺少 SUBS/grades.json：请给出各个分片的 --out 文件夹",
    ),
    "shard:not_a_gradebook": (
        ["grade", "merge", "SHARDS/broken", "--out", "OUT"],
        "course grade merge: SHARDS/broken/grades.json is not a grades.json written by "
        "`course grade --shard`: pass the --out folders of the shards",
        "course grade merge：SHARDS/broken/grades.json 不是 `course grade --shard` 写出的 "
        "grades.json：请给出各个分片的 --out 文件夹",
    ),
    "shard:splits": (
        ["grade", "merge", "SHARDS/1of2", "SHARDS/1of3", "--out", "OUT"],
        "course grade merge: the shards come from different splits: [2, 3]",
        "course grade merge：这些分片来自不同的划分：[2, 3]",
    ),
    "shard:incomplete": (
        ["grade", "merge", "SHARDS/1of2", "SHARDS/1of2", "SHARDS/2of2", "--out", "OUT"],
        "course grade merge: expected shards 1..2 once each; got [1, 1, 2]",
        "course grade merge：期望分片 1..2 各出现一次；实际是 [1, 1, 2]",
    ),
    "shard:incomplete_missing": (
        ["grade", "merge", "SHARDS/1of3", "--out", "OUT"],
        "course grade merge: expected shards 1..3 once each; got [1] (missing 2/3, 3/3)",
        "course grade merge：期望分片 1..3 各出现一次；实际是 [1]（缺少 2/3, 3/3）",
    ),
    "shard:versions": (
        ["grade", "merge", "SHARDS/1of2", "SHARDS/2of2-other", "--out", "OUT"],
        "course grade merge: the shards were graded with different versions; re-grade them alike",
        "course grade merge：这些分片是用不同的版本评分的；请用相同的版本重新评分",
    ),
    "shard:overlap": (
        ["grade", "merge", "SHARDS/1of2", "SHARDS/2of2", "--out", "OUT"],
        "course grade merge: students graded in two shards: ada",
        "course grade merge：这些学生在两个分片中都被评分了：ada",
    ),
    "canonical:no_folder": (
        [*GRADE, "--canonical", MISSING],
        f"course grade: The course's notebooks folder {MISSING} does not exist. Run the command "
        "in the course folder (the one with notebooks/ in it), or pass --canonical DIR with the "
        "student notebooks as `python -m course_lib build` writes them.",
        f"course grade：课程的 notebooks 文件夹 {MISSING} 不存在。请在课程文件夹（里面有 "
        "notebooks/ 的那个）中运行这条命令，或者用 --canonical DIR 给出学生版 notebook 所在的"
        "文件夹（即 `python -m course_lib build` 写出的那些）。",
    ),
    "canonical:not_a_notebook": (
        ["check", "00_welcome.ipynb", "--canonical", "NOT_JSON"],
        "course check: NOT_JSON/00_broken.ipynb is not a notebook nbformat can read: rebuild "
        "notebooks/ with `python -m course_lib build`",
        "course check：NOT_JSON/00_broken.ipynb 不是 nbformat 能读取的 notebook：请用 "
        "`python -m course_lib build` 重新生成 notebooks/",
    ),
    "canonical:no_check_cell": (
        [*GRADE, "--canonical", "NO_CHECK"],
        "course grade: NO_CHECK/00_unchecked.ipynb: exercise 00.1 has no check cell; rebuild "
        "notebooks/",
        "course grade：NO_CHECK/00_unchecked.ipynb：练习 00.1 没有检查单元格；请重新生成 "
        "notebooks/",
    ),
    "discover:no_folder": (
        ["grade", MISSING, "--out", "OUT"],
        f"course grade: submissions folder {MISSING} does not exist: expected "
        "SUBMISSIONS/<student>/<NN_slug>.ipynb",
        f"course grade：提交文件夹 {MISSING} 不存在：期望的结构是 "
        "SUBMISSIONS/<student>/<NN_slug>.ipynb",
    ),
}
# Gaps a kernel without a private view has: what ``refusal`` says of them.
GAPS = {"private_mounts": False, "own_uid": False, "network_namespace": True}


@pytest.fixture
def command(tmp_path, monkeypatch, capsys):
    """Run ``course ARGS...`` in this process, as ``python -m course_lib`` does; its exit code
    and what it wrote on stderr. The language a run chose is forgotten after the test."""
    monkeypatch.setenv("COURSE_LAUNCHED", "1")  # never hand over to the launcher
    monkeypatch.delenv("COURSE_LANG", raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")  # the system's locale never decides
    monkeypatch.chdir(tmp_path)
    make_folders(tmp_path)

    def run(*arguments: str) -> tuple[int, str]:
        code = cli.main(list(arguments))
        return code, capsys.readouterr().err.strip()

    yield run
    set_language(None)


def make_folders(root: Path) -> None:
    """The folders the commands of ``CASES`` and ``ERRORS`` are given."""
    import nbformat

    (root / "SUBS").mkdir()
    (root / "FOLDER" / "00_folder.ipynb").mkdir(parents=True)
    (root / "NOT_JSON").mkdir()
    (root / "NOT_JSON" / "00_broken.ipynb").write_text("not a notebook", encoding="utf-8")
    (root / "NO_CHECK").mkdir()
    unchecked = nbformat.v4.new_notebook()
    unchecked.cells = [nbformat.v4.new_code_cell("x = 1")]
    unchecked.cells[0].metadata["course"] = {"exercise": "00.1"}
    nbformat.write(unchecked, root / "NO_CHECK" / "00_unchecked.ipynb")
    row = ExerciseResult("ada", "00_welcome", "00.1", 1, 1, "passed", "passed")
    results = [SubmissionResult("ada", "00_welcome", [row])]
    shards = {"1of2": ("1/2", "1"), "2of2": ("2/2", "1"), "1of3": ("1/3", "1"),
              "2of2-other": ("2/2", "2")}  # fmt: skip
    for name, (shard, version) in shards.items():
        payload = to_payload(results, shard=shard, versions_used={"course": version})
        (root / "SHARDS" / name).mkdir(parents=True)
        (root / "SHARDS" / name / "grades.json").write_text(json.dumps(payload), encoding="utf-8")
    (root / "SHARDS" / "broken").mkdir()
    (root / "SHARDS" / "broken" / "grades.json").write_text('{"grades": []}', encoding="utf-8")


def matches(said: str, expected: str) -> bool:
    """``said`` is ``expected``, where each ``...`` of ``expected`` stands for any text."""
    parts = expected.split("...")
    if not said.startswith(parts[0]) or not said.endswith(parts[-1]):
        return False
    position = 0
    for part in parts:
        found = said.find(part, position)
        if found < 0:
            return False
        position = found + len(part)
    return True


def test_every_message_has_a_case():
    assert set(CASES) == set(grading_cli.MESSAGES)


@pytest.mark.parametrize("key", sorted(CASES))
def test_each_message_speaks_english_unless_lang_or_course_lang_asks_for_chinese(
    key, command, monkeypatch
):
    arguments, english, chinese = CASES[key]
    code, said = command(*arguments)
    assert code == 2 and matches(said, english), said
    code, said = command(*arguments, "--lang", "zh-CN")
    assert code == 2 and matches(said, chinese), said
    monkeypatch.setenv("COURSE_LANG", "zh-CN")
    set_language(None)
    code, said = command(*arguments)
    assert code == 2 and matches(said, chinese), said
    code, said = command(*arguments, "--lang", "en")  # --lang wins over COURSE_LANG
    assert code == 2 and matches(said, english), said


def test_every_error_the_commands_code_raises_has_a_case():
    from course_lib.grading import canonical, discover, shard

    tables = {"shard": shard.MESSAGES, "canonical": canonical.MESSAGES}
    raised = {f"{name}:{key}" for name, table in tables.items() for key in table}
    assert set(ERRORS) == raised | {"discover:no_folder"}
    assert "discover:no_folder" in {f"discover:{key}" for key in discover.MESSAGES}


@pytest.mark.parametrize("key", sorted(ERRORS))
def test_each_error_the_commands_code_raises_is_said_in_the_commands_language(
    key, command, monkeypatch
):
    arguments, english, chinese = ERRORS[key]
    assert command(*arguments) == (2, english)
    assert command(*arguments, "--lang", "zh-CN") == (2, chinese)
    monkeypatch.setenv("COURSE_LANG", "zh-CN")
    assert command(*arguments) == (2, chinese)
    assert command(*arguments, "--lang", "en") == (2, english)


def test_course_check_says_a_lesson_error_in_the_language_asked_for_in_its_own_process(tmp_path):
    """The lessons are loaded in the language chosen (they were loaded before it was set: the
    error was English under --lang zh-CN)."""
    clean = {k: v for k, v in os.environ.items() if k != "COURSE_LANG"}
    clean.update(COURSE_LAUNCHED="1", LANG="zh_CN.UTF-8")

    def check(*extra: str, **env: str) -> str:
        run = subprocess.run(
            [sys.executable, "-m", "course_lib", "check", "x.ipynb", "--canonical", MISSING,
             *extra], cwd=tmp_path, env={**clean, **env}, capture_output=True, text=True,
            encoding="utf-8", timeout=120,
        )  # fmt: skip
        assert run.returncode == 2, run.stderr
        return run.stderr.strip()

    english, chinese = CASES["check_failed"][1:]
    assert matches(check(), english)
    assert matches(check("--lang", "zh-CN"), chinese)
    assert matches(check(COURSE_LANG="zh-CN"), chinese)
    assert matches(check("--lang", "en", COURSE_LANG="zh-CN"), english)


def test_matches_tells_a_wrong_line():
    assert matches("course check: no /x here", "course check: .../x...")
    assert not matches("course check：no /x here", "course check: .../x...")
    assert not matches("course check: no /y here", "course check: .../x...")


def test_the_command_language_is_lang_then_course_lang_then_english():
    choose = grading_cli.command_language
    assert choose(["grade", "--help", "--lang", "zh-CN"], {}) == "zh-CN"
    assert choose(["--lang=zh_CN", "check"], {"COURSE_LANG": "en"}) == "zh-CN"
    assert choose(["check"], {"COURSE_LANG": "zh-CN", "LANG": "en_US.UTF-8"}) == "zh-CN"
    assert choose(["check", "--lang", "fr"], {"LANG": "zh_CN.UTF-8"}) == "en"
    assert choose(["check", "--lang"], {}) == "en"


def test_why_a_kernel_was_refused_speaks_the_language_spoken():
    english = refusal(GAPS)
    with speaking("zh-CN"):
        chinese = refusal(GAPS)
    assert english == (
        "this machine could not keep the kernel from finding other kernels' scratch folders and "
        "sockets: the kernel could see /tmp, /run and the other scratch folders (no mount "
        "namespace): it could connect to a unix socket there whose path it knew; the kernel ran "
        "as the grader's own user (no user id of its own): file permissions did not keep it out "
        "of another kernel's folders"
    )
    assert chinese.startswith(
        "这台机器无法阻止内核找到其他内核的临时文件夹和套接字："
        "内核能看到 /tmp、/run 和其他临时文件夹"
    )
    assert refusal({**GAPS, "own_uid": True}) is None  # a private view is no gap


def test_course_grade_says_why_it_wrote_nothing_in_the_language_spoken():
    results = [SubmissionResult(s, "00_welcome", [], isolation=GAPS) for s in ("ada", "bo")]
    english = grading_cli.refused_line(results)
    with speaking("zh-CN"):
        chinese = grading_cli.refused_line(results)
    assert english.startswith(
        "course grade: nothing written: 2 notebook(s) were not graded, because this machine "
        "could not keep the kernel from finding"
    )
    assert english.endswith("could then read what a classmate's kernel runs.")
    assert chinese.startswith(
        "course grade：没有写入任何文件：2 个 notebook 没有评分，因为这台机器无法阻止内核"
    )
    assert "--accept-isolation-gap" in chinese and chinese.endswith("同学的内核运行的内容。")


def help_text(*arguments: str, **env: str) -> str:
    """``python -m course_lib ARGS...``'s output, on lines long enough never to wrap."""
    clean = {k: v for k, v in os.environ.items() if k != "COURSE_LANG"}
    clean.update(COLUMNS="2000", LANG="zh_CN.UTF-8", COURSE_LAUNCHED="1", **env)
    run = subprocess.run(
        [sys.executable, "-m", "course_lib", *arguments],
        cwd=ROOT, env=clean, capture_output=True, text=True, encoding="utf-8", timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return run.stdout


GRADE_HELP = (
    *("grade_description", "out", "jobs", "notebook", "shard", "solutions"),
    *("accept_isolation_gap", "cell_timeout", "memory_mb", "canonical", "checks", "lang"),
)
CHECK_HELP = ("check_description", "cell_timeout", "memory_mb", "canonical", "checks", "lang")


def test_every_help_text_is_shown_by_a_command():
    assert set(GRADE_HELP) | set(CHECK_HELP) | {"check", "grade"} == set(grading_cli.HELP)


def test_the_help_speaks_lang_then_course_lang_then_english():
    chinese = help_text("grade", "--help", "--lang", "zh-CN")
    english = help_text("grade", "--help")
    for key in GRADE_HELP:
        assert translate(grading_cli.HELP, key, "zh-CN") in chinese, key
        assert grading_cli.HELP[key] in english, key
    assert "给每个 SUBMISSIONS/<student>/<NN_slug>.ipynb 评分" in chinese
    assert "存放成绩文件的文件夹" in chinese and "folder for the gradebook files" not in chinese
    check = help_text("check", "--help", COURSE_LANG="zh-CN")
    for key in CHECK_HELP:
        assert translate(grading_cli.HELP, key, "zh-CN") in check, key
    assert "给你自己的 notebook 评分，结果与班级评分程序给出的完全相同。" in check
    commands = help_text("--help", "--lang=zh-CN")
    assert "用评分程序的机制给你自己的 notebook 评分，并打印成绩单" in commands
    assert "给全班评分：SUBMISSIONS/<student>/<NN_slug>.ipynb（或者合并各分片的输出）" in commands


# -- the note on output the grader cut: the submission's edition (the plugin's process speaks it)


def test_the_note_on_cut_output_speaks_the_language_spoken(tmp_path):
    from course_lib.grading.kernel import GuardedKernel

    cap = 30_000
    kernel = GuardedKernel(str(tmp_path), memory_mb=1500, output_cap=cap, keep_outputs=True)
    code = "import sys\nfor _ in range(3):\n    print('z' * 20_000); sys.stdout.flush()\n"

    def last_stream() -> str:
        msg_id = kernel.kc.execute(code, store_history=False)
        shown = []
        while True:
            msg = kernel.get_message("iopub", timeout=60)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return shown[-1]
            if msg["msg_type"] == "stream":
                shown.append(msg["content"]["text"])

    try:
        english = last_stream()
        with speaking("zh-CN"):
            chinese = last_stream()
    finally:
        kernel.stop()
    assert english.endswith(f"\n[the grader cut this output: more than {cap} bytes]\n")
    assert chinese.endswith(f"\n[评分程序截断了这段输出：超过 {cap} 字节]\n")


def test_a_grade_run_in_process_leaves_the_processs_language_as_it_found_it(monkeypatch, tmp_path):
    """`course grade` speaks its language for itself: a caller that goes on (a test, a notebook
    calling ``cli.main``) follows COURSE_LANG again after it, not the English the command chose."""
    monkeypatch.delenv("COURSE_LANG", raising=False)
    assert cli.main(["grade", "merge", "--out", str(tmp_path)]) == 2  # says merge_no_shards
    monkeypatch.setenv("COURSE_LANG", "zh-CN")
    assert language() == "zh-CN"
