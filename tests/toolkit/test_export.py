"""A lesson's module in the learner's package: their passed answers, after exactly what those
answers need from the lesson's own cells (read from the code, never run)."""

from __future__ import annotations

import ast
from pathlib import Path

from course_lib.toolkit import export

ROOT = Path(__file__).resolve().parents[2]


def lesson(slug: str) -> export.LessonCells:
    return export.read_notebook(ROOT / "solutions" / f"{slug}.ipynb")


def no_links(name: str) -> tuple[str, str]:
    raise AssertionError(f"nothing here takes {name} from the toolkit")


def test_a_module_holds_the_passed_answers_and_the_imports_they_use():
    source = export.module_source(
        "04", "04_registry", lesson("04_registry"), ["04.1", "04.5"], no_links
    )
    ast.parse(source)
    assert "class ToolRegistry:" in source and "def to_text(" in source
    assert "def validate_arguments(" not in source  # 04.3 did not pass
    assert "import inspect" in source  # 04.1 reads docstrings with it
    assert "from course_lib.reference import parameters_schema" in source
    assert "ReferenceRegistry" not in source  # imported by the lesson, used by no answer


def test_a_parameter_named_like_a_lesson_variable_does_not_pull_that_variable_in():
    # 05.1's run_agent(client, registry, ...) takes a client; the lesson's own
    # ``client = make_client()`` and ``registry = ToolRegistry()`` are not its.
    course = {"ToolRegistry": ("course_lib.reference.registry", "ToolRegistry")}
    source = export.module_source(
        "05", "05_agent_loop", lesson("05_agent_loop"), ["05.1"], course.__getitem__
    )
    ast.parse(source)
    assert "def run_agent(" in source
    assert "make_client()" not in source and "ToolRegistry()" not in source


def test_a_toolkit_use_line_becomes_an_import_of_the_version_chosen():
    cells = export.LessonCells(
        (
            "from course_lib import toolkit\n"
            'ToolRegistry, run_agent = toolkit.use("ToolRegistry", "run_agent")',
            "await something()  # a notebook's top-level await: not module code",
        ),
        {"07.9": "def make():\n    return ToolRegistry()\n"},
    )
    chosen = {
        "ToolRegistry": ("my_toolkit.lesson04", "DispatchRegistry"),
        "run_agent": ("course_lib.reference.loop", "run_agent"),
    }
    source = export.module_source("07", "07_other_protocols", cells, ["07.9"], chosen.__getitem__)
    ast.parse(source)
    assert "from my_toolkit.lesson04 import DispatchRegistry as ToolRegistry" in source
    assert "run_agent" not in source  # nothing passed uses it
    assert "from course_lib import toolkit" not in source and "await" not in source
