"""``course new-exercise NN.K --target NAME``, run on a copy of the course: the new exercise's
cells, check and test are written, the build collects it, it is registered with its points, its
contract and its rules agree word for word, and its test runs and fails until it is written."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course_lib.authoring.contracts import notebook_contract
from course_lib.authoring.scaffold import (
    NewExercise,
    ScaffoldError,
    check_module,
    new_exercise,
)

ROOT = Path(__file__).resolve().parents[2]
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc")


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """The parts of the course the scaffold, the build and a check's test read, copied."""
    copy = tmp_path / "course"
    for folder in ("course_lib", "solutions", "notebooks"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=IGNORED)
    shutil.copy(ROOT / "pyproject.toml", copy)
    (copy / "tests" / "checks").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "conftest.py", copy / "tests")
    shutil.copy(ROOT / "tests" / "checks" / "rules.py", copy / "tests" / "checks")
    return copy


def run(course: Path, *args: str) -> subprocess.CompletedProcess:
    """``python ARGS`` in the copy, importing the copy's ``course_lib``."""
    env = {**os.environ, "PYTHONPATH": str(course), "COURSE_LAUNCHED": "1"}
    return subprocess.run(
        [sys.executable, *args], cwd=course, env=env, capture_output=True, text=True, timeout=300
    )


def test_a_new_exercise_is_built_registered_and_tested_and_fails_until_written(course):
    made = run(course, "-m", "course_lib", "new-exercise", "00.2", "--target", "farewell")
    assert made.returncode == 0, made.stderr
    assert "wrote course_lib/checks/lesson00/farewell.py" in made.stdout

    built = run(course, "-m", "course_lib", "build")
    assert built.returncode == 0, built.stderr
    student = nbformat.read(course / "notebooks" / "00_welcome.ipynb", as_version=4)
    [cell] = [c for c in student.cells if c.metadata.get("course", {}).get("exercise") == "00.2"]
    assert 'raise NotImplementedError("Exercise 00.2: write farewell' in cell.source
    assert "the reference solution" not in cell.source

    registered = run(
        course,
        "-c",
        "import json; from course_lib.checks import EXERCISES; e = EXERCISES['00.2']; "
        "print(json.dumps([e.notebook, e.points, e.targets, [r.text for r in e.rules]]))",
    )
    assert registered.returncode == 0, registered.stderr
    notebook, points, targets, texts = json.loads(registered.stdout)
    assert (notebook, points, targets) == ("00_welcome", 1, ["farewell"])
    assert notebook_contract(course / "solutions", "00_welcome", "00.2") == texts

    tested = run(
        course,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "tests/checks/lesson00/test_farewell.py",
    )
    assert tested.returncode == 1, tested.stdout
    assert "2 failed, 1 passed" in tested.stdout
    assert "NotImplementedError: the check of 00.2 is still to write" in tested.stdout

    linted = run(course, "-m", "ruff", "check", "course_lib/checks/lesson00", "tests/checks")
    assert linted.returncode == 0, linted.stdout


def test_the_points_given_are_the_registered_and_the_notebooks(course):
    new_exercise(course, NewExercise("01.8", "shout", points=3))
    registered = run(
        course, "-c", "from course_lib.checks import EXERCISES; print(EXERCISES['01.8'].points)"
    )
    assert registered.stdout.strip() == "3", registered.stderr
    nb = nbformat.read(course / "solutions" / "01_handwritten_schemas.ipynb", as_version=4)
    [cell] = [c for c in nb.cells if c.metadata.get("course", {}).get("exercise") == "01.8"]
    assert cell.metadata["course"]["points"] == 3
    assert (
        "from course_lib.checks.lesson01 import ("
        in (course / "course_lib" / "checks" / "lesson01" / "__init__.py").read_text()
    )


