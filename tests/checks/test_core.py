"""The checks framework: registry, "not done yet", failures as fields, JSON comparison, hints.

Checks here are written in the trusted form (a function of a ``Learner``) and run over the
in-process channel, exactly as a learner's ``check()`` runs them; ``test_kernel_channel.py``
runs the same checks against a real kernel.
"""

from __future__ import annotations

import pytest

from course_lib.checks import EXERCISES, CheckFailed, NotDoneYet, check, evaluate
from course_lib.checks.compare import (
    expect_equal,
    fail,
    first_difference,
    hidden_rng,
    json_equal,
    pick_hint,
    show,
)
from course_lib.checks.core import UnknownExercise, exercise
from course_lib.checks.failures import Failure
from course_lib.checks.learner import Learner


def _check_double(learner: Learner) -> str:
    for x in (1, 2, 5):
        case = f"double({x})"
        got = learner.call("double", x, case=case)
        expect_equal(case, 2 * x, got.value, hints=[(lambda g, x=x: g == x * x, "That squares.")])
    return "3 cases"


@pytest.fixture
def sample_exercise():
    """Exercise 99.1 checks ``double(x)`` on a few cases; removed again after the test."""
    exercise("99.1", notebook="99_sample", title="double", points=2, targets=("double",))(
        _check_double
    )
    yield "99.1"
    del EXERCISES["99.1"]


def test_a_check_failure_is_an_assertion_error_so_pytest_and_nbval_count_it():
    assert issubclass(CheckFailed, AssertionError)
    assert issubclass(NotDoneYet, CheckFailed)


def test_success_prints_one_short_line_the_same_on_every_run(sample_exercise, capsys):
    check("99.1", lambda x: 2 * x)
    check("99.1", lambda x: 2 * x)
    line = "Exercise 99.1 passed: double (3 cases).\n"
    assert capsys.readouterr().out == line * 2
    assert evaluate("99.1", lambda x: x + x) == line.strip()


def test_an_unknown_exercise_id_lists_the_known_ones(sample_exercise):
    with pytest.raises(UnknownExercise, match=r"no exercise '99\.9'.*Known exercises: .*99\.1"):
        check("99.9", lambda x: x)


def test_a_wrong_number_of_targets_says_what_the_check_cell_should_be(sample_exercise):
    with pytest.raises(TypeError, match=r"takes 1 target\(s\) \(double\) but got 2"):
        check("99.1", 1, 2)


def test_a_placeholder_target_is_not_done_yet_in_one_friendly_paragraph(sample_exercise):
    with pytest.raises(NotDoneYet) as caught:
        check("99.1", ...)
    message = str(caught.value)
    assert message.startswith("Exercise 99.1 (double) is not done yet. `double` is still `...`.")
    assert "\n" not in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_stub_raising_not_implemented_is_not_done_yet_and_quotes_the_stub(sample_exercise):
    def double(x):
        raise NotImplementedError("Exercise 99.1: return twice x")

    with pytest.raises(NotDoneYet, match=r'The stub says "Exercise 99\.1: return twice x"\.'):
        check("99.1", double)


def test_not_implemented_raised_deep_inside_learner_code_is_also_not_done_yet():
    class Registry:
        def names(self):
            return self._helper()

        def _helper(self):
            raise NotImplementedError

    @exercise("99.2", notebook="99_sample", title="registry", points=1, targets=("Registry",))
    def check_registry(learner: Learner) -> None:
        learner.run(
            "names = Registry().names()",
            result="names",
            bind={"Registry": learner.target("Registry")},
        )

    try:
        with pytest.raises(NotDoneYet, match="still raises NotImplementedError"):
            check("99.2", Registry)
    finally:
        del EXERCISES["99.2"]


def test_a_wrong_answer_names_case_expected_got_and_the_fitting_hint(sample_exercise):
    with pytest.raises(CheckFailed) as caught:
        check("99.1", lambda x: x * x)
    assert not isinstance(caught.value, NotDoneYet)
    assert str(caught.value) == (
        "Exercise 99.1 (double) is not right yet.\n"
        "Case: double(1)\n"
        "Expected: 2\n"
        "Got:      1\n"
        "Hint: That squares."
    )


