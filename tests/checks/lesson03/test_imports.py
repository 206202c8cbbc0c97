"""No lesson's checks import another lesson's: what lessons 02 and 03 share is in
``course_lib.checks.function_cases`` and ``course_lib.checks.parameter_schemas``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from course_lib.i18n.messages import CHECKS

LESSON = re.compile(r"^course_lib\.checks\.(lesson\d\d)\b")


def imported_lessons(path: Path) -> set[str]:
    """The ``lessonNN`` packages of ``course_lib.checks`` the module at ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found |= {match.group(1) for name in names if (match := LESSON.match(name))}
    return found


def test_lessons_01_to_03_import_only_their_own_checks():
    for lesson in ("lesson01", "lesson02", "lesson03"):
        for path in sorted((CHECKS / lesson).rglob("*.py")):
            assert imported_lessons(path) <= {lesson}, path


def test_the_import_reader_sees_an_import_of_another_lesson(tmp_path):
    module = tmp_path / "leak.py"
    module.write_text("from course_lib.checks.lesson02._shared import Source\n", encoding="utf-8")
    assert imported_lessons(module) == {"lesson02"}
    module.write_text("from course_lib.checks import lesson02, function_cases\n", encoding="utf-8")
    assert imported_lessons(module) == {"lesson02"}
