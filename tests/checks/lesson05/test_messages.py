"""Every sentence lesson 05's checks can say is whole and fills in: its placeholders are names
(a literal brace is doubled), so no failure message breaks while it is being written."""

from __future__ import annotations

import importlib
import pkgutil
import string

import pytest

import course_lib.checks.lesson05 as lesson05

MODULES = [  # an exercise's folder too (agent_loop.verdict)
    importlib.import_module(info.name)
    for info in pkgutil.walk_packages(lesson05.__path__, f"{lesson05.__name__}.")
]
ENTRIES = [
    (module.__name__.removeprefix(f"{lesson05.__name__}."), table, key, value)
    for module in MODULES
    for table in ("HINTS", "TEXTS")
    for key, value in getattr(module, table, {}).items()
]


@pytest.mark.parametrize(
    ("module", "table", "key", "value"), ENTRIES, ids=[f"{m}.{t}.{k}" for m, t, k, _ in ENTRIES]
)
def test_every_message_fills_in_with_named_placeholders(module, table, key, value):
    names = [field for _, field, _, _ in string.Formatter().parse(value) if field]
    assert all(name.isidentifier() for name in names), f"{module}.{table}[{key!r}]: {names}"
    assert value.format(**dict.fromkeys(names, 1)).strip()
