"""Oracles for strict schemas, written independently of ``course_lib.reference``.

``check_strict_rules`` is OpenAI's documented strict-mode subset, node by node; ``lenient`` is a
schema with null allowed wherever a property is optional (what "null means use the default"
accepts); ``Validator`` is jsonschema's 2020-12 validator with JSON's integers (``true`` and
``1.0`` are not integers, as in pydantic's strict mode).
"""

from __future__ import annotations

import copy
from typing import Any

import jsonschema

STRICT_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
    "$ref", "$defs", "description", "pattern", "format", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
}  # fmt: skip
MAX_PROPERTIES, MAX_NESTING = 5_000, 10  # OpenAI's structured-outputs guide


def _is_integer(_checker: Any, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)


def lenient(schema: dict) -> dict:
    """``schema`` with null allowed for every optional property that does not allow it yet."""
    checker = Validator(schema)
    out = copy.deepcopy(schema)
    stack = [out]
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
                if name not in required and not _accepts_null(checker, prop):
                    properties[name] = {"anyOf": [prop, {"type": "null"}]}
        for key, value in node.items():
            if key in ("properties", "$defs") and isinstance(value, dict):
                stack.extend(value.values())
            elif key not in ("enum", "const", "default"):
                stack.append(value)
    return out


def check_strict_rules(schema: dict) -> None:
    """OpenAI's documented strict-mode rules, on every node of ``schema``."""
    assert schema.get("type") == "object" and "anyOf" not in schema, "the root must be an object"
    count = 0
    stack: list[tuple[Any, str, int]] = [(schema, "parameters", 0)]
    stack += [(d, f"$defs.{n}", 1) for n, d in schema.get("$defs", {}).items()]
    while stack:
        node, path, level = stack.pop()
        assert isinstance(node, dict), path
        unknown = set(node) - STRICT_KEYWORDS
        assert not unknown, f"{path}: keywords outside the strict subset: {unknown}"
        if "$ref" in node:
            assert len(node) == 1, f"{path}: $ref with siblings"
            continue
        assert {"type", "anyOf", "enum", "const"} & set(node), f"{path}: no type"
        types = node.get("type")
        types = [types] if isinstance(types, str) else types or []
        if "object" in types or "properties" in node:
            assert node.get("additionalProperties") is False, f"{path}: not closed"
            assert node.get("required") == list(node.get("properties", {})), f"{path}: required"
            level += 1
            assert level <= MAX_NESTING + 1, f"{path}: nested too deep"
            for name, sub in node.get("properties", {}).items():
                count += 1
                stack.append((sub, f"{path}.{name}", level))
        if "array" in types:
            assert isinstance(node.get("items"), dict), f"{path}: an array without items"
            stack.append((node["items"], f"{path}[]", level))
        stack += [(sub, f"{path}|{i}", level) for i, sub in enumerate(node.get("anyOf", []))]
    assert count <= MAX_PROPERTIES


def _accepts_null(checker: Any, schema: Any) -> bool:
    try:
        return checker.evolve(schema=schema).is_valid(None)
    except RecursionError:  # a reference cycle no value can get through: it accepts nothing
        return False
