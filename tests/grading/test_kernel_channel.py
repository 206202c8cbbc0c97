"""The same check over two channels: in process (the learner's ``check()``) and through a real
kernel (the grader). The messages must be identical, the model must answer from the grader's
side, and nothing the kernel sends back may crash the grader."""

from __future__ import annotations

import pytest

from course_lib.checks import EXERCISES
from course_lib.checks.channel import InProcessChannel
from course_lib.checks.compare import expect_equal
from course_lib.checks.core import exercise, run_check
from course_lib.checks.learner import Learner
from course_lib.grading.kernel import GuardedKernel
from course_lib.grading.kernel_channel import CheckTimeout, KernelChannel
from course_lib.grading.plugin import DRIVER
from course_lib.local_model.scripted import ScriptedPolicy

ASK = """
def ask(client, question, *, model):
    reply = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": question}]
    )
    return reply.choices[0].message.content
"""
TARGETS = "def double(x):\n    return x * x\n\ndef shout(word):\n    return word.upper() + '!'\n"


def _check_double(learner: Learner) -> None:
    for x in (1, 2, 5):
        case = f"double({x})"
        expect_equal(case, 2 * x, learner.call("double", x, case=case).value, hint="Times two.")


def _check_ask(learner: Learner) -> str:
    session = learner.model(ScriptedPolicy(["北京晴。"]), model_name="check-model")
    got = learner.call(
        "ask", learner.client(session), "北京天气？", model="check-model", case="ask(...)"
    )
    expect_equal("ask(...)", "北京晴。", got.value)
    [exchange] = session.exchanges
    expect_equal("the request", "北京天气？", exchange.request["messages"][0]["content"])
    return f"{len(session.exchanges)} request"


@pytest.fixture(scope="module")
def exercises():
    specs = {}
    for exercise_id, title, targets, run in (
        ("98.1", "double", ("double",), _check_double),
        ("98.2", "ask", ("ask",), _check_ask),
    ):
        exercise(exercise_id, notebook="98_x", title=title, points=1, targets=targets)(run)
        specs[exercise_id] = EXERCISES[exercise_id]
    yield specs
    for exercise_id in specs:
        del EXERCISES[exercise_id]


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    kernel = GuardedKernel(
        str(tmp_path_factory.mktemp("kernel")), memory_mb=2048, output_cap=100_000, confine=False
    )
    kernel.evaluate(DRIVER)
    assert kernel.run_quietly(TARGETS + ASK, 30) == "ok"
    yield kernel
    kernel.stop()


def in_process(spec, **targets):
    return run_check(spec, InProcessChannel(targets))


def test_a_failure_reads_the_same_from_the_kernel_as_in_process(exercises, kernel):
    namespace: dict = {}
    exec(TARGETS, namespace)
    here = in_process(exercises["98.1"], double=namespace["double"])
    there = run_check(exercises["98.1"], KernelChannel(kernel, timeout=30))
    assert str(there) == str(here)
    assert there.failure == here.failure
    assert "Case: double(1)" in str(there)


def test_the_model_answers_on_the_grader_side_and_records_what_the_kernel_sent(exercises, kernel):
    namespace: dict = {}
    exec(ASK, namespace)
    here = in_process(exercises["98.2"], ask=namespace["ask"])
    there = run_check(exercises["98.2"], KernelChannel(kernel, timeout=30))
    assert here == there == "Exercise 98.2 passed: ask (1 request)."


def test_a_forged_driver_reply_is_a_failed_case_not_a_crash(exercises, kernel):
    assert kernel.run_quietly("real_driver = __course_driver__", 10) == "ok"
    try:
        for forged in (
            "class F:\n    def handle_json(self, text):\n        return 12\n",
            "class F:\n    def handle_json(self, text):\n        return '[' * 100000\n",
            "class F:\n    def handle_json(self, text):\n        raise RuntimeError('x')\n",
        ):
            assert kernel.run_quietly(forged + "__course_driver__ = F()", 10) == "ok"
            result = run_check(exercises["98.1"], KernelChannel(kernel, timeout=30))
            assert "The check could not" in str(result)
    finally:
        kernel.run_quietly("__course_driver__ = real_driver", 10)


def test_learner_input_during_a_check_fails_that_case_instead_of_hanging(exercises, kernel):
    assert kernel.run_quietly("def double(x):\n    return 2 * int(input() or x)", 10) == "ok"
    try:
        result = run_check(exercises["98.1"], KernelChannel(kernel, timeout=30))
        assert "Your code raised EOFError" in str(result)
    finally:
        kernel.run_quietly(TARGETS, 10)


