"""Borrowing the course's own answers, by every route we could think of: each earns zero for the
exercise it answers (``tampered``, the message naming what was borrowed), the other exercises of
the notebook keep their points, and honest code that merely resembles a route is not touched.

The end-to-end batch runs real kernels, in the tests' lesson as one whose own code loads the
reference (as lessons 04 to 09 do), so the kernels can read it: every borrowed answer below would
pass its check (the reference and the checks' oracles are right), so the zero comes from reading
the source.
The unit tests use lesson sources of their own, for routes that need a lesson that provides
reference names to build on.
"""

from __future__ import annotations

import pytest
from grading_lesson import CHECK_MODULE, REFERENCE_SETUP, SLUG, SOLUTIONS, submission, write

from course_lib.grading import GradeOptions, grade_all
from course_lib.grading.borrowing import borrowing, notebook_aliases
from course_lib.grading.canonical import load_lessons
from course_lib.grading.discover import discover
from course_lib.grading.provenance import lesson_names

OPTIONS = GradeOptions(cell_timeout=60, memory_mb=1500, jobs=2, check_modules=(CHECK_MODULE,))

# student -> (scratch cell, exercise cell 90.3, what the message must name)
ROUTES = {
    "aliased_import": (
        "",
        "from course_lib.reference import type_schema as type_name",
        "course_lib.reference.type_schema",
    ),
    "module_alias_in_scratch": (
        "import course_lib.reference as ref",
        "def type_name(annotation):\n    return ref.type_schema(annotation)",
        "course_lib.reference.type_schema",
    ),
    "importlib": (
        "",
        "import importlib\ntype_name = importlib.import_module('course_lib.reference').type_schema",
        "course_lib.reference",
    ),
    "dunder_import_in_pieces": (
        "",
        "type_name = __import__('course_lib.' + 'reference', fromlist=['_']).type_schema",
        "course_lib.reference",
    ),
    "getattr_on_the_package": (
        "",
        "type_name = getattr(getattr(__import__('course_lib'), 're' + 'ference'), 'type_schema')",
        "course_lib.reference",
    ),
    "helper_in_scratch": (
        "from course_lib.reference import type_schema\n\n"
        "def helper(annotation):\n    return type_schema(annotation)",
        "def type_name(annotation):\n    return helper(annotation)",
        "course_lib.reference.type_schema",
    ),
    "lambda_in_scratch": (
        "import course_lib.reference as R\nfetch = lambda annotation: R.type_schema(annotation)",
        "type_name = fetch",
        "course_lib.reference.type_schema",
    ),
    "function_with_foreign_globals": (
        "import course_lib.reference.type_map as tm",
        "type_name = type(lambda: 0)(tm.type_schema.__code__, tm.type_schema.__globals__)",
        "course_lib.reference.type_map.type_schema",
    ),
    "alias_chain_across_cells": (
        "from course_lib import reference as R\nx = R\ny = x.type_schema",
        "type_name = y",
        "course_lib.reference.type_schema",
    ),
    "checks_oracle": (
        "",
        "from course_lib.checks.nb02 import expected_json_type as type_name",
        "course_lib.checks.nb02.expected_json_type",
    ),
    "exec_of_a_string": (
        "",
        "exec('from course_lib.reference import type_schema as type_name')",
        "course_lib.reference",
    ),
    "sys_modules": (
        "import course_lib.reference",
        "import sys\ntype_name = sys.modules['course_lib.' 'reference'].type_schema",
        "course_lib.reference",
    ),
    "fullwidth_identifiers": (
        "",
        "import ｃｏｕｒｓｅ_lib.reference as R\ntype_name = R.type_schema",
        "course_lib.reference.type_schema",
    ),
    "star_import": (
        "",
        "from course_lib.reference.type_map import *\ntype_name = type_schema",
        "course_lib.reference.type_map.*",
    ),
    "source_read_and_executed": (
        "",
        "import os, course_lib\n"
        "exec(open(os.path.join(course_lib.__path__[0], 'reference', 'type_map.py')).read())\n"
        "type_name = type_schema",
        "course_lib.reference",
    ),
}


