"""What one submission may cost the grader is bounded by constants, and the page says so.

Real kernels: every byte of an output message counts toward the output cap (metadata too), no
output but an error reaches nbval when grading (none is compared), an error's text is cut, and
a message larger than the grader reads is never received: the kernel counts as dead, with a
message that says why. The run's time budget comes from the lesson, not the submission.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from grading_lesson import submission

from course_lib.grading import bounds, parse
from course_lib.grading.kernel import GuardedKernel, KernelDied
from course_lib.grading.own_time import WALL_FACTOR
from course_lib.grading.runner import RunOptions, plan_for
from course_lib.grading.sanitize import sanitize

DOC = Path(__file__).resolve().parents[2] / "docs" / "grading.md"
CAP = 100_000


def run(kernel: GuardedKernel, code: str) -> list[dict]:
    """The IOPub messages of one cell that reach the grader's reader (nbval), until idle."""
    msg_id = kernel.kc.execute(code, store_history=False)
    seen = []
    while True:
        msg = kernel.get_message("iopub", timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return seen
        seen.append(msg)


def outputs(messages: list[dict]) -> list[str]:
    return [m["msg_type"] for m in messages if m["msg_type"] not in ("status", "execute_input")]


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    made = {}
    for keep in (True, False):
        folder = tmp_path_factory.mktemp(f"keep-{keep}")
        made[keep] = GuardedKernel(str(folder), memory_mb=2048, output_cap=CAP, keep_outputs=keep)
    yield made
    for kernel in made.values():
        kernel.stop()


def test_metadata_counts_toward_the_output_cap(kernels):
    # Each message carries 1 byte of data and 60 kB of metadata: the second crosses the cap.
    code = (
        "from IPython.display import display\n"
        "for _ in range(5):\n"
        "    display({'text/plain': 'x'}, raw=True, metadata={'m': 'y' * 60_000})\n"
    )
    assert outputs(run(kernels[True], code)) == ["display_data"]


def test_a_stream_crossing_the_cap_is_cut_and_the_rest_dropped(kernels):
    code = "import sys\nfor _ in range(4):\n    print('z' * 40_000); sys.stdout.flush()\n"
    shown = [m["content"]["text"] for m in run(kernels[True], code) if m["msg_type"] == "stream"]
    assert len(shown) == 3, [len(text) for text in shown]
    assert shown[-1].endswith(f"more than {CAP} bytes]\n")
    assert sum(len(text) for text in shown) < CAP + 100


def test_when_grading_no_output_but_the_error_is_kept_and_its_text_is_cut(kernels):
    code = (
        "from IPython.display import display\n"
        "print('p' * 10)\n"
        "display({'text/plain': 'd'}, raw=True)\n"
        "raise ValueError('v' * 100_000)\n"
    )
    messages = run(kernels[False], code)
    assert outputs(messages) == ["error"]
    error = messages[-1]["content"]
    assert error["ename"] == "ValueError"
    assert len(error["evalue"]) == bounds.KEPT_ERROR_CHARS
    assert sum(len(line) for line in error["traceback"]) <= bounds.KEPT_ERROR_CHARS


def test_a_message_larger_than_the_grader_reads_is_never_received(kernels):
    kernel = kernels[False]
    code = (
        "from IPython.display import display\n"
        f"display({{'text/plain': 'x' * {bounds.MAX_MESSAGE_BYTES + 1}}}, raw=True)\n"
    )
    with pytest.raises(KernelDied, match="a message larger than the grader reads"):
        run(kernel, code)
    assert not kernel.is_alive()
    assert "larger than the grader reads" in kernel.exit_description()


def test_the_time_a_run_gets_comes_from_the_lesson_not_the_submission(lesson):
    options = RunOptions(cell_timeout=7)
    plain = sanitize(nbformat.writes(submission()).encode(), lesson)
    padded_nb = submission()
    for n in range(500):
        sleeper = nbformat.v4.new_code_cell("import time; time.sleep(9)", id=f"s{n}")
        padded_nb.cells.insert(2, sleeper)
    padded = sanitize(nbformat.writes(padded_nb).encode(), lesson)
    assert len(padded.roles) == len(plain.roles) + 500
    assert plan_for(padded, lesson, options)["cell_seconds"] == 8 * 7
    assert plan_for(plain, lesson, options)["cell_seconds"] == 8 * 7
    slack = bounds.START_SECONDS + 8 * (7 + bounds.CELL_SLACK_SECONDS) + WALL_FACTOR * 7
    assert bounds.run_seconds(lesson, 7) == slack


def _bounds_section() -> str:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"^## Bounds\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, "docs/grading.md has no Bounds section"
    return match.group(1)


@pytest.mark.parametrize(
    "number",
    [
        f"{parse.MAX_CELL_SOURCE:,}",
        f"{parse.MAX_CODE_SOURCE:,}",
        f"{parse.MAX_CODE_CELLS:,}",
        f"{bounds.ANALYSIS_MEMORY_MB:,} MB",
        f"{bounds.ANALYSIS_SECONDS} s",
        f"{bounds.START_SECONDS} s",
        f"{bounds.CELL_SLACK_SECONDS} s",
        f"{bounds.MAX_MESSAGE_BYTES // (1024 * 1024)} MiB",
        f"{bounds.KEPT_ERROR_CHARS:,}",
        f"{RunOptions().output_cap:,}",
        f"{RunOptions().memory_mb:,} MB",
        f"`WALL_FACTOR` ({WALL_FACTOR:g})",
    ],
)
def test_the_bounds_section_states_every_constant(number):
    assert number in _bounds_section()


def test_the_bounds_section_states_lesson_01s_time_at_the_default_timeout():
    from course_lib.grading.canonical import default_canonical_dir, load_lessons

    lesson = load_lessons(default_canonical_dir())["01_handwritten_schemas"]
    timeout = RunOptions().cell_timeout
    cells = bounds.lesson_code_cells(lesson)
    section = " ".join(_bounds_section().split())
    minutes = bounds.cell_seconds(lesson, timeout) / 60
    assert f"{timeout:g} s x {cells} = {minutes:g} minutes" in section
    assert f"{bounds.run_seconds(lesson, timeout) / 60:g} minutes for lesson 01" in section
