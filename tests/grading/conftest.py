from __future__ import annotations

from pathlib import Path

import pytest
from grading_lesson import SLUG, canonical, write

from course_lib.grading.canonical import load_lessons


@pytest.fixture(scope="session")
def canonical_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("canonical")
    write(directory / f"{SLUG}.ipynb", canonical())
    return directory


@pytest.fixture(scope="session")
def lesson(canonical_dir: Path):
    return load_lessons(canonical_dir)[SLUG]
