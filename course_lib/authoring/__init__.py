"""Authoring: build the student notebooks in ``notebooks/`` from ``solutions/``.

- ``blocks``: solution blocks in a cell's source and their stubs (pure text);
- ``steps``: the build as small named steps over ``nbformat`` notebooks;
- ``build``: the whole folder, byte-stable output, and the staleness check;
- ``execute``: re-run a solution notebook in place to store fresh outputs;
- ``cli``: ``course build [--check]`` and ``course execute``.

The conventions are described in docs/authoring.md.
"""

from course_lib.authoring.blocks import BlockError, stub_source
from course_lib.authoring.build import build_all, build_notebook, render, stale_notebooks
from course_lib.authoring.steps import STEPS, AuthoringError

__all__ = [
    "STEPS",
    "AuthoringError",
    "BlockError",
    "build_all",
    "build_notebook",
    "render",
    "stale_notebooks",
    "stub_source",
]
