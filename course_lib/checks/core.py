"""The registry of exercises and ``check()``, the entry point of every check cell.

A check is written once, as a function of a :class:`~course_lib.checks.learner.Learner`: it
sends the learner's code inputs and gets plain data back (see ``learner.py``), so it can run on
either side of a channel. In the learner's notebook ``check("NN.K", target, ...)`` runs it in
process; when grading, the grader runs the very same function in its own process and the
learner's kernel only answers its requests (``course_lib.grading``). Either way it raises
``CheckFailed`` (an ``AssertionError``) with a message built from fields (``failures.py``), or
prints one short line on success.

Writing a check: one module per exercise under ``course_lib/checks/<lesson>/``, with a table of
cases (each naming the rule of the contract it tests), an oracle, and the hints::

    @exercise("00.1", notebook="00_welcome", title="greeting", points=1, targets=("greeting",),
              rules=RULES)
    def check_greeting(learner: Learner) -> str:
        for name in names:
            case = f"greeting({name!r})"
            got = learner.call("greeting", name, case=case)
            expect_equal(case, expected_greeting(name), got.value, hints=hints(name))
        return f"{len(names)} cases"

Older checks (``legacy=True``) still receive the target objects themselves; they run only in the
learner's kernel and are being moved to the form above.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from course_lib.checks import messages
from course_lib.checks.compare import (  # noqa: F401 (re-exported for the older check modules)
    MAX_SHOWN_CHARS,
    Hint,
    first_difference,
    hidden_rng,
    json_equal,
    json_type,
    matching_hint,
    pick_hint,
    show,
)
from course_lib.checks.failures import CheckFailed, Failure, NotDoneYet

GENERIC_HINT = messages.say("generic")


class UnknownExercise(LookupError):
    """``check()`` was called with an exercise id that no checks module registered."""


@dataclass(frozen=True)
class Rule:
    """One rule of an exercise's contract, as the notebook's contract list states it.

    ``case`` is the label of the first case that fails when an answer breaks this rule (and only
    this rule), and ``hint`` the key of the hint that failure carries; the check's tests prove
    both with a wrong answer per rule (``tests/checks/rules.py``)."""

    id: str
    text: str
    case: str = ""
    hint: str = ""


@dataclass(frozen=True)
class Exercise:
    """One exercise: where it lives, its points and rules, and the function that checks it."""

    id: str
    notebook: str
    title: str
    points: int
    targets: tuple[str, ...]
    run: Callable[..., str | None]
    rules: tuple[Rule, ...] = ()
    legacy: bool = False

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(f"exercise {self.id} has no rule {rule_id!r}")


EXERCISES: dict[str, Exercise] = {}


def exercise(
    id: str,
    *,
    notebook: str,
    title: str,
    points: int,
    targets: Sequence[str],
    rules: Sequence[Rule] = (),
    legacy: bool = False,
) -> Callable[[Callable[..., str | None]], Callable[..., str | None]]:
    """Register the check of exercise ``id``. It returns an optional short summary (for example
    ``"12 cases"``) that the success line shows, and raises ``CheckFailed`` on a wrong case."""

    def register(run: Callable[..., str | None]) -> Callable[..., str | None]:
        if id in EXERCISES:
            raise ValueError(f"exercise {id!r} is registered twice; each id needs one check")
        if points <= 0:
            raise ValueError(f"exercise {id!r} must be worth at least one point, not {points}")
        EXERCISES[id] = Exercise(
            id, notebook, title, points, tuple(targets), run, tuple(rules), legacy
        )
        return run

    return register


# --- the learner's entry point ----------------------------------------------------------------


def check(exercise_id: str, *targets: Any) -> None:
    """Check the learner's ``targets`` for exercise ``exercise_id``; print one line on success."""
    __tracebackhide__ = True  # pytest hides this frame; IPython shows only the message
    result = outcome(exercise_id, *targets)
    if isinstance(result, Exception):
        raise result from None
    print(result)


def evaluate(exercise_id: str, *targets: Any) -> str:
    """Like ``check`` but return the success line instead of printing it."""
    __tracebackhide__ = True
    result = outcome(exercise_id, *targets)
    if isinstance(result, Exception):
        raise result from None
    return result


def outcome(exercise_id: str, *targets: Any) -> str | Exception:
    """The success line, or the exception to raise (``CheckFailed``, ``NotDoneYet``, or an
    ``UnknownExercise`` / ``TypeError`` when the check cell itself was changed)."""
    spec = EXERCISES.get(exercise_id)
    if spec is None:
        return unknown_exercise(exercise_id)
    if len(targets) != len(spec.targets):
        names = ", ".join(spec.targets)
        return TypeError(
            messages.say(
                "wrong_target_count",
                id=exercise_id,
                count=len(spec.targets),
                names=names,
                given=len(targets),
            )
        )
    if spec.legacy:
        return _legacy_outcome(spec, targets)
    from course_lib.checks.channel import InProcessChannel

    return run_check(spec, InProcessChannel(dict(zip(spec.targets, targets, strict=True))))


