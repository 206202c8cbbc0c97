"""A pytest plugin for tests/test_notebooks.py's nbval runs: each notebook's kernel starts with a
toolkit of its own that has recorded no pass.

One pytest process runs nbval on several notebooks in turn, and a kernel is started with the
process's environment; without this, a lesson's kernel would find the passes recorded by the
lessons before it in the same home (``course_lib.toolkit.state.untouched_environment`` gives
the process one temporary home; each notebook gets a fresh folder inside it).
"""

from __future__ import annotations

import os
import tempfile

import pytest

from course_lib.toolkit.state import HOME_VARIABLE

_homes: dict[object, str] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before the first cell of a notebook (whose setup starts the notebook's kernel)."""
    notebook = item.parent
    if notebook not in _homes:
        base = _homes.setdefault(None, os.environ[HOME_VARIABLE])
        _homes[notebook] = tempfile.mkdtemp(prefix="notebook-", dir=base)
        os.environ[HOME_VARIABLE] = _homes[notebook]
