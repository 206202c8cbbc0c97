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

    @exercise("00.1", notebook="00_welcome", title="greeting", points=1, rules=RULES)
    def check_greeting(learner: Learner) -> str:
        for name in names:
            case = f"greeting({name!r})"
            got = learner.call("greeting", name, case=case)
            expect_equal(case, expected_greeting(name), got.value, hints=hints(name))
        return f"{len(names)} cases"

"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from course_lib.checks import messages
from course_lib.checks.catalog import Catalog
from course_lib.checks.failures import CheckFailed, Failure, NotDoneYet


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

    @property
    def spoken_title(self) -> str:
        """The title in the language in force: a name stays as it is; a title that says more
        is a text of its module's catalog (a ``HintText``, said again now)."""
        from course_lib.checks.compare import spoken  # (compare reaches the reference)

        return spoken(self.title) or ""

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(f"exercise {self.id} has no rule {rule_id!r}")


class ExerciseTable(dict):
    """Every exercise's check by id; a lesson's checks are imported when first asked for.

    ``check("03.1", ...)`` needs lesson 03's checks only: importing every lesson's would make
    each lesson's first check pay for the others (lesson 08's alone pull in the MCP SDK, about a
    second). Asking for an id imports ``course_lib.checks.lessonNN``; listing the table
    (iterating, ``len``, ``keys``, ``items``, ``values``) imports every lesson first. Modules
    outside the package (a test's or an instructor's ``--checks`` file) register themselves when
    they are imported.
    """

    def load(self, exercise_id: object) -> None:
        """Import the lesson module that registers ``exercise_id`` (``"03.1"``: ``lesson03``)."""
        if not isinstance(exercise_id, str) or dict.__contains__(self, exercise_id):
            return
        package = lesson_package(exercise_id)
        if package is not None:
            import_lesson(package)

    def load_all(self) -> None:
        """Import every ``lessonNN`` package of ``course_lib.checks``."""
        for name in lesson_modules():
            import_lesson(name)

    def get(self, key: object, default: Any = None) -> Any:
        self.load(key)
        return dict.get(self, key, default)

    def __getitem__(self, key: str) -> Exercise:
        self.load(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self.load(key)
        return dict.__contains__(self, key)

    def __iter__(self):
        self.load_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self.load_all()
        return dict.__len__(self)

    def keys(self):
        self.load_all()
        return dict.keys(self)

    def values(self):
        self.load_all()
        return dict.values(self)

    def items(self):
        self.load_all()
        return dict.items(self)


def lesson_modules() -> list[str]:
    """The names of the ``lessonNN`` packages of ``course_lib.checks`` (``"lesson03"``), in
    order."""
    import pkgutil

    import course_lib.checks as package

    return sorted(
        module.name
        for module in pkgutil.iter_modules(package.__path__)
        if module.name.startswith("lesson") and module.name[6:].isdigit()
    )


def lesson_package(exercise_id: str) -> str | None:
    """The ``lessonNN`` package of course_lib.checks that registers ``exercise_id`` ("03.1":
    ``lesson03``); None for an id of no lesson's form."""
    lesson = exercise_id.partition(".")[0]
    return f"lesson{lesson}" if len(lesson) == 2 and lesson.isdigit() else None


def import_lesson(name: str) -> None:
    """Import ``course_lib.checks.<name>`` (``"lesson03"``), which registers its exercises."""
    full = f"course_lib.checks.{name}"
    try:
        importlib.import_module(full)
    except ModuleNotFoundError as error:
        if error.name != full:  # the lesson exists but something it imports does not
            raise


EXERCISES: ExerciseTable = ExerciseTable()


def exercise(
    id: str,
    *,
    notebook: str,
    title: str,
    points: int,
    targets: Sequence[str] = (),
    rules: Sequence[Rule] = (),
    hints: Catalog | None = None,
) -> Callable[[Callable[..., str | None]], Callable[..., str | None]]:
    """Register the check of exercise ``id``. It returns an optional short summary (for example
    ``"12 cases"``) that the success line shows, and raises ``CheckFailed`` on a wrong case.
    Without ``targets``, the one target is the name the title gives (``title="parse_react"``).

    With ``hints`` (the check's ``Catalog``), every rule's hint must be in it: a rule naming a
    hint nobody wrote fails here, when the lesson's checks are imported."""
    if hints is not None:
        hints.require((rule.hint for rule in rules), owner=f"exercise {id}")
    if not targets:
        targets = (title,)

    def register(run: Callable[..., str | None]) -> Callable[..., str | None]:
        if dict.__contains__(EXERCISES, id):
            raise ValueError(f"exercise {id!r} is registered twice; each id needs one check")
        if points <= 0:
            raise ValueError(f"exercise {id!r} must be worth at least one point, not {points}")
        spec = Exercise(id, notebook, title, points, tuple(targets), run, tuple(rules))
        dict.__setitem__(EXERCISES, id, spec)
        return run

    return register


# --- the learner's entry point ----------------------------------------------------------------


def check(exercise_id: str, *targets: Any) -> None:
    """Check the learner's ``targets`` for exercise ``exercise_id``; print one line on success."""
    __tracebackhide__ = True  # pytest hides this frame; IPython shows only the message
    result = outcome(exercise_id, *targets)
    if isinstance(result, Exception):
        raise result from None
    from course_lib.toolkit.record import record_check

    record_check(exercise_id, targets)  # the toolkit may now use this answer in later lessons
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
    from course_lib.checks.channel import InProcessChannel

    return run_check(spec, InProcessChannel(dict(zip(spec.targets, targets, strict=True))))


def unknown_exercise(exercise_id: str) -> UnknownExercise:
    known = ", ".join(sorted(EXERCISES)) or messages.say("none_registered")
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
        return failed.for_exercise(spec.id, spec.spoken_title)
    finally:
        close = getattr(channel, "close", None)
        if close is not None:  # the kernel channel: the notebook's next cell needs the kernel
            close()
    return passed_line(spec, summary)


class Passed(str):
    """A success line that also carries the scenario outcomes of a scenario check."""

    scenarios: tuple = ()


def passed_line(spec: Exercise, summary: str | None) -> str:
    title = spec.spoken_title
    if summary:
        return messages.say("passed_summary", id=spec.id, title=title, summary=summary)
    return messages.say("passed", id=spec.id, title=title)
