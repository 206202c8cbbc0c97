"""Taking the course's own answer earns no points, or raises a flag, whatever route it takes:
the second red team's routes as real attacking notebooks, graded in one batch beside honest
ones, with and without namespaces (the class of ``answers_class``, shared with
``test_answers_stashed``).

Three settings:

- the tests' lesson as one whose own code loads ``course_lib.reference`` (as lessons 04 to 09
  do), so the kernel can read it and taking from it is *detected*: a module imported in a
  scratch cell, by a name written in capitals and lowered, or decoded from bytes; the function
  found by walking ``gc.get_objects()`` in a short cell; the driver patched to hand the
  reference over, by name or not; the driver forged altogether; the solution pasted after the
  untouched stub, or padded;
- lesson 04 of the real course, whose demos bind ``reference_validate``: the name fetched at run
  time by ``globals()[...]`` or ``eval(...)``, spelled out or reversed;
- the tests' lesson as it is (its own code never loads the reference), where the kernel cannot
  read the reference at all (Landlock): the same routes find nothing to take.

Every 90.3 attack would pass its check if nothing stopped it (the reference's ``type_schema``
is right); the honest notebooks beside them must be graded exactly as alone.
"""

from __future__ import annotations

import functools

import independent
import nbformat
import pytest
from grading_lesson import (
    LONG_SOLUTION,
    REFERENCE_SETUP,
    SETUP,
    SLUG,
    SOLUTIONS,
    submission,
)
from nbformat.v4 import new_code_cell

from attacks.answers_class import REGISTRY, enrol
from attacks.disguise import padded

FIND = """import gc, types

def find(name):
    for item in gc.get_objects():
        if isinstance(item, types.FunctionType) and item.__name__ == name:
            if item.__module__.startswith("course_lib"):
                return item
"""
UNNAMED_DRIVER = "driver = [v for k, v in list(globals().items()) if k.endswith('driver__')][0]\n"
FORGED = """
def forged(request):
    return {"type": "function", "callable": True, "is_class": False, "is_ellipsis": False,
            "names_used": [], "origins": {"module": "__main__", "file": "", "files": [],
                                          "reached": []}}

driver._describe = forged
"""
DECODED = "bytes([99, 111, 117, 114, 115, 101, 95, 108, 105, 98, 46, 114, 101, 102, 101, 114, "
DECODED += "101, 110, 99, 101]).decode()"

# student -> (scratch cell, exercise cell 90.3 or None for the stub, a cell after the stub)
ROUTES_90 = {
    "import_module_in_scratch": (
        "import importlib\nR = importlib.import_module('course_lib.reference')",
        "def type_name(annotation):\n    return R.type_schema(annotation)",
        None,
    ),
    "module_name_lowered": (
        "import importlib\nR = importlib.import_module('COURSE_LIB.REFERENCE'.lower())",
        "def type_name(annotation):\n    return R.type_schema(annotation)",
        None,
    ),
    "module_name_decoded": (
        f"import importlib\nR = importlib.import_module({DECODED})",
        "def type_name(annotation):\n    return R.type_schema(annotation)",
        None,
    ),
    "gc_walk_in_a_short_cell": (None, None, FIND + "type_name = find('type_schema')"),
    "driver_patched_by_name": (
        None,
        None,
        FIND + "__course_driver__.namespace = {'type_name': find('type_schema')}",
    ),
    "driver_patched_unnamed": (
        None,
        None,
        FIND + UNNAMED_DRIVER + "driver.namespace = {'type_name': find('type_schema')}",
    ),
    "driver_forged": (
        None,
        None,
        FIND + UNNAMED_DRIVER + "driver.namespace = {'type_name': find('type_schema')}" + FORGED,
    ),
    "solution_after_the_stub": (None, None, LONG_SOLUTION),
    "solution_padded": (None, padded(LONG_SOLUTION), None),
}
# student -> the 04.3 exercise cell
ROUTES_04 = {
    "globals_lookup": "validate_arguments = globals()['reference_validate']",
    "eval_of_the_name": "validate_arguments = eval('reference_validate')",
    "eval_of_the_name_reversed": (
        "validate_arguments = eval(''.join(reversed('etadilav_ecnerefer')))"
    ),
}
# What each route must end with: no points (``tampered``), or flags saying why (each phrase
# part of one flag's ``match``).
ZEROED = {
    "import_module_in_scratch",
    "module_name_lowered",
    "module_name_decoded",
    "gc_walk_in_a_short_cell",
    "driver_patched_by_name",
    "driver_patched_unnamed",
    *ROUTES_04,
}
FLAGGED = {
    "driver_forged": (
        "the exercise cell is the lesson's stub, unchanged, yet its check earned points",
        "walks the interpreter's objects (gc.get_objects)",
    ),
    "solution_after_the_stub": (
        f"solutions/{SLUG}.ipynb, exercise 90.3",
        "the exercise cell is the lesson's stub, unchanged, yet its check earned points",
    ),
    "solution_padded": (f"solutions/{SLUG}.ipynb, exercise 90.3",),
}
# Routes tried where the lesson never loads the reference: nothing to take, so no points.
HIDDEN_ROUTES = ("import_module_in_scratch", "module_name_decoded", "gc_walk_in_a_short_cell")
HONEST_04 = ("honest_04_a", "honest_04_b")


