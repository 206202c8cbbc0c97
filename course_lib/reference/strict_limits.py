"""The size limits OpenAI documents for strict schemas, checked on a finished strict schema.

From the structured outputs guide (the same subset applies to strict function parameters):

- at most 5,000 object properties in all, and at most 10 levels of object nesting;
- at most 1,000 enum values in all; one enum of more than 250 strings may total at most
  15,000 characters;
- property names, definition names, enum values and const values total at most 120,000
  characters.

Nesting is counted through references (a definition used inside an object adds its own levels),
but a recursive reference adds nothing: recursion is allowed, the model decides how deep to go.
Everything is iterative, so a schema of any shape is measured without recursion.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LIMITS", "check_limits"]

LIMITS = {
    "properties": 5_000,
    "nesting": 10,
    "enum_values": 1_000,
    "large_enum": 250,
    "large_enum_chars": 15_000,
    "chars": 120_000,
}
MESSAGES = {
    "properties": "the strict schema has {count:,} object properties; OpenAI allows at most "
    "{limit:,}: offer fewer or smaller parameters",
    "nesting": "{where} nests objects {count} levels deep; OpenAI allows at most {limit} levels "
    "in a strict schema: flatten the parameters",
    "enum_values": "the strict schema has {count:,} enum values; OpenAI allows at most "
    "{limit:,} in all",
    "large_enum": "{where} is an enum of {values} strings totalling {count:,} characters; OpenAI "
    "allows at most {limit:,} characters when an enum has more than {large} values",
    "chars": "the property names, definition names, enum and const values of the strict schema "
    "total {count:,} characters; OpenAI allows at most {limit:,}",
}


def check_limits(schema: dict[str, Any]) -> None:
    """Raise ``ValueError`` naming the first documented limit ``schema`` goes past."""
    defs = schema.get("$defs") or {}
    counts = {"properties": 0, "enum_values": 0, "chars": sum(len(name) for name in defs)}
    levels: dict[str, tuple[int, list[tuple[int, str]]]] = {}
    levels["#"] = _walk(schema, "parameters", counts)
    for name, body in defs.items():
        levels[f"#/$defs/{name}"] = _walk(body, f"$defs.{name}", counts)
    for key in ("properties", "enum_values", "chars"):
        if counts[key] > LIMITS[key]:
            raise ValueError(MESSAGES[key].format(count=counts[key], limit=LIMITS[key]))
    depth = _deepest(levels)
    if depth > LIMITS["nesting"]:
        where = "the schema"
        raise ValueError(
            MESSAGES["nesting"].format(where=where, count=depth, limit=LIMITS["nesting"])
        )


def _walk(root: dict, path: str, counts: dict[str, int]) -> tuple[int, list[tuple[int, str]]]:
    """Count one schema (not into ``$defs``); return its own object depth and its references,
    each with the number of objects above it."""
    deepest = 0
    references: list[tuple[int, str]] = []
    stack: list[tuple[Any, int, str]] = [(root, 0, path)]
    while stack:
        node, above, where = stack.pop()
        if not isinstance(node, dict):
            continue
        is_object = isinstance(node.get("properties"), dict)
        level = above + 1 if is_object else above
        deepest = max(deepest, level)
        if isinstance(node.get("$ref"), str):
            references.append((level, node["$ref"]))
        _count_values(node, where, counts)
        for name, sub in (node.get("properties") or {}).items():
            counts["properties"] += 1
            counts["chars"] += len(name)
            stack.append((sub, level, f"{where}.{name}"))
        if isinstance(node.get("items"), dict):
            stack.append((node["items"], level, f"{where}[]"))
        for i, sub in enumerate(node.get("anyOf") or ()):
            stack.append((sub, level, f"{where}|{i}"))
    return deepest, references


def _count_values(node: dict, where: str, counts: dict[str, int]) -> None:
    values = node.get("enum")
    if isinstance(values, list):
        counts["enum_values"] += len(values)
        strings = [v for v in values if isinstance(v, str)]
        length = sum(map(len, strings))
        counts["chars"] += length
        if len(strings) > LIMITS["large_enum"] and length > LIMITS["large_enum_chars"]:
            raise ValueError(
                MESSAGES["large_enum"].format(
                    where=where,
                    values=len(strings),
                    count=length,
                    limit=LIMITS["large_enum_chars"],
                    large=LIMITS["large_enum"],
                )
            )
    if isinstance(node.get("const"), str):
        counts["chars"] += len(node["const"])


def _deepest(levels: dict[str, tuple[int, list[tuple[int, str]]]]) -> int:
    """The deepest object nesting from the root, through references, without re-entering one.

    A depth-first search with an explicit stack; a reference back to a definition still being
    measured (recursion) adds nothing.
    """
    total: dict[str, int] = {}
    on_path: set[str] = set()
    stack: list[tuple[str, bool]] = [("#", False)]
    while stack:
        pointer, done = stack.pop()
        own, references = levels.get(pointer, (0, []))
        if done:
            below = [above + total.get(ref, 0) for above, ref in references if ref in total]
            total[pointer] = max([own, *below])
            on_path.discard(pointer)
            continue
        if pointer in total or pointer in on_path:
            continue
        on_path.add(pointer)
        stack.append((pointer, True))
        for _, ref in references:
            if ref in levels and ref not in total and ref not in on_path:
                stack.append((ref, False))
    return total.get("#", 0) - 1  # the top level itself is not nesting
