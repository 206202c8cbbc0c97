"""How the driver reports what the learner's code gave back: scrubbed text, type names, reprs,
raised exceptions, and where a value stops being JSON.

Split from ``course_lib.driver`` (which still exports every name here): checks read a learner's
value the same way when they run inside the kernel (``checks/lesson08/kernel_side.py``). Nothing
here may differ between two runs of the same notebook, so memory addresses are scrubbed.
"""

from __future__ import annotations

import re
from typing import Any

from course_lib.i18n import ENGLISH, translate

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


# What ``json_problem`` says, by key, with named placeholders (translations in
# ``course_lib/locale/<lang>/messages.po``). The driver's reply holds the English (``unjson``)
# and the problem as data (``unjson_at``, from ``json_problem_at``): the check's side says it
# again in the learner's language (``said_json_problem``), which the kernel may not know.
MESSAGES = {
    "json_too_deep": "at {path}: nesting deeper than {levels} levels",
    "json_number": "at {path}: the number {number}, which JSON cannot hold",
    "json_key": "at {path}: the key {key}, which is not a string",
    "json_value": "at {path}: a {kind} ({value})",
    "json_error": "at {path}: {error}",
}
MAX_DEPTH = 100


def json_problem(value: Any) -> str:
    """Where ``value`` stops being JSON, in English, e.g. ``at $.tags: a set ({1, 2})``; ``""``
    when it is JSON."""
    found = json_problem_at(value)
    return (said_json_problem(found, ENGLISH) or "") if found else ""


def json_problem_at(value: Any, path: str = "$", depth: int = 0) -> dict[str, Any] | None:
    """Where ``value`` stops being JSON, as plain data: the key of its sentence in ``MESSAGES``
    (``message``) and that sentence's fields, e.g. ``{"message": "json_value", "path": "$.tags",
    "kind": "set", "value": "{1, 2}"}``; None when it is JSON."""
    if depth > MAX_DEPTH:
        return {"message": "json_too_deep", "path": path, "levels": MAX_DEPTH}
    if value is None or isinstance(value, bool | int | str):
        return None
    if isinstance(value, float):
        if value == value and value not in (float("inf"), float("-inf")):
            return None
        return {"message": "json_number", "path": path, "number": repr(value)}
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = json_problem_at(item, f"{path}[{index}]", depth + 1)
            if found:
                return found
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return {"message": "json_key", "path": path, "key": safe_repr(key)}
            found = json_problem_at(item, f"{path}.{key}", depth + 1)
            if found:
                return found
        return None
    shown = safe_repr(value)[:120]
    return {"message": "json_value", "path": path, "kind": type_name(value), "value": shown}


def said_json_problem(problem: Any, lang: str | None = None) -> str | None:
    """``json_problem_at``'s problem as a sentence in ``lang`` (default: the language in force);
    None for anything else (a reply a notebook forged)."""
    if not isinstance(problem, dict) or problem.get("message") not in MESSAGES:
        return None
    fields = {name: value for name, value in problem.items() if name != "message"}
    try:
        return translate(MESSAGES, problem["message"], lang, **fields)
    except (KeyError, IndexError, ValueError):
        return None
