"""The budget of a call into learner code (course_lib.case_budget): a call that never returns fails
its case with a hint naming the endless loop, in process and through a grading kernel (forked
from the zygote and started with exec), and leaves no handler behind.

No test here depends on the machine's speed or load: the budgets are CPU time and counted
requests, and the learner functions that pass them never return, so any budget is reached; the
small budgets below only save time.
"""

from __future__ import annotations

import signal
import time

import pytest

from course_lib import case_budget
from course_lib.case_budget import EndlessLoop, bounded, model_request
from course_lib.checks import EXERCISES, evaluate, learner
from course_lib.checks.core import exercise, run_check
from course_lib.checks.failures import CheckFailed
from course_lib.checks.learner import Learner
from course_lib.grading.kernel import GuardedKernel
from course_lib.grading.kernel_channel import CheckTimeout, KernelChannel
from course_lib.grading.plugin import DRIVER

CPU = 0.3  # the tests' budget of CPU seconds: any budget shows the behaviour


def _check_spin(learner: Learner) -> str:
    got = learner.call("spin", 3, case="spin(3)", endless_hint="Stop at 3.")
    assert got.value == 3
    return "1 case"


def _check_spin_generic_hint(learner: Learner) -> str:
    learner.attempt("spin", 3)
    return "1 case"


@pytest.fixture(scope="module")
def exercises():
    for exercise_id, run in (("97.1", _check_spin), ("97.2", _check_spin_generic_hint)):
        exercise(exercise_id, notebook="97_x", title="spin", points=1, targets=("spin",))(run)
    yield
    for exercise_id in ("97.1", "97.2"):
        del EXERCISES[exercise_id]


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setitem(learner.BUDGET, "cpu", CPU)


def endless(n):
    while True:
        pass


def swallows_exceptions(n):
    while True:
        try:
            raise ValueError(n)
        except Exception:  # noqa: BLE001 (the learner's habit the budget must survive)
            pass


def no_handler_left() -> bool:
    return signal.getsignal(signal.SIGXCPU) is signal.SIG_DFL and case_budget._state.budget is None


@pytest.mark.parametrize("spin", [endless, swallows_exceptions])
def test_a_call_that_never_returns_fails_its_case_with_the_exercises_hint(
    exercises, small_budget, spin
):
    with pytest.raises(CheckFailed) as failed:
        evaluate("97.1", spin)
    message = str(failed.value)
    assert "Case: spin(3)" in message
    assert f"used {CPU:g} seconds of CPU time on this one case without finishing" in message
    assert "endless loop" in message
    assert "Hint: Stop at 3." in message
    assert no_handler_left()


def test_without_a_hint_of_its_own_the_generic_one_names_the_loop_and_the_case(
    exercises, small_budget
):
    with pytest.raises(CheckFailed) as failed:
        evaluate("97.2", endless)
    assert failed.value.failure.case == "spin(...)"
    assert failed.value.failure.hint_key == "endless_loop"
    assert no_handler_left()


def test_a_call_that_returns_passes_and_leaves_no_handler(exercises, small_budget):
    assert evaluate("97.1", lambda n: n) == "Exercise 97.1 passed: spin (1 case)."
    assert no_handler_left()


def test_waiting_is_not_counted_only_cpu_time_is(exercises, small_budget):
    # A slow answer that waits (for a server, a lock, the model) is not an endless loop: it
    # sleeps past the CPU budget and still passes. (With a wall-clock bound it would not.)
    def slow(n):
        time.sleep(2 * CPU)
        return n

    assert evaluate("97.1", slow) == "Exercise 97.1 passed: spin (1 case)."


def test_the_models_cpu_time_is_not_the_learners():
    # In process the model answers in the learner's thread: its CPU time is left out, so a loop
    # that makes few requests to a slow model is not cut; the learner's own time still counts.
    with bounded(cpu_seconds=CPU, max_requests=10) as budget:
        assert budget.clock is not None
        with model_request():
            start = time.thread_time()
            while time.thread_time() - start < 2 * CPU:  # the model, busy
                pass
        assert budget.cpu_used() < CPU
        assert budget.tripped is None
    assert no_handler_left()


def test_the_request_past_the_budget_is_not_sent_and_ends_the_call():
    sent = []
    with bounded(cpu_seconds=None, max_requests=3) as budget:
        with pytest.raises(EndlessLoop):
            while True:
                with model_request():
                    sent.append(1)
    assert len(sent) == 3
    assert budget.tripped == {"requests": 3}
    assert no_handler_left()


def test_off_the_main_thread_only_the_request_budget_holds():
    import threading

    seen = {}

    def work():
        seen["can"] = case_budget.can_bound_cpu()
        with bounded(cpu_seconds=CPU, max_requests=5) as budget:
            seen["clock"] = budget.clock
            seen["requests"] = budget.max_requests

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == {"can": False, "clock": None, "requests": 5}


def test_a_handler_of_someone_elses_for_sigxcpu_is_left_alone():
    def theirs(signum, frame):
        pass

    previous = signal.signal(signal.SIGXCPU, theirs)
    try:
        with bounded(cpu_seconds=CPU, max_requests=None) as budget:
            assert budget.clock is None
        assert signal.getsignal(signal.SIGXCPU) is theirs
    finally:
        signal.signal(signal.SIGXCPU, previous)


# --- through a grading kernel: a normal failed check, never the grader's timeout ---------------


@pytest.fixture(scope="module", params=["zygote", "exec"])
def kernel(request, tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "exec":
            patch.setenv("COURSE_GRADE_ZYGOTE", "0")
        kernel = GuardedKernel(
            str(tmp_path_factory.mktemp("kernel")),
            memory_mb=2048,
            output_cap=100_000,
            startup_timeout=120,  # a loaded machine starts kernels slowly; nothing here is timed
        )
    kernel.evaluate(DRIVER)
    yield kernel
    kernel.stop()


def test_in_a_grading_kernel_the_case_fails_as_a_check_not_as_a_timeout(
    exercises, small_budget, kernel
):
    assert kernel.run_quietly("def spin(n):\n    while True:\n        pass\n", 60) == "ok"
    # the channel's own timeout is only a safety net: the budget is CPU time, reached first
    result = run_check(EXERCISES["97.1"], KernelChannel(kernel, timeout=600))
    assert isinstance(result, CheckFailed) and not isinstance(result, CheckTimeout)
    assert f"used {CPU:g} seconds of CPU time" in str(result)
    assert "Hint: Stop at 3." in str(result)
    restored = "(lambda s: s.getsignal(s.SIGXCPU) is s.SIG_DFL)(__import__('signal'))"
    assert kernel.evaluate(restored) is True
    assert kernel.run_quietly("spin = lambda n: n", 60) == "ok"
    result = run_check(EXERCISES["97.1"], KernelChannel(kernel, timeout=600))
    assert result == "Exercise 97.1 passed: spin (1 case)."
