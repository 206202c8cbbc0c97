"""Exercise checks: ``check(exercise_id, *targets)`` is what every check cell calls.

The machinery lives in ``core.py`` (the registry and ``check``), ``learner.py`` (how a check
reaches the learner's code), ``compare.py`` and ``failures.py``. Each lesson's checks live in
``lessonNN/``, one module per exercise; the older ``nbNN.py`` modules are being moved there.
Importing a module registers its exercises in ``EXERCISES``, which is why each is imported here.
"""

# One line per notebook (add yours in order). Importing a module registers its exercises.
from course_lib.checks import (  # noqa: F401
    lesson00,
    lesson01,
    lesson02,
    lesson03,
    lesson04,
    lesson05,
    lesson06,
    lesson07,
)
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
