"""Reading a JSON Schema document we did not write: ``$ref`` pointers, ``allOf``, intersections.

``to_strict`` accepts schemas from anywhere (MCP servers, OpenAPI documents, other libraries),
and strict mode allows neither ``allOf`` nor a ``$ref`` with sibling keywords. Both say "this
value must satisfy several schemas at once", so both are rewritten into one schema that says the
same: ``intersect(a, b)``. Keywords on one side only are kept; a keyword on both sides is combined
when JSON Schema's meaning allows it (``required`` joined, bounds tightened, ``type`` and ``enum``
intersected, ``properties`` merged name by name) and refused with a ``ValueError`` when it does
not (two different patterns, two ``anyOf`` lists, a closed object that another part extends).

Everything here is iterative or bounded by ``Budget``, so a hostile document fails with a
``ValueError`` instead of a ``RecursionError`` or an endless loop.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import unquote

__all__ = [
    "ANNOTATIONS",
    "short",
    "Budget",
    "Document",
    "clean",
    "intersect",
    "json_equal",
    "measure",
]

MAX_JSON_DEPTH = 100  # dicts and lists inside each other; a schema node is about two of them
MAX_MERGE_DEPTH = 50  # allOf inside allOf, or properties merged inside properties
REMOVED = frozenset(
    {"title", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
    | {"$schema", "$id", "$anchor", "contentMediaType", "contentEncoding", "contentSchema"}
    | {"$defs", "definitions"}  # reached through pointers, never as part of a node
)  # keywords that only annotate (or hold definitions): leaving them out loses no constraint
ANNOTATIONS = frozenset({"description"})  # annotations that are kept; the outer one wins
_LOWER = {"minimum", "exclusiveMinimum", "minItems", "minLength", "minProperties"}
_UPPER = {"maximum", "exclusiveMaximum", "maxItems", "maxLength", "maxProperties"}
_JSON_SCALARS = (str, int, float, bool, type(None))
# Keywords whose value maps names to schemas: a key "$id" there is a name, not a keyword.
_NAME_MAPS = frozenset(
    {"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"}
)


def _names_below(key: str, names: Any) -> Any:
    """Whether the value under ``key`` maps names (True), maps name maps ("maps"), or neither."""
    if names == "maps":
        return True  # OpenAPI's components.schemas, components.parameters, ...
    if names:
        return False  # a name: what it names is a schema again
    if key == "components":
        return "maps"
    return key in _NAME_MAPS


MESSAGES = {
    "not_json": "{path}: {what} is not JSON data (a {kind}); a schema holds only dicts, lists, "
    "strings, numbers, booleans and null",
    "not_finite": "{path}: {value} is not a JSON number",
    "key_type": "{path}: the key {key!r} is not a string; JSON object keys are strings",
    "too_deep": "{path}: the schema is nested more than {limit} levels deep; no tool needs that "
    "and strict mode allows far fewer (10 levels of objects)",
    "nested_id": "{path}: a nested $id starts a new schema resource, which changes what every $ref "
    "inside it means; remove the $id or resolve the references first",
    "ref_type": "{path}: $ref must be a string, got {got}",
    "ref_form": "{path}: cannot resolve $ref {ref!r}: only references inside this document "
    "('#', '#/$defs/Name' or another '#/...' pointer) can be followed",
    "ref_missing": "{path}: $ref {ref!r} points to nothing in this document",
    "ref_not_schema": "{path}: $ref {ref!r} points to {got}, not to a schema object",
    "ref_circular": "{path}: the references {chain} go round in a circle and never reach a schema",
    "all_of_type": "{path}: allOf must be a non-empty list of schemas, got {got}",
    "budget": "this schema is too large to make strict: converting it would take more than "
    "{limit:,} steps ({size:,} nodes in); references that carry sibling keywords are copied to "
    "every place they are used, and here the copies multiply. Give each shared definition one "
    "description, or fewer levels",
    "type_empty": "{path}: no value can have type {left} and type {right} at once (they are "
    "required together, through allOf or a $ref with sibling keywords)",
    "enum_empty": "{path}: no value is in both enum lists {left} and {right}",
    "conflict": "{path}: the keyword {key!r} is given twice with different values ({left} and "
    "{right}) through allOf or a $ref with siblings; strict mode needs one schema, so merge them",
    "closed": "{path}: one part of this schema allows only the properties {allowed}, another adds "
    "{extra}; no value can have them, so remove them or reopen the first part",
}


class Budget:
    """Counts the steps of one conversion; a fixed multiple of the input's size, plus a margin."""

    def __init__(self, size: int, *, per_node: int = 10, margin: int = 50_000) -> None:
        self.size = size
        self.limit = per_node * size + margin
        self.spent = 0

    def spend(self, steps: int = 1) -> None:
        self.spent += steps
        if self.spent > self.limit:
            raise ValueError(MESSAGES["budget"].format(limit=self.limit, size=self.size))


