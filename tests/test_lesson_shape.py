"""The shape every lesson promises a learner (issue "Lessons 00-06, second edition"):

- each exercise's contract is one markdown cell (metadata ``{"course": {"contract": "NN.K"}}``)
  before its exercise cell, states its rules as a list a learner can tick off (at least one item
  per rule the check tests), and runs to at most 250 words;
- each lesson holds at least one Mermaid diagram.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from course_lib.authoring.steps import course_meta, is_exercise
from course_lib.checks import EXERCISES

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
MAX_CONTRACT_WORDS = 250
TRUSTED = sorted(EXERCISES)


def lesson_of(exercise_id: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "solutions" / f"{EXERCISES[exercise_id].notebook}.ipynb", 4)


def words(markdown: str) -> int:
    """Words as a reader counts them: runs of letters or digits, code spans included."""
    return len(re.findall(r"[\w'’-]+", markdown))


def contract_cell(nb: nbformat.NotebookNode, exercise_id: str) -> nbformat.NotebookNode | None:
    for cell in nb.cells:
        if cell.cell_type == "markdown" and course_meta(cell).get("contract") == exercise_id:
            return cell
    return None


@pytest.mark.parametrize("exercise_id", TRUSTED)
def test_each_contract_is_one_cell_before_its_exercise_with_a_rule_list_of_at_most_250_words(
    exercise_id,
):
    nb = lesson_of(exercise_id)
    cell = contract_cell(nb, exercise_id)
    assert cell is not None, f"exercise {exercise_id} has no markdown cell marked as its contract"
    exercise = next(
        c for c in nb.cells if is_exercise(c) and course_meta(c)["exercise"] == exercise_id
    )
    assert nb.cells.index(cell) < nb.cells.index(exercise)
    count = words(cell.source)
    assert count <= MAX_CONTRACT_WORDS, f"the contract of {exercise_id} has {count} words"
    items = re.findall(r"^\s*(?:[-*]|\d+\.)\s+\S", cell.source, flags=re.MULTILINE)
    assert len(items) >= len(EXERCISES[exercise_id].rules), (
        f"the contract of {exercise_id} lists {len(items)} items for "
        f"{len(EXERCISES[exercise_id].rules)} rules"
    )


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_each_lesson_has_a_mermaid_diagram(solution):
    nb = nbformat.read(solution, as_version=4)
    diagrams = [c for c in nb.cells if c.cell_type == "markdown" and "```mermaid" in c.source]
    assert diagrams, f"{solution.name} has no Mermaid diagram"


def test_the_word_count_counts_what_a_reader_reads():
    assert words("Write `greeting(name)`: it **returns** the text.") == 7
