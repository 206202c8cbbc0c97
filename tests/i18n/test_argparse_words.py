"""argparse's own words (usage, options, its errors, the -h line) speak a ``course`` command's
language: Chinese under ``--lang zh-CN`` or ``COURSE_LANG=zh-CN``, from ``python -m course_lib``
and from the launcher; English otherwise, exactly as argparse writes it; and nothing of the
switch outlives the command's parse."""

from __future__ import annotations

import argparse
import ast
import contextlib
import gettext
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib.cli import build_parser
from course_lib.i18n.arguments import KEYS, SPECS, WORDS, argparse_speaking, argparse_word

ROOT = Path(__file__).resolve().parents[2]
# Command lines argparse refuses, one per word of its a learner or an instructor can meet.
REFUSED = [
    ["check"],  # required
    ["check", "x.ipynb", "--lang", "fr"],  # invalid choice
    ["grade", "x", "--out", "o", "--jobs", "many"],  # invalid int value
    ["grade", "x", "--out"],  # expected one argument
    ["check", "x.ipynb", "--c", "1"],  # ambiguous option
    ["check", "x.ipynb", "--bogus"],  # unrecognized arguments
    ["bogus"],  # invalid choice of a command
    ["i18n"],  # a command of its own subcommands
    [],  # no command
]


def course(*arguments: str, launcher: bool = False, **env: str) -> subprocess.CompletedProcess:
    """``python -m course_lib ARGS...`` (or ``scripts/course.py ARGS...``) under a Chinese
    locale, on lines long enough never to wrap."""
    clean = {k: v for k, v in os.environ.items() if k != "COURSE_LANG"}
    clean.update(COLUMNS="2000", LANG="zh_CN.UTF-8", LC_ALL="zh_CN.UTF-8", COURSE_LAUNCHED="1")
    entry = [str(ROOT / "scripts" / "course.py")] if launcher else ["-m", "course_lib"]
    if launcher:
        del clean["COURSE_LAUNCHED"]
    return subprocess.run(
        [sys.executable, *entry, *arguments], cwd=ROOT, env={**clean, **env},
        capture_output=True, text=True, encoding="utf-8", timeout=120,
    )  # fmt: skip


def plain_argparse(*arguments: str) -> tuple[str, str]:
    """What the course's parser prints for ``arguments`` with argparse left as it is (stdout,
    stderr): the English the command must print byte for byte (``COLUMNS``: ``course``'s)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with contextlib.suppress(SystemExit):
            build_parser(arguments[0] if arguments else None).parse_args(list(arguments))
    return out.getvalue(), err.getvalue()


def argparse_message_ids() -> set[str]:
    """Every message id this Python's argparse looks up (its ``_(...)`` and ``ngettext(...)``)."""
    tree = ast.parse(Path(argparse.__file__).read_text(encoding="utf-8"))
    return {
        arg.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("_", "ngettext")
        for arg in node.args
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
    }


def test_each_word_is_a_message_id_of_this_pythons_argparse():
    missing = set(KEYS) - argparse_message_ids()
    if sys.version_info < (3, 11):  # 3.10 wrote "argument X: ..." without gettext
        missing.discard("argument %(argument_name)s: %(message)s")
    assert not missing
    assert set(SPECS) <= set(WORDS)


def test_a_translation_keeps_argparses_printf_specs_and_adds_no_percent_sign():
    for key, english in WORDS.items():
        message = english.format(**SPECS.get(key, {}))
        said = argparse_word(message, "zh-CN")
        assert said != message and any("\u4e00" <= c <= "\u9fff" for c in said), key
        rest = said
        for spec in SPECS.get(key, {}).values():
            assert rest.count(spec) == message.count(spec) == 1, key
            rest = rest.replace(spec, "")
        assert "%" not in rest, key
        assert argparse_word(message, "en") == message


def test_every_word_argparse_says_to_a_refused_command_line_is_translated():
    asked: list[str] = []
    with argparse_speaking("zh-CN"):
        translated = argparse._  # type: ignore[attr-defined]

        def spy(message: str) -> str:
            asked.append(message)
            return translated(message)

        argparse._ = spy  # type: ignore[attr-defined]
        for arguments in [*REFUSED, ["grade", "--help"], ["check", "--help"], ["--help"]]:
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                with pytest.raises(SystemExit):
                    build_parser(arguments[0] if arguments else None).parse_args(arguments)
    assert {"usage: ", "options", "show this help message and exit"} <= set(asked)
    assert "the following arguments are required: %s" in asked
    assert set(asked) <= set(KEYS), set(asked) - set(KEYS)


def test_nothing_of_the_switch_outlives_the_with_even_an_exit():
    with pytest.raises(SystemExit):
        with argparse_speaking("zh-CN"):
            assert argparse._("usage: ") == "用法："  # type: ignore[attr-defined]
            build_parser("check").parse_args(["check"])
    assert argparse._ is gettext.gettext and argparse.ngettext is gettext.ngettext  # type: ignore[attr-defined]
    assert build_parser("check").format_help().startswith("usage: course [-h] COMMAND")
    with argparse_speaking("en"):
        assert argparse._ is gettext.gettext  # type: ignore[attr-defined]


def test_chinese_under_lang_and_course_lang_from_the_command_and_the_launcher():
    grade_help = course("grade", "--help", "--lang", "zh-CN")
    assert grade_help.returncode == 0, grade_help.stderr
    assert grade_help.stdout.startswith("用法：course grade SUBMISSIONS --out DIR")
    assert "\n位置参数:\n" in grade_help.stdout and "\n选项:\n" in grade_help.stdout
    assert "  -h, --help            显示这条帮助信息并退出\n" in grade_help.stdout
    assert "usage" not in grade_help.stdout and "options" not in grade_help.stdout
    required = course("check", "--lang=zh-CN")
    assert required.returncode == 2
    assert required.stderr.startswith("用法：course check [-h]")
    assert required.stderr.endswith("\ncourse check：错误：缺少以下必填的参数：NOTEBOOK\n")
    choice = course("check", "x.ipynb", "--lang", "fr", COURSE_LANG="zh-CN")
    assert choice.stderr.endswith(
        "course check：错误：参数 --lang：无效的选择：'fr'（请从 'en', 'zh-CN' 中选择）\n"
    )
    number = course("grade", "x", "--out", "o", "--jobs", "many", COURSE_LANG="zh-CN")
    assert number.stderr.endswith("course grade：错误：参数 --jobs：无效的 int 值：'many'\n")
    launched = course("grade", "x", "--out", "--lang", "zh-CN", launcher=True)
    assert launched.returncode == 2
    assert launched.stderr.endswith("course grade：错误：参数 --out：需要一个参数值\n")


@pytest.mark.parametrize("arguments", [*REFUSED, ["grade", "--help"], ["--help"]], ids=str)
def test_english_is_argparses_own_text_byte_for_byte(arguments, monkeypatch):
    monkeypatch.setenv("COLUMNS", "2000")
    monkeypatch.delenv("COURSE_LANG", raising=False)
    run = course(*arguments)
    assert (run.stdout, run.stderr) == plain_argparse(*arguments)
    assert run.returncode in (0, 2)
    said = run.stdout + run.stderr
    assert said.startswith("usage: course") and not any("\u4e00" <= c <= "\u9fff" for c in said)
