'''The machinery behind every exercise check: registry, ``check()``, and helpers for check authors.

A learner's check cell calls ``check("NN.K", target, ...)``. That looks the exercise up in
``EXERCISES``, refuses placeholders (``...``) and stubs (``NotImplementedError``) with a friendly
"not done yet" paragraph, runs the check function, and on success prints one short line. Every
failure is a ``CheckFailed`` (an ``AssertionError``, so nbval and pytest count it as a failure)
whose message names the case, what was expected, what came back, and a hint.

Writing a check (one module per notebook, ``course_lib/checks/nbNN.py``, imported by
``course_lib/checks/__init__.py``)::

    from course_lib.checks.core import call_learner, exercise, expect_json_equal, hidden_rng

    def _greet(name: str) -> str:  # the trusted oracle
        return f"Hello, {name}!"

    @exercise("00.1", notebook="00_welcome", title="greeting", points=1, targets=("greeting",))
    def check_greeting(greeting) -> str:
        """The check function receives the targets positionally, in the order of ``targets``."""
        names = ["Ada", "张伟"]                                  # visible cases
        rng = hidden_rng("00.1")                                  # deterministic hidden cases
        names += ["".join(rng.choice("abcxyz") for _ in range(5)) for _ in range(10)]
        for name in names:
            case = f"greeting({name!r})"
            got = call_learner(greeting, name, case=case)         # exceptions -> CheckFailed
            expect_json_equal(case, _greet(name), got, hints=[
                (lambda g: isinstance(g, str) and name not in g, "Put the name into the text."),
            ])
        return f"{len(names)} cases"                              # optional, shown on success

The rules that keep checks honest and pleasant:

- Call learner code only through ``call_learner`` (or let ``NotImplementedError`` propagate:
  ``check()`` turns it into "not done yet" wherever it comes from).
- Compare values only through JSON (``as_json`` / ``expect_json_equal``), never with the learner
  object's ``__eq__``, which a learner's class may define however it likes.
- Fail through ``fail(case, expected, got, hint)``; pick the hint with ``pick_hint`` from
  ``(predicate on got, hint)`` pairs that name the likely mistake, most specific first.
- Hidden cases come from ``hidden_rng(exercise_id)``, so every run sees the same cases and the
  output of a check cell never changes.
'''

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from course_lib.reference.validation import json_type

__all__ = [
    "EXERCISES",
    "CheckFailed",
    "Exercise",
    "NotDoneYet",
    "UnknownExercise",
    "as_json",
    "call_learner",
    "check",
    "evaluate",
    "exercise",
    "expect_json_equal",
    "fail",
    "first_difference",
    "hidden_rng",
    "json_equal",
    "json_type",
    "learner_raised",
    "matching_hint",
    "outcome",
    "pick_hint",
    "show",
]

GENERIC_HINT = "Compare what you returned with the expected value, piece by piece."
MAX_SHOWN_CHARS = 600


class CheckFailed(AssertionError):
    """A check found a case where the learner's code does not do what the exercise asks."""


class NotDoneYet(CheckFailed):
    """The exercise still holds its placeholder or stub: nothing to check yet."""


class UnknownExercise(LookupError):
    """``check()`` was called with an exercise id that no checks module registered."""


@dataclass(frozen=True)
class Exercise:
    """One exercise: where it lives, what it is worth, and the function that checks it."""

    id: str
    notebook: str
    title: str
    points: int
    targets: tuple[str, ...]
    run: Callable[..., str | None]


EXERCISES: dict[str, Exercise] = {}


def exercise(
    id: str, *, notebook: str, title: str, points: int, targets: Sequence[str]
) -> Callable[[Callable[..., str | None]], Callable[..., str | None]]:
    """Register a check function for exercise ``id``; it receives the targets positionally.

    The function raises ``CheckFailed`` (via ``fail``) on the first wrong case and may return a
    short summary (e.g. ``"12 cases"``) that the success line shows.
    """

    def register(run: Callable[..., str | None]) -> Callable[..., str | None]:
        if id in EXERCISES:
            raise ValueError(f"exercise {id!r} is registered twice; each id needs one check")
        if points <= 0:
            raise ValueError(f"exercise {id!r} must be worth at least one point, not {points}")
        EXERCISES[id] = Exercise(id, notebook, title, points, tuple(targets), run)
        return run

    return register


# --- the learner's entry point ----------------------------------------------------------------


def check(exercise_id: str, *targets: Any) -> None:
    """Check the learner's ``targets`` for exercise ``exercise_id``; print one line on success."""
    __tracebackhide__ = True  # pytest hides this frame; IPython shows just this one line of ours
    result = outcome(exercise_id, *targets)
    if isinstance(result, Exception):
        raise result from None
    print(result)


