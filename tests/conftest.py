"""Settings for the whole test suite."""

from __future__ import annotations

import os
import shutil
import tempfile

_HOME = "COURSE_TOOLKIT_HOME"


def pytest_configure(config) -> None:
    """The learner's toolkit (``course_lib.toolkit``) keeps its state in the course folder's
    ``my_toolkit/``: tests that pass checks (in a kernel, through ``course check``) write there
    instead in a folder of the run's own, removed at the end, never in the checkout's."""
    if not os.environ.get(_HOME):
        folder = tempfile.mkdtemp(prefix="course-tests-toolkit-")
        os.environ[_HOME] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
