"""Own time: how long a piece of work took on the clock, less the time it spent waiting for a CPU.

A grading limit in plain wall-clock seconds depends on how busy the machine is: on a 2-core
machine running a class's kernels side by side (or the test suite beside other jobs), a cell that
needs one second of work can take four on the clock, all of it spent queued behind other
processes, and a 2 s cell timeout would fail a correct answer. Linux counts, for every thread,
the time it was runnable but waiting for a CPU: the second field of
``/proc/<pid>/task/<tid>/schedstat`` (nanoseconds; the first is the time it ran). The grader's
limits (cell timeout, replays, the check's calls, a new kernel's start) are measured in *own
time*: the wall time since the limit started, less the longest CPU wait of the threads the work
goes through (the grader's thread that waits, the launcher, the kernel's main thread). The
longest wait, not their sum: threads wait at the same moments, and a sum would subtract a
moment twice.

What still counts in full: running (an endless loop ends at its limit, load or not) and sleeping
or blocking (an endless ``time.sleep`` too). What is bounded anyway: a limit never lasts longer
than ``WALL_FACTOR`` times its seconds on the clock, so a machine that is busy beyond that still
ends every limit (the documented worst case). Where ``schedstat`` cannot be read (not Linux, or
a kernel built without scheduler statistics) own time is wall time, as before.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable

# A limit of s seconds of own time ends after at most WALL_FACTOR * s seconds on the clock.
WALL_FACTOR = 4.0
Task = tuple[int, int]  # (process id, thread id) as the host's /proc numbers them


def cpu_wait(task: Task) -> float | None:
    """Seconds ``task`` has spent runnable but waiting for a CPU since it started, or ``None``
    when the system does not say (the thread is gone, or there is no ``schedstat``)."""
    pid, tid = task
    try:
        with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as handle:
            fields = handle.read().split()
        return int(fields[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def this_thread() -> Task:
    return (os.getpid(), threading.get_native_id())


def main_thread(pid: int | None) -> list[Task]:
    return [] if pid is None else [(pid, pid)]


def only_child(pid: int | None) -> int | None:
    """The one child process of ``pid`` (a launcher's kernel), or ``None``."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as handle:
            children = handle.read().split()
    except OSError:
        return None
    return int(children[0]) if len(children) == 1 else None


class OwnDeadline:
    """A limit of ``seconds`` of own time for the work of the threads ``tasks()`` names (asked
    again at every reading, so a kernel that appears later is watched from then on)."""

    def __init__(
        self,
        seconds: float,
        tasks: Callable[[], Iterable[Task]] = lambda: (),
        *,
        wall_factor: float = WALL_FACTOR,
    ) -> None:
        self.seconds = seconds
        self.tasks = tasks
        self.wall_limit = seconds * wall_factor
        self.started = time.monotonic()
        self._base: dict[Task, float] = {}
        self.waited()

    def waited(self) -> float:
        """The longest CPU wait of a watched thread since the limit started (or since the
        thread was first seen)."""
        longest = 0.0
        for task in self.tasks():
            now = cpu_wait(task)
            if now is None:
                continue
            base = self._base.setdefault(task, now)
            longest = max(longest, now - base)
        return longest

    def wall(self) -> float:
        return time.monotonic() - self.started

    def used(self) -> float:
        """Own time used so far."""
        return max(0.0, self.wall() - self.waited())

    def left(self) -> float:
        """Seconds until the limit ends if nothing waits from now on (never below 0)."""
        wall = self.wall()
        if wall < self.seconds:  # own time is never more than wall time: no need to read
            return self.seconds - wall
        return max(0.0, min(self.seconds - (wall - self.waited()), self.wall_limit - wall))

    def expired(self) -> bool:
        return self.left() <= 0.0
