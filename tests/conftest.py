"""Settings for the whole test suite."""

from __future__ import annotations

import compileall
import os
import shutil
import tempfile
from pathlib import Path

_HOME = "COURSE_TOOLKIT_HOME"
ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config) -> None:
    """The learner's toolkit (``course_lib.toolkit``) keeps its state in the course folder's
    ``my_toolkit/``: tests that pass checks (in a kernel, through ``course check``) write there
    instead in a folder of the run's own, removed at the end, never in the checkout's."""
    compile_the_course()
    if not os.environ.get(_HOME):
        folder = tempfile.mkdtemp(prefix="course-tests-toolkit-")
        os.environ[_HOME] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def compile_the_course() -> None:
    """Write the bytecode of the course's own modules (``course_lib``, the launcher) once, for
    the hundreds of processes the suite starts: kernels, graders, fork servers, command lines.
    Where ``PYTHONDONTWRITEBYTECODE`` is set (common in containers and CI images) none of them
    writes what it compiles, so each compiled the modules it imports anew (measured: about 0.6 s
    of CPU per grading run). Python still checks each file against its source and compiles a
    changed one itself; kernels that may not read a hidden part of ``course_lib`` cannot read
    its ``__pycache__`` either (it lies beneath)."""
    for folder in (ROOT / "course_lib", ROOT / "scripts"):
        compileall.compile_dir(folder, quiet=1)
