"""Comparing a learner's answer (plain JSON) with the expected one, and choosing the hint.

Values arrive here as JSON (the driver sends nothing else), so equality is JSON equality:
``True`` is not ``1``, ``1`` equals ``1.0``, key order does not matter, list order does.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable
from typing import Any

from course_lib.checks import messages
from course_lib.checks.failures import CheckFailed, Failure
from course_lib.i18n import translate
from course_lib.reference.validation import json_type  # noqa: F401 (re-exported)

MAX_SHOWN_CHARS = 600

Hint = tuple[Callable[[Any], bool], str]


class HintText(str):
    """A hint's text that remembers which entry of a module's ``HINTS`` table it came from.

    The key travels with the failure (``Failure.hint_key``): tests assert that a wrong answer
    breaking rule R gets R's hint, and the class report counts hints by key, not by wording.
    The table and fields travel too, so that a hint made early (a module's ``EXCEPTION_HINTS``,
    built at import) is said in the language in force when a failure carries it (``spoken``)."""

    key: str | None = None
    table: dict[str, str] | None = None
    fields: dict[str, Any] | None = None

    @classmethod
    def of(cls, table: dict[str, str], key: str, **fields: Any) -> HintText:
        text = cls(translate(table, key, **fields))
        text.key, text.table, text.fields = key, table, fields
        return text

    def now(self) -> str:
        """This hint in the language in force now (``course_lib.i18n.language()``), and so each
        field that is a ``HintText`` too (a text of the hint made with it, at import)."""
        if self.table is None or self.key is None:
            return str(self)
        fields = {name: spoken(value) if isinstance(value, HintText) else value
                  for name, value in (self.fields or {}).items()}  # fmt: skip
        return translate(self.table, self.key, **fields)


def hint_key(text: str | None) -> str | None:
    return getattr(text, "key", None)


def spoken(text: str | None) -> str | None:
    """A hint as a failure carries it: a ``HintText`` said again in today's language."""
    if text is None:
        return None
    return text.now() if isinstance(text, HintText) else str(text)


def show(value: Any, *, limit: int = MAX_SHOWN_CHARS) -> str:
    """Pretty JSON (or ``repr`` for what JSON cannot hold), cut to ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = messages.say("more_characters", text=text[:limit], count=len(text) - limit)
    return text


class Plain:
    """A value shown as its bare text in Expected/Got (``show`` would quote a string)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def shown(value: Any) -> str:
    return value.text if isinstance(value, Plain) else show(value)


def json_equal(expected: Any, got: Any) -> bool:
    return first_difference(expected, got) is None


def first_difference(expected: Any, got: Any, path: str = "$") -> str | None:
    """Where two JSON values first differ, e.g. ``at $.properties.city.type: expected "string",
    got "str"``, in the learner's language; ``None`` when they are equal."""
    found = _difference(expected, got, path)
    return None if found is None else _said(*found)


# The differences that concern the whole value: at the root, Expected and Got already show them.
WHOLE_VALUE = ("expected_got", "item_count")


def _difference(expected: Any, got: Any, path: str) -> tuple[str, str, dict[str, Any]] | None:
    """The first difference as data: (path, key of ``messages.MESSAGES``, its fields)."""
    kind_e, kind_g = _json_kind(expected), _json_kind(got)
    if kind_e != kind_g:
        fields = {"expected": _described(kind_e, expected), "got": _described(kind_g, got)}
        return path, "expected_got", fields
    if kind_e == "object":
        missing = [key for key in expected if key not in got]
        extra = [key for key in got if key not in expected]
        if missing:
            return path, "missing_key", {"name": show(missing[0])}
        if extra:
            return path, "unexpected_key", {"name": show(extra[0])}
        for key in expected:
            found = _difference(expected[key], got[key], f"{path}.{key}")
            if found:
                return found
        return None
    if kind_e == "array":
        for index, (item_e, item_g) in enumerate(zip(expected, got, strict=False)):
            found = _difference(item_e, item_g, f"{path}[{index}]")
            if found:
                return found
        if len(expected) != len(got):
            return path, "item_count", {"expected": len(expected), "got": len(got)}
        return None
    if kind_e == "string" and expected != got:
        return _text_difference(expected, got, path)
    if expected != got or (kind_e == "number" and math.isnan(expected)):
        fields = {"expected": show(expected, limit=80), "got": show(got, limit=80)}
        return path, "expected_got", fields
    return None


def _text_difference(expected: str, got: str, path: str) -> tuple[str, str, dict[str, Any]]:
    at = next((i for i, (a, b) in enumerate(zip(expected, got, strict=False)) if a != b), None)
    at = min(len(expected), len(got)) if at is None else at
    want, found = expected[at : at + 20], got[at : at + 20]
    if not want:
        return path, "texts_differ_want_end", {"at": at, "got": show(found)}
    if not found:
        return path, "texts_differ_got_end", {"at": at, "expected": show(want)}
    return path, "texts_differ", {"at": at, "expected": show(want), "got": show(found)}


