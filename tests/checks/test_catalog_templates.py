"""Every learner-facing template of every check module fills in by name only.

A template is formatted with ``str.format(**fields)``; a literal brace left single (``{}`` in
"keep self._tools = {}") is read as a positional field and crashes the check with
``IndexError: Replacement index 0 out of range`` at the moment it should give its hint.
"""

from __future__ import annotations

import importlib
import pkgutil
import string

import course_lib.checks

TABLES = ("HINTS", "TEXTS", "PHRASES", "MESSAGES")


def templates() -> list[tuple[str, str, str]]:
    found = []
    for module_info in pkgutil.walk_packages(course_lib.checks.__path__, "course_lib.checks."):
        module = importlib.import_module(module_info.name)
        for table in TABLES:
            for key, text in (getattr(module, table, None) or {}).items():
                if isinstance(text, str):
                    found.append((f"{module_info.name}.{table}", key, text))
    return found


def unnamed_fields(text: str) -> list[str]:
    fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    return [name for name in fields if not name.split(".")[0].split("[")[0].isidentifier()]


def test_every_field_of_every_template_is_named():
    found = templates()
    assert len(found) > 500  # every lesson's tables were read
    bad = [f"{table}[{key!r}]: {unnamed_fields(text)}" for table, key, text in found
           if unnamed_fields(text)]  # fmt: skip
    assert not bad, "fields that are not names (double a literal brace): " + "; ".join(bad)


def test_a_single_literal_brace_is_caught():
    assert unnamed_fields("keep self._tools = {} from __init__") == [""]
    assert unnamed_fields('{{"error": "..."}} mentioning {words}') == []