def test_a_failure_carries_its_parts_as_fields_for_the_scorecard_and_the_grader(sample_exercise):
    with pytest.raises(CheckFailed) as caught:
        check("99.1", lambda x: x * x)
    assert caught.value.failure.fields() == {
        "case": "double(1)",
        "expected": "2",
        "got": "1",
        "hint": "That squares.",
        "exercise": "99.1",
        "title": "double",
    }


def test_ipython_shows_the_message_alone_without_frames(sample_exercise):
    with pytest.raises(CheckFailed) as caught:
        check("99.1", lambda x: x * x)
    lines = caught.value._render_traceback_()
    assert lines[1:] == str(caught.value).splitlines()
    assert not any("File " in line or "course_lib" in line for line in lines)


def test_without_a_matching_hint_the_generic_hint_is_given(sample_exercise):
    with pytest.raises(CheckFailed, match="Hint: Compare what you returned with the expected"):
        check("99.1", lambda x: 2 * x + 1)


def test_a_learner_exception_becomes_a_failure_naming_the_case_and_the_exception(sample_exercise):
    with pytest.raises(CheckFailed) as caught:
        check("99.1", lambda x: {}[x])
    assert "Case: double(1)\nYour code raised KeyError: 1" in str(caught.value)
    assert caught.value.__suppress_context__


def test_a_target_that_is_not_callable_is_reported_as_such(sample_exercise):
    with pytest.raises(CheckFailed, match="Expected a function .* found a int: 3"):
        check("99.1", 3)


def test_fail_shows_pretty_unicode_json_and_truncates_long_values():
    with pytest.raises(CheckFailed) as caught:
        fail("tool()", {"city": "北京"}, ["x" * 1000], "Look at the city.")
    text = str(caught.value)
    assert 'Expected: {\n            "city": "北京"\n          }' in text
    assert "… (" in text and "more characters)" in text
    assert text.endswith("Hint: Look at the city.")
    assert len(show("y" * 5000)) < 700


def test_a_rigged_eq_never_reaches_the_check_because_only_json_comes_back():
    class AlwaysEqual(dict):
        def __eq__(self, other):
            return True

        __hash__ = None

    @exercise("99.4", notebook="99_sample", title="schema", points=1, targets=("schema",))
    def check_schema(learner: Learner) -> None:
        got = learner.call("schema", case="schema()")
        expect_equal("schema()", {"type": "string"}, got.value)

    try:
        with pytest.raises(CheckFailed, match="Where:    at \\$.type: the texts differ"):
            check("99.4", lambda: AlwaysEqual(type="str"))
    finally:
        del EXERCISES["99.4"]


@pytest.mark.parametrize(
    "expected, got, equal",
    [
        (1, True, False),
        (False, 0, False),
        (1, 1.0, True),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),
        ([1, 2], [2, 1], False),
        (None, "null", False),
        ({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]}, True),
    ],
)
def test_json_equality_has_json_semantics(expected, got, equal):
    assert json_equal(expected, got) is equal


@pytest.mark.parametrize(
    "expected, got, where",
    [
        ({"p": {"city": {"type": "string"}}}, {"p": {"city": {"type": "str"}}}, "at $.p.city.type"),
        ({"required": ["a", "b"]}, {"required": ["a"]}, "at $.required: expected 2 items, got 1"),
        ({"a": 1}, {"a": 1, "b": 2}, 'unexpected key "b"'),
        ({"a": 1, "b": 2}, {"a": 1}, 'missing key "b"'),
        ({"a": 1}, {"a": True}, "at $.a: expected a number 1, got a boolean true"),
        ("Hello, Ada!", "Hello Ada!", 'from character 5 on: expected ", Ada!", got " Ada!"'),
        ("Hi", "Hi!\n", 'from character 2 on: expected the text to end here, got "!\\n"'),
        ("Hi!", "Hi", 'from character 2 on: expected "!", got the end of the text'),
    ],
)
def test_first_difference_says_where_two_values_differ(expected, got, where):
    assert where in first_difference(expected, got)


