"""The capstone on the learner's own parts, in process, as JupyterLab runs it: a course folder
whose ``notebooks/`` holds lessons 04-08 as solved, with each exercise's check recorded as
passed on the code saved there (what ``check()`` records), then lesson 09's own cells.

A learner who solved 04-08 gets every part of the assistant from ``my_toolkit`` and no line;
one who skipped 04.1 gets the course's registry and exactly one line naming 04.1. Either way
the notebook's assistant, built on those parts (the learner's lesson 04 registry, which reads
``null`` as a wrong type, behind ``StrictTools``), earns every scenario of 09.6.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from course_lib.checks import evaluate
from course_lib.checks.core import outcome
from course_lib.checks.scenarios import PartlyRight
from course_lib.toolkit import export, resolve, state

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "checks"))
from solution_cells import cell_sources, load_cells  # noqa: E402

SOLVED = ("04_registry", "05_agent_loop", "06_hardening", "07_other_protocols", "08_mcp")
CAPSTONE = "09_capstone"
AFTER_SETUP = ("w09-route", "w09-may-use", "w09-approval", "w09-memory", "w09-budget")
AFTER_SETUP += ("w09-calculator", "w09-metadata", "w09-strict", "w09-assistant")
OWN_MODULES = {"ToolRegistry": "my_toolkit.lesson04", "run_tool_calls": "my_toolkit.lesson05"}
OWN_MODULES |= {"safe_calculate": "my_toolkit.lesson06", "to_strict": "my_toolkit.lesson06"}
OWN_MODULES |= {"TracedRegistry": "my_toolkit.lesson06"}
OWN_MODULES |= {"chat_to_responses_input": "my_toolkit.lesson07"}
PASSED = "Exercise 09.6 passed: ShopAssistant (16 scenarios)."


def course_folder(tmp: Path, monkeypatch: pytest.MonkeyPatch, skipped: tuple[str, ...]) -> None:
    """Lessons 04-08 solved and saved in ``tmp/notebooks``, every exercise but ``skipped``
    recorded as passed on the saved code; the toolkit reads this folder."""
    notebooks, home = tmp / "notebooks", tmp / "home"
    notebooks.mkdir()
    home.mkdir()
    passed = {}
    for slug in SOLVED:
        shutil.copy(ROOT / "solutions" / f"{slug}.ipynb", notebooks)
        cells = export.read_notebook(notebooks / f"{slug}.ipynb")
        passed |= {ex: state.source_hash(src) for ex, src in cells.answers.items()}
    passed = {ex: digest for ex, digest in passed.items() if ex not in skipped}
    (home / state.STATE_FILE).write_text(json.dumps({"passed": passed, "prefer": {}}))
    monkeypatch.setenv(state.HOME_VARIABLE, str(home))
    monkeypatch.setenv(state.NOTEBOOKS_VARIABLE, str(notebooks))
    monkeypatch.setattr(resolve, "GRADING", None)


def capstone(*edits) -> tuple[dict, str]:
    """Lesson 09's setup cell run as the notebook runs it (what it printed), then its parts
    (with ``edits``: (cell, old, new))."""
    namespace: dict = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = compile(cell_sources(CAPSTONE)["w09-setup"], "w09-setup", "exec", dont_inherit=True)
        exec(code, namespace)
    load_cells(CAPSTONE, AFTER_SETUP, namespace=namespace, edits=edits)
    return namespace, printed.getvalue()


def parts_line() -> str:
    from course_lib.capstone.scenarios import parts_line

    return parts_line()


def test_a_learner_who_solved_04_to_08_runs_the_capstone_on_their_own_parts_only(
    tmp_path, monkeypatch
):
    course_folder(tmp_path, monkeypatch, skipped=())
    namespace, printed = capstone()
    assert printed == ""
    assert {name: namespace[name].__module__ for name in OWN_MODULES} == OWN_MODULES
    assert parts_line() == (
        "Your parts in this lesson: 7 of 7 from earlier lessons (ToolRegistry, run_agent, "
        "run_tool_calls, safe_calculate, to_strict, TracedRegistry, chat_to_responses_input)."
    )
    assert str(evaluate("09.6", namespace["ShopAssistant"])) == PASSED


def test_a_learner_who_skipped_04_1_gets_the_course_registry_and_one_line_naming_it(
    tmp_path, monkeypatch
):
    course_folder(tmp_path, monkeypatch, skipped=("04.1",))
    namespace, printed = capstone()
    assert printed == "Using the course's ToolRegistry: finish exercise 04.1 to use yours.\n"
    assert namespace["ToolRegistry"].__module__ == "course_lib.reference.registry"
    assert namespace["TracedRegistry"].__module__ == "my_toolkit.lesson06"
    assert parts_line().startswith("Your parts in this lesson: 6 of 7 from earlier lessons")
    assert str(evaluate("09.6", namespace["ShopAssistant"])) == PASSED


NULLS_KEPT = (
    "w09-strict",
    "        given = without_optional_nulls(value, schema)",
    "        given = value",
)


def test_strict_tools_that_keep_the_nulls_fail_on_the_learners_registry_with_a_hint_naming_it(
    tmp_path, monkeypatch
):
    """The course's registry reads null as "use the default"; lesson 04's does not. With the
    learner's registry, a null sent on is refused, and the hint names the null, not the facts."""
    course_folder(tmp_path, monkeypatch, skipped=())
    namespace, _ = capstone(NULLS_KEPT)
    result = outcome("09.6", namespace["ShopAssistant"])
    assert isinstance(result, PartlyRight), str(result)
    failed = {o.id: o.failure.hint_key for o in result.outcomes if not o.passed}
    assert failed and set(failed.values()) == {"strict_null"}
    assert "price" in failed and "limit" in str(result)


