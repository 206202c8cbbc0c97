"""Which version of a part ``use`` hands out, and why.

Three places decide, in this order: the learner's choice (``prefer``); when grading, the
grader's word (``grading.configure``: the parts of earlier lessons that passed the grader's own
checks, and their code); otherwise the learner's course folder: every exercise of the part has
a recorded pass (``state``) whose hash is that of the exercise cell in the saved notebook now.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course_lib.toolkit import export, loader, state
from course_lib.toolkit.messages import say
from course_lib.toolkit.parts import PARTS, Part


@dataclass(frozen=True)
class Choice:
    value: Any
    mine: bool
    why: str  # for ``parts()``
    line: str | None  # what ``use`` prints (None for the learner's own part)


@dataclass
class Grading:
    """What the grader told this kernel (``grading.configure``)."""

    lesson: str  # the lesson being graded ("05")
    modules: dict[str, str]  # module name -> source
    mine: dict[str, list[str]]  # part -> [module, attribute]
    prefer: dict[str, str] = field(default_factory=dict)  # this kernel's choices only


GRADING: Grading | None = None


def choose(part: Part, *, quiet: bool = False) -> Choice:
    """The learner's version of ``part`` or the course's, with the reason (``quiet``: decide,
    load nothing)."""
    if preference(part.name) == "course":
        return _course(part, say("why_chosen"), say("course_chosen", part=part.name), quiet)
    if GRADING is not None:
        return _graded(part, GRADING, quiet)
    folder = Folder()
    problem = folder.problem(part)
    if problem is not None:
        return _course(part, *problem, quiet)
    if quiet:
        return Choice(None, True, _why_mine(part), None)
    return _loaded(part, lambda: folder.load(part))


def _loaded(part: Part, load: Callable[[], Any]) -> Choice:
    """The learner's ``part`` as ``load`` imports it, or the course's when their code does not
    load (a syntax error, a name their cell took from a scratch cell)."""
    try:
        value = load()
    except Exception as exc:  # noqa: BLE001 (the learner's module may fail in any way)
        error = f"{type(exc).__name__}: {exc}"[:200]
        why = say("why_broken", lesson=part.lesson, error=error)
        line = say("course_broken", part=part.name, lesson=part.lesson, error=error,
                   exercise=part.exercise)  # fmt: skip
        return _course(part, why, line, quiet=False)
    return Choice(value, True, _why_mine(part), None)


def _why_mine(part: Part) -> str:
    return say("why_mine", exercises=", ".join(part.exercises))


def _graded(part: Part, grading: Grading, quiet: bool) -> Choice:
    entry = grading.mine.get(part.name)
    if entry is None:
        if part.lesson >= grading.lesson and not quiet:
            raise LookupError(say("same_lesson", part=part.name, exercise=part.exercise))
        exercise = part.exercises[0]
        why = say("why_graded", exercise=exercise)
        return _course(part, why, say("course_missing", part=part.name, exercise=exercise), quiet)
    if quiet:
        return Choice(None, True, _why_mine(part), None)
    sources = {name: (text, f"<{name}>") for name, text in grading.modules.items()}
    loader.install(sources)
    return _loaded(part, lambda: loader.load(*entry))


def _course(part: Part, why: str, line: str, quiet: bool) -> Choice:
    """The course's version (``LookupError`` with the exercise to finish when it has none)."""
    if quiet:
        return Choice(None, False, why, line)
    try:
        value = part.course_version()
    except LookupError:
        raise LookupError(say("no_reference", part=part.name, exercise=part.exercise)) from None
    return Choice(value, False, why, line)


def preference(name: str) -> str:
    if GRADING is not None:
        return GRADING.prefer.get(name, "mine")
    return state.load()["prefer"].get(name, "mine")


def set_preference(name: str, side: str) -> None:
    if GRADING is not None:
        GRADING.prefer[name] = side
    else:
        state.set_preference(name, side)


