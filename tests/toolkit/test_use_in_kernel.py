"""``toolkit.use`` in real kernels, as a learner meets it: lesson 04's check cells pass (or not)
in one kernel, and a later lesson's kernel asks for the registry.

The learner's lesson 04 notebook is saved in the course's ``notebooks/`` folder; its exercise
and check cells run in a kernel (the demos are left out: they decide nothing here), and
``check()`` records each pass. A second kernel then runs what a later lesson's setup cell runs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from .kernels import ROOT, check_errors, run, run_sources, toolkit_env

LESSON = "04_registry"
USE = (
    "from course_lib import toolkit\n"
    'ToolRegistry = toolkit.use("ToolRegistry")\n'
    "print(ToolRegistry.__module__, ToolRegistry.__name__)"
)
# The part at work: a tool registered and called through the registry handed out.
CALL = (
    "registry = ToolRegistry()\n"
    "@registry.tool\n"
    "def add(a: int, b: int) -> int:\n"
    '    """Add two numbers."""\n'
    "    return a + b\n"
    'print(registry.call("add", \'{"a": 2, "b": 3}\'))'
)
FALLBACK = "Using the course's ToolRegistry: finish exercise 04.1 to use yours.\n"
CHANGED = (
    "Using the course's ToolRegistry: exercise 04.1 changed after its check passed; run its "
    "check again to use yours.\n"
)
REFERENCE = "course_lib.reference.registry ToolRegistry\n"
MINE = "my_toolkit.lesson04 DispatchRegistry\n"


def exercises_only(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The setup cell, then every exercise and check cell (what a pass needs)."""
    kept = [
        cell
        for cell in nb.cells
        if cell.cell_type == "code"
        and (cell.get("id") == "w04-setup" or cell.metadata.get("course"))
    ]
    copy = nbformat.v4.new_notebook()
    copy.cells = kept
    return copy


def course_folder(tmp: Path, learner: nbformat.NotebookNode) -> tuple[Path, dict[str, str]]:
    """A course folder whose ``notebooks/04_registry.ipynb`` is ``learner``, after its exercise
    and check cells ran in a kernel; the environment of that folder's kernels."""
    notebooks = tmp / "notebooks"
    notebooks.mkdir(parents=True)
    nbformat.write(learner, notebooks / f"{LESSON}.ipynb")
    env = toolkit_env(tmp / "home", notebooks)
    ran = run(exercises_only(learner), notebooks, env)
    return notebooks, {**env, "CHECKS": json.dumps(check_errors(ran))}


def solved() -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "solutions" / f"{LESSON}.ipynb", as_version=4)


@pytest.fixture(scope="module")
def solved_folder(tmp_path_factory: pytest.TempPathFactory):
    return course_folder(tmp_path_factory.mktemp("solved"), solved())


def copy_of(folder: tuple[Path, dict[str, str]], tmp: Path) -> tuple[Path, dict[str, str]]:
    """The solved course folder copied (a test may change it)."""
    notebooks, env = folder
    home = Path(env["COURSE_TOOLKIT_HOME"])
    shutil.copytree(notebooks, tmp / "notebooks")
    shutil.copytree(home, tmp / "home")
    return tmp / "notebooks", {**toolkit_env(tmp / "home", tmp / "notebooks")}


def test_the_learners_registry_is_used_once_its_checks_passed(solved_folder):
    notebooks, env = solved_folder
    assert json.loads(env["CHECKS"]) == {f"04.{n}": "" for n in range(1, 6)}
    used, called = run_sources([USE, CALL], notebooks, env)
    assert used == MINE  # and no line saying it is the course's
    assert called == "5\n"
    module = Path(env["COURSE_TOOLKIT_HOME"]) / "my_toolkit" / "lesson04.py"
    assert "class DispatchRegistry(ToolRegistry):" in module.read_text(encoding="utf-8")


def test_a_blank_lesson_gives_the_course_registry_and_one_line_naming_the_exercise(tmp_path):
    student = nbformat.read(ROOT / "notebooks" / f"{LESSON}.ipynb", as_version=4)
    notebooks, env = course_folder(tmp_path, student)
    assert set(json.loads(env["CHECKS"]).values()) == {"NotDoneYet"}
    used, called = run_sources([USE, CALL], notebooks, env)
    assert used == FALLBACK + REFERENCE
    assert called == "5\n"


# 04.1 answered wrong: names() in alphabetical order, not registration order.
WRONG_NAMES = ("        return list(self._tools)\n", "        return sorted(self._tools)\n")


def test_a_failing_exercise_gives_the_course_registry_and_one_line(tmp_path):
    learner = solved()
    (cell,) = [c for c in learner.cells if c.get("id") == "w04-ex1-code"]
    assert WRONG_NAMES[0] in cell.source
    cell.source = cell.source.replace(*WRONG_NAMES)
    notebooks, env = course_folder(tmp_path, learner)
    assert json.loads(env["CHECKS"])["04.1"] == "CheckFailed"
    (used,) = run_sources([USE], notebooks, env)
    assert used == FALLBACK + REFERENCE


def test_a_cell_changed_after_its_check_passed_is_not_trusted(solved_folder, tmp_path):
    notebooks, env = copy_of(solved_folder, tmp_path)
    path = notebooks / f"{LESSON}.ipynb"
    learner = nbformat.read(path, as_version=4)
    (cell,) = [c for c in learner.cells if c.get("id") == "w04-ex1-code"]
    cell.source = cell.source.replace(*WRONG_NAMES)  # saved, never checked again
    nbformat.write(learner, path)
    (used,) = run_sources([USE], notebooks, env)
    assert used == CHANGED + REFERENCE


def test_prefer_switches_a_part_knowingly_and_is_remembered(solved_folder, tmp_path):
    notebooks, env = copy_of(solved_folder, tmp_path)
    chose, used, table = run_sources(
        [
            'from course_lib import toolkit\ntoolkit.prefer("course", "ToolRegistry")',
            USE,
            "print(toolkit.parts()[0])",
        ],
        notebooks,
        env,
    )
    assert chose == "ToolRegistry: the course's version from now on.\n"
    line = (
        "Using the course's ToolRegistry, as you chose "
        '(toolkit.prefer("mine", "ToolRegistry") switches back).\n'
    )
    assert used == line + REFERENCE
    assert "'whose': 'course'" in table
    # A new session remembers the choice, and "mine" takes it back.
    again, back, mine = run_sources(
        [USE, 'toolkit.prefer("mine", "ToolRegistry")', USE], notebooks, env
    )
    assert again == line + REFERENCE
    assert back == "ToolRegistry: your version from now on, whenever its exercises have passed.\n"
    assert mine == MINE