def test_the_notebook_counts_the_parts_the_grader_counts():
    """The notebook's "whose are they" cell and the scenario report count ``CAPSTONE_PARTS``;
    the grader's report counts the parts lesson 09's own cells take from the toolkit: the same,
    in the same order (they disagreed once: 6 in the notebook, 7 in the report)."""
    from course_lib.capstone.policies import CAPSTONE_PARTS
    from course_lib.grading.borrowing import lesson_parts

    assert tuple(lesson_parts(cell_sources(CAPSTONE).values())) == CAPSTONE_PARTS


ORDER = {
    "type": "object",
    "properties": {
        "order": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "note": {"type": "string"}},
            "required": ["id"],
        },
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "gift": {"type": "boolean"}},
                "required": ["sku"],
            },
        },
        "limit": {"type": "integer"},
    },
    "required": ["order", "lines"],
}


def test_strict_tools_leaves_out_the_nulls_of_optional_fields_at_every_depth():
    """Strict mode makes every optional field required and nullable, inside objects and lists
    too; the worked ``StrictTools`` gives the registry the function's own shape back. A null the
    function's schema requires, or a name it does not know, is left for the registry to judge."""
    namespace: dict = {"json": json, "to_strict": None}
    from course_lib.reference.tracing import parsed_arguments

    namespace["parsed_arguments"] = parsed_arguments
    source = cell_sources(CAPSTONE)["w09-strict"].split("strict_shop = ")[0]
    exec(compile(source, "w09-strict", "exec", dont_inherit=True), namespace)
    drop = namespace["without_optional_nulls"]
    sent = {
        "order": {"id": "A1", "note": None},
        "lines": [{"sku": "T01", "gift": None}, {"sku": "T02", "gift": True}],
        "limit": None,
        "extra": None,
    }
    assert drop(sent, ORDER) == {
        "order": {"id": "A1"},
        "lines": [{"sku": "T01"}, {"sku": "T02", "gift": True}],
        "extra": None,
    }
    assert drop({"order": None, "lines": []}, ORDER) == {"order": None, "lines": []}
