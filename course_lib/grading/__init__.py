"""The grader and the self-check: a pipeline of small steps around nbval.

- ``discover``, ``names``: find ``SUBMISSIONS/<student>/<NN_slug>.ipynb`` and read each file
  without following links out of the student's folder or opening FIFOs and devices; printable,
  unambiguous student names.
- ``canonical``: what the course says a lesson holds (its exercises, points and check cells).
- ``parse``, ``sanitize``: never trust a submission: check its shape and types before use,
  restore check cells, drop outputs, refuse what is not a notebook of the right lesson.
- ``runner``, ``plugin``, ``kernel``, ``kernel_launcher``: run the sanitized copy as
  ``pytest --nbval-lax`` items in a scratch directory, with timeouts, a memory limit and a
  kernel that is restarted when it dies; ``fork_server``: the warm parent that forks one
  pytest process per submission (pytest, nbval and the checks imported once);
  ``kernel_zygote``: the clean process that forks each kernel's launcher (IPython's kernel
  imported once).
- ``isolation``, ``sandbox``: what keeps that kernel apart from the grader and other kernels
  (namespaces, Landlock, an environment allowlist, limits).
- ``kernel_channel``, ``borrowing``: checks run here, in the grader, and reach the notebook only
  through the driver in its kernel; answers taken from the course's own library are found in the
  source of exercise cells.
- ``results``: nbval's positional cell results back to exercise results.
- ``grader``: one submission, or a whole class in parallel.
- ``scrub``: nothing that differs between two runs (addresses, scratch paths) in a result.
- ``similarity``: token fingerprints of exercise cells, flags for the instructor.
- ``report``, ``class_report``, ``shard``: gradebook files, ``report.html``, and grading a
  class in shards on many machines.
- ``cli``: ``course check`` and ``course grade``.

Its names are imported on first use: the kernel launcher lives in this package, and a kernel
must start without loading the grader (nbformat, jsonschema) first.
"""

from __future__ import annotations

from course_lib import lazy_names

_HOMES = {
    "GradeOptions": "grader",
    "grade_all": "grader",
    "grade_submission": "grader",
    "STATUSES": "results",
    "ExerciseResult": "results",
}
__all__ = sorted(_HOMES)

__getattr__ = lazy_names(__name__, _HOMES)
