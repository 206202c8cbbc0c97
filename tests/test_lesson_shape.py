"""The shape every lesson promises a learner (issue "Lessons 00-06, second edition"):

- each exercise's contract is one markdown cell (metadata ``{"course": {"contract": "NN.K"}}``)
  before its exercise cell, states its rules as a list a learner can tick off, and runs to at
  most 250 words;
- those list items are the check's rules: each ``Rule.text`` is one item, word for word (issue 27
  "each fact once"), one rule per item and one item per rule, in any order;
- each lesson holds at least one Mermaid diagram.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from course_lib.authoring.contracts import contract_cell, contract_items, same_words
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


@pytest.mark.parametrize("exercise_id", TRUSTED)
def test_each_contract_is_one_cell_before_its_exercise_of_at_most_250_words(
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


@pytest.mark.parametrize("exercise_id", TRUSTED)
def test_the_contract_lists_exactly_the_checks_rules_word_for_word(exercise_id):
    """Order-insensitive: the notebook may group its items as a learner reads them best."""
    cell = contract_cell(lesson_of(exercise_id), exercise_id)
    assert cell is not None
    shown = sorted(same_words(item) for item in contract_items(cell.source))
    checked = sorted(same_words(rule.text) for rule in EXERCISES[exercise_id].rules)
    only_shown = [item for item in shown if item not in checked]
    only_checked = [text for text in checked if text not in shown]
    assert not only_shown and not only_checked, (
        f"exercise {exercise_id}: the notebook lists {only_shown} that no Rule.text says, and the "
        f"check has {only_checked} that the notebook does not list"
    )
    assert shown == checked, f"exercise {exercise_id}: an item is listed more or less often"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_each_lesson_has_a_mermaid_diagram(solution):
    nb = nbformat.read(solution, as_version=4)
    diagrams = [c for c in nb.cells if c.cell_type == "markdown" and "```mermaid" in c.source]
    assert diagrams, f"{solution.name} has no Mermaid diagram"


def test_the_word_count_counts_what_a_reader_reads():
    assert words("Write `greeting(name)`: it **returns** the text.") == 7


def test_contract_items_are_the_lists_items_joined_without_their_punctuation():
    markdown = (
        "**Exercise 00.1.** Write `greeting(name)`. The rules:\n\n"
        "- it **returns** the text;\n"
        "- the text is exactly\n  `Hello, <name>!`;\n"
        "  - nested, and\n"
        "1. numbered.\n\n"
        "Then run the check cell.\n"
        "  indented prose after a blank line is no item\n"
    )
    assert contract_items(markdown) == [
        "it **returns** the text",
        "the text is exactly `Hello, <name>!`",
        "nested",
        "numbered",
    ]


def test_same_words_forgives_spacing_and_list_punctuation_only():
    assert same_words("the  name is\n exactly `x`;") == same_words("the name is exactly `x`")
    assert same_words("The name is exactly `x`") != same_words("the name is exactly `x`")
    assert same_words("the name is exactly x") != same_words("the name is exactly `x`")