@pytest.mark.parametrize(
    ("new", "says"),
    [
        (NewExercise("00.1", "greeting"), "already has exercise 00.1"),
        (NewExercise("00.2", "greeting"), "greeting.py exists already"),
        (NewExercise("0.2", "farewell"), "an exercise id is NN.K"),
        (NewExercise("00.2", "class"), "must be a Python name"),
        (NewExercise("00.2", "Farewell"), "lower case"),
        (NewExercise("00.2", "farewell", points=0), "points must be a positive integer"),
        (NewExercise("42.1", "farewell"), "holds 0 notebooks for lesson 42"),
    ],
)
def test_it_refuses_and_writes_nothing(course, new, says):
    before = {p: p.read_bytes() for p in course.rglob("*") if p.is_file()}
    with pytest.raises(ScaffoldError, match=says):
        new_exercise(course, new)
    assert {p: p.read_bytes() for p in course.rglob("*") if p.is_file()} == before


# -- the scaffold's check module keeps the form of the example check ---------------------------

EXAMPLE = ROOT / "course_lib" / "checks" / "lesson00" / "greeting.py"


def table_form(value: ast.expr) -> str:
    """``Catalog() | {...}`` for a catalog joined with a dict literal; else what it is."""
    if isinstance(value, ast.BinOp) and isinstance(value.right, ast.Dict):
        return ast.unparse(value.left) + " | {...}"
    return type(value).__name__


def form(source: str) -> dict[str, object]:
    """What a check module's form is, leaving out what its exercise says: its docstring's second
    paragraph, the course's names it imports, how its tables are built, the keywords its
    ``@exercise`` gives, the check's signature and whether it runs a table of cases."""
    tree = ast.parse(source)
    imports = {
        (node.module, alias.name)
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_lib.")
        for alias in node.names
    }
    tables = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
            if name == "RULES":
                tables[name] = sorted(
                    {(item.func.id, *sorted(k.arg for k in item.keywords)) for item in value.elts}
                )
            elif name in ("HINTS", "TEXTS"):
                tables[name] = table_form(value)
    [check] = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("check_")
    ]
    [decorator] = check.decorator_list
    return {
        "docstring": ast.get_docstring(tree).split("\n\n")[1],
        "imports": imports,
        "tables": tables,
        "exercise": (decorator.func.id, sorted(k.arg for k in decorator.keywords)),
        "signature": ast.unparse(check.args) + " -> " + ast.unparse(check.returns),
        "runs cases": any(
            isinstance(n, ast.Call) and getattr(n.func, "id", "") == "run_cases"
            for n in ast.walk(check)
        ),
    }


def in_step(scaffold: dict[str, object], example: dict[str, object]) -> list[str]:
    """Where the scaffold's form parts from the example's (it may import fewer names)."""
    return [
        key
        for key in example
        if not (
            scaffold[key] <= example[key] if key == "imports" else scaffold[key] == example[key]
        )
    ]


def test_the_scaffolds_check_module_has_the_form_of_the_example_check():
    scaffold = form(check_module(NewExercise("00.2", "farewell"), "00_welcome"))
    example = form(EXAMPLE.read_text(encoding="utf-8"))
    assert in_step(scaffold, example) == [], (scaffold, example)
    assert scaffold["runs cases"] and set(scaffold["tables"]) == {"RULES", "HINTS", "TEXTS"}


def test_the_form_comparison_sees_an_example_that_moved_on():
    """Had the example changed its idiom (a hint table as a plain dict, another keyword), the
    comparison above would say so."""
    source = EXAMPLE.read_text(encoding="utf-8")
    scaffold = form(check_module(NewExercise("00.2", "farewell"), "00_welcome"))
    plain = source.replace("HINTS = Catalog() | {", "HINTS = {", 1)
    assert in_step(scaffold, form(plain)) == ["tables"]
    fewer = source.replace("rules=RULES, hints=HINTS", "rules=RULES", 1)
    assert in_step(scaffold, form(fewer)) == ["exercise"]
