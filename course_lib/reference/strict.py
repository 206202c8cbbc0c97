"""OpenAI strict mode as a pure transformation of a parameters schema.

With ``"strict": true`` OpenAI constrains the model's output to the schema, which only works for a
subset of JSON Schema. ``to_strict`` rewrites a schema into that subset:

- every object lists every property in ``required`` and has ``additionalProperties: false``
  (also inside ``$defs``, array items and ``anyOf`` branches);
- a property that used to be optional becomes nullable instead: the model sends ``null`` where
  it would have left the argument out. A scalar gets ``"null"`` added to its type (and ``None`` to
  its ``enum``), anything else becomes ``anyOf`` with ``{"type": "null"}``;
- ``required`` is always present, also when it is empty: strict mode asks for it on every object;
- ``default`` and ``title`` are removed (strict mode rejects them);
- ``$ref`` never has sibling keywords: such a reference is replaced by the definition it names;
- constraints strict mode does not support but that do not change the *shape* of the data
  (``minLength``, ``uniqueItems``, ...) are dropped: argument validation still enforces them;
- what strict mode cannot express at all raises ``ValueError`` naming where it is: open maps
  (``dict[str, V]``: an object whose keys are not known in advance), tuples (``prefixItems``),
  ``allOf``/``not``/``if`` and a top level that is not an object.

The input is never mutated.
"""

from __future__ import annotations

from typing import Any

from .type_map import allows_null, or_null

__all__ = ["to_strict"]

_REMOVED = {"default", "title"}
_DROPPED_CONSTRAINTS = {
    "minLength",
    "maxLength",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "contains",
    "minContains",
    "maxContains",
    "examples",
}
_UNSUPPORTED = {
    "prefixItems": "tuples (fixed-length arrays with a type per position)",
    "patternProperties": "objects with pattern-matched keys",
    "unevaluatedProperties": "unevaluatedProperties",
    "unevaluatedItems": "unevaluatedItems",
    "not": "`not`",
    "if": "if/then/else",
    "dependentRequired": "dependentRequired",
    "dependentSchemas": "dependentSchemas",
    "oneOf": "`oneOf` (use anyOf)",
}


def to_strict(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a strict-mode version of a parameters schema; raise ``ValueError`` if impossible."""
    if schema.get("type") != "object":
        raise ValueError(
            "strict mode needs an object schema at the top level (a tool's parameters), "
            f"got {_brief(schema)}"
        )
    defs = schema.get("$defs", {})
    return _Strictifier(defs).convert(schema, "parameters")


class _Strictifier:
    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs

    def convert(self, node: Any, path: str) -> Any:
        if not isinstance(node, dict):
            return node
        if "$ref" in node and len(node) > 1:
            node = self._unravel(node, path)
        if "allOf" in node:
            node = self._merge_all_of(node, path)
        if not any(key in node for key in ("type", "anyOf", "$ref", "enum", "const")):
            raise ValueError(
                f"{path}: strict mode needs a type for every value, and this one accepts "
                f"anything (Any); {_ADVICE}"
            )
        for keyword, what in _UNSUPPORTED.items():
            if keyword in node:
                raise ValueError(f"{path}: strict mode cannot express {what}; {_ADVICE}")
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _REMOVED or key in _DROPPED_CONSTRAINTS:
                continue
            if key == "items":
                out[key] = self.convert(value, f"{path}[]")
            elif key == "anyOf":
                out[key] = [self.convert(v, f"{path}|{i}") for i, v in enumerate(value)]
            elif key == "$defs":
                out[key] = {n: self.convert(v, f"$defs.{n}") for n, v in value.items()}
            else:
                out[key] = value
        if _is_object(node):
            self._object(node, out, path)  # replaces "properties" in place, keeping its position
        return out

    def _object(self, node: dict, out: dict, path: str) -> None:
        extra = node.get("additionalProperties")
        properties = node.get("properties") or {}
        if extra not in (None, False) or (not properties and extra is None):
            raise ValueError(
                f"{path}: strict mode cannot express an open map (an object whose keys are not "
                "known in advance, such as dict[str, ...]); describe it with fixed fields "
                "(a TypedDict, dataclass or pydantic model) or as a list of key/value objects"
            )
        required = set(node.get("required", ()))
        new_properties = {}
        for name, prop in properties.items():
            converted = self.convert(prop, f"{path}.{name}")
            if name not in required:
                converted = self._nullable(converted)
            new_properties[name] = converted
        out["properties"] = new_properties
        out["required"] = list(properties)
        out["additionalProperties"] = False

    def _nullable(self, schema: dict) -> dict:
        """``schema`` or null; the description stays on the outside where the model reads it."""
        return schema if allows_null(schema, self.defs) else or_null(schema)

    def _unravel(self, node: dict, path: str) -> dict:
        """Replace ``{"$ref": ..., "description": ...}`` by the definition plus the siblings."""
        target = self._resolve(node["$ref"], path)
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        return {**target, **siblings}

    def _merge_all_of(self, node: dict, path: str) -> dict:
        branches = node["allOf"]
        if len(branches) != 1:
            raise ValueError(f"{path}: strict mode cannot express allOf; {_ADVICE}")
        branch = branches[0]
        if "$ref" in branch:
            branch = self._resolve(branch["$ref"], path)
        rest = {k: v for k, v in node.items() if k != "allOf"}
        return {**branch, **rest}

    def _resolve(self, ref: str, path: str) -> dict:
        prefix = "#/$defs/"
        name = ref[len(prefix) :] if ref.startswith(prefix) else None
        if name is None or name not in self.defs:
            raise ValueError(f"{path}: cannot resolve $ref {ref!r} (only '#/$defs/...' refs)")
        return self.defs[name]


_ADVICE = "use plainer types for this parameter, or call function_to_tool(..., strict=False)"


def _is_object(node: dict) -> bool:
    json_type = node.get("type")
    return json_type == "object" or (json_type is None and "properties" in node)


def _brief(schema: Any) -> str:
    text = repr(schema)
    return text if len(text) <= 80 else text[:77] + "..."