def test_an_endless_target_is_interrupted_at_the_deadline(exercises, kernel):
    assert kernel.run_quietly("def double(x):\n    while True:\n        pass", 10) == "ok"
    try:
        with pytest.raises(CheckTimeout):
            run_check(exercises["98.1"], KernelChannel(kernel, timeout=1))
        assert kernel.is_alive()
    finally:
        kernel.run_quietly(TARGETS, 10)


ASK_CLAUDE = """
def ask_claude(client, question, *, model):
    reply = client.messages.create(
        model=model, max_tokens=256, messages=[{"role": "user", "content": question}]
    )
    return reply.content[0].text
"""


def _check_ask_claude(learner: Learner) -> str:
    session = learner.model(ScriptedPolicy(["上海多云。"]), model_name="check-model")
    client = learner.client(session, api="anthropic")
    got = learner.call("ask_claude", client, "上海天气？", model="check-model", case="ask(...)")
    expect_equal("ask_claude(...)", "上海多云。", got.value)
    [exchange] = session.exchanges
    expect_equal("the request", 256, exchange.request["max_tokens"])
    return "1 request"


def test_an_anthropic_client_reaches_the_grader_side_model_too(kernel):
    exercise("98.3", notebook="98_x", title="ask_claude", points=1, targets=("ask_claude",))(
        _check_ask_claude
    )
    try:
        namespace: dict = {}
        exec(ASK_CLAUDE, namespace)
        here = in_process(EXERCISES["98.3"], ask_claude=namespace["ask_claude"])
        assert kernel.run_quietly(ASK_CLAUDE, 30) == "ok"
        there = run_check(EXERCISES["98.3"], KernelChannel(kernel, timeout=30))
        assert here == there == "Exercise 98.3 passed: ask_claude (1 request)."
    finally:
        del EXERCISES["98.3"]


# --- one execute_request per check: the driver serves the requests over the stdin channel ------


def test_a_checks_requests_share_one_execute_request(exercises, kernel, monkeypatch):
    executes = []
    real_execute = kernel.kc.execute
    monkeypatch.setattr(
        kernel.kc, "execute", lambda *a, **k: executes.append(a) or real_execute(*a, **k)
    )
    channel = KernelChannel(kernel, timeout=30)
    result = run_check(exercises["98.1"], channel)
    assert "Case: double(1)" in str(result)  # describe + one call: two requests
    assert len(executes) == 1
    assert channel.serving is None  # closed: the kernel is free for the next cell
    monkeypatch.undo()
    assert kernel.run_quietly("after_the_check = 1", 10) == "ok"


def test_a_target_that_swallows_the_timeouts_interrupt_still_frees_the_kernel(exercises, kernel):
    swallowing = (
        "def double(x):\n"
        "    try:\n"
        "        while True:\n"
        "            pass\n"
        "    except KeyboardInterrupt:\n"
        "        return 2 * x\n"
    )
    assert kernel.run_quietly(swallowing, 10) == "ok"
    try:
        with pytest.raises(CheckTimeout):
            run_check(exercises["98.1"], KernelChannel(kernel, timeout=1))
        assert kernel.run_quietly("next_cell = 1", 10) == "ok"
    finally:
        kernel.run_quietly(TARGETS, 10)


FORGED_SERVES = {
    "returns at once": "def serve(self, first):\n        return 'done'\n",
    "answers with text that is not JSON": (
        "def serve(self, first):\n        input('course-driver:{not json')\n        return 'x'\n"
    ),
    "answers with a JSON list": (
        "def serve(self, first):\n        input('course-driver:[1, 2]')\n        return 'x'\n"
    ),
    "raises": "def serve(self, first):\n        raise RuntimeError('forged')\n",
}


@pytest.mark.parametrize("how", sorted(FORGED_SERVES))
def test_a_forged_serve_loop_is_a_failed_case_and_frees_the_kernel(exercises, kernel, how):
    assert kernel.run_quietly("real_driver = __course_driver__", 10) == "ok"
    forged = f"class F:\n    {FORGED_SERVES[how]}\n__course_driver__ = F()"
    try:
        assert kernel.run_quietly(forged, 10) == "ok"
        result = run_check(exercises["98.1"], KernelChannel(kernel, timeout=30))
        assert "The check could not" in str(result)
        assert kernel.run_quietly("next_cell = 1", 10) == "ok"
    finally:
        kernel.run_quietly("__course_driver__ = real_driver", 10)


