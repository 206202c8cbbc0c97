"""A time bound for one case of a check: learner code that never returns is stopped.

A check calls the learner's function in the learner's own kernel (in process in the notebook,
through the driver when grading). A function that loops forever (08.2's ``_2`` added and then
cut away again) would hang the check cell with no word of why. So the driver runs each call
into learner code under :func:`bounded`: when it has not returned within the case's seconds, a
``SIGALRM`` timer raises :class:`CaseTimedOut` in the main thread, inside the learner's code,
and the case fails as a normal failed check ("did not finish"), not as the grader's cell
``timeout``: the bound (``CASE_SECONDS``) is shorter than the grader's cell timeout (30 s).

The bound is wall-clock time, the model's answers included (they take milliseconds). An alarm
that goes off while the driver's model link is busy (:func:`outside_learner_code`) waits until
the link is back in the learner's code, so an exchange with the grader is never cut in half.

Where it cannot bound, it does nothing and the call runs as it always did (the grader's cell
timeout is then the only bound): off the main thread (signals reach only the main thread),
without ``signal.setitimer`` (Windows), or while another ``ITIMER_REAL`` timer is armed (a
bound of someone else's is left alone). It cannot interrupt one long C call (``9 ** 9 ** 9``)
before it returns, and learner code that catches ``BaseException`` (a bare ``except:``) can
swallow the interruption; the grader's cell timeout still ends both.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

# Seconds a call into learner code may run: generous (the course's cases return in
# milliseconds; a loaded two-core machine is far from ten seconds), and shorter than the
# grader's cell timeout (30 s), so that a case cut here is a failed check, not a timeout.
CASE_SECONDS = 10.0
RETRY_SECONDS = 0.05  # an alarm during the model's answer looks again this much later


class CaseTimedOut(BaseException):
    """The case's time ran out inside the learner's code. A ``BaseException``: the learner's
    ``except Exception`` must not swallow it."""


class _State:
    armed = False  # a bound of ours is running
    outside = 0  # how many model exchanges are under way (the clock's alarm waits for them)


_state = _State()


def can_bound(seconds: float | None) -> bool:
    """Whether a call made now can be bounded (see the module's docstring for when not)."""
    return (
        seconds is not None
        and seconds > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and not _state.armed
        and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    )


def _expire(signum: int, frame: object) -> None:
    if not _state.armed:
        return  # a late alarm: the call has returned
    if _state.outside:
        signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)
        return
    _state.armed = False
    raise CaseTimedOut


@contextlib.contextmanager
def bounded(seconds: float | None) -> Iterator[bool]:
    """Run the body with at most ``seconds`` of wall-clock time, raising ``CaseTimedOut`` in it
    when they run out; yields whether a bound is in force. The timer is disarmed and the
    previous ``SIGALRM`` handler restored on every way out."""
    if not can_bound(seconds):
        yield False
        return
    previous = signal.signal(signal.SIGALRM, _expire)
    _state.armed, _state.outside = True, 0
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield True
    finally:
        try:
            _state.armed = False  # from here on, an alarm is ignored
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def outside_learner_code() -> Iterator[None]:
    """Mark the body (the model answering) as not the learner's code: an alarm waits for it."""
    _state.outside += 1
    try:
        yield
    finally:
        _state.outside -= 1
