"""``course execute`` re-runs a notebook in place, with this Python, and writes stable bytes."""

from __future__ import annotations

import os
import sys

import nbformat
import pytest
from nbclient.exceptions import CellExecutionError
from sample_notebooks import code, solution_notebook

from course_lib.authoring.cli import run_execute
from course_lib.authoring.execute import execute_notebook, run_notebook


def test_execute_stores_fresh_outputs_from_this_python_and_is_byte_stable(tmp_path):
    path = tmp_path / "99_sample.ipynb"
    nb = solution_notebook(
        code("t-which", "import os, sys\nprint(sys.executable)\nprint(os.getcwd())")
    )
    nb.cells[1].outputs = []  # the example's stored output must come back from the run
    nbformat.write(nb, path)
    execute_notebook(path)
    first = path.read_bytes()
    executed = nbformat.read(path, as_version=4)
    assert executed.cells[1].outputs[0].text == "北京\n"
    assert executed.cells[2].outputs[0].text == f"{sys.executable}\n{tmp_path}\n"
    assert "execution" not in executed.cells[1].metadata
    execute_notebook(path)
    assert path.read_bytes() == first


def test_execute_stops_at_a_failing_cell_and_leaves_the_file_alone(tmp_path):
    path = tmp_path / "99_sample.ipynb"
    nbformat.write(solution_notebook(code("t-boom", "1 / 0")), path)
    before = path.read_bytes()
    with pytest.raises(CellExecutionError, match="ZeroDivisionError"):
        execute_notebook(path)
    assert path.read_bytes() == before


def test_the_execute_command_refuses_a_missing_path(tmp_path, capsys):
    class Args:
        paths = [tmp_path / "nope.ipynb"]

    assert run_execute(Args()) == 2
    assert "no such notebook" in capsys.readouterr().err


def test_merge_streams_joins_split_prints_of_one_stream_but_keeps_stderr_apart():
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    from course_lib.authoring.execute import merge_streams

    cell = new_code_cell("print(1); print(2)")
    cell.outputs = [
        new_output("stream", name="stdout", text="1\n"),
        new_output("stream", name="stdout", text="2\n"),
        new_output("stream", name="stderr", text="warn\n"),
        new_output("stream", name="stdout", text="3\n"),
    ]
    nb = merge_streams(new_notebook(cells=[cell]))
    assert [(o["name"], o["text"]) for o in nb.cells[0].outputs] == [
        ("stdout", "1\n2\n"),
        ("stderr", "warn\n"),
        ("stdout", "3\n"),
    ]


def test_drop_widget_views_keeps_the_text_form_and_removes_the_random_model_id():
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    from course_lib.authoring.execute import WIDGET_VIEW, drop_widget_views

    cell = new_code_cell("ToolForm(registry, 'search_notes')")
    cell.outputs = [
        new_output(
            "execute_result",
            data={"text/plain": "ToolForm: search_notes", WIDGET_VIEW: {"model_id": "f00d"}},
            execution_count=1,
        )
    ]
    nb = drop_widget_views(new_notebook(cells=[cell]))
    assert dict(nb.cells[0].outputs[0]["data"]) == {"text/plain": "ToolForm: search_notes"}


def kernel_is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("last_cell", ["None", "1 / 0"], ids=["runs-through", "fails"])
def test_running_a_notebook_leaves_no_kernel_running(tmp_path, last_cell):
    """A test session runs twenty notebooks: each kernel ends with its run, even a failed one."""
    nb = solution_notebook(code("t-pid", "import os\nos.getpid()"), code("t-last", last_cell))
    try:
        run_notebook(nb, tmp_path)
    except CellExecutionError:
        assert last_cell == "1 / 0"
    pid = int(nb.cells[2].outputs[0].data["text/plain"])
    assert not kernel_is_running(pid)
