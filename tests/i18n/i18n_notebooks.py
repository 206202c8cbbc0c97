"""A small English lesson for the i18n tests, built in memory with ``nbformat.v4``."""

from __future__ import annotations

import nbformat
from nbformat import v4

EXERCISE = '''def add(a: int, b: int) -> int:
    """The sum of a and b."""
    # BEGIN SOLUTION
    total = a + b  # add them
    return total
    # END SOLUTION'''


def markdown(cell_id: str, source: str) -> nbformat.NotebookNode:
    cell = v4.new_markdown_cell(source)
    cell.id = cell_id
    return cell


def code(cell_id: str, source: str, **metadata) -> nbformat.NotebookNode:
    cell = v4.new_code_cell(source)
    cell.id = cell_id
    cell.metadata.update(metadata)
    return cell


def lesson(*cells: nbformat.NotebookNode, name: str = "99_sample") -> nbformat.NotebookNode:
    """A valid solution notebook: prose, an example, one exercise and its check (or ``cells``)."""
    body = list(cells) or [
        markdown("t-intro", "# Sample\n\nAdd `a` and `b`: see [the docs](https://example.org)."),
        code("t-example", '# Show a city\nprint("# not a comment", "北京")  # inline note'),
        code(
            "t-ex1",
            EXERCISE,
            tags=["exercise"],
            course={"exercise": "99.1", "points": 2, "hint": "add the two numbers"},
        ),
        code(
            "t-check1",
            'from course_lib.checks import check\ncheck("99.1", add)',
            tags=["check"],
            course={"check": "99.1"},
        ),
        markdown("t-summary", "## Summary\n\nYou added two numbers."),
    ]
    nb = v4.new_notebook(cells=body)
    nb.metadata = {
        "course": {"notebook": name},
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    }
    return nb
