"""The grader and the self-check: a pipeline of small steps around nbval.

- ``discover``: find ``SUBMISSIONS/<student>/<NN_slug>.ipynb``.
- ``canonical``: what the course says a lesson holds (its exercises, points and check cells).
- ``sanitize``: never trust a submission: restore check cells, drop outputs, refuse what is not
  a notebook of the right lesson.
- ``runner``, ``plugin``, ``kernel``, ``kernel_launcher``: run the sanitized copy as
  ``pytest --nbval-lax`` items in a scratch directory, with timeouts, a memory limit and a
  kernel that is restarted when it dies.
- ``tamper``: the in-kernel guard around every check cell.
- ``results``: nbval's positional cell results back to exercise results.
- ``grader``: one submission, or a whole class in parallel.
- ``report``, ``shard``: gradebook files, and grading a class in shards on many machines.
- ``cli``: ``course check`` and ``course grade``.
"""

from course_lib.grading.grader import GradeOptions, grade_all, grade_submission
from course_lib.grading.results import STATUSES, ExerciseResult

__all__ = ["STATUSES", "ExerciseResult", "GradeOptions", "grade_all", "grade_submission"]