def measure(schema: dict[str, Any]) -> int:
    """The number of JSON nodes in ``schema``, after checking it is JSON and not absurdly deep.

    Iterative, so that a schema nested thousands of levels deep is refused, not a crash.
    """
    count = 0
    stack: list[tuple[Any, str, int, Any]] = [(schema, "parameters", 1, False)]
    while stack:
        node, path, depth, names = stack.pop()
        count += 1
        if depth > MAX_JSON_DEPTH:
            raise ValueError(MESSAGES["too_deep"].format(path=short(path), limit=MAX_JSON_DEPTH))
        if isinstance(node, dict):
            if "$id" in node and node is not schema and not names:
                raise ValueError(MESSAGES["nested_id"].format(path=path))
            for key, value in node.items():
                if not isinstance(key, str):
                    raise ValueError(MESSAGES["key_type"].format(path=path, key=key))
                stack.append((value, f"{path}.{key}", depth + 1, _names_below(key, names)))
        elif isinstance(node, list):
            stack.extend((value, f"{path}[{i}]", depth + 1, False) for i, value in enumerate(node))
        elif isinstance(node, float) and not math.isfinite(node):
            raise ValueError(MESSAGES["not_finite"].format(path=path, value=node))
        elif not isinstance(node, _JSON_SCALARS):
            kind = type(node).__name__
            raise TypeError(MESSAGES["not_json"].format(path=path, what="a value", kind=kind))
    return count


