"""What the checks of lesson 01 share: the notebook's name, sample data and tools, and reading a
value.

Three exercises of this lesson are values (``WEATHER_TOOL``, ``NOTES_TOOL``,
``BETTER_DESCRIPTION``), not functions: the check asks the driver for the value as JSON and judges
the copy, never the learner's object.
"""

from __future__ import annotations

import string
from random import Random
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail
from course_lib.checks.learner import Learner, Reply

NOTEBOOK = "01_handwritten_schemas"
CITIES = ["北京", "上海", "Paris", "London", "São Paulo", "Zürich", "東京", "New York"]

HINTS = Catalog() | {
    "python_type": (
        'JSON Schema names a type with a string such as "string" or "integer", not with a '
        "Python class such as str or int."
    ),
    "not_json": (
        "{name} must be plain JSON data, as the API receives it: dicts with string keys, lists, "
        "strings, numbers, booleans and None."
    ),
    "result_not_json": (
        "What {name} returns must be plain JSON data, as the API receives it: dicts with string "
        "keys, lists, strings, numbers, booleans and None."
    ),
}
TEXTS = Catalog() | {"plain_json": "plain JSON data"}


hint = HINTS.hint


def chat_tool(name: str, description: str, properties: dict, required: list[str]) -> dict:
    """A Chat Completions tool whose arguments are ``properties`` and no others."""
    parameters = {"type": "object", "properties": properties, "required": required}
    parameters["additionalProperties"] = False
    function = {"name": name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}


def random_word(rng: Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 8)))


def value_of(learner: Learner, name: str) -> Any:
    """The target ``name`` (a value, not a function) as plain JSON, or a failed case saying what
    in it is not JSON."""
    __tracebackhide__ = True
    reply = learner.run("", result="value", bind={"value": learner.target(name)})
    problem = reply.data.get("unjson")
    if problem is None:
        return reply.value
    shown = Plain(reply.data.get("repr", "")[:200])
    key = "python_type" if "a type (" in problem else "not_json"
    fail(name, Plain(TEXTS.text("plain_json")), shown, hint(key, name=name), where=problem)
    return None  # not reached: fail() raises


def result_json(name: str, case: str, reply: Reply, expected: Any) -> Any:
    """What ``name`` returned as plain JSON (with ``partial``, a reader for ``run_cases``), or a
    failed case saying what in it is not JSON."""
    __tracebackhide__ = True
    if "unjson" in reply.data:
        shown = Plain(reply.data.get("repr", "")[:200])
        fail(case, expected, shown, hint("result_not_json", name=name), where=reply.data["unjson"])
    return reply.value
