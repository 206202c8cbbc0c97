"""The bound on a call into learner code: a function that never returns fails its case, in process
and through a grading kernel, and leaves no timer armed. No test here depends on the machine's
speed: the learner functions never return, so any bound is reached."""

from __future__ import annotations

import signal
import threading

import pytest

from course_lib.case_time import (
    CASE_SECONDS,
    CaseTimedOut,
    bounded,
    can_bound,
    outside_learner_code,
)
from course_lib.case_time import _expire as alarm
from course_lib.checks import EXERCISES, evaluate
from course_lib.checks.core import exercise, run_check
from course_lib.checks.failures import CheckFailed
from course_lib.checks.learner import Learner
from course_lib.grading.kernel import GuardedKernel
from course_lib.grading.kernel_channel import CheckTimeout, KernelChannel
from course_lib.grading.plugin import DRIVER

LIMIT = 0.5  # the tests' own checks: any bound shows the behaviour, a short one saves time


def _check_spin(learner: Learner) -> str:
    got = learner.call("spin", 3, case="spin(3)", time_limit=LIMIT, endless_hint="Stop at 3.")
    assert got.value == 3
    return "1 case"


def _check_spin_default_hint(learner: Learner) -> str:
    learner.attempt("spin", 3, time_limit=LIMIT)
    return "1 case"


@pytest.fixture(scope="module")
def exercises():
    for exercise_id, run in (("97.1", _check_spin), ("97.2", _check_spin_default_hint)):
        exercise(exercise_id, notebook="97_x", title="spin", points=1, targets=("spin",))(run)
    yield
    for exercise_id in ("97.1", "97.2"):
        del EXERCISES[exercise_id]


def endless(n):
    while True:
        pass


def asleep(n):
    import time

    time.sleep(10**6)


def swallows_exceptions(n):
    while True:
        try:
            raise ValueError(n)
        except Exception:  # noqa: BLE001 (the learner's habit the bound must survive)
            pass


def no_timer_armed() -> bool:
    return signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@pytest.mark.parametrize("spin", [endless, asleep, swallows_exceptions])
def test_a_call_that_never_returns_fails_its_case_with_the_exercises_hint(exercises, spin):
    with pytest.raises(CheckFailed) as failed:
        evaluate("97.1", spin)
    message = str(failed.value)
    assert "Case: spin(3)" in message
    assert f"did not finish within {LIMIT:g} seconds" in message
    assert "endless loop" in message
    assert "Hint: Stop at 3." in message
    assert no_timer_armed()
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


def test_without_a_hint_of_its_own_the_generic_one_names_the_loop_and_the_case(exercises):
    with pytest.raises(CheckFailed) as failed:
        evaluate("97.2", endless)
    assert failed.value.failure.case == "spin(...)"
    assert failed.value.failure.hint_key == "endless_loop"
    assert no_timer_armed()


def test_a_call_that_returns_in_time_passes_and_disarms_the_timer(exercises):
    assert evaluate("97.1", lambda n: n) == "Exercise 97.1 passed: spin (1 case)."
    assert no_timer_armed()


def test_the_default_bound_is_shorter_than_the_graders_cell_timeout():
    from course_lib.grading import GradeOptions

    assert CASE_SECONDS < GradeOptions().cell_timeout


def test_off_the_main_thread_no_bound_is_set_and_the_call_runs_as_before():
    seen = {}

    def work():
        seen["can"] = can_bound(LIMIT)
        with bounded(LIMIT) as active:
            seen["active"] = active
            seen["timer"] = signal.getitimer(signal.ITIMER_REAL)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == {"can": False, "active": False, "timer": (0.0, 0.0)}


def test_another_armed_timer_is_left_alone():
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(True))
    signal.setitimer(signal.ITIMER_REAL, 1000)
    try:
        with bounded(LIMIT) as active:
            assert not active
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0  # still the other one's
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_an_alarm_while_the_model_answers_waits_until_the_learners_code_runs_again():
    with pytest.raises(CaseTimedOut), bounded(1000):
        with outside_learner_code():
            alarm(signal.SIGALRM, None)  # the alarm, as the model link is busy: no exception
            assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 1  # it looks again soon
        while True:  # the learner's code again: the next look raises
            pass
    assert no_timer_armed()


# --- through a grading kernel: a normal failed check, never the grader's timeout ---------------


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    kernel = GuardedKernel(
        str(tmp_path_factory.mktemp("kernel")),
        memory_mb=2048,
        output_cap=100_000,
        startup_timeout=120,  # a loaded machine starts kernels slowly; nothing here is timed
    )
    kernel.evaluate(DRIVER)
    yield kernel
    kernel.stop()


@pytest.mark.parametrize(
    "source",
    [
        "def spin(n):\n    while True:\n        pass\n",
        "import time\n\ndef spin(n):\n    time.sleep(10**6)\n",
    ],
)
def test_in_a_grading_kernel_the_case_fails_before_the_graders_timeout(exercises, kernel, source):
    assert kernel.run_quietly(source, 10) == "ok"
    result = run_check(EXERCISES["97.1"], KernelChannel(kernel, timeout=30))
    assert isinstance(result, CheckFailed) and not isinstance(result, CheckTimeout)
    assert f"did not finish within {LIMIT:g} seconds" in str(result)
    assert kernel.evaluate("__import__('signal').getitimer(0)") == (0.0, 0.0)
    assert kernel.run_quietly("spin = lambda n: n", 10) == "ok"
    result = run_check(EXERCISES["97.1"], KernelChannel(kernel, timeout=30))
    assert result == "Exercise 97.1 passed: spin (1 case)."
