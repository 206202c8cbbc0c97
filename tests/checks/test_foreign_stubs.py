"""``Learner.attempt(..., foreign_stubs_fail=True)``: another exercise's stub is an answer that is
not right yet, while the exercise's own stub still means "not done yet"."""

from __future__ import annotations

import pytest

from course_lib.checks import NotDoneYet
from course_lib.checks.channel import InProcessChannel
from course_lib.checks.learner import Learner


def learner_for(fn) -> Learner:
    return Learner(InProcessChannel({"fn": fn}), "01.4", ("fn",))


def raises(message: str):
    def fn():
        raise NotImplementedError(message)

    return fn


def test_another_exercises_stub_comes_back_as_a_raised_reply_when_asked():
    reply = learner_for(raises("Exercise 01.3: return the message")).attempt(
        "fn", foreign_stubs_fail=True
    )
    assert reply.raised_a("NotImplementedError")
    assert reply.message == "Exercise 01.3: return the message"


@pytest.mark.parametrize(
    "message", ["Exercise 01.4: ask, run, answer", "", "not written yet", "Exercise 1.3 later"]
)
def test_the_own_stub_or_any_other_not_implemented_error_is_still_not_done_yet(message):
    with pytest.raises(NotDoneYet):
        learner_for(raises(message)).attempt("fn", foreign_stubs_fail=True)


def test_without_the_flag_every_stub_is_not_done_yet_as_before():
    with pytest.raises(NotDoneYet, match="Exercise 01.3"):
        learner_for(raises("Exercise 01.3: return the message")).attempt("fn")
