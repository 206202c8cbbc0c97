"""The real course handed in by one class of students from both editions, graded in one run
(``conftest.course_class``) for every test that needs the course's notebooks graded: the
English grades (``test_course_notebooks``) and the editions compared (``test_course_editions``).

Grading a lesson's notebook costs seconds whatever it holds (the lesson's own cells run), so each
answer is handed in once per edition and each student does several jobs:

- ``untouched`` and ``solutions``: the English student notebooks and solutions, every lesson;
- ``wrong``: English answers that fail: lesson 00's greeting hard-coded, and a capstone that
  never asks the person before cancelling an order;
- ``zh-skipped-04``: the Chinese solutions of every lesson but 04, whose Chinese student notebook
  is handed in untouched (so lessons 05-09 run on the course's ToolRegistry: the student without
  a passed 04 of ``tests/toolkit/test_grading_toolkit.py``);
- ``zh-only-04``: the Chinese student notebooks untouched but 04, solved;
- ``zh-wrong``: the answers of ``wrong`` handed in from the Chinese edition.

So every lesson's solution and untouched notebook is graded once in each edition:
``twin(student, slug)`` names the Chinese student who handed in what the English one did.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted(path.stem for path in (ROOT / "notebooks").glob("*.ipynb"))
EDITIONS = {"en": "", "zh-CN": "zh-CN"}  # language -> its folder in notebooks/ and solutions/
WELCOME, REGISTRY, CAPSTONE = "00_welcome", "04_registry", "09_capstone"
# Wrong answers: lesson -> (the exercise cell's id, a line of its solution, the line handed in).
WRONG = {
    # the greeting ignores the name
    WELCOME: ("w00-ex1", '    return f"Hello, {name}!"', '    return "Hello, Ada!"'),
    # a capstone that never asks the person: staff cancel an order nobody approved
    CAPSTONE: (
        "w09-assistant",
        "        approvals = ApprovalRegistry(strict, needs_approval=needs_approval, "
        "approve=self.approve)",
        "        approvals = strict",
    ),
}


def edition_notebook(folder: str, lang: str, slug: str) -> Path:
    return ROOT / folder / EDITIONS[lang] / f"{slug}.ipynb"


def wrong_answer(lang: str, slug: str) -> nbformat.NotebookNode:
    """The solution of ``slug`` in edition ``lang`` with ``WRONG[slug]``'s exercise changed."""
    cell_id, right, wrong = WRONG[slug]
    nb = nbformat.read(edition_notebook("solutions", lang, slug), as_version=4)
    (cell,) = [cell for cell in nb.cells if cell.get("id") == cell_id]
    assert right in cell.source, (lang, slug)
    cell.source = cell.source.replace(right, wrong)
    return nb


def twin(student: str, slug: str) -> str:
    """The Chinese student who handed in, for lesson ``slug``, what English ``student`` did."""
    if student == "wrong":
        return "zh-wrong"
    solved = student == "solutions"
    return "zh-only-04" if solved == (slug == REGISTRY) else "zh-skipped-04"


def hand_in(root: Path) -> Path:
    """The class folder: one folder per student, one notebook per lesson handed in."""
    kinds = {"untouched": "notebooks", "solutions": "solutions", "wrong": ""}
    for slug in LESSONS:
        for lang in EDITIONS:
            for student, folder in kinds.items():
                target = root / (student if lang == "en" else twin(student, slug))
                target.mkdir(parents=True, exist_ok=True)
                if folder:
                    shutil.copy(edition_notebook(folder, lang, slug), target)
                elif slug in WRONG:
                    nbformat.write(wrong_answer(lang, slug), target / f"{slug}.ipynb")
    return root
