"""``course new-exercise NN.K --target NAME``: the files of a new exercise, as stubs to fill in.

It writes, in the course folder ``root``:

- in ``solutions/NN_*.ipynb``, after the lesson's last check cell (or at the end): the contract
  cell (one rule to replace), the exercise cell (a solution block that is still to write) and its
  check cell, in the forms the build requires (docs/authoring.md);
- ``course_lib/checks/lessonNN/<target>.py``: ``RULES`` whose texts are the contract's items word
  for word, ``HINTS`` and the registered check, which fails until it is written; the lesson's
  ``__init__.py`` imports it, so the exercise is registered;
- ``tests/checks/lessonNN/test_<target>.py``: the solution, the registration and one wrong answer
  per rule, which fail until they are written.

Nothing is overwritten: an exercise id already in the notebook, or a file already there, stops
it before it writes anything. Run ``course build`` afterwards to write the student notebook.
"""

from __future__ import annotations

import importlib.util
import keyword
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from course_lib.authoring.steps import EXERCISE_ID, course_meta, is_check

RULE_TEXT = "`{target}` returns what the exercise asks for (replace this rule with the real ones)"


class ScaffoldError(ValueError):
    """The exercise cannot be added as asked; the message says why."""


@dataclass(frozen=True)
class NewExercise:
    exercise_id: str
    target: str
    points: int = 1

    @property
    def lesson(self) -> str:
        return self.exercise_id.partition(".")[0]

    @property
    def rule_text(self) -> str:
        return RULE_TEXT.format(target=self.target)


def contract_source(new: NewExercise) -> str:
    return (
        f"### Exercise {new.exercise_id}: `{new.target}`\n\n"
        f"Write `{new.target}`. The rules:\n\n"
        f"- {new.rule_text}.\n"
    )


def exercise_source(new: NewExercise) -> str:
    return (
        f"def {new.target}(*args, **kwargs):\n"
        f'    """What `{new.target}` returns (write its signature and this docstring)."""\n'
        "    # BEGIN SOLUTION\n"
        f'    raise NotImplementedError("the reference solution of {new.exercise_id}")\n'
        "    # END SOLUTION"
    )


def check_source(new: NewExercise) -> str:
    return f'from course_lib.checks import check\ncheck("{new.exercise_id}", {new.target})'


def check_module(new: NewExercise, notebook: str) -> str:
    """The check module, in the form of the course's example check (lesson 00's ``greeting``;
    tests/authoring/test_scaffold.py holds the two in step)."""
    return f'''"""Exercise {new.exercise_id}, ``{new.target}``: (say what it checks).

Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

from course_lib.checks.cases import Case, run_cases
from course_lib.checks.catalog import Catalog
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner

# One Rule per item of the contract cell, its text the item word for word
# (tests/test_lesson_shape.py holds them equal).
RULES = (
    Rule(
        "returns",
        "{new.rule_text}",
        case="{new.target}()",
        hint="returns",
    ),
)

HINTS = Catalog() | {{
    "returns": "{new.target} must return what the exercise asks for.",
}}

TEXTS = Catalog() | {{"summary": "{{count}} cases"}}


def cases() -> list[Case]:
    """The table: a Case (label, arguments, expected value, hints) for each rule's case, then
    the hidden ones."""
    raise NotImplementedError("the check of {new.exercise_id} is still to write")


@exercise(
    "{new.exercise_id}",
    notebook="{notebook}",
    title="{new.target}",
    points={new.points},
    rules=RULES,
    hints=HINTS,
)
def check_{new.target}(learner: Learner) -> str:
    count = run_cases(learner, "{new.target}", cases())
    return TEXTS.text("summary", count=count)
'''


def tests_source(new: NewExercise, notebook: str) -> str:
    key = new.exercise_id
    return f'''"""Exercise {key}: the solution passes; a wrong answer per rule gets its hint."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule

from course_lib.checks import EXERCISES, check


def solution(*args, **kwargs):
    raise NotImplementedError("the reference solution of {key}")


def test_the_solution_passes():
    check("{key}", solution)


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["{key}"]
    assert spec.notebook == "{notebook}"
    assert (spec.points, spec.targets) == ({new.points}, ("{new.target}",))


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE: dict[str, dict] = {{"{key}": {{}}}}


def test_every_rule_has_a_wrong_answer():
    assert set(WRONG_BY_RULE["{key}"]) == {{rule.id for rule in EXERCISES["{key}"].rules}}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["{key}"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("{key}", rule, WRONG_BY_RULE["{key}"][rule])
'''


