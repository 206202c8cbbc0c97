"""The toolkit through the real grader (``python -m course_lib grade`` on a class folder).

Lesson N's kernel uses a student's part of an earlier lesson only where the grader's own check
of that lesson passed in the same run. A probe shows which registry lesson 05's kernel got: its
05.1 answer is the solution, followed by a line that unbinds ``run_agent`` unless the
``ToolRegistry`` of the lesson's setup cell is the student's own (``my_toolkit.lesson04``). So
05.1 passes exactly when the kernel used the student's registry. Without the probe, lessons
05-08 grade to full marks whether lesson 04 is solved or blank.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course_lib.toolkit import export, state

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "\n\nif ToolRegistry.__module__ != 'my_toolkit.lesson04':\n"
    "    run_agent = None  # the probe: 05.1 passes only with the student's own registry\n"
)
WRONG_NAMES = ("        return list(self._tools)\n", "        return sorted(self._tools)\n")


def solution(slug: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "solutions" / f"{slug}.ipynb", as_version=4)


def blank(slug: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "notebooks" / f"{slug}.ipynb", as_version=4)


def changed(nb: nbformat.NotebookNode, cell_id: str, old: str, new: str):
    (cell,) = [cell for cell in nb.cells if cell.get("id") == cell_id]
    assert old in cell.source
    cell.source = cell.source.replace(old, new)
    return nb


def probe() -> nbformat.NotebookNode:
    nb = solution("05_agent_loop")
    (cell,) = [cell for cell in nb.cells if cell.get("id") == "w05-ex1"]
    cell.source += PROBE
    return nb


def class_folder(root: Path) -> Path:
    students = {
        # Lessons 05-09 after a solved 04 (full marks, the capstone on the student's own parts)
        # and after a blank 04 (full marks too, the capstone saying which parts were the
        # course's) are tests/grading/test_course_notebooks.py's: its class holds both students.
        "solved": {"04_registry": solution("04_registry"), "05_agent_loop": probe()},
        "blank_probe": {"04_registry": blank("04_registry"), "05_agent_loop": probe()},
        "failing_probe": {
            "04_registry": changed(solution("04_registry"), "w04-ex1-code", *WRONG_NAMES),
            "05_agent_loop": probe(),
        },
    }
    for student, notebooks in students.items():
        (root / student).mkdir(parents=True)
        for slug, nb in notebooks.items():
            nbformat.write(nb, root / student / f"{slug}.ipynb")
    return root


def forged_course_folder(root: Path) -> dict[str, str]:
    """A course folder whose toolkit state says lesson 04 passed on the solutions: the grader
    must not read it (nor may its kernels)."""
    home = root / "home"
    notebooks = root / "notebooks"
    notebooks.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / "04_registry.ipynb", notebooks)
    cells = export.read_notebook(notebooks / "04_registry.ipynb")
    passed = {exercise: state.source_hash(source) for exercise, source in cells.answers.items()}
    home.mkdir()
    (home / state.STATE_FILE).write_text(json.dumps({"passed": passed, "prefer": {}}))
    return {state.HOME_VARIABLE: str(home), state.NOTEBOOKS_VARIABLE: str(notebooks)}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """grades.json of one class run: every test of this module reads it."""
    root = tmp_path_factory.mktemp("toolkit-class")
    submissions = class_folder(root / "class")
    out = root / "out"
    env = {**os.environ, **forged_course_folder(root / "course")}
    command = [sys.executable, "-m", "course_lib", "grade", str(submissions), "--out", str(out)]
    # A generous cell budget: only a wrong answer waits for it, and a machine under load must
    # not turn a slow setup cell into lost points here.
    command += ["--cell-timeout", "300"]
    run = subprocess.run(
        [*command, "--jobs", "2"], env=env, capture_output=True, text=True, timeout=1800
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads((out / "grades.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def grades(graded: dict) -> dict[tuple[str, str], dict[str, dict]]:
    found: dict[tuple[str, str], dict[str, dict]] = {}
    for row in graded["grades"]:
        found.setdefault((row["student"], row["notebook"]), {})[row["exercise"]] = row
    return found


def test_lesson_05_uses_the_students_registry_when_the_graders_04_checks_passed(grades):
    assert {r["status"] for r in grades[("solved", "04_registry")].values()} == {"passed"}
    assert grades[("solved", "05_agent_loop")]["05.1"]["status"] == "passed"


def test_lesson_05_uses_the_course_registry_when_04_is_blank_whatever_the_course_folder_says(
    grades,
):
    assert grades[("blank_probe", "05_agent_loop")]["05.1"]["status"] == "failed"


def test_lesson_05_uses_the_course_registry_when_an_04_exercise_fails(grades):
    assert grades[("failing_probe", "04_registry")]["04.1"]["status"] == "failed"
    assert grades[("failing_probe", "05_agent_loop")]["05.1"]["status"] == "failed"


@pytest.fixture(scope="module")
def exec_road_grades(tmp_path_factory: pytest.TempPathFactory):
    """The probe graded with kernels started by exec instead of forked from the zygote."""
    root = tmp_path_factory.mktemp("toolkit-exec-road")
    for student, first in (("solved", solution("04_registry")), ("blank", blank("04_registry"))):
        (root / "class" / student).mkdir(parents=True)
        nbformat.write(first, root / "class" / student / "04_registry.ipynb")
        nbformat.write(probe(), root / "class" / student / "05_agent_loop.ipynb")
    out = root / "out"
    command = [sys.executable, "-m", "course_lib", "grade", str(root / "class"), "--out", str(out)]
    env = {**os.environ, "COURSE_GRADE_ZYGOTE": "0"}
    run = subprocess.run(
        [*command, "--cell-timeout", "300", "--jobs", "2"],
        env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    rows = json.loads((out / "grades.json").read_text(encoding="utf-8"))["grades"]
    return {(r["student"], r["exercise"]): r["status"] for r in rows}


def test_kernels_started_by_exec_get_the_same_parts(exec_road_grades):
    assert exec_road_grades[("solved", "05.1")] == "passed"
    assert exec_road_grades[("blank", "05.1")] == "failed"