def unknown_exercise(exercise_id: str) -> UnknownExercise:
    known = ", ".join(sorted(EXERCISES)) or "none registered"
    return UnknownExercise(messages.say("unknown_exercise", id=repr(exercise_id), known=known))


def run_check(spec: Exercise, channel: Any) -> str | CheckFailed:
    """Run ``spec``'s check over ``channel``: the success line, or the failure (never raised).

    This is the one place both channels meet: the learner's ``check()`` and the grader."""
    from course_lib.checks.learner import Learner

    learner = Learner(channel, spec.id, spec.targets)
    try:
        for name in spec.targets:
            if learner.describe(name).get("is_ellipsis"):
                raise NotDoneYet(Failure(detail=messages.say("placeholder", name=name)))
        summary = spec.run(learner)
        if isinstance(summary, list):  # scenario outcomes: partial credit
            from course_lib.checks.scenarios import PartlyRight

            if not all(outcome.passed for outcome in summary):
                raise PartlyRight(summary)
            line = Passed(passed_line(spec, messages.say("scenarios_passed", count=len(summary))))
            line.scenarios = tuple(summary)
            return line
    except CheckFailed as failed:
        return failed.for_exercise(spec.id, spec.title)
    return passed_line(spec, summary)


class Passed(str):
    """A success line that also carries the scenario outcomes of a scenario check."""

    scenarios: tuple = ()


def passed_line(spec: Exercise, summary: str | None) -> str:
    if summary:
        return messages.say("passed_summary", id=spec.id, title=spec.title, summary=summary)
    return messages.say("passed", id=spec.id, title=spec.title)


def _legacy_outcome(spec: Exercise, targets: tuple[Any, ...]) -> str | Exception:
    for name, target in zip(spec.targets, targets, strict=True):
        if target is ...:
            return NotDoneYet(Failure(detail=messages.say("placeholder", name=name))).for_exercise(
                spec.id, spec.title
            )
    try:
        summary = spec.run(*targets)
    except NotDoneYet as exc:
        return exc.for_exercise(spec.id, spec.title)
    except NotImplementedError as exc:
        return NotDoneYet(Failure(detail=messages.stub_text(str(exc)))).for_exercise(
            spec.id, spec.title
        )
    except CheckFailed as exc:
        return exc.for_exercise(spec.id, spec.title)
    return passed_line(spec, summary)


# --- helpers of the older checks (``legacy=True``), which hold the learner's objects ----------


def fail(
    case: str, expected: Any, got: Any, hint: str = GENERIC_HINT, *, detail: str | None = None
) -> None:
    """Raise ``CheckFailed`` for ``case``: expected, got, an optional detail line, and a hint."""
    __tracebackhide__ = True
    raise CheckFailed(
        Failure(case=case, expected=show(expected), got=show(got), where=detail, hint=hint)
    )


def call_learner(fn: Any, *args: Any, case: str, **kwargs: Any) -> Any:
    """Call the learner's ``fn``; turn its exceptions into a ``CheckFailed`` that names the case.

    ``NotImplementedError`` passes through untouched: ``check()`` reports it as "not done yet".
    """
    __tracebackhide__ = True
    if not callable(fn):
        raise CheckFailed(
            Failure(
                case=case,
                hint=messages.say(
                    "not_callable", kind=type(fn).__name__, value=show(fn, limit=120)
                ),
            )
        )
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        raise
    except CheckFailed:
        raise
    except Exception as exc:  # the learner's bug, reported as data
        raise learner_raised(case, exc) from None


def learner_raised(case: str, exc: BaseException) -> CheckFailed:
    """The failure for learner code that raised ``exc`` in ``case``."""
    return CheckFailed(
        Failure(
            case=case, raised=f"{type(exc).__name__}: {exc}", hint=messages.say("run_it_yourself")
        )
    )


def as_json(value: Any, what: str) -> Any:
    """``value`` after a JSON round trip: plain dicts, lists, strings, numbers, booleans, None."""
    __tracebackhide__ = True
    try:
        return json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise CheckFailed(
            f"{what} cannot be turned into JSON ({exc}). Use only dicts with string keys, "
            "lists, strings, numbers, booleans and None."
        ) from None


def expect_json_equal(
    case: str,
    expected: Any,
    got: Any,
    hint: str | None = None,
    *,
    hints: Any = (),
    what: str | None = None,
) -> Any:
    """Fail unless ``got`` equals ``expected`` as JSON; return ``got`` as plain JSON."""
    __tracebackhide__ = True
    plain = as_json(got, what or f"The result of {case}")
    difference = first_difference(as_json(expected, "the expected value"), plain)
    if difference is not None:
        detail = None if difference.startswith("expected ") else difference
        fail(case, expected, plain, hint or pick_hint(plain, hints), detail=detail)
    return plain


def legacy_exercise(id: str, **kwargs: Any) -> Callable[[Callable[..., str | None]], Any]:
    """``exercise(..., legacy=True)``: for the older checks that receive the targets themselves."""
    return exercise(id, legacy=True, **kwargs)
