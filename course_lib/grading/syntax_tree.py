"""``ast.parse`` for a process whose threads grade side by side: one parse at a time.

CPython 3.11 keeps the depth counter that guards ``ast.parse``'s building of the tree in state
every thread shares (python/cpython#106905). When a garbage collection during one thread's parse
runs Python code and lets another thread parse, the first parse ends in "SystemError: AST
constructor recursion depth mismatch" instead of a tree. The grader's pool (``grader``) reads
submissions' sources in threads, and on a loaded machine an honest notebook was graded as the
grader's own failure that way. Every parse in ``course_lib.grading`` goes through ``parse``
(tests/grading/test_syntax_tree.py holds it so), which lets one thread build a tree at a time;
a parse takes milliseconds, so the pool loses nothing it would notice. The standard library
only (the fork server imports it).
"""

from __future__ import annotations

import ast
import threading

_ONE_AT_A_TIME = threading.Lock()


def parse(source: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(source, mode=mode)``, never beside another thread's parse."""
    with _ONE_AT_A_TIME:
        return ast.parse(source, mode=mode)
