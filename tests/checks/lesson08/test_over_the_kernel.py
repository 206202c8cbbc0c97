"""Lesson 08's checks read the same through a real kernel (the grader's channel) as in process.

Their snippets start MCP servers and clients beside the learner's code, on threads of their own
(the kernel's loop is busy running the request); 08.3's learner loop calls the model from such a
thread, and the model answers from this process over the kernel's stdin channel. The kernel is
confined as a grading kernel is. Each case runs
the notebook's cells in the kernel, with one mistake edited in, and the failure must be the one
``check()`` gives in the learner's notebook.
"""

from __future__ import annotations

import pytest
from solution_cells import driver_kernel, load_cells, notebook_source

from course_lib.checks import EXERCISES
from course_lib.checks.channel import InProcessChannel
from course_lib.checks.core import run_check
from course_lib.grading.kernel_channel import KernelChannel
from course_lib.grading.toolkit_plan import configure_expression, empty_manifest

from .notebook import CELLS, NOTEBOOK

# (edits to the notebook's cells, exercise, target)
CASES = {
    "08.1 solved": ([], "08.1", "serve_registry"),
    "08.1 with is_error never set": (
        [("w08-ex1", "is_error=is_error(text)", "is_error=False")],
        "08.1",
        "serve_registry",
    ),
    "08.3 solved": ([], "08.3", "run_agent_with_mcp"),
    "08.3 without the name mapped back": (
        [("w08-ex3", "names.get(tool_call.function.name, tool_call.function.name)",
          "tool_call.function.name")],
        "08.3",
        "run_agent_with_mcp",
    ),
    "08.4 solved": ([], "08.4", "structured_result"),
    "08.4 raising for a value that does not fit": (
        [("w08-ex4", "    if problems:\n",
          "    if problems:\n        raise ValueError(problems[0])\n")],
        "08.4",
        "structured_result",
    ),
}  # fmt: skip
SAYS = {
    "08.1 solved": "Exercise 08.1 passed",
    "08.1 with is_error never set": "set is_error=True",
    "08.3 solved": "Exercise 08.3 passed",
    "08.3 without the name mapped back": "which the server knows as tags.list",
    "08.4 solved": "Exercise 08.4 passed",
    "08.4 raising for a value that does not fit": "$.temperature: '27' is not of type 'number'",
}


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    # Confined as a grading kernel is (Landlock: course_lib/checks unreadable; no network): the
    # checks' kernel-side text and the stdio servers it starts must work there.
    with driver_kernel(tmp_path_factory) as kernel:
        # As the grader does: the toolkit gets its manifest (here no earlier parts of the
        # student's), so lesson 08's toolkit.use reads no course state (which the confinement
        # forbids anyway).
        kernel.evaluate(configure_expression(empty_manifest("08_mcp")))
        yield kernel


@pytest.mark.parametrize("what", list(CASES))
def test_a_check_reads_the_same_through_the_kernel_as_in_process(kernel, what):
    edits, exercise_id, target = CASES[what]
    assert kernel.run_quietly(notebook_source(NOTEBOOK, CELLS, edits), 120) == "ok"
    namespace = load_cells(NOTEBOOK, CELLS, edits=edits)
    spec = EXERCISES[exercise_id]
    here = run_check(spec, InProcessChannel({target: namespace[target]}))
    there = run_check(spec, KernelChannel(kernel, timeout=300))
    assert str(there) == str(here)
    assert SAYS[what] in str(there)


def test_the_kernel_these_checks_ran_in_could_not_read_course_lib_checks(kernel):
    if not kernel.isolation.get("landlock_filesystem"):
        pytest.skip("Landlock is not available here: nothing hides course_lib/checks")
    assert kernel.isolation["checks_hidden"] is True
    probe = "import course_lib.checks.lesson08.kernel_side"
    assert kernel.run_quietly(probe, 60) == "error"
