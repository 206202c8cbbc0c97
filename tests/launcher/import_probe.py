"""Run with an environment's Python from a course folder: import every package that the lessons'
code cells and the course library can import at run time, and print those that fail.

The packages are found by reading the sources, not by running them: every ``import`` and
``from ... import`` at any depth (inside functions too: a check may import a package only when
it runs) of every code cell in ``solutions/*.ipynb`` and of every module of ``course_lib``. Left
out: the standard library, ``course_lib`` itself, relative imports, and imports inside a ``try``
that catches ``ImportError`` (optional on purpose). Prints one line per package that does not
import (``name: error``), then ``checked N packages``; exits 1 when any failed.
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
from pathlib import Path

OPTIONAL = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def optional_nodes(tree: ast.AST) -> set[int]:
    """The ids of the import nodes inside a ``try`` that catches an import's failure."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        caught = set()
        for handler in node.handlers:
            kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            caught |= {kind.id for kind in kinds if isinstance(kind, ast.Name)}
            if handler.type is None:
                caught.add("BaseException")
        if caught & OPTIONAL:
            for statement in node.body:
                found |= {id(inner) for inner in ast.walk(statement)}
    return found


def packages(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell of IPython magics, e.g. "%pip ..."
        return set()
    skip = optional_nodes(tree)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def without_magics(code: str) -> str:
    """A cell's code without IPython's own lines (``%pip ...``, ``!ls``), which are not Python."""
    return "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))


def main(root: Path) -> int:
    found: set[str] = set()
    for notebook in sorted((root / "solutions").glob("*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                found |= packages(without_magics("".join(cell["source"])))
    for module in sorted((root / "course_lib").rglob("*.py")):
        found |= packages(module.read_text(encoding="utf-8"))
    wanted = sorted(found - set(sys.stdlib_module_names) - {"course_lib", "__future__"})
    failed = 0
    for name in wanted:
        try:
            importlib.import_module(name)
        except Exception as error:  # noqa: BLE001 (every failure is reported)
            failed += 1
            print(f"{name}: {type(error).__name__}: {error}")
    print(f"checked {len(wanted)} packages: {', '.join(wanted)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
