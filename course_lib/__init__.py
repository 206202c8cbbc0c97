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

__version__ = "0.1.0"
