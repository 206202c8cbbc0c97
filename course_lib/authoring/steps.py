"""The build as a chain of small steps, each doing one job on an ``nbformat`` notebook.

Every step has the signature ``step(nb, name) -> nb`` (``name`` is the notebook's ``NN_slug``,
used in error messages) and works on the copy the build hands it. ``STEPS`` lists them in order;
the first three only verify the solution notebook, the last three turn it into the student
version. Anything wrong with the source is an ``AuthoringError`` naming the notebook and cell.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from nbformat import NotebookNode

from course_lib.authoring.blocks import BlockError, has_markers, stub_source
from course_lib.i18n import ENGLISH

CHECK_SOURCE = re.compile(
    r"from course_lib\.checks import check\n"
    r'check\("(?P<id>\d\d\.\d+)"(?P<targets>(, [A-Za-z_]\w*)+)\)'
)
EXERCISE_ID = re.compile(r"\d\d\.\d+")
# Cell metadata that only describes one run of the notebook; the student version drops it.
RUN_METADATA = ("execution", "collapsed", "scrolled")


class AuthoringError(ValueError):
    """A solution notebook breaks the authoring conventions (docs/authoring.md)."""

    def __init__(self, notebook: str, problem: str, cell: NotebookNode | None = None, index=0):
        where = f"{notebook}.ipynb"
        if cell is not None:
            where += f", cell {index} (id {cell.get('id', '?')!r})"
        super().__init__(f"{where}: {problem}")


Step = Callable[[NotebookNode, str], NotebookNode]


def course_meta(cell: NotebookNode) -> dict:
    return cell.get("metadata", {}).get("course", {})


def tags(cell: NotebookNode) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def is_exercise(cell: NotebookNode) -> bool:
    return "exercise" in course_meta(cell) or "exercise" in tags(cell)


def is_check(cell: NotebookNode) -> bool:
    return "check" in course_meta(cell) or "check" in tags(cell)


# --- verifying the source ---------------------------------------------------------------------


def require_notebook_metadata(nb: NotebookNode, name: str) -> NotebookNode:
    """The notebook names itself, and every cell has a unique id (graders match cells by id)."""
    found = nb.metadata.get("course", {}).get("notebook")
    if found != name:
        raise AuthoringError(
            name,
            f'notebook metadata must hold {{"course": {{"notebook": "{name}"}}}}, not {found!r}',
        )
    seen: set[str] = set()
    for index, cell in enumerate(nb.cells):
        cell_id = cell.get("id")
        if not cell_id:
            raise AuthoringError(name, "every cell needs a stable id", cell, index)
        if cell_id in seen:
            raise AuthoringError(name, f"the id {cell_id!r} is used twice", cell, index)
        seen.add(cell_id)
    return nb


def require_exercise_cells(nb: NotebookNode, name: str) -> NotebookNode:
    """Each exercise cell is well described, unique, and followed by its check cell."""
    seen: set[str] = set()
    for index, cell in enumerate(nb.cells):
        if not is_exercise(cell):
            continue
        exercise_id = _exercise_id(cell, name, index, "exercise")
        meta = course_meta(cell)
        points = meta.get("points")
        if isinstance(points, bool) or not isinstance(points, int) or points <= 0:
            raise AuthoringError(
                name, f"points must be a positive integer, not {points!r}", cell, index
            )
        hint = meta.get("hint")
        if not isinstance(hint, str) or not hint.strip() or "\n" in hint:
            raise AuthoringError(
                name, "an exercise cell needs a one-line hint in its course metadata", cell, index
            )
        if not exercise_id.startswith(name[:2] + "."):
            raise AuthoringError(
                name, f"exercise {exercise_id} does not belong to notebook {name[:2]}", cell, index
            )
        if exercise_id in seen:
            raise AuthoringError(name, f"exercise {exercise_id} appears twice", cell, index)
        seen.add(exercise_id)
        following = nb.cells[index + 1] if index + 1 < len(nb.cells) else None
        if following is None or not is_check(following):
            raise AuthoringError(
                name, f"exercise {exercise_id} must be followed by its check cell", cell, index
            )
    return nb


def require_check_cells(nb: NotebookNode, name: str) -> NotebookNode:
    """Each check cell follows its exercise and holds exactly the canonical two lines."""
    for index, cell in enumerate(nb.cells):
        if not is_check(cell):
            continue
        exercise_id = _exercise_id(cell, name, index, "check")
        previous = nb.cells[index - 1] if index > 0 else None
        if previous is None or not is_exercise(previous):
            raise AuthoringError(
                name, f"check cell {exercise_id} must come right after its exercise", cell, index
            )
        if course_meta(previous).get("exercise") != exercise_id:
            raise AuthoringError(
                name,
                f"check cell {exercise_id} follows exercise {course_meta(previous)['exercise']}",
                cell,
                index,
            )
        match = CHECK_SOURCE.fullmatch(cell.source)
        if match is None or match["id"] != exercise_id:
            raise AuthoringError(
                name,
                "a check cell's source must be exactly `from course_lib.checks import check` "
                f'and `check("{exercise_id}", target, ...)` on two lines',
                cell,
                index,
            )
    return nb


def _exercise_id(cell: NotebookNode, name: str, index: int, kind: str) -> str:
    if cell.cell_type != "code":
        raise AuthoringError(name, f"{kind} cells must be code cells", cell, index)
    if kind not in tags(cell):
        raise AuthoringError(name, f"an {kind} cell needs the tag {kind!r}", cell, index)
    exercise_id = course_meta(cell).get(kind)
    if not isinstance(exercise_id, str) or not EXERCISE_ID.fullmatch(exercise_id):
        raise AuthoringError(
            name,
            f'an {kind} cell needs {{"course": {{"{kind}": "NN.K"}}}} in its metadata, '
            f"not {exercise_id!r}",
            cell,
            index,
        )
    return exercise_id


# --- making the student version ---------------------------------------------------------------


def replace_solution_blocks(nb: NotebookNode, name: str) -> NotebookNode:
    """Exercise cells get their stubs (in the notebook's language); solution markers anywhere
    else are an error."""
    lang = nb.metadata.get("course", {}).get("lang", ENGLISH)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if not is_exercise(cell):
            if has_markers(cell.source):
                raise AuthoringError(name, "solution markers outside an exercise cell", cell, index)
            continue
        meta = course_meta(cell)
        try:
            cell.source = stub_source(cell.source, meta["exercise"], meta["hint"], lang)
        except BlockError as exc:
            raise AuthoringError(name, str(exc), cell, index) from None
        try:
            ast.parse(cell.source)
        except SyntaxError as exc:
            raise AuthoringError(
                name,
                f"the student version does not parse ({exc.msg}, line {exc.lineno})",
                cell,
                index,
            ) from None
    return nb


def clear_outputs(nb: NotebookNode, name: str) -> NotebookNode:
    """No outputs, execution counts or run metadata: the learner runs the notebook."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        for key in RUN_METADATA:
            cell.metadata.pop(key, None)
    nb.metadata.pop("widgets", None)  # stored widget state belongs to the stored outputs
    return nb


def lock_check_cells(nb: NotebookNode, name: str) -> NotebookNode:
    """Check cells cannot be edited or deleted in JupyterLab (the grader verifies them too)."""
    for cell in nb.cells:
        if is_check(cell):
            cell.metadata["editable"] = False
            cell.metadata["deletable"] = False
    return nb


STEPS: tuple[Step, ...] = (
    require_notebook_metadata,
    require_exercise_cells,
    require_check_cells,
    replace_solution_blocks,
    clear_outputs,
    lock_check_cells,
)
