"""The checks of the tests' lesson ``91_scenarios``: one exercise graded by scenarios."""

from __future__ import annotations

from course_lib.checks.core import EXERCISES, Rule, exercise
from course_lib.checks.failures import Failure
from course_lib.checks.learner import Learner
from course_lib.checks.scenarios import ScenarioOutcome

SCENARIOS = (("beijing", "北京", "晴", 2), ("shanghai", "上海", "多云", 1), ("empty", "", "?", 1))

if "91.1" not in EXERCISES:

    @exercise(
        "91.1",
        notebook="91_scenarios",
        title="forecast",
        points=4,
        targets=("forecast",),
        rules=(Rule("answers", "forecast(city) answers each city.", case="-", hint="-"),),
    )
    def _check_forecast(learner: Learner) -> list[ScenarioOutcome]:
        outcomes = []
        for scenario, city, expected, points in SCENARIOS:
            got = learner.attempt("forecast", city)
            failure = None
            if got.value != expected:
                failure = Failure(
                    case=f"forecast({city!r})", got=repr(got.value), hint="Look it up."
                )
            outcomes.append(ScenarioOutcome(scenario, f"the weather in {city!r}", points, failure))
        return outcomes
