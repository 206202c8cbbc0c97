"""How the driver reports what the learner's code gave back: scrubbed text, type names, reprs,
raised exceptions, and where a value stops being JSON.

Split from ``course_lib.driver`` (which still exports every name here): checks read a learner's
value the same way when they run inside the kernel (``checks/lesson08/kernel_side.py``). Nothing
here may differ between two runs of the same notebook, so memory addresses are scrubbed.
"""

from __future__ import annotations

import re
from typing import Any

MAX_TEXT = 2_000  # characters of an exception message or repr kept
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
CASE_MODULE = "check_case"


def scrub(text: str) -> str:
    """``text`` without memory addresses, cut to ``MAX_TEXT``: messages must not differ between
    two runs of the same notebook."""
    text = ADDRESS.sub("0x…", text)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


def type_name(value: Any) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "")
    name = getattr(kind, "__qualname__", kind.__name__)
    return name if module in ("builtins", CASE_MODULE, "__main__") else f"{module}.{name}"


def safe_repr(value: Any) -> str:
    try:
        return scrub(repr(value))
    except Exception as exc:  # noqa: BLE001 (a learner's __repr__ may raise anything)
        return f"<{type_name(value)} whose repr() raised {type(exc).__name__}>"


def exception_data(exc: BaseException) -> dict[str, Any]:
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001
        message = "<the message could not be read>"
    cause = exc.__cause__  # set only by ``raise ... from error``
    return {
        "type": type(exc).__name__,
        "types": [klass.__name__ for klass in type(exc).__mro__],
        "message": scrub(message),
        "cause_types": [klass.__name__ for klass in type(cause).__mro__] if cause else [],
    }


def json_problem(value: Any, path: str = "$", depth: int = 0) -> str:
    """Where ``value`` stops being JSON, e.g. ``at $.tags: a set``."""
    if depth > 100:
        return f"at {path}: nesting deeper than 100 levels"
    if value is None or isinstance(value, bool | int | str):
        return ""
    if isinstance(value, float):
        return (
            ""
            if value == value and value not in (float("inf"), float("-inf"))
            else (f"at {path}: the number {value!r}, which JSON cannot hold")
        )
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = json_problem(item, f"{path}[{index}]", depth + 1)
            if found:
                return found
        return ""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"at {path}: the key {safe_repr(key)}, which is not a string"
            found = json_problem(item, f"{path}.{key}", depth + 1)
            if found:
                return found
        return ""
    return f"at {path}: a {type_name(value)} ({safe_repr(value)[:120]})"
