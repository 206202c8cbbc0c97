"""The checks of the tests' lesson ``90_test``, in the trusted form: they run in the grader.

The grader loads this file (``RunOptions.check_modules``); the notebooks only hold the targets.
"""

from __future__ import annotations

from course_lib.checks.compare import expect_equal
from course_lib.checks.core import EXERCISES, Rule, exercise
from course_lib.checks.learner import Learner

if "90.1" not in EXERCISES:  # loaded once per process, by the grader or by a test

    @exercise(
        "90.1",
        notebook="90_test",
        title="double",
        points=2,
        targets=("double",),
        rules=(Rule("double", "double(x) returns 2 * x."),),
    )
    def _check_double(learner: Learner) -> None:
        for x in (1, 2, 5, -3):
            case = f"double({x})"
            got = learner.call("double", x, case=case)
            expect_equal(case, 2 * x, got.value, hint="Multiply by two.")

    @exercise(
        "90.2",
        notebook="90_test",
        title="shout",
        points=3,
        targets=("shout",),
        rules=(Rule("shout", "shout(word) upper-cases the word and adds one '!'."),),
    )
    def _check_shout(learner: Learner) -> None:
        for word in ("hi", "北京", "Zoë"):
            case = f"shout({word!r})"
            got = learner.call("shout", word, case=case)
            expect_equal(case, word.upper() + "!", got.value, hint="Upper-case it and add one '!'.")

    @exercise(
        "90.3",
        notebook="90_test",
        title="type_name",
        points=1,
        targets=("type_name",),
        rules=(Rule("type", "type_name(T) maps str, int, float and bool to their JSON names."),),
    )
    def _check_type_name(learner: Learner) -> None:
        names = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
        for annotation, name in names.items():
            case = f"type_name({annotation})"
            got = learner.call("type_name", learner.source(annotation), case=case)
            expect_equal(
                case, {"type": name}, got.value, hint="Map the Python type to its JSON name."
            )
