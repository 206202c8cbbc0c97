"""The course's answer taken through a stash or through code run from a string earns no points,
or raises a flag: the routes of the second red team's last round, as real attacking notebooks of
lesson 04, graded in one batch beside honest ones, with and without namespaces (the class of
``answers_class``, shared with ``test_answers_taken``).

- **stashes**: a scratch cell keeps ``reference_validate`` (a name lesson 04 binds to the course's
  ``validate_arguments``) somewhere that is not a name (an attribute of a module or of the
  lesson's registry, ``builtins``, a module's ``__dict__``, ``setattr``), and the exercise cell
  reads it back from there. The grader follows the store as it follows a name: no points. Where
  a store cannot be followed (the notebook's globals kept in a ``SimpleNamespace`` and read by a
  key held elsewhere), the cell that keeps them is flagged.
  The kernel's own report of what a check called (``course_lib.origins``) follows such stores
  too, and zeroes them where the notebook has not forged it.
- **code from strings**: the answer defined by ``get_ipython().run_cell(...)``, ``exec`` or
  ``get_ipython().ex`` of a string decoded at run time, which the source cannot show: the cell is
  flagged as a run-time route from the grader's own reading of its source (nothing the kernel
  reports decides it).

The honest notebooks beside them (independent solutions, one with IPython magics that time and
try the lesson's reference) are graded exactly as alone and flag nothing.
"""

from __future__ import annotations

import base64
import functools
from pathlib import Path

import independent
import nbformat
import pytest
from nbformat.v4 import new_code_cell

from attacks.answers_class import enrol
from course_lib.grading.analysis import analyse
from course_lib.grading.canonical import load_lesson

ROOT = Path(__file__).resolve().parents[3]
REGISTRY = "04_registry"
EXERCISE = "04.3"
CALLS = "def validate_arguments(schema, arguments):\n    return {}(schema, arguments)\n"
WRAPPER = CALLS.format("reference_validate")


def _decoded(code: str) -> str:
    """An expression that gives ``code`` only at run time."""
    return f"base64.b64decode({base64.b64encode(code.encode())!r}).decode()"


# student -> (a scratch cell before the exercise cell, the 04.3 exercise cell)
STASHES = {
    "stash_on_a_module": ("json.v = reference_validate", CALLS.format("json.v")),
    "stash_on_the_registry": ("registry.v = reference_validate", CALLS.format("registry.v")),
    "stash_in_builtins": (
        "import builtins\nvars(builtins).update(v=reference_validate)",
        CALLS.format("v"),
    ),
    "stash_by_setattr": (
        "setattr(json, 'v', reference_validate)",
        CALLS.format("json.v"),
    ),
    "stash_in_a_module_dict": (
        "json.__dict__['v'] = reference_validate",
        CALLS.format("json.v"),
    ),
    "stash_in_a_namespace": (
        "import types\nns = types.SimpleNamespace(f=reference_validate)",
        CALLS.format("ns.f"),
    ),
}
UNFOLLOWED = {
    "globals_in_a_namespace": (
        "import types\nns = types.SimpleNamespace(g=converse.__globals__, k='reference_' + 'v')",
        CALLS.format("ns.g[ns.k + 'alidate']"),
    ),
    "run_cell_decoded": (
        "import base64",
        f"get_ipython().run_cell({_decoded(WRAPPER)})",
    ),
    "exec_of_a_decoded_stash": (
        f"import base64, json\nexec({_decoded('json.v = reference_validate')})",
        CALLS.format("json.v"),
    ),
    "ex_decoded": ("import base64", f"get_ipython().ex({_decoded(WRAPPER)})"),
    "stash_by_a_computed_name": (
        "setattr(json, chr(118), reference_validate)",
        CALLS.format("json.v"),
    ),
}
ROUTES = {**STASHES, **UNFOLLOWED}
# What each unfollowed route must raise: a flag naming the cell's route.
FLAGGED = {
    "globals_in_a_namespace": "keeps the notebook's names (converse.__globals__) in ns.g",
    "run_cell_decoded": "runs code from a string at run time (run_cell)",
    "exec_of_a_decoded_stash": "runs code from a string at run time (exec)",
    "ex_decoded": "runs code from a string at run time (ex)",
    "stash_by_a_computed_name": (
        "keeps course_lib.reference.validate_arguments, the course's own code, in "
        "setattr(json, chr(118), reference_validate)"
    ),
}
# Routes the source can only flag, which the run-time report (``course_lib.origins``: the
# course's code kept on a module, an object or builtins is followed) zeroes where the driver is
# not forged.
ZEROED_AT_RUN_TIME = ("stash_by_a_computed_name",)
MAGICS = (
    "%timeit -n 1 -r 1 validate_arguments({'type': 'object'}, {})\n",
    "%%time\nprint(reference_validate({'type': 'object'}, {}))\n",
)
HONEST = ("honest_04_a", "honest_04_b", "honest_with_magics")


def attack(student: str) -> nbformat.NotebookNode:
    scratch, answer = ROUTES[student]
    nb = independent.notebook_with(REGISTRY, 0)
    position = next(n for n, c in enumerate(nb.cells) if independent.exercise_of(c) == EXERCISE)
    nb.cells[position].source = answer
    nb.cells.insert(position, new_code_cell(scratch))
    return nb


