"""Every notebook in solutions/ and its student version in notebooks/, verified end to end.

Parametrized over whatever solutions/ holds, so a new lesson is covered as soon as it exists;
a lesson's translated editions (``solutions/<lang>/``, ``notebooks/<lang>/``) are covered beside it:

- the solution notebook passes ``pytest --nbval --nbval-current-env`` in strict mode (stored
  outputs match a fresh run, up to tests/nbval_sanitize.cfg);
- the student notebook runs to the end, and its only errors are "not done yet" in check cells
  (in the edition's language);

The lessons run once for the session, all started at once in the background (the
``lesson_runs`` fixture): one nbval pytest process per edition runs its solutions in turn, each in
a kernel and a toolkit of its own, and beside them the student notebooks, a kernel each, two at
a time; each lesson's tests wait for their own runs and assert on them. A notebook's cells keep
one core busy only part of the time, and the suite runs serially on a machine with two.
- notebooks/ is what the build makes of solutions/, and each check cell there is canonical and
  locked;
- exercise cells and the checks registry (``course_lib.checks.EXERCISES``) agree.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import nbformat
import pytest
from kernel_start import first_cell_lost_its_kernel, kernel_died_at_start

from course_lib.authoring import stale_notebooks
from course_lib.authoring.execute import run_notebook
from course_lib.authoring.steps import CHECK_SOURCE, course_meta, is_check, is_exercise
from course_lib.checks import EXERCISES, messages
from course_lib.grading.runner import PYTEST_MAIN
from course_lib.i18n import EDITIONS, ENGLISH, speaking, translate
from course_lib.toolkit.state import untouched_environment

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
each_notebook = pytest.mark.parametrize("solution", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
# pytest for nbval alone, started as the grader starts it: no plugin found by chance (langsmith's
# alone imports for seconds), no IRI grammar for jsonschema (nbformat's import builds it; nothing
# checks IRI formats). The kernels nbval starts are processes of their own, untouched: measured,
# 6.7 s of CPU less per notebook on a loaded machine, nothing less tested.
# tests/nbval_fresh_toolkit.py gives each notebook of a run a toolkit of its own.
NBVAL_PYTEST = [
    sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); {PYTEST_MAIN}",
    "-p", "nbval.plugin", "-p", "nbval_fresh_toolkit",
]  # fmt: skip

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


def start_nbval(paths: list[Path], report: Path, env: dict[str, str]) -> subprocess.Popen:
    """One pytest process running nbval on ``paths`` in turn, each notebook in a kernel of its
    own; each cell's verdict goes to the JUnit XML file ``report``."""
    command = [
        *NBVAL_PYTEST, "--nbval", "--nbval-current-env",
        "--nbval-sanitize-with", str(SANITIZE), "--nbval-cell-timeout", "60",
        "-p", "no:cacheprovider", "-q", "-o", "addopts=", "-o", "junit_family=xunit2",
        f"--junitxml={report}", *[str(path.relative_to(ROOT)) for path in paths],
    ]  # fmt: skip
    return subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )


def cell_reports(report: Path) -> dict[str, list[tuple[str, str]]]:
    """JUnit's classname of a notebook (its path, dotted) -> (cell, what went wrong) per cell
    in the order they ran; what went wrong is "" for a cell that passed."""
    cells: dict[str, list[tuple[str, str]]] = {}
    if not report.exists():
        return cells
    for case in ElementTree.parse(report).iter("testcase"):
        wrong = "\n".join(
            child.text or child.get("message", "") or child.tag
            for child in case
            if child.tag in ("failure", "error")
        )
        cells.setdefault(case.get("classname", ""), []).append((case.get("name", ""), wrong))
    return cells


def nbval_verdicts(
    paths: list[Path], env: dict[str, str], folder: Path, *, again: bool = True
) -> dict[Path, str]:
    """nbval's verdict on each notebook of ``paths`` ("" when every cell passed, else what
    failed), the notebooks run in turn by one pytest process (not a process each: pytest, nbval
    and nbformat import once). A notebook whose kernel died at start is run ``again``, once."""
    folder.mkdir(parents=True, exist_ok=True)
    report = folder / "nbval.xml"
    run = start_nbval(paths, report, env)
    try:
        output, _ = run.communicate(timeout=300 * len(paths))
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    cells = cell_reports(report)
    verdicts = {}
    for index, path in enumerate(paths):
        where = path.relative_to(ROOT)
        ran = cells.get(where.as_posix().replace("/", "."), [])
        if not ran:
            verdicts[path] = f"nbval ran no cell of {where}:\n{output[-6000:]}"
        elif again and first_cell_lost_its_kernel(ran[0][1]):
            # A port taken by the other edition's kernel: the run says nothing of the notebook.
            verdicts[path] = nbval_verdicts([path], env, folder / str(index), again=False)[path]
        elif wrong := "\n".join(f"{cell}: {text}" for cell, text in ran if text):
            verdicts[path] = f"nbval failed on {where}:\n{wrong[-6000:]}"
        else:
            verdicts[path] = ""
    return verdicts


def selected_lessons(session: pytest.Session, test) -> list[Path]:
    """The solutions whose ``test`` this session runs (all of them, or those ``-k`` kept)."""
    return [
        item.callspec.params["solution"]
        for item in session.items
        if getattr(item, "originalname", None) == test.__name__
    ]


