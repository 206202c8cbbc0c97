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
        error = type(exc).__name__
        return MESSAGES["repr_raised"].format(kind=type_name(value), error=error)


def exception_data(exc: BaseException) -> dict[str, Any]:
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001
        message = MESSAGES["message_unreadable"]
    cause = exc.__cause__  # set only by ``raise ... from error``
    return {
        "type": type(exc).__name__,
        "types": [klass.__name__ for klass in type(exc).__mro__],
        "message": scrub(message),
        "cause_types": [klass.__name__ for klass in type(cause).__mro__] if cause else [],
    }


# What the driver says, by key, with named placeholders (translations in
# ``course_lib/locale/<lang>/messages.po``). The driver's reply holds the English (``unjson``,
# ``error``) and the same sentence as data (``unjson_at`` from ``json_problem_at``, ``error_at``):
# the check's side says it again in the learner's language (``said``), which the kernel may not
# know. A value the driver could not read is written in English in its place (``safe_repr``,
# ``exception_data``): the check's side knows that text by its form (``said_value``).
MESSAGES = {
    "json_too_deep": "at {path}: nesting deeper than {levels} levels",
    "json_number": "at {path}: the number {number}, which JSON cannot hold",
    "json_key": "at {path}: the key {key}, which is not a string",
    "json_value": "at {path}: a {kind} ({value})",
    "json_error": "at {path}: {error}",
    # a request the driver could not answer (``course_lib.driver``): the check's ``driver_error``
    "driver_failed": "the notebook's driver failed: {name}: {error}",
    "reply_too_large": "the reply is larger than {limit} characters",
    "case_failed": "building the case failed: {error}",
    "malformed_request": "malformed request: {error}",
    "unknown_op": "unknown op {op}",
    "not_a_spec": "not a value spec: {spec}",
    "no_link": "this driver has no model link",
    "no_handle": "no handle {handle}",
    "unknown_api": "unknown client api {api}",
    # a learner's value the driver could not read
    "repr_raised": "<{kind} whose repr() raised {error}>",
    "message_unreadable": "<the message could not be read>",
}
REPR_RAISED = re.compile(r"<(\S+) whose repr\(\) raised (\w+)>")
MAX_DEPTH = 100


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


def said(data: Any, lang: str | None = None) -> str | None:
    """A sentence of ``MESSAGES`` given as data (``json_problem_at``'s problem, a reply's
    ``error_at``: its key as ``message``, its fields beside it) in ``lang`` (default: the language
    in force); None for anything else (a reply a notebook forged says only what the table says)."""
    if not isinstance(data, dict) or data.get("message") not in MESSAGES:
        return None
    fields = {name: said_value(value, lang) for name, value in data.items() if name != "message"}
    try:
        return translate(MESSAGES, data["message"], lang, **fields)
    except (KeyError, IndexError, ValueError):
        return None


def error_reply(message: str, /, **fields: Any) -> dict[str, Any]:
    """The reply to a request the driver could not answer: in English (``error``) and as data
    (``error_at``), which the check says in the learner's language."""
    data = {"message": message, **fields}
    return {"error": said(data, ENGLISH), "error_at": data}


def said_value(text: Any, lang: str | None = None) -> Any:
    """``text`` in ``lang`` when it is what ``safe_repr`` or ``exception_data`` wrote in place of
    a value they could not read (known by its whole form); any other value as it is."""
    if text == MESSAGES["message_unreadable"]:
        return translate(MESSAGES, "message_unreadable", lang)
    found = REPR_RAISED.fullmatch(text) if isinstance(text, str) else None
    if found is None:
        return text
    return translate(MESSAGES, "repr_raised", lang, kind=found[1], error=found[2])
