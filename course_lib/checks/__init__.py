"""Exercise checks: ``check(exercise_id, *targets)`` is what every check cell calls.

The machinery lives in ``core.py`` (the registry and ``check``), ``learner.py`` (how a check
reaches the learner's code), ``compare.py`` and ``failures.py``. Each lesson's checks live in
``lessonNN/``, one module per exercise; importing a lesson registers its exercises in
``EXERCISES``, which imports a lesson the first time one of its ids is asked for (so a lesson's
first check does not pay for every other lesson's imports).
"""

from course_lib.checks.core import (
    EXERCISES,
    CheckFailed,
    Exercise,
    NotDoneYet,
    UnknownExercise,
    check,
    evaluate,
    outcome,
)

__all__ = [
    "EXERCISES",
    "CheckFailed",
    "Exercise",
    "NotDoneYet",
    "UnknownExercise",
    "check",
    "evaluate",
    "outcome",
]
