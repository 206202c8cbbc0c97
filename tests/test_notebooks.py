"""Every notebook in solutions/ and its student version in notebooks/, verified end to end.

Parametrized over whatever solutions/ holds, so a new lesson is covered as soon as it exists;
a lesson's translated editions (``solutions/<lang>/``, ``notebooks/<lang>/``) are covered beside it:

- the solution notebook passes ``pytest --nbval --nbval-current-env`` in strict mode (stored
  outputs match a fresh run, up to tests/nbval_sanitize.cfg); its translations run in the same
  pytest process (one start-up and one set of imports for all editions of a lesson);
- the student notebook runs to the end, and its only errors are "not done yet" in check cells
  (in the edition's language);
- notebooks/ is what the build makes of solutions/, and each check cell there is canonical and
  locked;
- exercise cells and the checks registry (``course_lib.checks.EXERCISES``) agree.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course_lib.authoring import stale_notebooks
from course_lib.authoring.execute import run_notebook
from course_lib.authoring.steps import CHECK_SOURCE, course_meta, is_check, is_exercise
from course_lib.checks import EXERCISES, messages
from course_lib.grading.runner import PYTEST_MAIN
from course_lib.i18n import EDITIONS, ENGLISH, translate
from course_lib.toolkit.state import untouched_environment

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
each_notebook = pytest.mark.parametrize("solution", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
# pytest for nbval alone, started as the grader starts it: no plugin found by chance (langsmith's
# alone imports for seconds), no IRI grammar for jsonschema (nbformat's import builds it; nothing
# checks IRI formats). The kernels nbval starts are processes of their own, untouched: measured,
# 6.7 s of CPU less per notebook on a loaded machine, nothing less tested.
NBVAL_PYTEST = [sys.executable, "-c", PYTEST_MAIN, "-p", "nbval.plugin"]
NBVAL_ENV = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}

# Every edition of every lesson: (solution path, language).
EDITIONS_BUILT = [(path, ENGLISH) for path in SOLUTIONS] + [
    (path, lang)
    for lang in EDITIONS
    for path in sorted((ROOT / "solutions" / lang).glob("*.ipynb"))
]
each_edition = pytest.mark.parametrize(
    ("solution", "lang"),
    EDITIONS_BUILT,
    ids=[path.stem if lang == ENGLISH else f"{lang}-{path.stem}" for path, lang in EDITIONS_BUILT],
)


def translations_of(solution: Path) -> list[Path]:
    return [path for lang in EDITIONS if (path := solution.parent / lang / solution.name).exists()]


def student_path(solution: Path) -> Path:
    path = ROOT / "notebooks" / solution.relative_to(ROOT / "solutions")
    assert path.exists(), f"notebooks/{solution.name} is missing: run `python -m course_lib build`"
    return path


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def test_there_are_solution_notebooks_to_verify():
    assert SOLUTIONS, "solutions/ holds no notebooks"


@each_notebook
def test_the_solution_notebook_and_its_translations_pass_nbval_in_strict_mode(solution):
    paths = [str(path.relative_to(ROOT)) for path in [solution, *translations_of(solution)]]
    command = [
        *NBVAL_PYTEST, "--nbval", "--nbval-current-env",
        "--nbval-sanitize-with", str(SANITIZE), "--nbval-cell-timeout", "60",
        "-p", "no:cacheprovider", "-q", "-o", "addopts=", *paths,
    ]  # fmt: skip
    # The toolkit as before any check passed; pytest for nbval alone (NBVAL_ENV).
    with untouched_environment() as env:
        run = subprocess.run(
            command, cwd=ROOT, capture_output=True, text=True, timeout=300,
            env={**env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        )  # fmt: skip
    assert run.returncode == 0, f"nbval failed on {solution.name}:\n{run.stdout[-6000:]}"


@each_edition
def test_the_student_notebook_runs_and_only_its_check_cells_say_not_done_yet(solution, lang):
    path = student_path(solution)
    nb = run_notebook(read(path), path.parent, allow_errors=True)
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        errors = [out for out in cell.outputs if out.output_type == "error"]
        where = f"cell {index} (id {cell.id!r})"
        if is_check(cell):
            if [error.ename for error in errors] != ["NotDoneYet"]:
                problems.append(f"{where}: expected NotDoneYet, got {[e.ename for e in errors]}")
            elif not_done_yet(course_meta(cell)["check"], lang) not in errors[0].evalue:
                problems.append(f"{where}: unexpected message {errors[0].evalue!r}")
        elif errors:
            problems.append(f"{where}: {errors[0].ename}: {errors[0].evalue}")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def not_done_yet(exercise_id: str, lang: str) -> str:
    """The first line a check says, in ``lang``, when its exercise is still a stub."""
    title = EXERCISES[exercise_id].title
    return translate(messages.MESSAGES, "header_not_done", lang, id=exercise_id, title=title)


@each_edition
def test_the_student_notebook_is_what_the_build_makes_of_the_solution(solution, lang):
    name = str(solution.relative_to(ROOT / "solutions").as_posix())
    mine = [line for line in stale_notebooks() if f"/{name} " in line]
    assert mine == []


def test_notebooks_holds_no_student_notebook_without_a_solution():
    assert [line for line in stale_notebooks() if "has no source" in line] == []


@each_edition
def test_every_check_cell_in_the_student_notebook_is_canonical_and_locked(solution, lang):
    nb = read(student_path(solution))
    checks = [cell for cell in nb.cells if is_check(cell)]
    assert checks, f"{solution.name} has no check cells"
    for cell in checks:
        match = CHECK_SOURCE.fullmatch(cell.source)
        assert match and match["id"] == course_meta(cell)["check"], cell.source
        assert "check" in cell.metadata["tags"]
        assert cell.metadata["editable"] is False and cell.metadata["deletable"] is False


def notebook_exercises(nb: nbformat.NotebookNode) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Exercise id -> (points, targets of its check cell), as the notebook states them."""
    found = {}
    for index, cell in enumerate(nb.cells):
        if is_exercise(cell):
            meta = course_meta(cell)
            check = CHECK_SOURCE.fullmatch(nb.cells[index + 1].source)
            targets = tuple(name.strip() for name in check["targets"].split(",") if name.strip())
            found[meta["exercise"]] = (meta["points"], targets)
    return found


@each_notebook
def test_exercise_cells_and_the_checks_registry_agree(solution):
    in_notebook = notebook_exercises(read(solution))
    registered = {
        spec.id: (spec.points, spec.targets)
        for spec in EXERCISES.values()
        if spec.notebook == solution.stem
    }
    problems = [
        f"exercise {exercise_id}: the notebook says {in_notebook.get(exercise_id)} "
        f"(points, targets), the checks registry {registered.get(exercise_id)}"
        for exercise_id in sorted(in_notebook.keys() | registered.keys())
        if in_notebook.get(exercise_id) != registered.get(exercise_id)
    ]
    assert not problems, "\n".join(problems)


def test_build_check_command_passes():
    run = subprocess.run(
        [sys.executable, "-m", "course_lib", "build", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
