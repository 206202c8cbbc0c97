"""The grader's limits are own time (``own_time``): wall time less the time the watched threads
waited for a CPU. So a busy machine cannot fail a correct answer, and an endless loop or an
endless sleep still ends at its limit.

The machine is made busy on purpose: three processes spinning on one CPU, with the work under
test pinned to the same CPU, so it gets about a quarter of it. Each test first shows that the
crowding happened (the work took longer on the clock than its limit) and then that the verdict
is the one an idle machine would give. No assertion here is about how fast anything ran: only
relations that hold at any load (own time is at least the time the thread ran, and less than the
wall time by the time it waited).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from course_lib.grading import own_time
from course_lib.grading.kernel import GuardedKernel
from course_lib.grading.own_time import OwnDeadline, cpu_wait, this_thread

pytestmark = pytest.mark.skipif(
    cpu_wait(this_thread()) is None or not hasattr(os, "sched_setaffinity"),
    reason="needs Linux's per-thread scheduler statistics and CPU affinity",
)
SPIN = "while True: pass"


@pytest.fixture
def crowded_cpu():
    """A CPU with three processes spinning on it, each already spinning; yields its number.

    Each in a session of its own: where Linux groups processes by session for scheduling
    (autogroup), a kernel (a session of its own) would otherwise get half the CPU against all
    three together, not a quarter."""
    cpu = max(os.sched_getaffinity(0))
    hogs = [
        subprocess.Popen(
            [sys.executable, "-c", f"print('spinning', flush=True)\n{SPIN}"],
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        for _ in range(3)
    ]
    try:
        for hog in hogs:
            os.sched_setaffinity(hog.pid, {cpu})
        for hog in hogs:
            assert hog.stdout.readline() == b"spinning\n"
        yield cpu
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def busy_for(cpu_seconds: float) -> None:
    started = time.thread_time()
    while time.thread_time() - started < cpu_seconds:
        pass


def in_thread_on(cpu: int, work) -> dict:
    """Run ``work(deadline_factory)`` in a new thread pinned to ``cpu``; what it returned."""
    found: dict = {}

    def run() -> None:
        os.sched_setaffinity(0, {cpu})  # this thread only
        found.update(work())

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return found


def test_own_time_leaves_out_the_time_spent_waiting_for_a_cpu(crowded_cpu):
    def work() -> dict:
        deadline = OwnDeadline(100.0, lambda: [this_thread()])
        ran = time.thread_time()
        busy_for(0.5)
        ran = time.thread_time() - ran
        return {"ran": ran, "wall": deadline.wall(), "own": deadline.used()}

    seen = in_thread_on(crowded_cpu, work)
    assert seen["wall"] > 2 * seen["ran"], seen  # it was crowded: most of its time was waiting
    # The thread's CPU clock and the scheduler's wait count (schedstat) are kept by different
    # clocks at different moments: on a crowded CPU beside two CPU hogs they were seen 7% apart
    # (own 0.464 s for 0.500 s run, wall 5.0 s). Own time is the run, not the wall, either way.
    assert seen["ran"] * 0.8 <= seen["own"] < seen["wall"] / 2, seen


def test_sleeping_counts_as_own_time():
    deadline = OwnDeadline(0.2, lambda: [this_thread()])
    assert not deadline.expired()
    time.sleep(0.25)
    assert deadline.expired()
    assert deadline.used() >= 0.2


def test_a_limit_ends_after_wall_factor_times_its_seconds_however_busy_the_machine(crowded_cpu):
    def work() -> dict:
        deadline = OwnDeadline(0.2, lambda: [this_thread()], wall_factor=2.0)
        while deadline.wall() < 0.4:
            pass
        return {"expired": deadline.expired(), "own": deadline.used(), "wall": deadline.wall()}

    seen = in_thread_on(crowded_cpu, work)
    assert seen["own"] < 0.2, seen  # by own time alone it would go on (the crowding is real)
    assert seen["expired"], seen


def test_a_thread_seen_later_is_watched_from_then_on(crowded_cpu):
    """A task the deadline first sees late (a kernel appearing) counts only its later waits."""
    tasks: list = []
    deadline = OwnDeadline(100.0, lambda: list(tasks))

    def work() -> dict:
        busy_for(0.2)  # waits while not watched yet
        tasks.append(this_thread())
        deadline.waited()  # first seen: its base is what it has waited until now
        before = deadline.waited()
        busy_for(0.2)
        return {"before": before, "after": deadline.waited()}

    seen = in_thread_on(crowded_cpu, work)
    assert seen["before"] < 0.05, seen
    assert seen["after"] > 0.2, seen


def new_kernel(folder: Path) -> GuardedKernel:
    folder.mkdir()
    return GuardedKernel(str(folder), memory_mb=2048, output_cap=100_000)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """The kernel the tests share (one started anew only if a test left it unable to run a
    cell), in a list that holds the current one."""
    root = tmp_path_factory.mktemp("kernels")
    held = [new_kernel(root / "0")]
    yield held, root
    held[0].stop()


@pytest.fixture
def kernel(kernels):
    """An idle kernel free to run a cell, on every CPU this process may use."""
    held, root = kernels
    if not (held[0].is_alive() and held[0].run_quietly("pass", 30) == "ok"):
        held[0].stop()
        held[0] = new_kernel(root / str(len(os.listdir(root))))
    yield held[0]
    for pid, _ in held[0]._kernel_tasks():
        os.sched_setaffinity(pid, os.sched_getaffinity(0))


def crowd(kernel: GuardedKernel, cpu: int) -> None:
    tasks = kernel._kernel_tasks()
    assert len(tasks) == 2, tasks  # the launcher and its kernel
    os.sched_setaffinity(tasks[1][0], {cpu})


def timed(kernel: GuardedKernel, code: str, timeout: float) -> tuple[str, float]:
    started = time.monotonic()
    status = kernel.run_quietly(code, timeout)
    return status, time.monotonic() - started


def test_a_cell_that_needs_less_cpu_than_its_timeout_passes_on_a_crowded_cpu(kernel, crowded_cpu):
    crowd(kernel, crowded_cpu)
    code = "import time\nt = time.thread_time()\nwhile time.thread_time() - t < 0.6: pass"
    status, wall = timed(kernel, code, 1.0)
    assert wall > 1.0  # it was crowded: on the clock it took longer than its timeout
    assert status == "ok"


def test_an_endless_loop_still_times_out_on_a_crowded_cpu(kernel, crowded_cpu):
    crowd(kernel, crowded_cpu)
    status, wall = timed(kernel, SPIN, 0.5)
    assert status == "timeout"
    assert kernel.run_quietly("1 + 1", 30) == "ok"  # interrupted, not dead


def test_an_endless_sleep_still_times_out(kernel):
    status, _ = timed(kernel, "import time\ntime.sleep(600)", 0.5)
    assert status == "timeout"


def test_without_own_time_the_crowded_cell_would_time_out(kernel, crowded_cpu, monkeypatch):
    """The control: the same cell, with the waiting counted as the cell's time."""
    monkeypatch.setattr(own_time.OwnDeadline, "waited", lambda self: 0.0)
    crowd(kernel, crowded_cpu)
    code = "import time\nt = time.thread_time()\nwhile time.thread_time() - t < 0.6: pass"
    status, _ = timed(kernel, code, 1.0)
    assert status == "timeout"
