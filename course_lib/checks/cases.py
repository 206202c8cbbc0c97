"""The runner of function-style checks: a table of cases, each judged against its oracle.

Most checks of a function are one loop: call the learner's function on a case, compare what
came back with the oracle's answer, and pick the hint from the likely mistakes. A ``Case`` is one
row of that table; ``run_cases`` is the loop; a ``Table`` makes the rows of one exercise, so that
each row names a rule of its ``RULES`` and a hint of its ``HINTS`` that exist::

    TABLE = Table("greeting", RULES, HINTS, oracle=expected_greeting)
    ADA = TABLE.case("greeting('Ada')", "Ada", rule="returns", hints=hints("Ada"))
    ...
    count = TABLE.run(learner, [ADA, *hidden])   # or run_cases(learner, "greeting", cases)

The API (stable; other lessons' checks use it):

- ``Case(label, args, expected, hints=(), raised=(), hint=None, rule="", kwargs={},
  extra=None)``: the call ``target(*args, **kwargs)`` shown as ``label``; ``hints`` are likely
  mistakes on the returned value (predicate, hint), most specific first; ``raised`` the
  (predicate on the ``Reply``, hint) pairs for an exception it raised; ``hint`` a hint that
  overrides ``hints`` whatever came back (a judge of the check's own may read it otherwise);
  ``rule`` the id of the contract rule the case exercises (documentation, checked by
  ``Table``); ``extra`` whatever else the check's own judge needs to know of the case.
- ``run_cases(learner, target, cases, value=None, judge=None) -> int``: every case in order,
  failing at the first wrong one; the number run. ``value(label, reply, expected)`` reads the
  reply (default ``reply.value``; ``function_cases.returned_json`` for values that may not be
  JSON); ``judge(case, got, reply)`` fails a wrong value (default ``expect_equal`` with the
  case's ``hint`` and ``hints``).
- ``Table(target, rules, hints, *, oracle=None, value=None, judge=None, raised=())``:
  ``table.case(label, *args, expected=..., rule=..., hint=..., hints=..., raised=..., extra=...,
  **kwargs)`` makes a ``Case``, ``expected`` defaulting to ``oracle(*args, **kwargs)`` and
  ``raised`` to the table's; a ``rule`` that is no id of ``rules``, or a ``hint`` key (a plain
  ``str``; a ``HintText`` passes as it is) that ``hints`` lacks, is a ``LookupError`` when the
  row is made: at import for a module-level table. ``table.hint(key, **fields)`` is
  ``hints.hint`` with the same check, and ``table.run(learner, cases)`` is ``run_cases`` with
  the table's target, reader and judge.

A case that needs more than call-and-compare (a value read from the notebook, a model session)
stays a function of the check; the table holds the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Hint, HintText, expect_equal
from course_lib.checks.core import Rule
from course_lib.checks.learner import ExceptionHint, Learner, Reply

Reader = Callable[[str, Reply, Any], Any]
Judge = Callable[["Case", Any, Reply], None]
_ORACLE = object()  # ``Table.case``: no expected value given, ask the oracle


@dataclass(frozen=True)
class Case:
    """One call of the learner's function and what it must return (see the module)."""

    label: str
    args: tuple[Any, ...]
    expected: Any
    hints: Sequence[Hint] = ()
    raised: Sequence[ExceptionHint] = ()
    hint: HintText | None = None
    rule: str = ""
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    extra: Any = None


def judge_equal(case: Case, got: Any, reply: Reply) -> None:
    """The default judge: ``got`` equals ``case.expected`` as JSON, else the case's hint."""
    __tracebackhide__ = True
    expect_equal(case.label, case.expected, got, hint=case.hint, hints=case.hints)


def run_cases(
    learner: Learner,
    target: str,
    cases: Iterable[Case],
    value: Reader | None = None,
    judge: Judge | None = None,
) -> int:
    """Call ``target`` on every case in order; fail at the first wrong one. The number run."""
    __tracebackhide__ = True
    count = 0
    for case in cases:
        reply = learner.call(target, *case.args, case=case.label, hints=case.raised, **case.kwargs)
        got = reply.value if value is None else value(case.label, reply, case.expected)
        (judge or judge_equal)(case, got, reply)
        count += 1
    return count


@dataclass(frozen=True)
class Table:
    """The cases of one exercise's ``target``: rows naming its rules and hints, checked as made."""

    target: str
    rules: Sequence[Rule] = ()
    hints: Catalog = field(default_factory=Catalog)
    oracle: Callable[..., Any] | None = None
    value: Reader | None = None
    judge: Judge | None = None
    raised: Sequence[ExceptionHint] = ()

    def hint(self, key: str, **fields: Any) -> HintText:
        self.hints.require([key], owner=f"the table of {self.target}")
        return self.hints.hint(key, **fields)

    def case(
        self,
        label: str,
        *args: Any,
        expected: Any = _ORACLE,
        rule: str = "",
        hint: str | None = None,
        hints: Sequence[Hint] = (),
        raised: Sequence[ExceptionHint] | None = None,
        extra: Any = None,
        **kwargs: Any,
    ) -> Case:
        if rule and all(known.id != rule for known in self.rules):
            raise LookupError(f"the cases of {self.target}: no rule {rule!r} in its RULES")
        if hint is not None and not isinstance(hint, HintText):
            hint = self.hint(hint)
        if expected is _ORACLE:
            expected = self.oracle(*args, **kwargs)  # type: ignore[misc] (a table without one)
        raised = self.raised if raised is None else raised
        return Case(label, args, expected, hints, raised, hint, rule, kwargs, extra)

    def run(self, learner: Learner, cases: Iterable[Case]) -> int:
        __tracebackhide__ = True
        return run_cases(learner, self.target, cases, self.value, self.judge)