@pytest.fixture(scope="module")
def batch(tmp_path_factory, reference_lesson_dir):
    root = tmp_path_factory.mktemp("borrowing")
    for student, (scratch, answer, _) in ROUTES.items():
        answers = {"90.2": SOLUTIONS["90.2"], "90.3": answer}
        nb = submission(answers, scratch=scratch or None, setup=REFERENCE_SETUP)
        write(root / student / f"{SLUG}.ipynb", nb)
    write(root / "honest" / f"{SLUG}.ipynb", submission(SOLUTIONS, setup=REFERENCE_SETUP))
    lessons = load_lessons(reference_lesson_dir)
    results = {r.student: r for r in grade_all(discover(root), lessons, OPTIONS)}
    alone_root = tmp_path_factory.mktemp("alone")
    write(alone_root / "honest" / f"{SLUG}.ipynb", submission(SOLUTIONS, setup=REFERENCE_SETUP))
    [alone] = grade_all(discover(alone_root), lessons, OPTIONS)
    return results, alone


def rows(results, student):
    return {row.exercise: row for row in results[student].exercises}


@pytest.mark.parametrize("student", sorted(ROUTES))
def test_a_borrowed_answer_earns_zero_for_its_exercise_and_says_what_was_borrowed(batch, student):
    results, _ = batch
    row = rows(results, student)["90.3"]
    assert (row.status, row.points) == ("tampered", 0), row
    assert ROUTES[student][2] in row.message
    assert "Write the solution yourself" in row.message


@pytest.mark.parametrize("student", sorted(ROUTES))
def test_borrowing_one_exercise_costs_only_that_exercise(batch, student):
    results, _ = batch
    assert (rows(results, student)["90.2"].status, rows(results, student)["90.2"].points) == (
        "passed",
        3,
    )


def test_the_honest_student_in_the_batch_is_graded_exactly_as_alone(batch):
    results, alone = batch
    assert results["honest"] == alone
    assert results["honest"].points == 6


# --- routes that need a lesson which provides reference names to build on -------------------

LESSON = [
    "from course_lib import reference\n"
    "from course_lib.reference import ToolRegistry as ReferenceRegistry\n"
    "from course_lib.checks import check\n"
    "demo = ReferenceRegistry()\n"
    "print(reference.ToolRegistry)\n"
]


def borrowed(exercise: str, scratch: str = "", targets=("run_tool_calls",)) -> str | None:
    return borrowing(exercise, notebook_aliases(LESSON, [scratch, exercise]), targets)


@pytest.mark.parametrize(
    ("exercise", "targets", "origin"),
    [
        ("run_tool_calls = reference.run_tool_calls", ("run_tool_calls",), "run_tool_calls"),
        (
            "run_tool_calls = getattr(reference, 'run_' + 'tool_calls')",
            ("run_tool_calls",),
            "course_lib.reference.run_tool_calls",
        ),
        ("class ToolRegistry(ReferenceRegistry):\n    pass", ("ToolRegistry",), "ToolRegistry"),
        (
            "def run_tool_calls(registry, calls):\n    r = reference\n"
            "    return r.run_tool_calls(registry, calls)",
            ("run_tool_calls",),
            "course_lib.reference.run_tool_calls",
        ),
        ("ToolRegistry = reference.ToolRegistry", ("ToolRegistry",), "ToolRegistry"),
    ],
)
def test_a_name_the_lesson_provides_cannot_carry_the_answer_itself(exercise, targets, origin):
    found = borrowed(exercise, targets=targets)
    assert found is not None and origin in found


def test_an_alias_of_a_provided_name_made_in_a_scratch_cell_is_followed():
    found = borrowed("class ToolRegistry(R):\n    pass", "R = ReferenceRegistry", ("ToolRegistry",))
    assert found == "course_lib.reference.ToolRegistry"


@pytest.mark.parametrize(
    "exercise",
    [
        # uses what the lesson provides, for what the lesson provides it
        "def run_tool_calls(registry, calls):\n"
        "    return [registry.call(c['name'], c['arguments']) for c in calls]\n"
        "EXAMPLE = reference.ToolRegistry",
        # getattr on the learner's own objects
        "def run_tool_calls(registry, calls):\n    return [getattr(c, 'id', None) for c in calls]",
        # the reference mentioned in a docstring, not used
        "def run_tool_calls(registry, calls):\n"
        '    """Like course_lib.reference.run_tool_calls."""\n'
        "    return []",
        # a local variable that happens to share a scratch import's name
        "def run_tool_calls(registry, calls):\n    ref = {'a': 1}\n    return [ref['a']]",
        # a file of one's own whose name holds a guarded word inside a longer name
        "LOG = '/home/me/course_lib/lesson90_checks.py'\n"
        "def run_tool_calls(registry, calls):\n    return [open(LOG).read() for c in calls]",
        # prose that uses the words, beside an open()
        "NOTE = 'course_lib: run the checks and read the reference'\n"
        "def run_tool_calls(registry, calls):\n    return [open('calls.txt').read()]",
    ],
)
def test_honest_code_that_resembles_a_route_is_not_zeroed(exercise):
    assert borrowed(exercise, "import course_lib.reference as ref") is None


