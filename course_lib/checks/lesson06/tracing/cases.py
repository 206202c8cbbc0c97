"""The registry of exercise 06.4 and the calls made through the learner's wrapper.

``REGISTRY_SOURCE`` is run beside the learner's code (the registry their ``TracedRegistry``
wraps) and here (``check_registry``), so expected results come from the same tools. ``nap``
sleeps ``NAP_SECONDS``: its record must say at least ``MIN_NAP_MS`` milliseconds, a bound a
right answer cannot miss (a load only makes calls slower; seconds would say 0.02).
"""

from __future__ import annotations

import json
from typing import Any

from course_lib.checks.compare import hidden_rng
from course_lib.checks.function_cases import run_source

NAP_SECONDS = 0.02
MIN_NAP_MS = 1.0
REGISTRY_SOURCE = f'''\
import time

from course_lib.reference import ToolRegistry

registry = ToolRegistry()


@registry.tool
def greet(name: str) -> str:
    """Greet someone."""
    return f"你好, {{name}}!"


@registry.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@registry.tool
def broken() -> str:
    """Always fails."""
    raise RuntimeError("数据库 offline")


@registry.tool
def nap() -> str:
    """Slow on purpose."""
    time.sleep({NAP_SECONDS})
    return "rested"


@registry.tool
def echo(text: str) -> str:
    """Return the text unchanged (it may only look like an error object)."""
    return text
'''


def check_registry() -> Any:
    """The check's own copy of the registry the learner's wrapper receives."""
    namespace = run_source(REGISTRY_SOURCE, "<06.4 registry>", "lesson06_tracing", postponed=True)
    return namespace["registry"]


CALLS: list[tuple[str, Any]] = [
    ("greet", {"name": "张三"}),
    ("add", '{"a": 1, "b": 2}'),
    ("add", '{"a": 1,'),
    ("add", {"a": True, "b": 2}),
    ("broken", {}),
    ("nope", "[1]"),
    ("nap", {}),
    ("echo", {"text": '{"error" is the word 张三 searched for}'}),
    ("echo", {"text": '{ "error": "disk full" }'}),
    ("echo", {"text": "  北京, 晴\n"}),  # a result returned stripped is not unchanged
]


def hidden_calls(count: int = 5) -> list[tuple[str, Any]]:
    rng = hidden_rng("06.4")
    calls = []
    for _ in range(count):
        b = rng.choice([rng.randint(-9, 9), "2", None])
        arguments = {"a": rng.randint(-9, 9), "b": b}
        calls.append(("add", rng.choice([arguments, json.dumps({"a": 1, "b": b})])))
    return calls
