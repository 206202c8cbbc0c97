"""The grader's threads parse Python one at a time (course_lib/grading/syntax_tree.py)."""

from __future__ import annotations

import ast
import gc
import threading
import time
from pathlib import Path

import pytest

from course_lib.grading import syntax_tree

ROOT = Path(__file__).resolve().parents[2]
SOURCE = "\n".join(
    f"def f{i}(a, b=[1, (2, {{3: 4}})]):\n    return [x for x in (a, b) if x]" for i in range(60)
)
ROUNDS = 20


def system_errors(parse) -> list[str]:
    """Two threads parsing side by side while every garbage collection lets the other run
    (what a busy grader does by chance): the SystemErrors they met."""
    errors: list[str] = []

    def let_the_other_thread_run(phase, info):
        time.sleep(0)

    def work():
        for _ in range(ROUNDS):
            try:
                parse(SOURCE)
            except SystemError as exc:
                errors.append(str(exc))
                return

    threshold = gc.get_threshold()
    gc.callbacks.append(let_the_other_thread_run)
    gc.set_threshold(50, 1, 1)
    try:
        threads = [threading.Thread(target=work) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        gc.callbacks.remove(let_the_other_thread_run)
        gc.set_threshold(*threshold)
    return errors


def test_parses_side_by_side_never_meet_the_shared_depth_counter():
    if not system_errors(ast.parse):
        pytest.skip("this Python's ast.parse shares no depth counter between threads")
    assert system_errors(syntax_tree.parse) == []


def parses(literal_eval: ast.Call) -> bool:
    """Whether ``ast.literal_eval`` is given text (which it parses) rather than a tree."""
    return not (literal_eval.args and isinstance(literal_eval.args[0], ast.Call))


def test_every_parse_in_the_grader_goes_through_the_lock():
    calls = []
    for path in sorted((ROOT / "course_lib" / "grading").glob("*.py")):
        if path.name == "syntax_tree.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "ast"
                and (
                    node.func.attr == "parse" or (node.func.attr == "literal_eval" and parses(node))
                )
            ):
                calls.append(f"{path.name}:{node.lineno}")
    assert calls == [], "use syntax_tree.parse: " + ", ".join(calls)
