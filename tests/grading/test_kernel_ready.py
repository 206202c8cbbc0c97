"""A grading kernel counts as ready only when every channel the grader talks on has connected;
one that does not become ready is started once more, and then its notebook says that the grader
could not start a kernel (status ``error``), never a silent zero or a ``timeout``; one whose
heartbeat falls silent counts as dead.

The fault these tests pin down: a kernel forked from the zygote answered ``kernel_info`` before
the grader's stdin channel had connected, so the first ``input_request`` of a check (how the
driver answers) was dropped, and a correct answer was graded ``timeout`` after the whole cell
timeout. The stdin socket is made to connect late here (its retries 1.5 s apart), so the race
is lost every time unless readiness waits for the connection.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from queue import Empty

import pytest
from attacks.machine import eventually
from grading_lesson import CHECK_MODULE, SLUG, SOLUTIONS, submission, write
from jupyter_client.blocking.client import BlockingKernelClient

from course_lib.cli import main
from course_lib.grading import kernel as kernel_module
from course_lib.grading import kernel_client, kernel_zygote
from course_lib.grading.isolation import kernel_environment
from course_lib.grading.kernel import GuardedKernel, KernelDied, KernelNotReady
from course_lib.grading.plugin import GradingSession, KernelStartFailed

LATE_MS = 1500


@pytest.fixture(scope="module")
def module_zygote():
    """One zygote for this module's tests that fork their kernels from one; set aside (the
    grader's side holds none) outside those tests, so that the others' kernels are exec'd."""
    if not kernel_zygote.wanted():
        pytest.skip("the zygote is Linux-only")
    kernel_zygote.start(kernel_environment(dict(os.environ), home="/", runtime="/"))
    held = (kernel_zygote._control, kernel_zygote._process)
    kernel_zygote._control = kernel_zygote._process = None
    yield held
    kernel_zygote._control, kernel_zygote._process = held
    kernel_zygote.stop()


def use(held, monkeypatch) -> None:
    """The module's zygote is the grader's for this test alone, and still serving."""
    assert held[1].poll() is None
    monkeypatch.setattr(kernel_zygote, "_control", held[0])
    monkeypatch.setattr(kernel_zygote, "_process", held[1])
    assert kernel_zygote.available()


@pytest.fixture(params=["zygote", "exec"])
def how_started(request, monkeypatch):
    """Kernels forked by the module's zygote, or started with exec."""
    if request.param == "zygote":
        use(request.getfixturevalue("module_zygote"), monkeypatch)
    else:
        assert not kernel_zygote.available()
    return request.param


@pytest.fixture
def zygote(module_zygote, monkeypatch):
    use(module_zygote, monkeypatch)


@pytest.fixture
def late_stdin(monkeypatch):
    """The grader's stdin socket retries its connection only every 1.5 s (the others every
    10 ms): it connects well after the kernel answers on shell and IOPub."""

    def connect_stdin(self, identity=None):
        usual, kernel_client.RECONNECT_MS = kernel_client.RECONNECT_MS, LATE_MS
        try:
            return BlockingKernelClient.connect_stdin(self, identity)
        finally:
            kernel_client.RECONNECT_MS = usual

    monkeypatch.setattr(kernel_client.GradingClient, "connect_stdin", connect_stdin)


def start_kernel(tmp_path: Path, name: str = "w") -> GuardedKernel:
    workdir = tmp_path / name
    workdir.mkdir()
    return GuardedKernel(str(workdir), memory_mb=2048, output_cap=100_000)


def test_the_first_input_request_reaches_the_grader_when_stdin_connects_late(
    how_started, late_stdin, tmp_path
):
    kernel = start_kernel(tmp_path)
    try:
        kernel.kc.execute("answer = input('asked?')", allow_stdin=True, store_history=False)
        # Without the wait the request went out before stdin had connected: never asked.
        assert kernel.kc.stdin_channel.socket.poll(5000), "the input_request was dropped"
        request = kernel.kc.stdin_channel.get_msg(timeout=1)
        assert request["content"]["prompt"] == "asked?"
        kernel.kc.input("yes")
        assert kernel.evaluate("answer") == "yes"
    finally:
        kernel.stop()


def test_a_kernel_is_not_ready_before_its_stdin_channel_connects(late_stdin, tmp_path):
    kernel = start_kernel(tmp_path)
    try:
        # The stdin socket's first try came before the kernel had bound its socket: the next
        # comes 1.5 s later, and readiness waited for it.
        handshakes = [socket.handshakes for socket in kernel.kc.channel_sockets()]
        assert all(monitor is not None for monitor in handshakes)
        assert all(socket.connected for socket in kernel.kc.channel_sockets())
    finally:
        kernel.stop()


