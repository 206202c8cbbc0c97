"""Each build step does its one job, and a broken convention names the notebook and the cell."""

from __future__ import annotations

import pytest
from sample_notebooks import CHECK_SOURCE, check_cell, code, exercise_cell, solution_notebook

from course_lib.authoring import AuthoringError, build_notebook
from course_lib.authoring.steps import (
    STEPS,
    clear_outputs,
    lock_check_cells,
    replace_solution_blocks,
)


def test_the_build_runs_the_named_steps_in_order():
    assert [step.__name__ for step in STEPS] == [
        "require_notebook_metadata",
        "require_exercise_cells",
        "require_check_cells",
        "replace_solution_blocks",
        "clear_outputs",
        "lock_check_cells",
    ]


def test_replace_solution_blocks_stubs_exercise_cells_and_leaves_other_cells_alone():
    nb = replace_solution_blocks(solution_notebook(), "99_sample")
    assert nb.cells[2].source.endswith(
        '    raise NotImplementedError("Exercise 99.1: add the two numbers")'
    )
    assert "total = a + b" not in nb.cells[2].source
    assert nb.cells[1].source == 'print("北京")'
    assert nb.cells[3].source == CHECK_SOURCE


def test_clear_outputs_empties_outputs_counts_and_run_metadata_only():
    nb = solution_notebook()
    nb.cells[1].metadata["execution"] = {"iopub.status.busy": "2024-01-01"}
    nb.metadata["widgets"] = {"state": {}}
    nb = clear_outputs(nb, "99_sample")
    assert nb.cells[1].outputs == [] and nb.cells[1].execution_count is None
    assert "execution" not in nb.cells[1].metadata
    assert "widgets" not in nb.metadata
    assert nb.cells[2].metadata["course"]["points"] == 2


def test_lock_check_cells_marks_only_check_cells_not_editable_and_not_deletable():
    nb = lock_check_cells(solution_notebook(), "99_sample")
    assert nb.cells[3].metadata["editable"] is False
    assert nb.cells[3].metadata["deletable"] is False
    assert "editable" not in nb.cells[2].metadata


def test_the_build_keeps_cell_ids_course_metadata_and_leaves_the_source_untouched():
    solution = solution_notebook()
    built = build_notebook(solution, "99_sample")
    assert [cell.id for cell in built.cells] == [cell.id for cell in solution.cells]
    assert built.metadata["course"] == {"notebook": "99_sample"}
    assert built.cells[2].metadata["course"] == solution.cells[2].metadata["course"]
    assert "total = a + b" in solution.cells[2].source
    assert solution.cells[1].outputs


def broken(kind: str):
    """A solution notebook broken in one way, and the cell index the error must name."""
    if kind == "unclosed":
        return solution_notebook(
            exercise_cell("def f():\n    # BEGIN SOLUTION\n    return 1"), check_cell()
        ), 2
    if kind == "nested":
        source = "def f():\n    # BEGIN SOLUTION\n    # BEGIN SOLUTION\n    # END SOLUTION"
        return solution_notebook(exercise_cell(source), check_cell()), 2
    if kind == "end without begin":
        return solution_notebook(exercise_cell("x = 1\n# END SOLUTION"), check_cell()), 2
    if kind == "outside an exercise cell":
        stray = code("t-stray", "def f():\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION")
        return solution_notebook(exercise_cell(), check_cell(), stray), 4
    if kind == "top-level non-assignment":
        source = "# BEGIN SOLUTION\nimport json\n# END SOLUTION"
        return solution_notebook(exercise_cell(source), check_cell()), 2
    if kind == "no hint":
        return solution_notebook(exercise_cell(hint=""), check_cell()), 2
    if kind == "no points":
        return solution_notebook(exercise_cell(points=0), check_cell()), 2
    if kind == "no check cell after it":
        return solution_notebook(exercise_cell()), 2
    if kind == "check cell with extra code":
        return solution_notebook(exercise_cell(), check_cell(CHECK_SOURCE + "\nprint(1)")), 3
    if kind == "check cell for another exercise":
        source = 'from course_lib.checks import check\ncheck("99.2", add)'
        return solution_notebook(exercise_cell(), check_cell(source, exercise_id="99.2")), 3
    if kind == "exercise of another notebook":
        return solution_notebook(exercise_cell(exercise="98.1"), check_cell()), 2
    if kind == "duplicate cell id":
        nb = solution_notebook()
        nb.cells[3].id = "t-ex1"  # after construction: nbformat would quietly rename it
        return nb, 3
    raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind, message",
    [
        ("unclosed", "is never closed"),
        ("nested", "blocks cannot nest"),
        ("end without begin", "without a # BEGIN SOLUTION"),
        ("outside an exercise cell", "solution markers outside an exercise cell"),
        ("top-level non-assignment", "may only assign names"),
        ("no hint", "needs a one-line hint"),
        ("no points", "points must be a positive integer"),
        ("no check cell after it", "must be followed by its check cell"),
        ("check cell with extra code", "source must be exactly"),
        ("check cell for another exercise", "check cell 99.2 follows exercise 99.1"),
        ("exercise of another notebook", "does not belong to notebook 99"),
        ("duplicate cell id", "the id 't-ex1' is used twice"),
    ],
)
def test_a_broken_convention_is_an_authoring_error_naming_notebook_and_cell(kind, message):
    nb, index = broken(kind)
    with pytest.raises(AuthoringError) as caught:
        build_notebook(nb, "99_sample")
    text = str(caught.value)
    assert text.startswith(f"99_sample.ipynb, cell {index} (id {nb.cells[index].id!r}): "), text
    assert message in text


def test_notebook_metadata_must_name_the_notebook():
    nb = solution_notebook(name="98_other")
    with pytest.raises(AuthoringError, match=r"^99_sample.ipynb: notebook metadata must hold"):
        build_notebook(nb, "99_sample")


def test_a_top_level_exercise_gives_a_notebook_where_the_name_is_an_ellipsis():
    source = "# BEGIN SOLUTION\nTOOL = {'name': 'add'}\n# END SOLUTION"
    check = 'from course_lib.checks import check\ncheck("99.1", TOOL)'
    built = build_notebook(solution_notebook(exercise_cell(source), check_cell(check)), "99_sample")
    namespace: dict = {}
    exec(built.cells[2].source, namespace)
    assert namespace["TOOL"] is ...
