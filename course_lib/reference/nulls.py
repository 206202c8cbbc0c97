"""A ``null`` that means "use the default", at every depth of a tool's arguments.

Strict mode requires every property, so ``to_strict`` offers each optional one as nullable: the
model sends ``null`` where it would have left the argument out. The registry must read that null
as "not given", and not only for the tool's own parameters: a strict schema does the same inside
nested models, dataclasses and TypedDicts. Otherwise the registry would advertise a null and then
refuse it.

The rule, for one object schema of the emitted (non-strict) parameters schema: a ``null`` for a
property that is not required and whose schema does not accept null is dropped before
validation, so the default of the function, the class or the ``Field`` applies. A null that the
schema accepts stays (the tool receives ``None``); a null for a required property stays an error.
Where a union offers several object schemas for one value, the first one under which the pruned
value is valid is used.

So ``call`` accepts exactly the arguments that are valid against the emitted schema once every
such property also accepts ``null``: that takes in everything the emitted schema accepts and
everything its strict version (``to_strict``) accepts.
"""

from __future__ import annotations

from typing import Any

from .type_map import allows_null
from .validation import compile_validator

__all__ = ["DefaultNulls"]

_MAX_REF_HOPS = 64


class DefaultNulls:
    """Drops default-meaning nulls from arguments, for one parameters schema (built once)."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.defs: dict[str, Any] = schema.get("$defs", {})
        self._validator: Any = None  # compiled on first need: only unions of objects need it

    @staticmethod
    def needed(schema: dict[str, Any]) -> bool:
        """Whether any object in ``schema`` has an optional property that refuses null."""
        defs = schema.get("$defs", {})
        stack: list[Any] = [schema]
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(node)
                continue
            if not isinstance(node, dict):
                continue
            properties = node.get("properties")
            if isinstance(properties, dict):
                required = set(node.get("required", ()))
                for name, prop in properties.items():
                    if name not in required and not allows_null(prop, defs):
                        return True
            for key, value in node.items():
                if key in ("properties", "$defs") and isinstance(value, dict):
                    stack.extend(value.values())
                elif key not in ("enum", "const", "default", "examples"):
                    stack.append(value)
        return False

    def drop(self, arguments: Any) -> Any:
        """``arguments`` without the nulls that stand for defaults; the same object if none."""
        return self._value(arguments, self.schema)

    # -- walking a value alongside its schema ------------------------------------------------

    def _value(self, value: Any, schema: Any) -> Any:
        if isinstance(value, dict):
            objects = [b for b in self._branches(schema) if isinstance(b.get("properties"), dict)]
            return self._choose(value, objects, self._object)
        if isinstance(value, list) and value:
            arrays = [b for b in self._branches(schema) if isinstance(b.get("items"), dict)]
            return self._choose(value, arrays, self._array)
        return value

    def _choose(self, value: Any, branches: list[dict], prune: Any) -> Any:
        if len(branches) == 1:
            return prune(value, branches[0])
        for branch in branches:
            candidate = prune(value, branch)
            if candidate is value or self._valid(candidate, branch):
                return candidate
        return value

    def _object(self, value: dict, schema: dict) -> dict:
        properties = schema["properties"]
        required = schema.get("required", ())
        out: dict[str, Any] = {}
        changed = False
        for key, item in value.items():
            sub = properties.get(key)
            if sub is None:
                out[key] = item
            elif item is None:
                if key in required or allows_null(sub, self.defs):
                    out[key] = item
                else:
                    changed = True  # dropped: the default applies
            else:
                out[key] = pruned = self._value(item, sub)
                changed = changed or pruned is not item
        return out if changed else value

    def _array(self, value: list, schema: dict) -> list:
        items = schema["items"]
        out = [self._value(item, items) for item in value]
        return out if any(a is not b for a, b in zip(out, value, strict=True)) else value

    def _branches(self, schema: Any) -> list[dict]:
        """The alternatives a value may match: ``anyOf`` flattened, ``$ref`` and ``allOf`` read."""
        out: list[dict] = []
        pending = [schema]
        hops = 0
        while pending:
            node = pending.pop(0)
            if not isinstance(node, dict):
                continue
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and hops < _MAX_REF_HOPS:
                hops += 1
                pending.insert(0, self.defs.get(ref[8:]))
                continue
            if isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
                pending.insert(0, node["allOf"][0])
                continue
            if isinstance(node.get("anyOf"), list):
                pending[:0] = node["anyOf"]
                continue
            out.append(node)
        return out

    def _valid(self, value: Any, branch: dict) -> bool:
        if self._validator is None:
            self._validator = compile_validator(self.schema)
        return self._validator.evolve(schema=branch).is_valid(value)
