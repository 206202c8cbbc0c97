"""A registry wrapper that records one structured record per call (exercise 06.4's format).

The record is what an operator reads the morning after: which tool, with what arguments, how
long it took, whether it failed and why, and how much text went back to the model. Lesson 06
asks for exactly these keys, and the capstone's trace is this wrapper's ``records``: one format,
so code that reads one reads the other.
"""

from __future__ import annotations

import json
import time
from typing import Any


def error_message(result: str) -> str | None:
    """The message of an error result (``{"error": ...}``), or ``None`` for a normal result."""
    try:
        value = json.loads(result)
    except json.JSONDecodeError:
        return None
    return value["error"] if isinstance(value, dict) and "error" in value else None


def parsed_arguments(arguments: Any) -> Any:
    """The arguments as a dict when they are one or are JSON text holding one; else as given."""
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except json.JSONDecodeError:
            return arguments
        return value if isinstance(value, dict) else arguments
    return arguments


class TracedRegistry:
    """Wraps any registry with ``call``; ``schemas`` and ``names`` pass through unchanged."""

    def __init__(self, registry: Any) -> None:
        self.registry = registry
        self.records: list[dict] = []

    def schemas(self, format: str = "openai") -> list[dict]:
        return self.registry.schemas(format=format)

    def names(self) -> list[str]:
        return self.registry.names()

    def call(self, name: str, arguments: Any) -> str:
        """The wrapped registry's result, unchanged, after appending its record."""
        start = time.perf_counter()
        result = self.registry.call(name, arguments)
        duration_ms = (time.perf_counter() - start) * 1000
        error = error_message(result)
        self.records.append(
            {
                "tool": name,
                "arguments": parsed_arguments(arguments),
                "duration_ms": duration_ms,
                "ok": error is None,
                "error": error,
                "result_chars": len(result),
            }
        )
        return result

    def to_jsonl(self) -> str:
        """Every record as one line of JSON, each line ending in a newline."""
        return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in self.records)
