"""docs/architecture.md's layers are the code's: its table of what each part of ``course_lib``
imports, and its diagram of the same, are the import statements of ``course_lib`` as they are.

A part is a folder or a module directly under ``course_lib/``. Part A imports part B when some
module of A has an ``import course_lib.B...`` or ``from course_lib.B... import`` statement,
at the top or inside a function. Imports by name at run time (``importlib`` on a string) are
written after "by name" in the table and are not counted here.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "course_lib"
PAGE = ROOT / "docs" / "architecture.md"
# Parts the diagram leaves out: the three small shared modules, and the command line, which
# loads every part's ``cli`` by name.
NOT_DRAWN = {"case_budget", "origins", "listening", "schema_library", "cli"}


def part_of(path: Path) -> str:
    first = path.relative_to(PACKAGE).parts[0]
    return first.removesuffix(".py")


def is_part(name: str) -> bool:
    return (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file()


def imported_parts(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "course_lib":
            # from course_lib import x: a part when x is a module of its own (not __version__)
            names = [f"course_lib.{a.name}" for a in node.names if is_part(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith("course_lib."):
                found.add(name.split(".")[1])
    return found


def import_graph() -> dict[str, set[str]]:
    """part -> the other parts its modules import."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        part = part_of(path)
        if part in ("__init__", "__main__"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph.setdefault(part, set()).update(imported_parts(tree) - {part})
    return graph


def section(title: str) -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def table_of_imports() -> dict[str, set[str]]:
    """part -> the parts its row names as imported (before "by name")."""
    table = {}
    for line in section("The layers").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        match = re.fullmatch(r"`(\w+)(?:/|\.py)`", cells[0]) if len(cells) == 3 else None
        if match and match.group(1) not in ("cli", "locale"):
            named = cells[2].split("by name")[0]
            table[match.group(1)] = set(re.findall(r"`(\w+)`", named))
    return table


def diagram_edges(text: str) -> set[tuple[str, str]]:
    block = re.search(r"```mermaid\nflowchart TD\n(.*?)```", text, re.S)
    assert block, "the layers section opens with a flowchart TD of the imports"
    return set(re.findall(r"^\s*(\w+) -\.?->? (\w+)\s*$", block.group(1), re.M))


def test_the_table_names_every_part_and_what_it_imports() -> None:
    graph = import_graph()
    table = table_of_imports()
    small = {"case_budget", "origins", "listening", "schema_library"}  # prose: "None of the four"
    assert set(table) == set(graph) - small - {"cli"}, "a row for every part, and only those"
    assert not set().union(*(graph[part] for part in small)), "a small module imports a part"
    wrong = {part: (table[part], graph[part]) for part in table if table[part] != graph[part]}
    assert not wrong, "part: (the table says, the code imports): " + repr(wrong)


def test_the_diagram_is_the_import_graph_of_the_parts_it_draws() -> None:
    graph = import_graph()
    real = {
        (part, other)
        for part, others in graph.items()
        for other in others
        if part not in NOT_DRAWN and other not in NOT_DRAWN
    }
    drawn = diagram_edges(section("The layers"))
    assert drawn == real, (
        f"drawn but not imported: {sorted(drawn - real)}; "
        f"imported but not drawn: {sorted(real - drawn)}"
    )


def test_the_reading_of_the_page_sees_a_wrong_diagram() -> None:
    """The parsers above read what the page means: an edge left out or added is seen."""
    drawn = diagram_edges(section("The layers"))
    assert ("grading", "checks") in drawn and ("checks", "widgets") in drawn  # -> and -.->
    fewer = section("The layers").replace("    grading --> checks\n", "")
    assert diagram_edges(fewer) == drawn - {("grading", "checks")}


def test_the_lazy_packages_load_a_names_module_only_when_it_is_named() -> None:
    """``widgets`` and ``grading`` name their classes through ``course_lib.lazy_names``: importing
    the package loads neither ipywidgets nor the grader, naming a class loads its module, and
    a name the package does not have is an AttributeError naming the package."""
    probe = (
        "import sys, course_lib.widgets as w, course_lib.grading as g\n"
        "print('ipywidgets' in sys.modules, 'course_lib.grading.grader' in sys.modules)\n"
        "g.grade_all; w.ToolForm\n"
        "print('ipywidgets' in sys.modules, 'course_lib.grading.grader' in sys.modules)\n"
        "try:\n    w.Missing\nexcept AttributeError as e:\n    print(e)\n"
        "print(sorted(w.__all__) == w.__all__ and 'ToolForm' in w.__all__)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "False False",
        "True True",
        "module 'course_lib.widgets' has no attribute 'Missing'",
        "True",
    ]