@dataclass
class LessonRuns:
    """The session's runs of the lessons, started together (``lesson_runs``): nbval's lanes, a
    pytest process per edition, and each student notebook's run, each test waiting for its own."""

    lanes: list[Future]
    students: dict[tuple[Path, str], Future]

    def nbval_verdicts(self) -> dict[Path, str]:
        return {path: verdict for lane in self.lanes for path, verdict in lane.result().items()}


# Student notebooks run at a time beside nbval's lanes: a lane keeps a core busy only part of the
# time (its kernel starting, its process comparing, a server of the lesson starting), and the
# lanes end unevenly; one after the other, the two phases left a core idle for a good part.
STUDENT_RUNS_AT_ONCE = 2


@pytest.fixture(scope="session")
def lesson_runs(request, tmp_path_factory) -> Iterator[LessonRuns]:
    """Every run of the lessons this session tests, started at once in the background.

    nbval (see nbval_verdicts): the editions side by side, a pytest process each; the toolkit as
    before any check passed; pytest for nbval alone (NBVAL_PYTEST, with no plugin autoloaded).
    Beside them, the student notebooks (``not_done_yet_problems``), ``STUDENT_RUNS_AT_ONCE`` at
    a time, the dearest lessons first. Only the runs of the tests this session selected start.
    """
    session = request.session
    lessons = selected_lessons(
        session, test_the_solution_notebook_and_its_translations_pass_nbval_in_strict_mode
    )
    lanes = [lessons] + [
        [path for lesson in lessons if (path := lesson.parent / lang / lesson.name).exists()]
        for lang in EDITIONS
    ]
    lanes = [lane for lane in lanes if lane]
    students = [
        edition
        for lesson in reversed(
            selected_lessons(
                session, test_the_student_notebook_runs_and_only_its_check_cells_say_not_done_yet
            )
        )
        for edition in editions_of(lesson)
    ]
    folder = tmp_path_factory.mktemp("nbval")
    with (
        untouched_environment() as env,
        ThreadPoolExecutor(max_workers=len(lanes) + STUDENT_RUNS_AT_ONCE) as pool,
    ):
        env = {**env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        runs = LessonRuns(
            lanes=[
                pool.submit(nbval_verdicts, lane, env, folder / str(index))
                for index, lane in enumerate(lanes)
            ],
            students={},
        )
        # the lanes first: each takes one of the pool's threads, the student runs the others
        for edition in students:
            runs.students[edition] = pool.submit(not_done_yet_problems_again, *edition)
        try:
            yield runs
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


@each_notebook
def test_the_solution_notebook_and_its_translations_pass_nbval_in_strict_mode(
    solution, lesson_runs
):
    verdicts = lesson_runs.nbval_verdicts()
    failed = [verdicts[path] for path in [solution, *translations_of(solution)]]
    assert not any(failed), "\n".join(failed)


def editions_of(solution: Path) -> list[tuple[Path, str]]:
    """The lesson's solution in each edition, with its language (a translation's folder)."""
    return [(solution, ENGLISH)] + [(path, path.parent.name) for path in translations_of(solution)]


def not_done_yet_problems(solution: Path, lang: str) -> list[str]:
    """What is wrong with a run of the student notebook of ``solution``'s edition ``lang``."""
    path = student_path(solution)
    nb = run_notebook(read(path), path.parent, allow_errors=True)
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        errors = [out for out in cell.outputs if out.output_type == "error"]
        where = f"{path.relative_to(ROOT)} cell {index} (id {cell.id!r})"
        if is_check(cell):
            if [error.ename for error in errors] != ["NotDoneYet"]:
                problems.append(f"{where}: expected NotDoneYet, got {[e.ename for e in errors]}")
            elif not_done_yet(course_meta(cell)["check"], lang) not in errors[0].evalue:
                problems.append(f"{where}: unexpected message {errors[0].evalue!r}")
        elif errors:
            problems.append(f"{where}: {errors[0].ename}: {errors[0].evalue}")
    return problems


def not_done_yet_problems_again(solution: Path, lang: str) -> list[str]:
    """``not_done_yet_problems``, run again once should its kernel have died before it ran a
    cell (a port taken by another kernel started at the same moment: kernel_start.py)."""
    try:
        return not_done_yet_problems(solution, lang)
    except RuntimeError as error:
        if not kernel_died_at_start(error):
            raise
        return not_done_yet_problems(solution, lang)


@each_notebook
def test_the_student_notebook_runs_and_only_its_check_cells_say_not_done_yet(solution, lesson_runs):
    """Every edition of the lesson's student notebook, each in its own kernel (run in the
    background by ``lesson_runs``)."""
    found = [lesson_runs.students[edition].result() for edition in editions_of(solution)]
    problems = [problem for edition in found for problem in edition]
    assert not problems, "\n".join(problems)


def not_done_yet(exercise_id: str, lang: str) -> str:
    """The first line a check says, in ``lang``, when its exercise is still a stub."""
    with speaking(lang):  # a title that says more than a name is said in the edition's language
        title = EXERCISES[exercise_id].spoken_title
    return translate(messages.MESSAGES, "header_not_done", lang, id=exercise_id, title=title)


@functools.cache
def stale() -> tuple[str, ...]:
    """What a fresh build would change (one build for every test that asks)."""
    return tuple(stale_notebooks())


@each_edition
def test_the_student_notebook_is_what_the_build_makes_of_the_solution(solution, lang):
    name = str(solution.relative_to(ROOT / "solutions").as_posix())
    mine = [line for line in stale() if f"/{name} " in line]
    assert mine == []


def test_notebooks_holds_no_student_notebook_without_a_solution():
    assert [line for line in stale() if "has no source" in line] == []


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
