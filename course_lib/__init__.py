"""Tool Calling from Scratch: the library behind the course.

Where things live:

- ``course_lib.reference``: the reference implementation of what the course builds
  (schemas from functions, tool formats, the registry and dispatch, the agent loop).
- ``course_lib.local_model``: an offline, deterministic, OpenAI-compatible model and
  ``make_client()``.
- ``course_lib.toolkit``: the learner's own parts (``toolkit.use``), which later lessons use in
  place of the reference once their checks pass (docs/toolkit.md).
- ``course_lib.checks``: the exercise checks and ``check()``.
- ``course_lib.authoring``: builds ``notebooks/`` from ``solutions/``.
- ``course_lib.grading``: the grader and the self-check.
- ``course_lib.widgets``: the ipywidgets used in the lessons.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__version__ = "0.1.0"


def lazy_names(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """A package's ``__getattr__`` that imports ``homes[name]`` (a submodule) on first use.

    ``widgets`` and ``grading`` name their classes this way so that importing the package
    loads nothing heavy: the grading side draws text without ipywidgets, and a kernel starts
    without loading the grader.
    """

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{homes[name]}"), name)

    return __getattr__
