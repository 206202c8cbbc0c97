"""Lessons 02 and 03's checks read the same through a real kernel (the grader's channel) as in
process: handles for an earlier exercise's function, snippets run beside the learner's code,
inputs built from source text there. Each notebook's cells run in the kernel with one mistake
edited in, and the failure must be the one ``check()`` gives in the learner's notebook."""

from __future__ import annotations

import pytest
from solution_cells import driver_kernel, load_cells, notebook_source

from course_lib.checks import EXERCISES
from course_lib.checks.channel import InProcessChannel
from course_lib.checks.core import run_check
from course_lib.grading.kernel_channel import KernelChannel

from . import _solution as lesson02

LESSON03 = "03_pitfalls"
CELLS03 = ("w03-setup", "w03-ex1", "w03-ex2", "w03-ex3", "w03-ex4", "w03-ex5", "w03-ex6")
SHARED_NULL = """
NULL = {"type": "null"}
correct_json_type = json_type


def json_type(annotation):
    return NULL if annotation in (None, type(None)) else correct_json_type(annotation)
"""
AS_STORED = """
def resolve_annotations(func):
    return {n: a for n, a in func.__annotations__.items() if n != "return"}
"""
# (notebook, cells, edits, source run after them, exercise, target)
CASES = {
    "an earlier exercise that fails, through a handle": (
        lesson02.NOTEBOOK, lesson02.CELLS,
        [("w02-ex2", "typing.get_type_hints(func)", "func.__annotations__")], "", "02.4",
        "function_to_tool",
    ),
    "a docstring result that is a list": (
        lesson02.NOTEBOOK, lesson02.CELLS,
        [("w02-ex3", 'return " ".join(summary), descriptions',
          'return [" ".join(summary), descriptions]')], "", "02.3", "parse_google_docstring",
    ),
    "a shared constant, changed by a snippet and restored": (
        LESSON03, CELLS03, [], SHARED_NULL, "03.4", "json_type",
    ),
    "types written as text by a snippet": (LESSON03, CELLS03, [], AS_STORED, "03.5",
                                           "resolve_annotations"),
    "a solution": (LESSON03, CELLS03, [], "", "03.6", "parameters_schema"),
}  # fmt: skip


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    with driver_kernel(tmp_path_factory, confine=False) as kernel:
        yield kernel


@pytest.mark.parametrize("what", sorted(CASES))
def test_a_check_reads_the_same_through_the_kernel_as_in_process(kernel, what):
    notebook, cells, edits, extra, exercise_id, target = CASES[what]
    assert kernel.run_quietly(notebook_source(notebook, cells, edits) + extra, 60) == "ok"
    namespace = load_cells(notebook, cells, edits=edits)
    exec(compile(extra, "<extra>", "exec", dont_inherit=True), namespace)  # noqa: S102
    spec = EXERCISES[exercise_id]
    here = run_check(spec, InProcessChannel({target: namespace[target]}))
    there = run_check(spec, KernelChannel(kernel, timeout=60))
    assert str(there) == str(here)
    assert SAYS[what] in str(there)


SAYS = {
    "an earlier exercise that fails, through a handle": "fix 02.2 first",
    "a docstring result that is a list": "Got:      a list",
    "a shared constant, changed by a snippet and restored": "json_type(None) called twice",
    "types written as text by a snippet": "Got:      {'city': 'str'",
    "a solution": "Exercise 03.6 passed",
}
