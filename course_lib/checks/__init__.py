"""Exercise checks: ``check(exercise_id, *targets)`` is what every check cell calls.

The machinery lives in ``core.py``; each notebook's checks live in their own module
``nbNN.py``. Importing a module registers its exercises in ``EXERCISES``, which is why every
notebook's module is imported here.
"""

# One line per notebook (add yours in order). Importing a module registers its exercises.
from course_lib.checks import (  # noqa: F401
    nb00,
    nb01,
    nb02,
    nb03,
    nb04,
    nb05,
    nb06,
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