def evaluate(exercise_id: str, *targets: Any) -> str:
    """Like ``check`` but return the success line instead of printing it (for the grader)."""
    __tracebackhide__ = True
    result = outcome(exercise_id, *targets)
    if isinstance(result, Exception):
        raise result from None
    return result


def outcome(exercise_id: str, *targets: Any) -> str | Exception:
    """The success line, or the exception to raise: ``CheckFailed``, ``NotDoneYet``, or an
    ``UnknownExercise`` / ``TypeError`` when the check cell itself was changed.

    Returning the exception (rather than raising it here) lets ``check`` raise it from its own
    frame, so the learner sees a traceback of two short frames instead of a wall.
    """
    if exercise_id not in EXERCISES:
        known = ", ".join(sorted(EXERCISES)) or "none registered"
        return UnknownExercise(
            f"There is no exercise {exercise_id!r}. Known exercises: {known}. "
            "Check the id in the check cell (it should match the exercise cell above it)."
        )
    spec = EXERCISES[exercise_id]
    if len(targets) != len(spec.targets):
        names = ", ".join(spec.targets)
        return TypeError(
            f"check({exercise_id!r}, ...) takes {len(spec.targets)} target(s) ({names}) but got "
            f"{len(targets)}. Restore the check cell to `check({exercise_id!r}, {names})`."
        )
    for name, target in zip(spec.targets, targets, strict=True):
        if target is ...:
            return NotDoneYet(_not_done_message(spec, f"`{name}` is still `...`."))
    try:
        summary = spec.run(*targets)
    except NotDoneYet as exc:
        return NotDoneYet(_not_done_message(spec, str(exc)))
    except NotImplementedError as exc:
        return NotDoneYet(_not_done_message(spec, _stub_text(exc)))
    except CheckFailed as exc:
        return CheckFailed(f"Exercise {spec.id} ({spec.title}) is not right yet.\n{exc}")
    line = f"Exercise {spec.id} passed: {spec.title}"
    return f"{line} ({summary})." if summary else f"{line}."


def _stub_text(exc: NotImplementedError) -> str:
    text = str(exc).strip()
    return f'The stub says "{text}".' if text else "A function still raises NotImplementedError."


def _not_done_message(spec: Exercise, detail: str) -> str:
    return (
        f"Exercise {spec.id} ({spec.title}) is not done yet. {detail} "
        "Write your solution in the exercise cell above, run that cell, then run this check "
        "again. Nothing is wrong: this is where every exercise starts."
    )


# --- helpers for check authors ----------------------------------------------------------------


