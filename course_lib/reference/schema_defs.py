"""Class definitions under ``$defs``: inline the ones used once, keep the rest, rename, copy.

Classes (dataclasses, TypedDicts, models) are converted into ``$defs`` and referenced, which is
what makes recursive types possible; a definition used only once and not recursively is inlined
again at the end, because a reference the model has to follow is harder to read and longer.
"""

from __future__ import annotations

import typing
from typing import Any

__all__ = ["attach_defs", "copy_json", "rename_refs"]


def attach_defs(schema: dict, defs: dict[str, dict]) -> dict:
    """Inline definitions referenced once and not recursively; put the rest under ``$defs``."""
    if not defs:
        return schema
    defs = dict(defs)
    counts: dict[str, int] = dict.fromkeys(defs, 0)
    _count_refs(schema, counts)
    for definition in defs.values():
        _count_refs(definition, counts)
    recursive = {name for name in defs if _reaches(name, name, defs, set())}
    inline = {name for name, n in counts.items() if n <= 1 and name not in recursive}
    # Resolve inlined definitions inside the ones that stay, and inside each other.
    resolved: dict[str, dict] = {}

    def body(name: str) -> dict:
        if name not in resolved:
            resolved[name] = _inline(defs[name], inline, body)
        return resolved[name]

    out = _inline(schema, inline, body)
    kept = {name: body(name) for name in defs if name not in inline and counts[name] > 0}
    if kept:
        out = {**out, "$defs": kept}
    return out


def _inline(node: Any, inline: set[str], body: typing.Callable[[str], dict]) -> Any:
    if isinstance(node, list):
        return [_inline(item, inline, body) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in inline:
        siblings = {k: _inline(v, inline, body) for k, v in node.items() if k != "$ref"}
        return {**body(ref[8:]), **siblings}
    out = {}
    for key, value in node.items():
        if key in ("default", "enum", "const", "examples"):
            out[key] = value
        else:
            out[key] = _inline(value, inline, body)
    return out


def _count_refs(node: Any, counts: dict[str, int]) -> None:
    if isinstance(node, list):
        for item in node:
            _count_refs(item, counts)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in counts:
            counts[ref[8:]] += 1
        for key, value in node.items():
            if key not in ("default", "enum", "const", "examples"):
                _count_refs(value, counts)


def _reaches(start: str, target: str, defs: dict[str, dict], seen: set[str]) -> bool:
    found: dict[str, int] = dict.fromkeys(defs, 0)
    _count_refs(defs[start], found)
    for name, n in found.items():
        if not n:
            continue
        if name == target:
            return True
        if name not in seen:
            seen.add(name)
            if _reaches(name, target, defs, seen):
                return True
    return False


def rename_refs(node: Any, renames: dict[str, str]) -> Any:
    if isinstance(node, list):
        return [rename_refs(item, renames) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str) and value[8:] in renames:
            out[key] = "#/$defs/" + renames[value[8:]]
        elif key in ("default", "enum", "const", "examples"):
            out[key] = value
        else:
            out[key] = rename_refs(value, renames)
    return out


def copy_json(node: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, scalars), much cheaper than ``copy.deepcopy``."""
    if isinstance(node, dict):
        return {k: copy_json(v) for k, v in node.items()}
    if isinstance(node, list):
        return [copy_json(v) for v in node]
    return node
