"""Fixtures for the authoring tests."""

from __future__ import annotations

import nbformat
import pytest
from sample_notebooks import solution_notebook


@pytest.fixture
def course_dirs(tmp_path):
    """``solutions/`` holding one valid notebook, and an empty ``notebooks/``."""
    solutions, notebooks = tmp_path / "solutions", tmp_path / "notebooks"
    solutions.mkdir()
    notebooks.mkdir()
    nbformat.write(solution_notebook(), solutions / "99_sample.ipynb")
    return solutions, notebooks