class Folder:
    """The learner's course folder as it is now: recorded passes, saved notebooks."""

    def __init__(self) -> None:
        self.passed = state.load()["passed"]
        self._cells: dict[str, export.LessonCells | None] = {}

    def cells(self, notebook: str) -> export.LessonCells | None:
        if notebook not in self._cells:
            try:
                found = export.read_notebook(state.notebooks() / f"{notebook}.ipynb")
            except (OSError, ValueError, AttributeError, TypeError):
                found = None
            self._cells[notebook] = found
        return self._cells[notebook]

    def trusted(self, exercise: str, notebook: str) -> bool:
        """Whether ``exercise`` passed its check on the code its notebook holds now."""
        cells = self.cells(notebook)
        recorded = self.passed.get(exercise)
        if cells is None or recorded is None or exercise not in cells.answers:
            return False
        return state.source_hash(cells.answers[exercise]) == recorded

    def problem(self, part: Part) -> tuple[str, str] | None:
        """Why ``part`` is not the learner's (the reason and the line), or ``None``."""
        for exercise in part.exercises:
            if exercise not in self.passed:
                return (
                    say("why_missing", exercise=exercise),
                    say("course_missing", part=part.name, exercise=exercise),
                )
            # Only for a recorded pass: the notebook's name imports its lesson's checks (lesson
            # 08's, the MCP SDK), which lesson 09's ``parts()`` in a fresh folder never needs.
            if not self.trusted(exercise, _notebook_of(exercise)):
                return (
                    say("why_changed", exercise=exercise),
                    say("course_changed", part=part.name, exercise=exercise),
                )
        return None

    # --- the package ----------------------------------------------------------------------

    def link(self, name: str, before: str) -> tuple[str, str]:
        """Where lesson ``before``'s module takes part ``name`` from."""
        part = PARTS[name]
        if part.lesson < before and preference(name) != "course" and self.problem(part) is None:
            return export.module_name(part.lesson), part.target
        if part.reference is None:
            raise LookupError(say("no_reference", part=part.name, exercise=part.exercise))
        module, _, attribute = part.reference.partition(":")
        return module, attribute

    def module_sources(self, lesson: str, into: dict[str, str]) -> None:
        """The source of ``lesson``'s module, and of the earlier ones it imports, into
        ``into``."""
        name = export.module_name(lesson)
        if name in into:
            return
        notebook = _notebook_of_lesson(lesson)
        cells = self.cells(notebook)
        if cells is None:
            raise FileNotFoundError(state.notebooks() / f"{notebook}.ipynb")
        passed = [ex for ex in cells.answers if self.trusted(ex, notebook)]
        used: list[str] = []

        def link(part_name: str) -> tuple[str, str]:
            where = self.link(part_name, lesson)
            used.append(where[0])
            return where

        into[name] = export.module_source(lesson, notebook, cells, passed, link)
        for module in used:
            if module.startswith(export.PACKAGE + "."):
                self.module_sources(module.rpartition("lesson")[2], into)

    def load(self, part: Part) -> Any:
        """The learner's ``part``, from the package written to ``my_toolkit/``."""
        sources: dict[str, str] = {}
        self.module_sources(part.lesson, sources)
        written = write_package(sources, self)
        loader.install({name: (text, str(written[name])) for name, text in sources.items()})
        return loader.load(export.module_name(part.lesson), part.target)


def build_package() -> Path:
    """Write ``my_toolkit/`` with every part that is the learner's now (and only those lessons'
    modules: a lesson no longer trusted leaves the package); the project's folder."""
    folder = Folder()
    sources: dict[str, str] = {}
    for part in PARTS.values():
        if preference(part.name) != "course" and folder.problem(part) is None:
            folder.module_sources(part.lesson, sources)
    package = state.home() / export.PACKAGE
    for stale in package.glob("lesson*.py") if package.is_dir() else ():
        if export.module_name(stale.stem[len("lesson") :]) not in sources:
            stale.unlink()
    write_package(sources, folder)
    return state.home()


def write_package(sources: dict[str, str], folder: Folder) -> dict[str, Path]:
    """Write the lesson modules, ``__init__.py`` and ``pyproject.toml`` under the toolkit's home;
    the path of each module written."""
    project = state.home()
    package = project / export.PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, text in sources.items():
        path = package / f"{name.rpartition('.')[2]}.py"
        _write(path, text)
        written[name] = path
    present = {p.stem for p in package.glob("lesson*.py")}
    mine = {
        part.name: (export.module_name(part.lesson), part.target)
        for part in PARTS.values()
        if f"lesson{part.lesson}" in present
        and preference(part.name) != "course"
        and folder.problem(part) is None
    }
    _write(package / "__init__.py", export.init_source(mine))
    texts = [p.read_text(encoding="utf-8") for p in package.glob("lesson*.py")]
    _write(project / "pyproject.toml", export.pyproject_source(export.dependencies(texts)))
    return written


def _write(path: Path, text: str) -> None:
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    path.write_text(text, encoding="utf-8")


def _notebook_of(exercise: str) -> str:
    from course_lib.checks import EXERCISES

    return EXERCISES[exercise].notebook


def _notebook_of_lesson(lesson: str) -> str:
    for part in PARTS.values():
        if part.lesson == lesson:
            return part.notebook
    raise LookupError(lesson)
