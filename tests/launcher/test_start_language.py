"""``start --lang``: which edition opens, and JupyterLab's own language for that start only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from course_launcher import jupyter, main
from course_launcher.environment import CourseEnv

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("arguments", "lang", "rest"),
    [
        ([], "en", []),
        (["--no-browser"], "en", ["--no-browser"]),
        (["--lang", "zh-CN", "--port", "8890"], "zh-CN", ["--port", "8890"]),
        (["--port", "8890", "--lang=zh-CN"], "zh-CN", ["--port", "8890"]),
        (["--lang", "en"], "en", []),
    ],
)
def test_start_takes_the_edition_and_passes_the_other_options_to_jupyterlab(arguments, lang, rest):
    assert jupyter.split_language(arguments) == (lang, rest)


def test_an_unknown_edition_stops_the_start_with_a_message(capsys):
    env = CourseEnv("venv", ROOT / ".venv", ".venv")
    assert main.start(env, ["--lang", "fr"]) == 2
    assert "start --lang takes one of en, zh-CN; got 'fr'." in capsys.readouterr().err


def test_the_chinese_start_opens_the_chinese_lesson_00_and_says_so():
    env = CourseEnv("venv", ROOT / ".venv", ".venv", windows=False)
    command = jupyter.lab_command(env, ROOT, ["--no-browser"], "zh-CN")
    assert "--LabApp.default_url=/lab/tree/zh-CN/00_welcome.ipynb" in command
    assert (ROOT / "notebooks" / "zh-CN" / "00_welcome.ipynb").exists()
    assert jupyter.self_check_command(env, "zh-CN") == (
        "python3 -m course_lib check notebooks/zh-CN/00_welcome.ipynb"
    )


def test_jupyterlabs_chinese_menus_are_set_for_that_start_only(tmp_path):
    env = CourseEnv("venv", tmp_path / "env", "env", windows=False)
    assert jupyter.language_environ(env, "en", {}) == {}
    extra = jupyter.language_environ(env, "zh-CN", {"JUPYTER_CONFIG_PATH": "/theirs"})
    folder = jupyter.language_config_dir(env, "zh-CN")
    assert extra == {"JUPYTER_CONFIG_PATH": f"{folder}:/theirs"}
    written = folder / "labconfig" / "default_setting_overrides.json"
    assert json.loads(written.read_text()) == {
        "@jupyterlab/translation-extension:plugin": {"locale": "zh_CN"}
    }
    assert not jupyter.overrides_file(env).exists()  # the environment's defaults are untouched
