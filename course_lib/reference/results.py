"""Turn whatever a tool returned into the text the model reads.

A `role: "tool"` message carries a string, so every result has to become one. Strings pass
through untouched (the tool already chose its words); everything else becomes JSON with
`ensure_ascii=False`, so `北京` stays readable and costs fewer tokens than its `\\u` escapes.

The conversion is deterministic: sets are sorted, dictionaries keep their insertion order, and
values JSON cannot hold get one documented spelling each:

| Python value                     | JSON                                          |
|----------------------------------|-----------------------------------------------|
| datetime, date, time             | ISO 8601 string (`"2024-05-01T09:30:00"`)     |
| timedelta                        | ISO 8601 duration string (`"PT1H30M"`)        |
| Decimal                          | string with every digit kept (`"19.90"`)      |
| UUID, Path, IP addresses         | their string form                             |
| Enum member                      | its value                                     |
| dataclass, pydantic model        | object of its fields                          |
| tuple, list                      | array                                         |
| set, frozenset                   | array, sorted                                 |
| bytes                            | UTF-8 text when valid, otherwise base64       |

A result longer than `max_chars` is cut, and the cut is never silent: the text ends with a marker
saying how many characters were removed, and the marker counts towards the limit, so the answer
is never longer than `max_chars`.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import enum
import json
import math
import pathlib
from collections.abc import Mapping
from typing import Any

import pydantic
import pydantic_core

__all__ = ["DEFAULT_MAX_CHARS", "MIN_MAX_CHARS", "cut_text", "to_jsonable", "to_text"]

DEFAULT_MAX_CHARS = 20_000
MIN_MAX_CHARS = 100  # room for the cut marker and some text before it

_PLAIN = (str, int, float, bool, type(None))


def to_text(result: Any, *, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """The text a model reads for `result`: strings as they are, everything else as JSON.

    Raises `TypeError` for a value with no sensible JSON form (for example an open file), naming
    its type, because a silent `repr` such as `<object at 0x7f...>` helps no model.
    """
    text = result if isinstance(result, str) else _dumps(to_jsonable(result))
    return cut_text(text, max_chars=max_chars)


def to_jsonable(value: Any) -> Any:
    """`value` rebuilt from JSON types only (dict, list, str, int, float, bool, None)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no NaN or Infinity: "nan", "inf", "-inf" keep the meaning
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, Mapping):
        return {_key(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return _sorted([to_jsonable(item) for item in value])
    if isinstance(value, pydantic.BaseModel):
        # Python mode keeps sets as sets, so our walk can sort them; custom serializers still run.
        return to_jsonable(value.model_dump(mode="python"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, pathlib.PurePath):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _bytes_text(bytes(value))
    try:  # Decimal, UUID, Path, timedelta, IP addresses, ... in pydantic's spelling.
        return pydantic_core.to_jsonable_python(value)
    except pydantic_core.PydanticSerializationError:
        raise TypeError(
            f"to_text cannot turn a {type(value).__module__}.{type(value).__qualname__} into "
            "text: return a str, a JSON-like value (dict, list, number, bool, None), a "
            "dataclass or a pydantic model, or call str() on it yourself"
        ) from None


def cut_text(text: str, *, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """`text` itself when it fits in `max_chars`, otherwise its start plus an explicit marker."""
    total = len(text)
    if total <= max_chars:
        return text
    cut = total - max_chars
    while True:  # the marker's own length depends on the number it prints
        marker = f"\n[... cut {cut} of {total} characters ...]"
        kept = max_chars - len(marker)
        if kept < 0:
            raise ValueError(
                f"max_chars={max_chars} is too small to hold the cut marker "
                f"({len(marker)} characters); use at least {MIN_MAX_CHARS}"
            )
        if total - kept == cut:
            return text[:kept] + marker
        cut = total - kept


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _key(key: Any) -> Any:
    """A dictionary key JSON can hold: strings, numbers, booleans and None are fine already."""
    if isinstance(key, enum.Enum):
        key = key.value
    if isinstance(key, _PLAIN):
        return key
    converted = to_jsonable(key)
    if isinstance(converted, _PLAIN):
        return converted
    return _dumps(converted)  # a tuple key becomes its JSON text, still deterministic


def _sorted(items: list[Any]) -> list[Any]:
    """Sets have no order; sort them so the same result always gives the same text."""
    try:
        return sorted(items)
    except TypeError:  # mixed or unorderable items: order by their JSON text instead
        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))


def _bytes_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return base64.b64encode(data).decode("ascii")