def test_a_forged_serve_loop_that_never_answers_times_out(exercises, kernel):
    assert kernel.run_quietly("real_driver = __course_driver__", 10) == "ok"
    forged = "class F:\n    def serve(self, first):\n        while True:\n            pass\n"
    try:
        assert kernel.run_quietly(forged + "__course_driver__ = F()", 10) == "ok"
        with pytest.raises(CheckTimeout):
            run_check(exercises["98.1"], KernelChannel(kernel, timeout=1))
        assert kernel.run_quietly("next_cell = 1", 10) == "ok"
    finally:
        kernel.run_quietly("__course_driver__ = real_driver", 10)


def test_a_lone_surrogate_from_the_learners_code_reads_the_same_as_in_process(exercises, kernel):
    source = "def double(x):\n    return '\\ud800'\n"
    namespace: dict = {}
    exec(source, namespace)
    here = in_process(exercises["98.1"], double=namespace["double"])
    assert kernel.run_quietly(source, 10) == "ok"
    try:
        there = run_check(exercises["98.1"], KernelChannel(kernel, timeout=30))
        assert str(there) == str(here)
        assert 'Got:      "\ud800"' in str(there)
    finally:
        kernel.run_quietly(TARGETS, 10)


def test_a_check_queued_behind_a_failing_cell_is_sent_again_not_failed(exercises, kernel):
    """ipykernel cancels ("aborted") what was queued behind a cell that failed; a check that
    starts then must not read that as the notebook's answer."""
    executes = []
    real_execute = kernel.kc.execute

    def counting(*args, **kwargs):
        executes.append(args)
        return real_execute(*args, **kwargs)

    namespace: dict = {}
    exec(TARGETS, namespace)
    here = in_process(exercises["98.1"], double=namespace["double"])
    kernel.kc.execute("import time\ntime.sleep(1)\n1 / 0")  # the check is queued behind it
    kernel.kc.execute = counting
    try:
        there = run_check(exercises["98.1"], KernelChannel(kernel, timeout=30))
    finally:
        kernel.kc.execute = real_execute
    assert str(there) == str(here)
    assert len(executes) == 2  # aborted once, then served


def test_an_evaluation_queued_behind_a_failing_cell_is_sent_again(kernel):
    kernel.kc.execute("import time\ntime.sleep(1)\n1 / 0")
    assert kernel.evaluate("6 * 7") == 42
    kernel.kc.execute("import time\ntime.sleep(1)\n1 / 0")
    assert kernel.run_quietly("after = 1", 30) == "ok"


def test_the_drivers_own_failure_is_said_in_the_graders_language_and_a_forged_one_is_not(
    exercises, kernel
):
    """The kernel's driver fails (its ``handle`` replaced, raising): the grader says so in the
    language in force, the English as it always was; a forged reply's ``error_at`` chooses no
    sentence outside the catalog (its English ``error`` is said as it is)."""
    from course_lib.i18n import speaking

    broken = "__course_driver__.handle = lambda request: 1 / 0"
    assert kernel.run_quietly(broken, 10) == "ok"
    try:
        with speaking("zh-CN"):
            chinese = str(run_check(exercises["98.1"], KernelChannel(kernel, timeout=30)))
        english = str(run_check(exercises["98.1"], KernelChannel(kernel, timeout=30)))
    finally:
        kernel.run_quietly("del __course_driver__.handle", 10)
    assert "（笔记本里的驱动程序出错了：ZeroDivisionError：division by zero）" in chinese
    assert "(the notebook's driver failed: ZeroDivisionError: division by zero)" in english
    forged = (
        "def serve(self, first):\n"
        "        input('course-driver:' + json.dumps("
        "{'error': 'forged words', 'error_at': {'message': 'nope'}}))\n"
        "        return 'x'\n"
    )
    assert kernel.run_quietly("real_driver = __course_driver__", 10) == "ok"
    try:
        code = f"import json\nclass F:\n    {forged}\n__course_driver__ = F()"
        assert kernel.run_quietly(code, 10) == "ok"
        with speaking("zh-CN"):
            said = str(run_check(exercises["98.1"], KernelChannel(kernel, timeout=30)))
        assert "检查无法在笔记本里运行某个用例（forged words）" in said
    finally:
        kernel.run_quietly("__course_driver__ = real_driver", 10)
