"""``run_cases``: a function-style check as a table of cases, each judged against its oracle.

Most checks of a function are one loop: call the learner's function on a case, compare what
came back with the oracle's answer, and pick the hint from the likely mistakes. A ``Case``
holds one row of that table (its label as the failure shows it, the arguments, the expected
value, the hints); ``run_cases`` is the loop::

    cases = [Case(f"greeting({name!r})", (name,), expected_greeting(name), hints(name))
             for name in names]
    run_cases(learner, "greeting", cases)

A case that needs more than call-and-compare (a value read from the notebook, an exception the
function must raise) stays a function of the check; the table holds the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from course_lib.checks.compare import Hint, HintText, expect_equal
from course_lib.checks.learner import Learner, Reply


@dataclass(frozen=True)
class Case:
    """One call of the learner's function and what it must return.

    ``hints`` are likely mistakes on the returned value (predicate, hint), most specific first;
    ``raised`` the hints for an exception the function raised (predicate on the reply);
    ``hint`` a hint that overrides ``hints`` whatever came back."""

    label: str
    args: tuple[Any, ...]
    expected: Any
    hints: Sequence[Hint] = ()
    raised: Sequence[tuple[Any, HintText]] = ()
    hint: HintText | None = None


def run_cases(
    learner: Learner,
    target: str,
    cases: Iterable[Case],
    value: Callable[[str, Reply, Any], Any] | None = None,
) -> int:
    """Call ``target`` on every case in order; fail at the first wrong one. The number run.
    ``value(label, reply, expected)``, if given, reads the reply (``returned_json``)."""
    __tracebackhide__ = True
    count = 0
    for case in cases:
        reply = learner.call(target, *case.args, case=case.label, hints=case.raised)
        got = reply.value if value is None else value(case.label, reply, case.expected)
        expect_equal(case.label, case.expected, got, hint=case.hint, hints=case.hints)
        count += 1
    return count
