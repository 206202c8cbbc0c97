"""The grader and the self-check: a pipeline of small steps around nbval.

- ``discover``, ``names``: find ``SUBMISSIONS/<student>/<NN_slug>.ipynb`` and read each file
  without following links out of the student's folder or opening FIFOs and devices; printable,
  unambiguous student names.
- ``canonical``: what the course says a lesson holds (its exercises, points and check cells).
- ``parse``, ``sanitize``: never trust a submission: check its shape and types before use,
  restore check cells, drop outputs, refuse what is not a notebook of the right lesson.
- ``runner``, ``plugin``, ``kernel``, ``kernel_launcher``: run the sanitized copy as
  ``pytest --nbval-lax`` items in a scratch directory, with timeouts, a memory limit and a
  kernel that is restarted when it dies.
- ``tamper``: the in-kernel guard around every check cell.
- ``results``: nbval's positional cell results back to exercise results.
- ``grader``: one submission, or a whole class in parallel.
- ``scrub``: nothing that differs between two runs (addresses, scratch paths) in a result.
- ``similarity``: token fingerprints of exercise cells, flags for the instructor.
- ``report``, ``class_report``, ``shard``: gradebook files, ``report.html``, and grading a
  class in shards on many machines.
- ``cli``: ``course check`` and ``course grade``.
"""

from __future__ import annotations

import importlib
from typing import Any

# Loaded on first use: the kernel launcher and the in-kernel guard import modules of this
# package, and importing the grader (nbformat, jsonschema) there would cost every kernel start
# about a second.
_EXPORTS = {
    "GradeOptions": "course_lib.grading.grader",
    "grade_all": "course_lib.grading.grader",
    "grade_submission": "course_lib.grading.grader",
    "STATUSES": "course_lib.grading.results",
    "ExerciseResult": "course_lib.grading.results",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