def clean(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` without the keywords that only annotate (``title``, ``default``, ``x-...``)."""
    if not any(key in REMOVED or key.startswith("x-") for key in node):
        return node
    return {k: v for k, v in node.items() if k not in REMOVED and not k.startswith("x-")}


class Document:
    """One schema document: follows ``$ref`` pointers and folds ``allOf`` into one schema."""

    def __init__(self, root: dict[str, Any], budget: Budget) -> None:
        self.root = root
        self.budget = budget

    def pointer(self, ref: Any, path: str) -> str:
        """The canonical form of a local reference (``#`` or ``#/...``), else ``ValueError``."""
        if not isinstance(ref, str):
            raise ValueError(MESSAGES["ref_type"].format(path=path, got=type(ref).__name__))
        if ref == "#" or ref.startswith("#/"):
            return "#" + unquote(ref[1:])
        raise ValueError(MESSAGES["ref_form"].format(path=path, ref=ref))

    def lookup(self, pointer: str, path: str) -> dict[str, Any]:
        node: Any = self.root
        for raw in pointer[2:].split("/") if pointer != "#" else ():
            token = raw.replace("~1", "/").replace("~0", "~")
            self.budget.spend()
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise ValueError(MESSAGES["ref_missing"].format(path=path, ref=pointer))
        if not isinstance(node, dict):
            got = "a boolean schema" if isinstance(node, bool) else type(node).__name__
            raise ValueError(MESSAGES["ref_not_schema"].format(path=path, ref=pointer, got=got))
        return node

    def target(self, ref: Any, path: str) -> tuple[str, dict[str, Any]]:
        """Follow a chain of plain aliases (``{"$ref": ...}`` and nothing else) to its end."""
        seen: list[str] = []
        pointer = self.pointer(ref, path)
        while True:
            if pointer in seen:
                chain = " -> ".join([*seen, pointer])
                raise ValueError(MESSAGES["ref_circular"].format(path=path, chain=chain))
            seen.append(pointer)
            node = clean(self.lookup(pointer, path))
            if set(node) != {"$ref"}:
                return pointer, node
            pointer = self.pointer(node["$ref"], path)

    def flatten(
        self, node: dict[str, Any], path: str, depth: int = 0, outer: tuple[str, ...] = ()
    ) -> tuple[dict[str, Any], list[str]]:
        """One schema meaning the same as ``node`` with its ``$ref`` and ``allOf`` folded in.

        Returns it and the pointers it went through (a caller uses them to spot recursion);
        ``outer`` are the pointers of the flattenings this one is part of.
        """
        if depth > MAX_MERGE_DEPTH:
            raise ValueError(MESSAGES["too_deep"].format(path=short(path), limit=MAX_MERGE_DEPTH))
        layers: list[dict[str, Any]] = []
        pointers: list[str] = []
        current = clean(node)
        while True:
            self.budget.spend()
            own = {k: v for k, v in current.items() if k not in ("$ref", "allOf")}
            if "allOf" in current:
                within = (*outer, *pointers)
                own = self._fold_all_of(own, current["allOf"], path, depth, within, pointers)
            layers.append(own)
            if "$ref" not in current:
                break
            pointer, current = self.target(current["$ref"], path)
            if pointer in pointers or pointer in outer:
                chain = " -> ".join([*outer, *pointers, pointer])
                raise ValueError(MESSAGES["ref_circular"].format(path=path, chain=chain))
            pointers.append(pointer)
        merged = layers[-1]
        for layer in reversed(layers[:-1]):
            merged = intersect(layer, merged, path, self, depth)
        return merged, pointers

    def _fold_all_of(
        self,
        own: dict,
        branches: Any,
        path: str,
        depth: int,
        within: tuple[str, ...],
        pointers: list[str],
    ) -> dict:
        if not isinstance(branches, list) or not branches:
            raise ValueError(MESSAGES["all_of_type"].format(path=path, got=_brief(branches)))
        for i, branch in enumerate(branches):
            if not isinstance(branch, dict):
                raise ValueError(MESSAGES["all_of_type"].format(path=path, got=_brief(branch)))
            flat, used = self.flatten(branch, f"{path}&{i}", depth + 1, within)
            pointers.extend(p for p in used if p not in pointers)
            own = intersect(own, flat, path, self, depth)
        return own


def intersect(outer: dict, inner: dict, path: str, document: Document, depth: int = 0) -> dict:
    """A schema accepting exactly what both accept; annotations from ``outer`` win."""
    if depth > MAX_MERGE_DEPTH:
        raise ValueError(MESSAGES["too_deep"].format(path=short(path), limit=MAX_MERGE_DEPTH))
    out = dict(inner)
    for key, value in outer.items():
        document.budget.spend()
        if key not in out:
            out[key] = value
        elif key in ANNOTATIONS:
            out[key] = value
        elif not json_equal(out[key], value, document.budget):
            out[key] = _combine(key, value, out[key], path, document, depth)
    for side in (outer, inner):
        if side.get("additionalProperties") is False:
            allowed = set(side.get("properties") or ())
            extra = [name for name in out.get("properties") or () if name not in allowed]
            if extra:
                shown = sorted(allowed) or "none"
                raise ValueError(MESSAGES["closed"].format(path=path, allowed=shown, extra=extra))
    return out


def _combine(key: str, left: Any, right: Any, path: str, document: Document, depth: int) -> Any:
    if key == "type":
        return _types(left, right, path)
    if key == "required" and isinstance(left, list) and isinstance(right, list):
        return list(dict.fromkeys([*left, *right]))
    if key == "enum" and isinstance(left, list) and isinstance(right, list):
        both = [v for v in right if any(json_equal(v, w) for w in left)]
        if not both:
            raise ValueError(MESSAGES["enum_empty"].format(path=path, left=left, right=right))
        return both
    if key in _LOWER and _numbers(left, right):
        return max(left, right)
    if key in _UPPER and _numbers(left, right):
        return min(left, right)
    if key == "additionalProperties" and (left is False or right is False):
        return False
    if key == "properties" and isinstance(left, dict) and isinstance(right, dict):
        merged = dict(left)  # the outer schema's own properties first, as written
        for name, schema in right.items():
            if name in merged:
                merged[name] = _both(merged[name], schema, f"{path}.{name}", document, depth)
            else:
                merged[name] = schema
        return merged
    if key == "items" and isinstance(left, dict) and isinstance(right, dict):
        return _both(left, right, f"{path}[]", document, depth)
    raise ValueError(
        MESSAGES["conflict"].format(path=path, key=key, left=_brief(left), right=_brief(right))
    )


def _both(left: Any, right: Any, path: str, document: Document, depth: int) -> Any:
    if json_equal(left, right, document.budget):
        return right
    if not isinstance(left, dict) or not isinstance(right, dict):
        raise ValueError(
            MESSAGES["conflict"].format(path=path, key="schema", left=left, right=right)
        )
    left_flat = document.flatten(left, path, depth + 1)[0]
    right_flat = document.flatten(right, path, depth + 1)[0]
    return intersect(left_flat, right_flat, path, document, depth + 1)


def _types(left: Any, right: Any, path: str) -> Any:
    lefts = [left] if isinstance(left, str) else list(left)
    rights = [right] if isinstance(right, str) else list(right)
    both = []
    for kind in rights:
        if kind in lefts:
            both.append(kind)
        elif kind == "integer" and "number" in lefts or kind == "number" and "integer" in lefts:
            both.append("integer")
    both = list(dict.fromkeys(both))
    if not both:
        raise ValueError(MESSAGES["type_empty"].format(path=path, left=left, right=right))
    return both[0] if len(both) == 1 else both


def _numbers(*values: Any) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def json_equal(left: Any, right: Any, budget: Budget | None = None) -> bool:
    """Equality as JSON sees it: ``1 == 1.0``, but ``True`` is not ``1``."""
    if budget is not None:
        budget.spend()
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if _numbers(left) and _numbers(right):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(
            json_equal(left[k], right[k], budget) for k in left
        )
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(
            json_equal(a, b, budget) for a, b in zip(left, right, strict=True)
        )
    return type(left) is type(right) and left == right


def short(path: str) -> str:
    """A path short enough to read in a message: its start and its end."""
    return path if len(path) <= 90 else f"{path[:40]} ... {path[-45:]}"


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