def honest(student: str) -> nbformat.NotebookNode:
    nb = independent.notebook_with(REGISTRY, HONEST.index(student) + 1)
    if student == "honest_with_magics":
        position = next(n for n, c in enumerate(nb.cells) if independent.exercise_of(c) == "04.4")
        for source in reversed(MAGICS):  # after the 04.3 check, where both names are bound
            nb.cells.insert(position, new_code_cell(source))
    return nb


enrol(
    attacks={s: (f"{REGISTRY}.ipynb", functools.partial(attack, s)) for s in ROUTES},
    honest={s: (f"{REGISTRY}.ipynb", functools.partial(honest, s)) for s in HONEST},
)


@pytest.fixture(scope="module", params=[True, False], ids=["namespaces", "without-namespaces"])
def batch(request, answers_class):
    """This file's students of the class (``answers_class``): the attacks and honest notebooks
    graded together (results by student, the class's flags), and the honest ones alone."""
    graded = answers_class.graded(request.param)
    together, flags = graded["together"]
    alone, alone_flags = graded["alone"]
    results = {s: together[s, REGISTRY] for s in [*ROUTES, *HONEST]}
    return (results, flags), (
        {s: alone[s, REGISTRY] for s in HONEST},
        [f for f in alone_flags if f["student"] in HONEST],
    )


def row(result, exercise: str):
    return next(r for r in result.exercises if r.exercise == exercise)


@pytest.mark.parametrize("student", sorted(STASHES))
def test_an_answer_read_back_from_a_stash_earns_no_points(batch, student):
    (results, _), _ = batch
    taken = row(results[student], EXERCISE)
    assert (taken.status, taken.points) == ("tampered", 0), taken
    assert "course_lib.reference.validate_arguments" in taken.message


@pytest.mark.parametrize("student", sorted(UNFOLLOWED))
def test_a_route_the_source_cannot_follow_is_flagged_from_the_source(batch, student):
    (results, flags), _ = batch
    raised = [f["match"] for f in flags if f["student"] == student and f["exercise"] == EXERCISE]
    taken = row(results[student], EXERCISE)
    if taken.points:  # a flag never changes a grade; a route zeroed by what ran needs none
        assert any(FLAGGED[student] in got for got in raised), raised


@pytest.mark.parametrize("student", ZEROED_AT_RUN_TIME)
def test_where_the_driver_is_not_forged_the_run_time_report_zeroes_what_the_source_flags(
    batch, student
):
    (results, _), _ = batch
    taken = row(results[student], EXERCISE)
    assert (taken.status, taken.points) == ("tampered", 0), taken


@pytest.mark.parametrize("student", sorted(UNFOLLOWED))
def test_the_flag_comes_from_the_source_alone(student):
    """The flag is the grader's reading of the sources: it is there whatever the kernel
    reports (a notebook can forge what its driver says, not what its cells are)."""
    lesson = load_lesson(ROOT / "notebooks" / f"{REGISTRY}.ipynb")
    read = analyse(nbformat.writes(attack(student)).encode(), lesson).read
    assert any(FLAGGED[student] in phrase for phrase in read.phrases[EXERCISE]), read.phrases


@pytest.mark.parametrize("student", sorted(ROUTES))
def test_taking_one_answer_costs_only_that_exercise(batch, student):
    (results, _), _ = batch
    others = {"04.1": 3, "04.2": 1, "04.4": 3, "04.5": 2}
    assert {e: row(results[student], e).points for e in others} == others


def test_the_honest_submissions_are_graded_exactly_as_alone_and_flag_nothing(batch):
    (results, flags), (alone, alone_flags) = batch
    for student, result in alone.items():
        assert results[student] == result
        assert result.points == result.max_points, result
    assert [f for f in flags if f["student"] in HONEST] == alone_flags == []


@pytest.mark.parametrize("student", sorted(STASHES))
def test_a_stash_is_zeroed_from_the_source_alone(student):
    """The zero comes from the grader's reading of the sources, not from what the kernel
    reports about the objects the check called."""
    lesson = load_lesson(ROOT / "notebooks" / f"{REGISTRY}.ipynb")
    read = analyse(nbformat.writes(attack(student)).encode(), lesson).read
    assert "course_lib.reference.validate_arguments" in (read.reasons[EXERCISE] or "")


@pytest.mark.parametrize(
    ("source", "call"),
    [
        ("exec(code)", "exec"),
        ("__import__('builtins').exec(code)", "exec"),
        ("builtins.eval(code)", "eval"),
        ("getattr(get_ipython(), 'run_' + 'cell')(code)", "run_cell"),
        ("get_ipython().run_line_magic('run', 'helper.py')", "run_line_magic run"),
        ("%run helper.py", "run_line_magic run"),
        ("%%capture\nexec(code)", "exec"),  # the code under a capture is read as the cell's
        # honest cells: none
        ("%timeit -n 1 validate_arguments({}, {})", None),
        ("%%time\nprint(validate_arguments({}, {}))", None),
        ("PATTERN = re.compile('[a-z]+')", None),
        ("value = interpreter.eval(expression)", None),
        ("!pip list", None),
    ],
)
def test_code_run_from_a_string_is_named_and_magics_that_time_a_cell_are_not(source, call):
    from course_lib.grading.borrowing import parse
    from course_lib.grading.run_code import RUN_TIME_CODE, run_time_code

    assert run_time_code(parse(source)) == ([RUN_TIME_CODE.format(call=call)] if call else [])
