"""JSON shown line by line with the path of every line, so differences can be highlighted.

``json_lines`` lays a value out exactly as ``json.dumps(value, indent=2, ensure_ascii=False)``
does, but keeps, for each line, the JSON path it belongs to (``$.function.parameters.required``).
``differences`` compares two JSON values and names the first paths where they disagree;
``json_html`` then marks the lines under those paths.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from course_lib.widgets.base import escape

# Lists whose order carries no meaning in JSON Schema: ["b", "a"] and ["a", "b"] agree.
UNORDERED_KEYS = {"required", "type"}
_PLAIN_KEY = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
HIGHLIGHT = "background:rgba(255,193,7,0.35)"


def child_path(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _PLAIN_KEY.match(key) else f"{path}[{json.dumps(key)}]"


def json_lines(value: Any, path: str = "$") -> list[tuple[str, str]]:
    """``(path, line)`` pairs for ``value`` laid out as ``json.dumps(indent=2)`` would."""
    lines: list[tuple[str, str]] = []
    _emit(value, path, 0, "", "", lines)
    return lines


def _emit(value: Any, path: str, depth: int, prefix: str, end: str, out: list) -> None:
    pad = "  " * depth
    if isinstance(value, dict) and value:
        out.append((path, f"{pad}{prefix}{{"))
        items = list(value.items())
        for i, (key, item) in enumerate(items):
            comma = "," if i < len(items) - 1 else ""
            key_text = json.dumps(str(key), ensure_ascii=False) + ": "
            _emit(item, child_path(path, str(key)), depth + 1, key_text, comma, out)
        out.append((path, f"{pad}}}{end}"))
    elif isinstance(value, list) and value:
        out.append((path, f"{pad}{prefix}["))
        for i, item in enumerate(value):
            comma = "," if i < len(value) - 1 else ""
            _emit(item, child_path(path, i), depth + 1, "", comma, out)
        out.append((path, f"{pad}]{end}"))
    else:
        out.append((path, f"{pad}{prefix}{json.dumps(value, ensure_ascii=False)}{end}"))


@dataclass(frozen=True)
class Difference:
    """One place where two JSON values disagree: ``missing`` from ``got``, ``extra`` in it, or
    ``changed`` (present in both with different values)."""

    path: str
    kind: Literal["missing", "extra", "changed"]
    expected: Any = None
    got: Any = None

    def __str__(self) -> str:
        from course_lib.widgets.texts import say

        expected, got = _short(self.expected), _short(self.got)
        return say(f"difference_{self.kind}", path=self.path, expected=expected, got=got)


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def differences(expected: Any, got: Any, path: str = "$") -> list[Difference]:
    """Every path where ``got`` differs from ``expected``, outermost first, in document order.

    Objects are compared key by key (key order ignored); lists item by item, except the lists in
    ``UNORDERED_KEYS`` (``required``, ``type``), compared as sets. ``1`` and ``True`` differ, as
    they do in JSON.
    """
    if isinstance(expected, dict) and isinstance(got, dict):
        found: list[Difference] = []
        for key, value in expected.items():
            where = child_path(path, str(key))
            if key not in got:
                found.append(Difference(where, "missing", expected=value))
            else:
                found.extend(differences(value, got[key], where))
        found.extend(
            Difference(child_path(path, str(key)), "extra", got=value)
            for key, value in got.items()
            if key not in expected
        )
        return found
    if isinstance(expected, list) and isinstance(got, list):
        if path.rsplit(".", 1)[-1] in UNORDERED_KEYS and _same_set(expected, got):
            return []
        found = []
        for i, (a, b) in enumerate(zip(expected, got, strict=False)):
            found.extend(differences(a, b, child_path(path, i)))
        found.extend(
            Difference(child_path(path, i), "missing", expected=v)
            for i, v in enumerate(expected)
            if i >= len(got)
        )
        found.extend(
            Difference(child_path(path, i), "extra", got=v)
            for i, v in enumerate(got)
            if i >= len(expected)
        )
        return found
    if _canonical(expected) != _canonical(got):
        return [Difference(path, "changed", expected=expected, got=got)]
    return []


def _canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _same_set(a: list, b: list) -> bool:
    return sorted(map(_canonical, a)) == sorted(map(_canonical, b))


def is_under(path: str, roots: set[str]) -> bool:
    """Whether ``path`` is one of ``roots`` or lies inside one of them."""
    return any(path == r or path.startswith((r + ".", r + "[")) for r in roots)


def json_html(value: Any, highlight: set[str] = frozenset(), *, css_class: str = "") -> str:
    """``value`` as indented JSON in a ``<pre>``, the lines under ``highlight`` paths marked."""
    rows = []
    for path, line in json_lines(value):
        if is_under(path, highlight):
            rows.append(
                f'<span class="course-diff" data-path="{escape(path)}" '
                f'style="{HIGHLIGHT}">{escape(line)}</span>'
            )
        else:
            rows.append(escape(line))
    classes = f"course-json {css_class}".strip()
    return (
        f'<pre class="{classes}" style="margin:0;font-size:12px;line-height:1.35">'
        + "\n".join(rows)
        + "</pre>"
    )


def json_text(value: Any) -> str:
    """The plain-text twin of ``json_html``."""
    return json.dumps(value, indent=2, ensure_ascii=False)
