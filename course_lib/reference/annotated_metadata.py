"""``Annotated`` extras as schema keywords: descriptions, ``Field()``, annotated-types bounds.

``Annotated[int, Field(ge=0), "How many"]`` carries a description and constraints; each extra
becomes the keywords it stands for. Extras this module does not know (including unhashable ones
such as ``[1, 2]``) are ignored here and left to validation, which still sees the annotation.
"""

from __future__ import annotations

from typing import Any

import annotated_types as at
import typing_extensions as te
from pydantic.fields import FieldInfo

from .model_schemas import strip_titles
from .schema_defs import copy_json

__all__ = ["apply_metadata"]

_CONSTRAINTS = {
    at.Gt: ("gt", "exclusiveMinimum"),
    at.Ge: ("ge", "minimum"),
    at.Lt: ("lt", "exclusiveMaximum"),
    at.Le: ("le", "maximum"),
    at.MultipleOf: ("multiple_of", "multipleOf"),
}


def apply_metadata(item: Any, schema: dict, extra: dict) -> None:
    """Turn one ``Annotated`` extra into schema keywords (unknown extras are left to validation)."""
    if isinstance(item, str):
        extra["description"] = item
    elif isinstance(item, te.Doc):
        extra["description"] = item.documentation
    elif isinstance(item, FieldInfo):
        _apply_field(item, schema, extra)
    elif type(item) in _CONSTRAINTS:
        attr, keyword = _CONSTRAINTS[type(item)]
        extra[keyword] = getattr(item, attr)
    elif isinstance(item, (at.MinLen, at.MaxLen)):
        kind = _length_kind(schema)
        if isinstance(item, at.MinLen):
            extra[f"min{kind}"] = item.min_length
        else:
            extra[f"max{kind}"] = item.max_length
    elif isinstance(item, at.GroupedMetadata):  # Interval, Len, StringConstraints, ...
        for sub in item:
            apply_metadata(sub, schema, extra)
    else:
        _apply_pattern(item, extra)


def _apply_field(item: FieldInfo, schema: dict, extra: dict) -> None:
    """``Field(description=..., examples=..., json_schema_extra=...)`` and its constraints."""
    if item.description:
        extra["description"] = item.description
    if item.examples:
        extra["examples"] = list(item.examples)
    for sub in item.metadata:
        apply_metadata(sub, schema, extra)
    _apply_schema_extra(item.json_schema_extra, extra)


def _apply_pattern(item: Any, extra: dict) -> None:
    """pydantic's ``Field(pattern=...)`` metadata (a string or a compiled pattern)."""
    pattern = getattr(item, "pattern", None)
    if isinstance(pattern, str):
        extra["pattern"] = pattern
    elif hasattr(pattern, "pattern"):
        extra["pattern"] = pattern.pattern


def _apply_schema_extra(addition: Any, extra: dict) -> None:
    """``Field(json_schema_extra={...})``: keywords added as given, as pydantic does."""
    if addition is None:
        return
    if not isinstance(addition, dict):
        raise TypeError(
            "Field(json_schema_extra=...) must be a dict of JSON Schema keywords here; a "
            "function that edits the schema cannot be applied to a tool's parameter"
        )
    extra.update(strip_titles(copy_json(addition)))


def _length_kind(schema: dict) -> str:
    json_type = schema.get("type")
    if json_type == "array":
        return "Items"
    if json_type == "object":
        return "Properties"
    return "Length"
