"""Unions and null in JSON Schema: the shortest plain form of "any of these", and "or null".

``str | None`` is ``{"type": ["string", "null"]}``, not an ``anyOf``: tool schemas are paid for in
tokens on every request, and both say the same. ``allows_null`` answers "can JSON null satisfy
this schema?", which both ``x: int = None`` (a mistake) and strict mode (optional becomes
nullable) need to know.
"""

from __future__ import annotations

__all__ = ["allows_null", "or_null", "union_schema"]

# Keywords that only constrain values of one JSON type: null passes them whatever they say, so
# "this schema or null" can be written as the same schema with "null" added to its type.
_SCALAR_KEYWORDS = frozenset(
    {"type", "enum", "format", "pattern", "minLength", "maxLength", "multipleOf"}
    | {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
)
_NULL_TYPE = {"type": "null"}


def union_schema(branches: list[dict]) -> dict:
    """The schema accepting what any of ``branches`` accepts, in its shortest plain form.

    Plain types merge into a type list (``{"type": ["integer", "string"]}``) and one scalar schema
    merges with null (``{"type": ["string", "null"], "enum": ["a", "b", None]}``); anything else
    stays ``{"anyOf": branches}``, which says exactly the same in more bytes.
    """
    if len(branches) == 1:
        return branches[0]
    if all(set(b) == {"type"} and isinstance(b["type"], str) for b in branches):
        return {"type": list(dict.fromkeys(b["type"] for b in branches))}
    others = [b for b in branches if b != _NULL_TYPE]
    if len(others) == 1 and len(others) < len(branches):
        merged = or_null(others[0])
        if "anyOf" not in merged:
            return merged
    return {"anyOf": branches}


def or_null(schema: dict) -> dict:
    """``schema`` or JSON null: a type list when ``schema`` is one scalar, else ``anyOf``.

    ``schema`` must not accept null already (``allows_null``); a ``description`` stays on the
    outside, where the model reads it.
    """
    json_type = schema.get("type")
    types = [json_type] if isinstance(json_type, str) else json_type
    if (
        isinstance(types, list)
        and "null" not in types
        and all(isinstance(t, str) and t not in ("object", "array") for t in types)
        and set(schema) - {"description"} <= _SCALAR_KEYWORDS
    ):
        out = {**schema, "type": [*types, "null"]}
        if "enum" in schema:
            out["enum"] = [*schema["enum"], None]
        return out
    inner = {k: v for k, v in schema.items() if k != "description"}
    branches = [*inner["anyOf"], _NULL_TYPE] if set(inner) == {"anyOf"} else [inner, _NULL_TYPE]
    out = {"anyOf": [dict(b) for b in branches]}
    if "description" in schema:
        out["description"] = schema["description"]
    return out


def allows_null(schema: dict, defs: dict[str, dict] | None = None) -> bool:
    """Whether JSON ``null`` can satisfy ``schema`` (used to catch ``x: int = None``)."""
    if not schema:
        return True
    if "enum" in schema and None not in schema["enum"]:
        return False
    json_type = schema.get("type")
    if json_type == "null" or (isinstance(json_type, list) and "null" in json_type):
        return True
    if json_type is not None:
        return False
    if "enum" in schema:
        return True
    if "anyOf" in schema:
        return any(allows_null(branch, defs) for branch in schema["anyOf"])
    ref = schema.get("$ref")
    if ref and defs is not None:
        target = defs.get(ref.rsplit("/", 1)[-1])
        return target is not None and target is not schema and allows_null(target, None)
    return False