def test_readiness_gives_up_with_a_clear_error_when_a_channel_never_connects(
    zygote, monkeypatch, tmp_path
):
    monkeypatch.setattr(kernel_module, "READY_SECONDS", 3.0)

    def nowhere(self, identity=None):  # a stdin channel pointed at a socket nobody binds
        socket = self.context.socket(kernel_client.zmq.DEALER)
        socket.connect(f"ipc://{tmp_path}/nobody-binds-this")
        return socket

    monkeypatch.setattr(kernel_client.GradingClient, "connect_stdin", nowhere)
    with pytest.raises(KernelNotReady, match="channels did not all connect within 3 s"):
        start_kernel(tmp_path)


def plan(**changes) -> dict:
    return {"cells": [], "cell_timeout": 30, "memory_mb": 2048, "output_cap": 100_000, **changes}


def test_a_kernel_that_is_not_ready_in_time_is_started_once_more(monkeypatch, tmp_path):
    budgets = []
    real = GuardedKernel._wait_until_ready

    def first_too_short(self, timeout):
        budgets.append(timeout)
        return real(self, 0.0 if len(budgets) == 1 else timeout)

    monkeypatch.setattr(GuardedKernel, "_wait_until_ready", first_too_short)
    session = GradingSession(plan(), None)
    kernel = session.new_kernel("", str(tmp_path))
    try:
        assert len(budgets) == 2
        assert budgets[1] == kernel_module.READY_SECONDS
        assert kernel.evaluate("1 + 1") == 2
        assert session.start_failure is None
    finally:
        kernel.stop()


def test_two_failed_starts_end_the_notebook_with_both_reasons(monkeypatch, tmp_path):
    real = GuardedKernel._wait_until_ready
    monkeypatch.setattr(GuardedKernel, "_wait_until_ready", lambda self, _t: real(self, 0.0))
    session = GradingSession(plan(), None)
    with pytest.raises(KernelStartFailed, match=r"within 0 s; then .*within 0 s"):
        session.new_kernel("", str(tmp_path))
    # Later cells do not try again: each start costs up to READY_SECONDS.
    monkeypatch.setattr(GuardedKernel, "_wait_until_ready", real)
    with pytest.raises(KernelStartFailed):
        session.new_kernel("", str(tmp_path))


def test_a_kernel_whose_heartbeat_falls_silent_counts_as_dead(monkeypatch, tmp_path):
    kernel = start_kernel(tmp_path)
    try:
        pid = kernel.km.provisioner.process.pid
        assert kernel.is_alive()
        monkeypatch.setattr(kernel_module, "HEARTBEAT_SILENCE", 1.0)
        os.killpg(pid, signal.SIGSTOP)  # the launcher and the kernel stop: nothing answers
        try:
            assert eventually(lambda: not kernel.is_alive(), 30)
            assert kernel.km.is_alive()  # the processes are still there, only silent
            assert "stopped answering: no heartbeat for 1 s" in kernel.exit_description()
            with pytest.raises(KernelDied, match="stopped answering"):
                kernel.get_message("shell", timeout=None)
        finally:
            os.killpg(pid, signal.SIGCONT)
    finally:
        kernel.stop()


def test_a_notebook_whose_kernel_cannot_start_is_an_error_saying_so(tmp_path, canonical_dir):
    """End to end: a memory limit no kernel can start under (the kernel dies as it starts)."""
    write(tmp_path / "class" / "ann" / f"{SLUG}.ipynb", submission(dict(SOLUTIONS)))
    out = tmp_path / "out"
    code = main(
        ["grade", str(tmp_path / "class"), "--out", str(out), "--canonical", str(canonical_dir)]
        + ["--checks", CHECK_MODULE, "--memory-mb", "40"]
    )
    assert code == 0
    rows = json.loads((out / "grades.json").read_text(encoding="utf-8"))["grades"]
    assert {row["status"] for row in rows} == {"error"}
    assert all(row["points"] == 0 for row in rows)
    for row in rows:
        assert row["message"].startswith("the grader could not start a kernel"), row["message"]
        assert "; then " in row["message"]  # it was tried twice


def test_a_kernel_still_starting_is_not_judged_by_its_heartbeat(monkeypatch, tmp_path):
    """Before readiness the heartbeat is not armed: a slow start (an exec'd kernel on a busy
    machine answers its first ping seconds after the grader began pinging) is readiness's to
    judge, within READY_SECONDS; from readiness on, silence counts."""
    clock = kernel_client.HeartbeatClock(address="ipc:///nowhere")
    clock.call_handlers(3.0)  # a missed beat while the kernel starts
    assert clock.silent_for() == 0.0
    clock.arm()
    clock.call_handlers(3.0)
    assert clock.silent_for() >= 3.0
    monkeypatch.setenv("COURSE_GRADE_ZYGOTE", "0")
    kernel = start_kernel(tmp_path)
    try:
        assert kernel.kc.hb_channel.armed  # armed by readiness
        assert kernel.evaluate("6 * 7") == 42
    finally:
        kernel.stop()


def test_get_message_still_times_out_when_the_kernel_is_merely_quiet(tmp_path):
    kernel = start_kernel(tmp_path)
    try:
        with pytest.raises(Empty):
            kernel.get_message("shell", timeout=0.5)
        assert kernel.is_alive()
    finally:
        kernel.stop()