def attack_90(student: str, *, setup: str) -> nbformat.NotebookNode:
    scratch, answer, after = ROUTES_90[student]
    answers = dict(SOLUTIONS)
    if answer is None:
        del answers["90.3"]
    else:
        answers["90.3"] = answer
    nb = submission(answers, scratch=scratch, setup=setup)
    if after is not None:
        position = next(n for n, cell in enumerate(nb.cells) if cell.get("id") == "t-ex3")
        nb.cells.insert(position + 1, new_code_cell(after))
    return nb


def attack_04(student: str) -> nbformat.NotebookNode:
    nb = independent.notebook_with(REGISTRY, 0)
    for cell in nb.cells:
        if independent.exercise_of(cell) == "04.3":
            cell.source = ROUTES_04[student]
    return nb


def honest_04(student: str) -> nbformat.NotebookNode:
    return independent.notebook_with(REGISTRY, {"honest_04_a": 1, "honest_04_b": 2}[student])


enrol(
    attacks={
        **{
            s: (f"{SLUG}.ipynb", functools.partial(attack_90, s, setup=REFERENCE_SETUP))
            for s in ROUTES_90
        },
        **{s: (f"{REGISTRY}.ipynb", functools.partial(attack_04, s)) for s in ROUTES_04},
    },
    honest={
        "honest": (
            f"{SLUG}.ipynb",
            functools.partial(submission, SOLUTIONS, setup=REFERENCE_SETUP),
        ),
        **{s: (f"{REGISTRY}.ipynb", functools.partial(honest_04, s)) for s in HONEST_04},
    },
    hidden={
        s: (f"{SLUG}.ipynb", functools.partial(attack_90, s, setup=SETUP)) for s in HIDDEN_ROUTES
    },
)
HONEST = {("honest", SLUG), *((s, REGISTRY) for s in HONEST_04)}


@pytest.fixture(scope="module", params=[True, False], ids=["namespaces", "without-namespaces"])
def batch(request, answers_class):
    """This file's students of the class (``answers_class``), by (student, lesson): graded
    together (with the class's flags), the honest ones alone, and the hidden routes."""
    graded = answers_class.graded(request.param)
    together, flags = graded["together"]
    alone, alone_flags = graded["alone"]
    mine = {*((s, SLUG) for s in ROUTES_90), *((s, REGISTRY) for s in ROUTES_04), *HONEST}
    honest = {student for student, _ in HONEST}
    return {
        "together": ({key: together[key] for key in mine}, flags),
        "alone": (
            {key: alone[key] for key in HONEST},
            [f for f in alone_flags if f["student"] in honest],
        ),
        "hidden": graded["hidden"],
    }


def row(results, student: str, exercise: str):
    notebook = REGISTRY if exercise.startswith("04.") else SLUG
    result = results[(student, notebook)]
    return next(r for r in result.exercises if r.exercise == exercise)


def exercise_of(student: str) -> str:
    return "04.3" if student in ROUTES_04 else "90.3"


@pytest.mark.parametrize("student", sorted(ZEROED))
def test_a_route_to_the_courses_answer_earns_no_points(batch, student):
    results, _ = batch["together"]
    taken = row(results, student, exercise_of(student))
    assert (taken.status, taken.points) == ("tampered", 0), taken
    assert taken.message.startswith("no points: ")


@pytest.mark.parametrize("student", sorted(FLAGGED))
def test_a_route_the_grader_cannot_prove_is_flagged_for_the_instructor(batch, student):
    results, flags = batch["together"]
    raised = [f["match"] for f in flags if f["student"] == student and f["exercise"] == "90.3"]
    missing = [want for want in FLAGGED[student] if not any(want in got for got in raised)]
    assert not missing, raised
    assert row(results, student, "90.3").points == 1  # a flag never changes a grade


@pytest.mark.parametrize("student", sorted([*ROUTES_90, *ROUTES_04]))
def test_taking_one_answer_costs_only_that_exercise(batch, student):
    results, _ = batch["together"]
    if student in ROUTES_04:
        others = {"04.1": 3, "04.2": 1, "04.4": 3, "04.5": 2}  # 04.4 may use the reference's
    else:
        others = {"90.1": 2, "90.2": 3}
    assert {e: row(results, student, e).points for e in others} == others


def test_the_honest_submissions_are_graded_exactly_as_alone_and_flag_nothing(batch):
    results, flags = batch["together"]
    alone, alone_flags = batch["alone"]
    for key, result in alone.items():
        assert results[key] == result
        assert result.points == result.max_points
    honest = {"honest", "honest_04_a", "honest_04_b"}
    assert [f for f in flags if f["student"] in honest] == alone_flags == []


@pytest.mark.parametrize("student", HIDDEN_ROUTES)
def test_where_the_lesson_never_loads_the_reference_there_is_nothing_to_take(batch, student):
    results, _ = batch["hidden"]
    result = results[(student, SLUG)]
    if not result.isolation.get("reference_hidden"):
        pytest.skip("Landlock is missing here: the reference stays readable (an isolation gap)")
    taken = next(r for r in result.exercises if r.exercise == "90.3")
    assert taken.points == 0 and taken.status != "passed", taken
