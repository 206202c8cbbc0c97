"""The parts that decide whether an answer is the learner's own, each on its own (no kernel):
which cells make up an exercise's answer; routes read from the source; the driver's report of
where a target's code was written, and the grader's judgement of it. Strings read as names and
code are tested with the other borrowing rules, and the graded batches are in
attacks/test_answers_taken.py and attacks/test_borrowing.py."""

from __future__ import annotations

import ast
import builtins
import copy

import nbformat
import pytest
from grading_lesson import REFERENCE_SETUP, SOLUTIONS, canonical, submission
from nbformat.v4 import new_code_cell

from course_lib.grading.answers import answer_cells, check_positions, learner_cells
from course_lib.grading.canonical import load_lesson
from course_lib.grading.provenance import judge, lesson_names
from course_lib.grading.routes import opaque_routes, touches_driver
from course_lib.grading.sanitize import sanitize
from course_lib.origins import origins

# --- the cells of an answer ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    path = tmp_path_factory.mktemp("ownership") / "90_test.ipynb"
    nbformat.write(canonical(REFERENCE_SETUP), path)
    return load_lesson(path)


def answer_of(lesson, nb, exercise: str) -> list[str]:
    sanitized = sanitize(nbformat.writes(nb).encode("utf-8"), lesson)
    spec = next(spec for spec in lesson.exercises if spec.id == exercise)
    cells = learner_cells(sanitized, lesson)
    found = answer_cells(cells, exercise, spec.targets, check_positions(sanitized)[exercise])
    return [cell.source for cell in found]


def after(nb, cell_id: str, *sources: str):
    nb = copy.deepcopy(nb)
    position = next(n for n, cell in enumerate(nb.cells) if cell.get("id") == cell_id)
    for offset, source in enumerate(sources, start=1):
        nb.cells.insert(position + offset, new_code_cell(source))
    return nb


def test_an_answer_is_its_cell_and_the_cells_between_it_and_its_check(lesson):
    nb = after(submission(setup=REFERENCE_SETUP), "t-ex3", "def type_name(a):\n    return 1")
    assert answer_of(lesson, nb, "90.3") == [
        canonical().cells[-2].source,
        "def type_name(a):\n    return 1",
    ]


def test_a_scratch_cell_that_defines_the_target_or_a_helper_it_uses_is_part_of_the_answer(lesson):
    helper = "TABLE = {str: 'string'}"
    target = "def type_name(a):\n    return {'type': TABLE[a]}"
    unrelated = "print('trying things')"
    nb = submission({"90.3": "pass"}, scratch=helper + "\n", setup=REFERENCE_SETUP)
    nb = after(nb, "t-setup", unrelated, target)
    assert answer_of(lesson, nb, "90.3") == [target, helper + "\n", "pass"]


def test_other_exercises_cells_and_cells_after_the_check_are_not_part_of_an_answer(lesson):
    nb = submission(SOLUTIONS, setup=REFERENCE_SETUP)
    nb = after(nb, "t-ck3", "type_name = print")
    assert answer_of(lesson, nb, "90.3") == [SOLUTIONS["90.3"]]
    assert answer_of(lesson, nb, "90.1") == [SOLUTIONS["90.1"]]


def test_the_lessons_own_cells_as_they_are_are_not_the_learners(lesson):
    nb = submission(SOLUTIONS, setup=REFERENCE_SETUP)
    sanitized = sanitize(nbformat.writes(nb).encode("utf-8"), lesson)
    own = {cell.source for cell in learner_cells(sanitized, lesson) if cell.own}
    assert own == set(SOLUTIONS.values())


# --- routes read from the source ---------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "__course_driver__.namespace = {}",
        "globals()['__course_' + 'driver__'].serve = print",
        "from course_lib.driver import Driver",
        "import course_lib.driver as d",
        "import course_lib.driver_clients as d",  # the driver's parts are the driver too
        "x = '__COURSE_DRIVER__'.lower()",
    ],
)
def test_a_cell_that_names_the_driver_is_seen(source):
    assert touches_driver(ast.parse(source))


@pytest.mark.parametrize(
    ("source", "route"),
    [
        ("import gc\nx = gc.get_objects()", "gc.get_objects"),
        ("import sys\nfor m in list(sys.modules.values()):\n    pass", "sys.modules"),
        ("import sys\nm = sys.modules[bytes([97]).decode()]", "sys.modules"),
        ("x = object.__subclasses__()", "__subclasses__"),
        ("import sys\nf = sys._getframe(1).f_globals", "sys._getframe"),
        ("import importlib\nm = importlib.import_module(name)", "computed at run time"),
    ],
)
def test_routes_nobody_can_follow_from_the_source_are_named(source, route):
    assert any(route in found for found in opaque_routes(ast.parse(source)))


@pytest.mark.parametrize(
    "source",
    [
        "import importlib\nm = importlib.import_module('json')",
        "import sys\nmodule = sys.modules[func.__module__]",
        "result = eval(expression)",
        "def hints(func):\n    return typing.get_type_hints(func, func.__globals__)",
    ],
)
def test_ordinary_dynamic_code_is_not_a_route(source):
    assert opaque_routes(ast.parse(source)) == []
    assert not touches_driver(ast.parse(source))


# --- where a target's code was written: the driver's report, the grader's judgement ------------