def test_a_cell_that_does_not_parse_is_left_to_its_check():
    assert borrowed("def run_tool_calls(:\n    pass") is None


def test_the_lessons_check_cell_naming_the_target_does_not_allow_a_borrowed_target():
    from grading_lesson import canonical, check_source

    lesson = [
        cell.source
        for cell in canonical().cells
        if cell.cell_type == "code" and "exercise" not in cell.metadata.get("course", {})
    ]
    exercise = "from course_lib.reference import type_schema as type_name"
    notebook = notebook_aliases(lesson, [exercise, check_source("90.3")])
    assert borrowing(exercise, notebook, ("type_name",)) == "course_lib.reference.type_schema"


# --- strings are names, and code (LESSON above binds the names) ----------------------------


@pytest.mark.parametrize(
    "exercise",
    [
        "ToolRegistry = globals()['ReferenceRegistry']",
        "ToolRegistry = eval('Reference' + 'Registry')",
        "ToolRegistry = vars()['ReferenceRegistry']",
        "exec('ToolRegistry = ReferenceRegistry')",
        "CODE = 'class ToolRegistry(ReferenceRegistry):\\n    pass'\nexec(CODE)",
        "ToolRegistry = getattr(reference, 'ToolRegistry')",
    ],
)
def test_a_name_the_lesson_binds_written_in_a_string_is_that_name(exercise):
    assert borrowed(exercise, targets=("ToolRegistry",)) == "course_lib.reference.ToolRegistry"


@pytest.mark.parametrize(
    "scratch",
    [
        "import importlib\nR = importlib.import_module('COURSE_LIB.REFERENCE'.lower())",
        "import importlib\nR = importlib.import_module('ecnerefer.bil_esruoc'[::-1])",
        "R = __import__('course_lib.REFERENCE'.replace('REFERENCE', 'reference'), fromlist=['x'])",
    ],
)
def test_a_module_imported_at_run_time_in_a_scratch_cell_binds_its_name(scratch):
    exercise = "def run_tool_calls(registry, calls):\n    return R.run_tool_calls(registry, calls)"
    found = borrowed(exercise, scratch, ("run_tool_calls",))
    assert found is not None and found.startswith("course_lib.reference")


@pytest.mark.parametrize(
    "exercise",
    [
        # the error messages and keys of an honest answer are strings, not borrowing
        "class ToolRegistry:\n    def tool(self, f):\n"
        "        raise ValueError('ToolRegistry: the name is taken')\n",
        "class ToolRegistry:\n    KEYS = ['function', 'description', 'parameters']\n",
        # the lesson's demo registry used for what the lesson uses it for
        "class ToolRegistry:\n    pass\nprint(demo.names())",
    ],
)
def test_strings_and_the_lessons_demos_in_honest_code_are_not_borrowing(exercise):
    assert borrowed(exercise, targets=("ToolRegistry",)) is None


# --- parts the lesson lends through the learner's toolkit -----------------------------------

TOOLKIT_LESSON = [
    "from course_lib import toolkit\n"
    "from course_lib.checks import check\n"
    'ToolRegistry, run_tool_calls = toolkit.use("ToolRegistry", "run_tool_calls")\n'
]
REACHES_RUN_TOOL_CALLS = (
    "def converse(registry, calls):\n    return run_tool_calls(registry, calls)\n"
)


def test_a_part_the_lesson_takes_from_the_toolkit_counts_as_used_by_the_lesson():
    """Where 05.3 has not passed, ``toolkit.use`` hands the lesson the course's run_tool_calls:
    an answer that reaches it uses what the lesson gave (09.4's converse), not a borrowed
    answer; a part the lesson does not take stays guarded."""
    notebook = notebook_aliases(TOOLKIT_LESSON, [REACHES_RUN_TOOL_CALLS])
    assert "course_lib.reference.loop.run_tool_calls" in notebook.lesson_uses
    assert "course_lib.reference.registry.ToolRegistry" in notebook.lesson_uses
    assert "course_lib.reference.loop.run_agent" not in notebook.lesson_uses
    assert lesson_names(notebook.lesson_uses) >= {"run_tool_calls", "ToolRegistry"}
    assert borrowing(REACHES_RUN_TOOL_CALLS, notebook, ("converse",)) is None
    taken = "from course_lib.reference.loop import run_agent\nconverse = run_agent\n"
    assert borrowing(taken, notebook, ("converse",)) == "course_lib.reference.loop.run_agent"