def show(value: Any, *, limit: int = MAX_SHOWN_CHARS) -> str:
    """Pretty JSON (or ``repr`` for what JSON cannot hold), cut to ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = f"{text[:limit]}… ({len(text) - limit} more characters)"
    return text


def fail(
    case: str, expected: Any, got: Any, hint: str = GENERIC_HINT, *, detail: str | None = None
) -> NoReturn:
    """Raise ``CheckFailed`` for ``case``: expected, got, an optional detail line, and a hint."""
    __tracebackhide__ = True
    lines = [
        f"Case: {case}",
        f"Expected: {_indent(show(expected))}",
        f"Got:      {_indent(show(got))}",
    ]
    if detail:
        lines.append(f"Where:    {detail}")
    lines.append(f"Hint: {hint}")
    raise CheckFailed("\n".join(lines))


def _indent(text: str) -> str:
    return text.replace("\n", "\n          ")


def call_learner(fn: Any, *args: Any, case: str, **kwargs: Any) -> Any:
    """Call the learner's ``fn``; turn its exceptions into a ``CheckFailed`` that names the case.

    ``NotImplementedError`` passes through untouched: ``check()`` reports it as "not done yet".
    """
    __tracebackhide__ = True
    if not callable(fn):
        raise CheckFailed(
            f"Case: {case}\nExpected a function (or class) to call, got {type(fn).__name__}: "
            f"{show(fn, limit=120)}.\nHint: define it with `def` in the exercise cell and run it."
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
    """The failure for learner code that raised ``exc`` in ``case``: its type and message, and
    how to see the whole traceback (a check shows only its own short message)."""
    return CheckFailed(
        f"Case: {case}\nYour code raised {type(exc).__name__}: {exc}\n"
        "Hint: run this case yourself in a new cell to see the full traceback."
    )


def as_json(value: Any, what: str) -> Any:
    """``value`` after a JSON round trip: plain dicts, lists, strings, numbers, booleans, None.

    This is how checks look at learner values: the result no longer carries any of the
    learner's classes (or their ``__eq__``), and whatever JSON cannot carry is reported.
    """
    __tracebackhide__ = True
    try:
        return json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise CheckFailed(
            f"{what} cannot be turned into JSON ({exc}). Use only dicts with string keys, "
            "lists, strings, numbers, booleans and None."
        ) from None


def json_equal(expected: Any, got: Any) -> bool:
    """Equality with JSON semantics: ``True`` is not ``1``, ``1`` equals ``1.0``, order of keys
    does not matter, order of list items does."""
    return first_difference(expected, got) is None


def first_difference(expected: Any, got: Any, path: str = "$") -> str | None:
    """Where two JSON values first differ, e.g. ``at $.properties.city.type: expected "string",
    got "str"``; ``None`` when they are equal."""
    kind_e, kind_g = _json_kind(expected), _json_kind(got)
    if kind_e != kind_g:
        return f"{_at(path)}expected {_describe(kind_e, expected)}, got {_describe(kind_g, got)}"
    if kind_e == "object":
        missing = [key for key in expected if key not in got]
        extra = [key for key in got if key not in expected]
        if missing:
            return f"{_at(path)}missing key {show(missing[0])}"
        if extra:
            return f"{_at(path)}unexpected key {show(extra[0])}"
        for key in expected:
            found = first_difference(expected[key], got[key], f"{path}.{key}")
            if found:
                return found
        return None
    if kind_e == "array":
        for index, (item_e, item_g) in enumerate(zip(expected, got, strict=False)):
            found = first_difference(item_e, item_g, f"{path}[{index}]")
            if found:
                return found
        if len(expected) != len(got):
            return f"{_at(path)}expected {len(expected)} items, got {len(got)}"
        return None
    if kind_e == "string" and expected != got:
        at = next((i for i, (a, b) in enumerate(zip(expected, got, strict=False)) if a != b), None)
        at = min(len(expected), len(got)) if at is None else at
        want, found = expected[at : at + 20], got[at : at + 20]
        return (
            f"{_at(path)}the texts differ from character {at} on: expected "
            f"{show(want) if want else 'the text to end here'}, "
            f"got {show(found) if found else 'the end of the text'}"
        )
    if expected != got or (kind_e == "number" and math.isnan(expected)):
        return f"{_at(path)}expected {show(expected, limit=80)}, got {show(got, limit=80)}"
    return None


def _at(path: str) -> str:
    return "" if path == "$" else f"at {path}: "


def _json_kind(value: Any) -> str:
    """The kind ``first_difference`` compares: integers and floats are both numbers (1 == 1.0)."""
    kind = json_type(value)
    return "number" if kind == "integer" else kind


def _describe(kind: str, value: Any) -> str:
    if kind == "null":
        return "null"
    article = "an" if kind[0] in "aeiou" else "a"
    return f"{article} {kind} {show(value, limit=80)}"


Hint = tuple[Callable[[Any], bool], str]


def pick_hint(got: Any, hints: Iterable[Hint], default: str = GENERIC_HINT) -> str:
    """The first hint whose predicate holds for ``got``, else ``default``."""
    found = matching_hint(got, hints)
    return default if found is None else found


def matching_hint(got: Any, hints: Iterable[Hint]) -> str | None:
    """The first hint whose predicate holds for ``got``; a predicate that raises does not hold.
    ``None`` when none holds (for callers that look further, e.g. into nested values)."""
    for predicate, hint in hints:
        try:
            if predicate(got):
                return hint
        except Exception:  # a predicate written for another shape of answer
            continue
    return None


def expect_json_equal(
    case: str,
    expected: Any,
    got: Any,
    hint: str | None = None,
    *,
    hints: Iterable[Hint] = (),
    what: str | None = None,
) -> Any:
    """Fail unless ``got`` equals ``expected`` as JSON; return ``got`` as plain JSON.

    The hint is ``hint`` if given, else the first matching one of ``hints`` (predicates see the
    JSON round-tripped value), else a generic one.
    """
    __tracebackhide__ = True
    plain = as_json(got, what or f"The result of {case}")
    difference = first_difference(as_json(expected, "the expected value"), plain)
    if difference is not None:
        # A mismatch of the whole value needs no "where": Expected and Got already show it.
        detail = None if difference.startswith("expected ") else difference
        fail(case, expected, plain, hint or pick_hint(plain, hints), detail=detail)
    return plain


def hidden_rng(exercise_id: str) -> random.Random:
    """A random generator seeded by the exercise id: hidden cases are the same on every run."""
    return random.Random(f"hidden cases for {exercise_id}")