def _said(path: str, key: str, fields: dict[str, Any]) -> str:
    difference = messages.say(key, **fields)
    return difference if path == "$" else messages.say("at_path", path=path, difference=difference)


def _json_kind(value: Any) -> str:
    kind = json_type(value)
    return "number" if kind == "integer" else kind


# How a value of each JSON kind is named (``messages.MESSAGES``); other kinds (a Python type
# JSON cannot hold) by ``kind_other`` or ``kind_other_an``.
KIND_MESSAGES = {
    "object": "kind_object",
    "array": "kind_array",
    "string": "kind_string",
    "number": "kind_number",
    "boolean": "kind_boolean",
}


def _described(kind: str, value: Any) -> str:
    if kind == "null":
        return messages.say("kind_null")
    shown_value = show(value, limit=80)
    key = KIND_MESSAGES.get(kind) or ("kind_other_an" if kind[0] in "aeiou" else "kind_other")
    return messages.say(key, kind=kind, value=shown_value)


def matching_hint(got: Any, hints: Iterable[Hint]) -> str | None:
    """The first hint whose predicate holds for ``got``; a predicate that raises does not hold."""
    for predicate, hint in hints:
        try:
            if predicate(got):
                return hint
        except Exception:  # noqa: BLE001 (a predicate written for another shape of answer)
            continue
    return None


def pick_hint(got: Any, hints: Iterable[Hint], default: str | None = None) -> str:
    found = matching_hint(got, hints)
    return found if found is not None else default or HintText.of(messages.MESSAGES, "generic")


def fail(
    case: str, expected: Any, got: Any, hint: str | None = None, *, where: str | None = None
) -> None:
    """Raise ``CheckFailed`` for ``case`` with what was expected, what came back, and a hint."""
    __tracebackhide__ = True
    chosen = hint or HintText.of(messages.MESSAGES, "generic")
    raise CheckFailed(failure(case, expected, got, chosen, where=where))


def failure(
    case: str,
    expected: Any,
    got: Any,
    hint: str | None,
    *,
    where: str | None = None,
    detail: str | None = None,
) -> Failure:
    """The ``Failure`` that shows ``expected`` and ``got`` and carries ``hint`` and its key."""
    return Failure(
        case=case,
        expected=shown(expected),
        got=shown(got),
        where=where,
        detail=detail,
        hint=spoken(hint),
        hint_key=hint_key(hint),
    )


def expect_model_and_tools(
    case: str,
    exchanges: list,
    model: str,
    tools: list,
    *,
    text: Callable[..., str],
    hints: tuple[str, str, str],
) -> None:
    """At least one request, and every request sent ``model`` and ``tools``.

    ``text`` is the check's own ``TEXTS.text`` (its ``a_request``, ``no_request``,
    ``request_number``, ``no_tools`` and ``the_tools``); ``hints`` are its hints for no request,
    a wrong model and wrong tools.
    """
    __tracebackhide__ = True
    no_request, model_hint, tools_hint = hints
    if not exchanges:
        fail(case, Plain(text("a_request")), Plain(text("no_request")), no_request)
    for number, exchange in enumerate(exchanges, start=1):
        where = text("request_number", number=number, count=len(exchanges))
        body = exchange.request
        if body.get("model") != model:
            fail(case, model, body.get("model"), model_hint, where=where)
        if first_difference(tools, body.get("tools")) is not None:
            got = body["tools"] if "tools" in body else Plain(text("no_tools"))
            fail(case, Plain(text("the_tools")), got, tools_hint, where=where)


def expect_equal(
    case: str, expected: Any, got: Any, *, hint: str | None = None, hints: Iterable[Hint] = ()
) -> None:
    """Fail unless ``got`` equals ``expected`` as JSON. The hint is ``hint`` if given, else the
    first of ``hints`` whose predicate holds for ``got``, else the generic one."""
    __tracebackhide__ = True
    if _difference(expected, got, "$") is not None:
        where = where_they_differ(expected, got)
        fail(case, expected, got, hint or pick_hint(got, hints), where=where)


def where_they_differ(expected: Any, got: Any) -> str | None:
    """``first_difference`` for a Where line, or ``None`` when the values are equal or differ as
    a whole (Expected and Got already show it), in any language: a check that tested the English
    words (``startswith("expected ")``) kept a redundant line in Chinese."""
    difference = _difference(expected, got, "$")
    if difference is None:
        return None
    path, key, _ = difference
    return None if path == "$" and key in WHOLE_VALUE else _said(*difference)


def hidden_rng(exercise_id: str) -> random.Random:
    """A random generator seeded by the exercise id: hidden cases are the same on every run."""
    return random.Random(f"hidden cases for {exercise_id}")
