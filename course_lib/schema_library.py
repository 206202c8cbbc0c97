"""``jsonschema``, imported for the course without the grammar it builds for IRIs.

When ``rfc3987_syntax`` is installed (JupyterLab's dependencies install it, through
``jsonschema[format-nongpl]``), importing ``jsonschema`` compiles some forty lark grammars for
its ``iri`` and ``iri-reference`` format checkers: about 1.5 s of CPU on this course's machine
(0.15 s without them), paid by every process on its first validation: a learner's kernel at its
first tool call, and every grading kernel again, inside a cell's time limit.

The course validates without format checks (jsonschema checks a ``format`` only when handed a
``FormatChecker``), so it has no use for that grammar. :func:`load` imports ``jsonschema`` with
``rfc3987_syntax`` hidden for the length of the import, then un-hides it: the learner's own code
can still import ``rfc3987_syntax``; the one difference in a process where the course imported
``jsonschema`` first is that a ``FormatChecker`` there does not know the two IRI formats.
Where ``jsonschema`` was already imported (the learner imported it first), :func:`load` returns
it as it is. :func:`hide_grammar_for_good` is for processes that never validate an IRI and
never run a learner's code: the grader's (``course_lib.grading.without_iri_grammar``) and the
``course`` command line's (``course_lib.cli``), where nbformat imports ``jsonschema``.
"""

from __future__ import annotations

import importlib
import sys
import threading
from types import ModuleType

GRAMMAR_PACKAGE = "rfc3987_syntax"
_LOCK = threading.Lock()


def load() -> ModuleType:
    """The ``jsonschema`` package, imported without the IRI grammar if nothing imported it yet."""
    loaded = sys.modules.get("jsonschema")
    if loaded is not None:
        return loaded
    with _LOCK:
        hidden_here = GRAMMAR_PACKAGE not in sys.modules
        if hidden_here:
            sys.modules[GRAMMAR_PACKAGE] = None  # type: ignore[assignment] (import raises)
        try:
            return importlib.import_module("jsonschema")
        finally:
            if hidden_here and sys.modules.get(GRAMMAR_PACKAGE, "") is None:
                del sys.modules[GRAMMAR_PACKAGE]


def hide_grammar_for_good() -> None:
    """Make every later ``import jsonschema`` in this process skip the IRI grammar (no-op once
    ``jsonschema`` is imported)."""
    sys.modules.setdefault(GRAMMAR_PACKAGE, None)  # type: ignore[arg-type] (import raises)
