"""The self-check is one command, the same in the README, in lesson 00 and in what the start
prints (the fresh-clone tests run that command verbatim where the README says it works)."""

from __future__ import annotations

from pathlib import Path

import pytest
from course_launcher import jupyter
from course_launcher.environment import CourseEnv
from self_check_command import ROOT, lesson_mentions, readme_self_check


def test_the_readme_lesson_00_and_the_start_output_give_the_same_self_check():
    command = readme_self_check()
    assert command == "python3 -m course_lib check notebooks/00_welcome.ipynb"
    for notebook in ("solutions/00_welcome.ipynb", "notebooks/00_welcome.ipynb"):
        assert set(lesson_mentions(ROOT / notebook)) == {command}, notebook
    linux_and_macos = CourseEnv("venv", ROOT / ".venv", ".venv", windows=False)
    assert jupyter.self_check_command(linux_and_macos) == command


def test_a_readme_giving_two_spellings_of_the_self_check_is_caught(tmp_path: Path):
    (tmp_path / "README.md").write_text(
        "Run `python3 -m course_lib check notebooks/00_welcome.ipynb`.\n"
        "Or `python -m course_lib check notebooks/01_handwritten_schemas.ipynb`.\n"
    )
    with pytest.raises(AssertionError, match="2 different self-checks"):
        readme_self_check(tmp_path)