NOTEBOOK = """
from course_lib.reference import type_schema as T
from course_lib.reference import ToolRegistry

registry = ToolRegistry()

def borrows(a):
    return T(a)

def own(a):
    return {"type": "string"}

class Holder:
    def __init__(self):
        self.registry = None

    def names(self):
        return self.registry
"""


@pytest.fixture(scope="module")
def notebook() -> dict:
    namespace = {"__name__": "__main__"}  # the notebook's module, as in a kernel
    exec(compile(NOTEBOOK, "/tmp/ipykernel_7/123456.py", "exec", dont_inherit=True), namespace)
    return namespace


def test_the_driver_reports_the_course_objects_a_function_reaches(notebook):
    report = origins(notebook["borrows"])
    assert report["module"] == "__main__"
    assert [(e["module"], e["name"]) for e in report["reached"]] == [
        ("course_lib.reference.type_map", "type_schema")
    ]
    assert origins(notebook["own"])["reached"] == []


def test_an_attribute_named_like_a_global_is_not_that_global(notebook):
    assert origins(notebook["Holder"])["reached"] == []


def test_the_course_object_itself_reports_its_own_module_and_file(notebook):
    report = origins(notebook["T"])
    assert report["module"] == "course_lib.reference.type_map"
    assert report["file"].replace("\\", "/").endswith("course_lib/reference/type_map.py")


def report_for(value) -> dict:
    return {"f": origins(value)}


ALLOWED = lesson_names({"course_lib.reference.ToolRegistry", "course_lib.reference.to_text"})


def test_a_target_that_is_the_courses_code_is_borrowed_whatever_the_lesson_uses(notebook):
    assert judge(report_for(notebook["T"]), ["f"], ALLOWED).borrowed.startswith(
        "course_lib.reference.type_map"
    )
    assert judge(report_for(notebook["ToolRegistry"]), ["f"], ALLOWED).borrowed is not None


def test_a_target_that_calls_what_the_lesson_does_not_use_is_borrowed(notebook):
    judged = judge(report_for(notebook["borrows"]), ["f"], ALLOWED)
    assert judged.borrowed == "course_lib.reference.type_map.type_schema"


def test_reaching_what_the_lesson_provides_is_allowed_unless_it_is_the_exercises_target(notebook):
    source = "def use():\n    return registry.names()\n"
    exec(compile(source, "/tmp/ipykernel_7/9.py", "exec", dont_inherit=True), notebook)
    assert judge(report_for(notebook["use"]), ["run"], ALLOWED).borrowed is None
    assert judge(report_for(notebook["use"]), ["ToolRegistry"], ALLOWED).borrowed is not None


def test_a_function_rebuilt_from_the_courses_code_is_borrowed(notebook):
    rebuilt = type(notebook["own"])(notebook["T"].__code__, notebook)  # a notebook function now
    judged = judge(report_for(rebuilt), ["f"], ALLOWED)
    assert judged.borrowed is not None and "course_lib/reference/type_map.py" in judged.borrowed


@pytest.mark.parametrize(
    ("report", "flag"),
    [
        ({"module": "__main__", "file": "<string>"}, "made by code run from a string"),
        ({"module": "mymodule", "file": "/tmp/x/mymodule.py"}, "comes from the module mymodule"),
    ],
)
def test_a_target_written_outside_the_notebooks_cells_is_flagged_not_zeroed(report, flag):
    judged = judge({"f": {**report, "files": [], "reached": []}}, ["f"], ALLOWED)
    assert judged.borrowed is None and len(judged.flags) == 1 and flag in judged.flags[0]


def test_a_target_written_in_a_cell_is_neither_borrowed_nor_flagged(notebook):
    judged = judge(report_for(notebook["own"]), ["f"], ALLOWED)
    assert (judged.borrowed, judged.flags) == (None, [])


STASHED = """
import types

library = types.ModuleType("mylib")
library.v = T
registry = ToolRegistry()  # the lesson's kind of registry, with the course's function on it
registry.v = T
clean = ToolRegistry()
ns = types.SimpleNamespace(f=T)

def via_a_module(a):
    return library.v(a)

def via_the_registry(a):
    return registry.v(a)

def via_builtins(a):
    return stashed_t(a)

def via_a_namespace(a):
    return ns.f(a)

def honest(a):
    return types.SimpleNamespace, clean.names(), len(a)
"""


@pytest.fixture(scope="module")
def stashed(notebook) -> dict:
    namespace = dict(notebook)
    namespace["__builtins__"] = {**vars(builtins), "stashed_t": notebook["T"]}  # its own copy
    exec(compile(STASHED, "/tmp/ipykernel_7/77.py", "exec", dont_inherit=True), namespace)
    return namespace


@pytest.mark.parametrize(
    "name", ["via_a_module", "via_the_registry", "via_builtins", "via_a_namespace"]
)
def test_the_courses_code_kept_on_a_module_an_object_or_builtins_is_reached(stashed, name):
    judged = judge(report_for(stashed[name]), ["f"], ALLOWED)
    assert judged.borrowed == "course_lib.reference.type_map.type_schema"


def test_what_a_module_or_the_lesson_registry_holds_of_its_own_is_not_reached(stashed):
    assert judge(report_for(stashed["honest"]), ["f"], ALLOWED).borrowed is None
