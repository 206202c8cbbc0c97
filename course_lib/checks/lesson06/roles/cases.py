"""The registry of exercise 06.3 and the cases run against it.

``REGISTRY_SOURCE`` is run twice: beside the learner's code (the registry their functions
receive) and here (``check_registry``), so the expected answers come from the same tools. Its
tools change a note store, so a refused call that ran anyway shows in the notes left.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from course_lib.checks.compare import hidden_rng
from course_lib.checks.function_cases import run_source
from course_lib.checks.lesson06._roles_and_answers import PERMISSIONS, ROLES

REGISTRY_SOURCE = '''\
from course_lib.reference import ToolRegistry

store = {1: "北京 trip", 2: "豆腐"}
registry = ToolRegistry()


@registry.tool(tags=["notes", "read"])
def read_note(note_id: int) -> str:
    """Read a note."""
    return store[note_id]


@registry.tool(tags=["notes", "write"])
def delete_note(note_id: int) -> str:
    """Delete a note."""
    return f"deleted: {store.pop(note_id)}"


@registry.tool(tags=["notes", "read", "write"])
def move_note(note_id: int, new_id: int) -> str:
    """Give a note another number."""
    store[new_id] = store.pop(note_id)
    return f"moved to {new_id}"


@registry.tool(tags=["admin"])
def wipe_all() -> str:
    """Delete every note."""
    store.clear()
    return "wiped"


@registry.tool(tags=["weather", "read"])
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"{city}: 晴"


@registry.tool(tags=["mail", "write"])
def send_mail(to: str, text: str) -> str:
    """Send a mail."""
    return f"sent to {to}"


@registry.tool
def debug_dump() -> str:
    """Untagged: nobody may use it."""
    return "internals"
'''
NOTES = [1, 2]  # the note ids in a fresh store


def check_registry() -> tuple[Any, dict[int, str]]:
    """A fresh copy of the registry the learner's code receives (our own source, run here)."""
    namespace = run_source(REGISTRY_SOURCE, "<06.3 registry>", "lesson06_roles", postponed=True)
    return namespace["registry"], namespace["store"]


@cache
def catalog() -> tuple[tuple[str, frozenset[str], dict], ...]:
    """(name, tags, OpenAI schema) of every tool, in registration order."""
    registry, _ = check_registry()
    schemas = registry.schemas()
    return tuple(
        (name, registry.get(name).tags, schema)
        for name, schema in zip(registry.names(), schemas, strict=True)
    )


def allowed(role: str, tags: Any) -> bool:
    """The lesson's rule (cell w06-ex3-code): every permission the tool needs, and at least one."""
    needs = PERMISSIONS & set(tags)
    return bool(needs) and needs <= ROLES[role]


def any_permission(role: str, tags: Any) -> bool:
    """The rule a learner may write instead: one permission the role holds is enough."""
    return bool(ROLES[role] & set(tags))


def expected_selection(tags: Any, role: Any, rule: Any = allowed) -> list[dict]:
    chosen = []
    for _, tool_tags, schema in catalog():
        if tags is not None and not set(tags) & tool_tags:
            continue
        if role is not None and not rule(role, tool_tags):
            continue
        chosen.append(copy.deepcopy(schema))
    return chosen


def tool_tags(name: str) -> frozenset[str] | None:
    return next((tags for known, tags, _ in catalog() if known == name), None)


def usable_tools(role: str) -> list[str]:
    return [name for name, tags, _ in catalog() if allowed(role, tags)]


SELECTIONS: list[tuple[Any, Any]] = [
    (None, None),
    (["notes"], None),
    (["weather", "mail"], None),
    ([], None),
    (None, "guest"),
    (None, "member"),
    (None, "admin"),
    (["notes"], "guest"),
    (("notes", "mail"), "member"),
]
TAG_POOL = ["notes", "weather", "mail", "admin", "read", "write"]


def hidden_selections(count: int = 8) -> list[tuple[Any, Any]]:
    rng = hidden_rng("06.3")
    return [
        (
            rng.sample(TAG_POOL, rng.randint(1, 3)) if rng.random() < 0.7 else None,
            rng.choice([None, "guest", "member", "admin"]),
        )
        for _ in range(count)
    ]


# --- call_as ------------------------------------------------------------------------------------


CALLS: list[tuple[str, str, Any]] = [
    ("guest", "read_note", {"note_id": 1}),
    ("guest", "get_weather", '{"city": "上海"}'),
    ("guest", "delete_note", {"note_id": 1}),
    ("guest", "wipe_all", {}),
    ("guest", "move_note", {"note_id": 1, "new_id": 3}),
    ("member", "delete_note", {"note_id": 2}),
    ("member", "wipe_all", "{}"),
    ("admin", "wipe_all", {}),
    ("guest", "hack_the_planet", {}),
    ("member", "read_note", {"note_id": "one"}),
    ("admin", "debug_dump", {}),
]
