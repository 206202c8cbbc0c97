"""Tiny solution notebooks for the authoring tests, built in memory with ``nbformat.v4``."""

from __future__ import annotations

import nbformat
from nbformat import v4

EXERCISE_SOURCE = '''def add(a: int, b: int) -> int:
    """The sum of a and b."""
    # BEGIN SOLUTION
    total = a + b
    return total
    # END SOLUTION'''

CHECK_SOURCE = 'from course_lib.checks import check\ncheck("99.1", add)'


def code(cell_id: str, source: str, **metadata) -> nbformat.NotebookNode:
    cell = v4.new_code_cell(source)
    cell.id = cell_id
    cell.metadata.update(metadata)
    return cell


def exercise_cell(source: str = EXERCISE_SOURCE, cell_id: str = "t-ex1", **course):
    meta = {"exercise": "99.1", "points": 2, "hint": "add the two numbers", **course}
    return code(cell_id, source, tags=["exercise"], course=meta)


def check_cell(source: str = CHECK_SOURCE, cell_id: str = "t-check1", exercise_id: str = "99.1"):
    return code(cell_id, source, tags=["check"], course={"check": exercise_id})


def solution_notebook(*cells, name: str = "99_sample") -> nbformat.NotebookNode:
    """A valid solution notebook: an intro, the given cells (default: one exercise), a summary."""
    intro = v4.new_markdown_cell("# Sample")
    intro.id = "t-intro"
    example = code("t-example", 'print("北京")')
    example.outputs = [v4.new_output("stream", name="stdout", text="北京\n")]
    example.execution_count = 1
    body = list(cells) or [exercise_cell(), check_cell()]
    nb = v4.new_notebook(cells=[intro, example, *body])
    nb.metadata = {
        "course": {"notebook": name},
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    }
    return nb
