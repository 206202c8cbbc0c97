from __future__ import annotations

from pathlib import Path

import pytest
from grading_lesson import REFERENCE_SETUP, SLUG, canonical, write

from course_lib.grading.canonical import load_lessons


@pytest.fixture(scope="session")
def canonical_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("canonical")
    write(directory / f"{SLUG}.ipynb", canonical())
    return directory


@pytest.fixture(scope="session")
def lesson(canonical_dir: Path):
    return load_lessons(canonical_dir)[SLUG]


@pytest.fixture(scope="session")
def reference_lesson_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tests' lesson as one whose own code loads ``course_lib.reference`` (as lessons 04 to
    09 do): its kernels can read the reference, so taking from it is detected, not prevented."""
    directory = tmp_path_factory.mktemp("canonical-with-reference")
    write(directory / f"{SLUG}.ipynb", canonical(REFERENCE_SETUP))
    return directory