def lesson_notebook(root: Path, lesson: str) -> Path:
    found = sorted((root / "solutions").glob(f"{lesson}_*.ipynb"))
    if len(found) != 1:
        raise ScaffoldError(f"solutions/ holds {len(found)} notebooks for lesson {lesson}, not one")
    return found[0]


def validate(new: NewExercise) -> None:
    if not EXERCISE_ID.fullmatch(new.exercise_id):
        raise ScaffoldError(f"an exercise id is NN.K, such as 03.7, not {new.exercise_id!r}")
    if not new.target.isidentifier() or keyword.iskeyword(new.target):
        raise ScaffoldError(f"the target must be a Python name, not {new.target!r}")
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", new.target):
        raise ScaffoldError(f"the target names a module too: lower case, not {new.target!r}")
    if new.points <= 0:
        raise ScaffoldError(f"points must be a positive integer, not {new.points}")


def new_exercise(root: Path, new: NewExercise) -> list[Path]:
    """Write the new exercise's cells and files under ``root``; return the paths written."""
    validate(new)
    notebook_path = lesson_notebook(root, new.lesson)
    notebook = notebook_path.stem
    nb = nbformat.read(notebook_path, as_version=4)
    if any(new.exercise_id in course_meta(cell).values() for cell in nb.cells):
        raise ScaffoldError(f"{notebook_path.name} already has exercise {new.exercise_id}")
    package = root / "course_lib" / "checks" / f"lesson{new.lesson}"
    module = package / f"{new.target}.py"
    tests = root / "tests" / "checks" / f"lesson{new.lesson}"
    test = tests / f"test_{new.target}.py"
    for path in (module, test):
        if path.exists():
            raise ScaffoldError(f"{path.relative_to(root)} exists already")
    if not (package / "__init__.py").exists():
        raise ScaffoldError(f"{package.relative_to(root)} is not a lesson's checks package yet")

    cells = [
        new_markdown_cell(contract_source(new), metadata={"course": {"contract": new.exercise_id}}),
        new_code_cell(
            exercise_source(new),
            metadata={
                "course": {
                    "exercise": new.exercise_id,
                    "hint": f"write {new.target} as the contract says",
                    "points": new.points,
                },
                "tags": ["exercise"],
            },
        ),
        new_code_cell(
            check_source(new),
            metadata={"course": {"check": new.exercise_id}, "tags": ["check"]},
        ),
    ]
    checks = [index for index, cell in enumerate(nb.cells) if is_check(cell)]
    at = checks[-1] + 1 if checks else len(nb.cells)
    nb.cells[at:at] = cells
    nbformat.write(nb, notebook_path)

    module.write_text(check_module(new, notebook), encoding="utf-8")
    init = package / "__init__.py"
    registers = (
        f"    from course_lib.checks.lesson{new.lesson} import {new.target}"
        f"  # noqa: F401 (registers {new.exercise_id})\n"
    )
    text = init.read_text(encoding="utf-8")
    init.write_text(text + ("" if text.endswith("\n") else "\n") + registers, encoding="utf-8")
    tests.mkdir(parents=True, exist_ok=True)
    if not (tests / "__init__.py").exists():
        (tests / "__init__.py").write_text("", encoding="utf-8")
    test.write_text(tests_source(new, notebook), encoding="utf-8")
    tidy(root, [module, init, test])
    return [notebook_path, module, init, test]


def tidy(root: Path, paths: list[Path]) -> None:
    """Sort the lesson's imports (the new one joins the list) and format the new files, with the
    project's ruff settings, when ruff is installed (``setup-venv.sh dev``)."""
    if importlib.util.find_spec("ruff") is None:
        return
    files = [str(path) for path in paths]
    ruff = [sys.executable, "-m", "ruff"]
    subprocess.run([*ruff, "check", "--fix", "--select", "I", "--quiet", *files], cwd=root)
    subprocess.run([*ruff, "format", "--quiet", *files], cwd=root)
