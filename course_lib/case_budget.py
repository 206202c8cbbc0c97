"""A bound on one call into learner code that does not depend on how busy the machine is.

A check calls the learner's function in the learner's own kernel (in process in the notebook,
through the driver when grading). A function that never returns (08.2's ``_2`` added and then
cut away again; an agent loop whose exit test never holds) would hang the check cell with no word
of why. A bound in wall-clock seconds was tried and reverted (cb18d18): under load a slow but
finite wrong answer was cut as "endless". So a call is bounded by what it *does*, which the
machine's load does not change:

- **model requests**: at most ``MAX_REQUESTS`` in one call (the course's loops make a dozen at
  most, its endless models give up after twelve turns). Counted in every thread; the request past
  the bound is not sent, and :class:`EndlessLoop` is raised where it was made. Exact: the same
  answer is cut at the same request on every run.
- **CPU time of the calling thread** spent in the learner's code: at most ``CPU_SECONDS``. The
  model answering (in process, in the same thread) is not counted. A watchdog thread reads the
  thread's CPU clock every ``POLL`` seconds and, past the bound, interrupts the main thread
  (``_thread.interrupt_main`` with ``SIGXCPU``, whose handler raises :class:`EndlessLoop`). How
  soon the watchdog looks depends on the load; *whether* the bound is passed does not (a thread
  that waits uses no CPU time).

The CPU bound works only where it can: on the main thread (a Python signal handler runs there),
with ``time.pthread_getcpuclockid`` (Linux; not macOS or Windows), and while nobody else handles
``SIGXCPU``. Elsewhere only the request bound holds, and the grader's cell timeout stays the last
resort, as it is for what neither bound sees: a thread that sleeps forever, one long C call
(``9 ** 9 ** 9``), a worker thread spinning while the main thread waits for it, or learner code
that catches ``BaseException`` (a bare ``except:``) every time it is interrupted.
"""

from __future__ import annotations

import _thread
import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

# CPU seconds a call may spend in the learner's code. The course's answers use milliseconds (the
# slowest case measured, 08.1's server behind a real MCP client, well under one second); a
# slow but finite wrong answer is far below this too, and CPU time does not grow with the load.
CPU_SECONDS = 10.0
# Model requests in one call: the course's loops make at most a dozen (max_turns, the endless
# models' caps of 12 and 3 x MAX_TURNS), so a hundred is an answer that does not stop.
MAX_REQUESTS = 100
POLL = 0.05  # seconds between two looks of the watchdog at the CPU clock


class EndlessLoop(BaseException):
    """The call passed its bound. A ``BaseException``: the learner's ``except Exception`` must not
    swallow it."""


@dataclass
class Budget:
    """One call's bound and what it has used so far."""

    cpu_seconds: float | None
    max_requests: int | None
    requests: int = 0
    tripped: dict[str, float] | None = None  # {"cpu": seconds} or {"requests": count}
    thread: int = field(default_factory=threading.get_ident)
    clock: int | None = None  # the calling thread's CPU clock, when the CPU bound is in force
    start: float = 0.0
    excluded: float = 0.0  # CPU seconds of the calling thread spent outside learner code
    outside_since: float | None = None
    pending: bool = False  # tripped while outside learner code: raise once back in it

    def cpu_used(self) -> float:
        """CPU seconds the calling thread has spent in the learner's code in this call."""
        if self.clock is None:
            return 0.0
        now = self.outside_since if self.outside_since is not None else self._now()
        return now - self.start - self.excluded

    def _now(self) -> float:
        return time.clock_gettime(self.clock) if self.clock is not None else 0.0


class _State:
    budget: Budget | None = None
    lock = threading.Lock()
    wake = threading.Condition(lock)
    watchdog: threading.Thread | None = None


_state = _State()


def can_bound_cpu() -> bool:
    """Whether a call made now can get the CPU bound (see the module docstring for when not)."""
    return (
        hasattr(time, "pthread_getcpuclockid")
        and hasattr(signal, "SIGXCPU")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGXCPU) in (signal.SIG_DFL, None)
    )


@contextlib.contextmanager
def bounded(
    cpu_seconds: float | None = CPU_SECONDS, max_requests: int | None = MAX_REQUESTS
) -> Iterator[Budget]:
    """Run the body under a fresh budget and yield it; ``budget.tripped`` says afterwards whether
    it was passed (the body may have caught the interruption). A budget already in force (a
    nested call) is kept, unchanged."""
    if _state.budget is not None:
        yield _state.budget
        return
    budget = Budget(cpu_seconds, max_requests)
    previous = None
    if cpu_seconds is not None and can_bound_cpu():
        previous = signal.signal(signal.SIGXCPU, _interrupted)
        budget.clock = time.pthread_getcpuclockid(budget.thread)
        budget.start = budget._now()
    with _state.lock:
        _state.budget = budget
        if budget.clock is not None:
            _start_watchdog()
            _state.wake.notify_all()
    try:
        yield budget
    finally:
        # First, before anything that could run the handler: from here on it does nothing.
        _state.budget = None
        if previous is not None:
            signal.signal(signal.SIGXCPU, previous)


@contextlib.contextmanager
def model_request() -> Iterator[None]:
    """Wrap one request to the model: counted (the one past the bound raises instead of being
    sent), and, in the calling thread, its CPU time left out of the learner's."""
    budget = _state.budget
    if budget is None:
        yield
        return
    with _state.lock:
        budget.requests += 1
        over = budget.max_requests is not None and budget.requests > budget.max_requests
        if over and budget.tripped is None:
            budget.tripped = {"requests": budget.max_requests}
    if over:
        raise EndlessLoop("requests")
    if threading.get_ident() != budget.thread or budget.clock is None:
        yield
        return
    budget.outside_since = budget._now()
    try:
        yield
    finally:
        budget.excluded += budget._now() - budget.outside_since
        budget.outside_since = None
        if budget.pending:
            budget.pending = False
            raise EndlessLoop("cpu")


def _interrupted(signum: int, frame: object) -> None:
    """The ``SIGXCPU`` handler while a CPU bound is in force: end the learner's code."""
    budget = _state.budget
    if budget is None or budget.tripped is None:
        return  # a late interruption: the call has returned
    if budget.outside_since is not None:
        budget.pending = True  # never cut an exchange with the model in half
        return
    raise EndlessLoop("cpu")


def _start_watchdog() -> None:
    if _state.watchdog is None or not _state.watchdog.is_alive():
        _state.watchdog = threading.Thread(target=_watch, name="case-budget", daemon=True)
        _state.watchdog.start()


def _watch() -> None:
    """Look at the bounded thread's CPU clock every ``POLL`` seconds while a bound is in force;
    past it, interrupt the main thread (again at every look, until the call has returned)."""
    with _state.lock:
        while True:
            budget = _state.budget
            if budget is None or budget.clock is None:
                _state.wake.wait()
                continue
            _state.wake.wait(POLL)
            if _state.budget is not budget or budget.cpu_seconds is None:
                continue
            if budget.tripped is None and budget.cpu_used() > budget.cpu_seconds:
                budget.tripped = {"cpu": budget.cpu_seconds}
            if budget.tripped is not None and "cpu" in budget.tripped:
                _thread.interrupt_main(signal.SIGXCPU)