def test_pick_hint_takes_the_first_true_predicate_skips_raising_ones_and_falls_back():
    hints = [
        (lambda got: got["missing"], "never reached: raises KeyError"),
        (lambda got: got["type"] == "str", "Use JSON type names: string, not str."),
        (lambda got: True, "too late"),
    ]
    assert pick_hint({"type": "str"}, hints) == "Use JSON type names: string, not str."
    assert pick_hint({"type": "str"}, [], "generic") == "generic"


def test_registering_an_id_twice_or_without_points_is_refused(sample_exercise):
    with pytest.raises(ValueError, match="registered twice"):
        exercise("99.1", notebook="99_sample", title="again", points=1, targets=("f",))(print)
    with pytest.raises(ValueError, match="at least one point"):
        exercise("99.3", notebook="99_sample", title="free", points=0, targets=("f",))(print)
    assert "99.3" not in EXERCISES


def test_hidden_cases_are_the_same_on_every_run_and_differ_between_exercises():
    first = [hidden_rng("01.1").random() for _ in range(3)]
    assert first == [hidden_rng("01.1").random() for _ in range(3)]
    assert first != [hidden_rng("01.2").random() for _ in range(3)]


def test_a_failure_renders_every_part_it_has_and_only_those():
    failure = Failure(case="f(1)", raised="KeyError: 1", where="at $.x", hint="Look.")
    assert str(CheckFailed(failure)) == (
        "Case: f(1)\nYour code raised KeyError: 1\nWhere:    at $.x\nHint: Look."
    )


def test_a_scenario_check_earns_the_points_of_the_scenarios_that_passed():
    from course_lib.checks.scenarios import PartlyRight, ScenarioOutcome

    @exercise("99.5", notebook="99_sample", title="assistant", points=3, targets=("ask",))
    def check_scenarios(learner: Learner) -> list[ScenarioOutcome]:
        answer = learner.call("ask", "北京天气？", case="ask('北京天气？')").value
        wrong = None if answer == "晴" else Failure(case="ask('北京天气？')", hint="Say 晴.")
        return [
            ScenarioOutcome("weather", "the weather in Beijing", 2, wrong),
            ScenarioOutcome("polite", "an answer at all", 1, None if answer else Failure()),
        ]

    try:
        with pytest.raises(PartlyRight) as caught:
            check("99.5", lambda question: "多云")
        assert caught.value.outcomes[1].passed and not caught.value.outcomes[0].passed
        text = str(caught.value)
        assert text.startswith("Exercise 99.5 (assistant) is not right yet.\n1 of 2 scenarios")
        assert "earn 1 of 3 points" in text
        assert (
            "Scenario weather: the weather in Beijing\nCase: ask('北京天气？')\nHint: Say 晴."
            in text
        )
        assert evaluate("99.5", lambda question: "晴") == (
            "Exercise 99.5 passed: assistant (2 scenarios)."
        )
    finally:
        del EXERCISES["99.5"]


# -- lessons imported when first asked for ------------------------------------------------------

LAZY_PROBE = """
import json, sys
from course_lib.checks import EXERCISES
loaded = lambda: sorted(m.rsplit(".", 1)[1] for m in sys.modules
                        if m.startswith("course_lib.checks.lesson") and m.count(".") == 2)
before = loaded()
found = EXERCISES.get("01.2") is not None
after_one = loaded()
unknown = EXERCISES.get("77.1") is None and "77.1" not in EXERCISES
count = len(EXERCISES)
print(json.dumps([before, found, after_one, unknown, count, loaded()]))
"""


def test_a_lessons_checks_are_imported_when_one_of_its_ids_is_asked_for_and_all_when_listed():
    import json
    import subprocess
    import sys
    from pathlib import Path

    lessons = sorted(
        path.name
        for path in (Path(__file__).parents[2] / "course_lib" / "checks").glob("lesson[0-9][0-9]")
    )
    reply = subprocess.run(
        [sys.executable, "-c", LAZY_PROBE], capture_output=True, text=True, check=True
    )
    before, found, after_one, unknown, count, at_end = json.loads(reply.stdout)
    assert before == []
    assert found and after_one == ["lesson01"]
    assert unknown
    assert at_end == lessons and count >= len(lessons)
