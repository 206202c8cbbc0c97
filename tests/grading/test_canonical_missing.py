"""A course folder that cannot be found is told how to fix it, not shown a bare path."""

from __future__ import annotations

import pytest

from course_lib.grading.canonical import load_lessons


def test_a_missing_notebooks_folder_says_to_run_in_the_course_folder(tmp_path):
    missing = tmp_path / "site-packages" / "notebooks"
    with pytest.raises(FileNotFoundError) as raised:
        load_lessons(missing)
    message = str(raised.value)
    assert str(missing) in message
    assert "Run the command in the course folder" in message
    assert "--canonical DIR" in message
