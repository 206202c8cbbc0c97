"""``course_lib.schema_library``: jsonschema without the IRI grammar, and every course import of
jsonschema going through it.

Where ``rfc3987_syntax`` is installed (JupyterLab's dependencies install it), a plain
``import jsonschema`` compiles the IRI grammar; a kernel of the course must not pay for it on its
first validation (see the module's docstring for the measured cost; benchmarks, not tests, time
things).
"""

from __future__ import annotations

import ast
import importlib.machinery
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GRAMMAR = "rfc3987_syntax"
# Looked for on sys.path, not through sys.modules: this very process hides the package (the
# suite's pytest loads course_lib.grading.without_iri_grammar first, see pyproject.toml).
needs_the_grammar_package = pytest.mark.skipif(
    importlib.machinery.PathFinder.find_spec(GRAMMAR) is None,
    reason=f"{GRAMMAR} is not installed here: jsonschema builds no IRI grammar to skip",
)


def run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return done.stdout.strip()


@needs_the_grammar_package
def test_a_plain_import_builds_the_grammar_so_the_skip_is_worth_having():
    # The premise: without schema_library, importing jsonschema loads the grammar package (and
    # lark, which compiles it). Fails the day jsonschema stops doing it: the module can go.
    assert run(
        "import sys, jsonschema; print(sorted({'rfc3987_syntax', 'lark'} & set(sys.modules)))"
    ) == ("['lark', 'rfc3987_syntax']")


@needs_the_grammar_package
def test_load_imports_jsonschema_without_the_grammar_and_leaves_the_package_importable():
    out = run(
        "import sys\n"
        "from course_lib import schema_library\n"
        "js = schema_library.load()\n"
        "print(js is sys.modules['jsonschema'], 'lark' in sys.modules,\n"
        "      'rfc3987_syntax' in sys.modules)\n"
        "print(js.Draft202012Validator({'type': 'integer'}).is_valid(3))\n"
        "import rfc3987_syntax\n"  # the learner's own code still can
        "print(rfc3987_syntax.__name__)\n"
    )
    assert out.splitlines() == ["True False False", "True", "rfc3987_syntax"]


def test_load_returns_a_jsonschema_imported_before_it_as_it_is():
    out = run(
        "import jsonschema, sys\n"
        "from course_lib import schema_library\n"
        "print(schema_library.load() is jsonschema,\n"
        "      sys.modules.get('rfc3987_syntax', 'absent') is not None)\n"
    )
    assert out == "True True"


def test_the_course_validates_without_the_grammar():
    # What a lesson's first validation does: the reference registry's argument check.
    out = run(
        "import sys\n"
        "from course_lib.reference.validation import validate_arguments\n"
        "schema = {'type': 'object', 'properties': {'n': {'type': 'integer'}}}\n"
        "print(validate_arguments(schema, {'n': 'x'}))\n"
        "print('lark' in sys.modules)\n"
    )
    assert out.splitlines()[-1] == "False"
    assert "n" in out.splitlines()[0]


def _jsonschema_imports(tree: ast.AST):
    """(function or None, import node) for every import of jsonschema in a module."""

    def walk(node: ast.AST, function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from walk(child, child)
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # never runs
            elif isinstance(child, ast.Import) and any(
                a.name.split(".")[0] == "jsonschema" for a in child.names
            ):
                yield function, child
            elif (
                isinstance(child, ast.ImportFrom)
                and (child.module or "").split(".")[0] == "jsonschema"
            ):
                yield function, child
            else:
                yield from walk(child, function)

    yield from walk(tree, None)


def _first_load(function: ast.AST) -> int | None:
    lines = [
        node.lineno
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "schema_library.load"
    ]
    return min(lines, default=None)


def test_every_course_import_of_jsonschema_comes_after_schema_library_load():
    # Kernel-side code (lessons, the local model, the reference, the checks) imports jsonschema
    # only inside a function, after schema_library.load(); the grader's processes hide the
    # grammar package for good (course_lib.grading.without_iri_grammar) and are not held to it.
    found, wrong = 0, []
    for path in sorted((ROOT / "course_lib").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith("course_lib/grading/") or path.name == "schema_library.py":
            continue
        for function, node in _jsonschema_imports(ast.parse(path.read_text(encoding="utf-8"))):
            found += 1
            first = None if function is None else _first_load(function)
            if first is None or first > node.lineno:
                wrong.append(f"{relative}:{node.lineno}")
    assert found >= 3, "the scan found no import of jsonschema: it no longer sees them"
    assert wrong == [], f"jsonschema imported without schema_library.load() first: {wrong}"


def test_the_scan_sees_an_import_before_load_and_a_module_level_one():
    bad = ast.parse(
        "import jsonschema\n"
        "def f():\n    from jsonschema import Draft202012Validator\n    schema_library.load()\n"
        "def g():\n    schema_library.load()\n    from jsonschema.exceptions import SchemaError\n"
    )
    verdicts = [
        (fn.name if fn else None, _first_load(fn) if fn else None, node.lineno)
        for fn, node in _jsonschema_imports(bad)
    ]
    assert verdicts == [(None, None, 1), ("f", 4, 3), ("g", 6, 7)]


@needs_the_grammar_package
@pytest.mark.parametrize(
    ("call", "skips"), [("main()", True), ("main(['build', '--check'])", False)]
)
def test_the_command_line_skips_the_grammar_and_a_caller_of_main_keeps_its_own(call, skips):
    # `course build --check` imports nbformat, which imports jsonschema. As the process's command
    # line (argv from sys.argv) it hides the grammar for good; called from another program's code
    # (a test, a notebook), it leaves that process's imports alone.
    out = run(
        "import atexit, sys\n"
        "atexit.register(lambda: print('lark' in sys.modules))\n"
        "sys.argv = ['course', 'build', '--check']\n"
        "from course_lib.cli import main\n"
        f"{call}\n"
    )
    assert out.splitlines()[-1] == str(not skips)


def test_the_suites_own_pytest_process_imported_jsonschema_without_the_grammar():
    """pyproject.toml's addopts load without_iri_grammar before nbval's plugin imports nbformat
    (about 1.5 s of CPU less for every pytest process of the suite)."""
    assert "jsonschema" in sys.modules
    assert sys.modules.get(GRAMMAR, "absent") is None
