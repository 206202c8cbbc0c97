"""Every exercise of lesson 05 says "not done yet" while its target is still the stub."""

from __future__ import annotations

from typing import Any

import pytest

from course_lib.checks import NotDoneYet, evaluate


@pytest.mark.parametrize("exercise_id", ["05.1", "05.2", "05.3", "05.4", "05.5", "05.6"])
def test_a_stub_is_not_done_yet(exercise_id):
    def stub(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"Exercise {exercise_id}: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate(exercise_id, stub)
