"""pydantic models described by pydantic itself, without its ``title`` noise.

pydantic knows its models best (validators, aliases, discriminators), so a model's schema is
pydantic's own validation schema. Two things are changed: ``title`` keywords go (the model pays
for them in tokens and learns nothing), and class docstrings are parsed like function docstrings,
so an ``Args:`` or ``Attributes:`` section becomes field descriptions instead of raw text.
"""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import GenerateJsonSchema

from .docstrings import parse_docstring
from .schema_defs import copy_json
from .unions import union_schema

__all__ = ["model_schema", "strip_titles"]

_MODEL_CACHE: dict[Any, dict] = {}


def model_schema(model: Any) -> dict:
    """pydantic's validation schema for a model, minus the ``title`` noise (cached per class).

    Class docstrings are parsed like function docstrings (``_DocstringsParsed``): pydantic would
    put the raw text, ``Args:`` section and all, into the description.
    """
    cached = _MODEL_CACHE.get(model)
    if cached is None:
        raw = model.model_json_schema(
            mode="validation", ref_template="#/$defs/{model}", schema_generator=_DocstringsParsed
        )
        cached = _MODEL_CACHE[model] = strip_titles(raw)
    return copy_json(cached)


class _DocstringsParsed(GenerateJsonSchema):
    """pydantic's schema generator, with each class docstring split into its summary and the
    descriptions of the fields it documents (for models, dataclasses and TypedDicts alike)."""

    def model_schema(self, schema: Any) -> Any:
        return _parsed_class_doc(super().model_schema(schema), schema.get("cls"))

    def dataclass_schema(self, schema: Any) -> Any:
        return _parsed_class_doc(super().dataclass_schema(schema), schema.get("cls"))

    def typed_dict_schema(self, schema: Any) -> Any:
        return _parsed_class_doc(super().typed_dict_schema(schema), schema.get("cls"))


def _parsed_class_doc(json_schema: Any, cls: Any) -> Any:
    own = cls.__dict__.get("__doc__") if isinstance(cls, type) else None
    if not own or not isinstance(json_schema, dict) or "description" not in json_schema:
        return json_schema
    doc = parse_docstring(own)
    if doc.description:
        json_schema["description"] = doc.description
    else:
        del json_schema["description"]
    properties = json_schema.get("properties")
    if isinstance(properties, dict):
        for name, text in doc.params.items():
            prop = properties.get(name)
            if isinstance(prop, dict) and "description" not in prop:
                prop["description"] = text
    return json_schema


def strip_titles(schema: Any) -> Any:
    """Drop every ``title`` keyword, but keep properties that happen to be called ``title``.

    Unions are rewritten in our shorter form as well (``union_schema``), so a pydantic model's
    ``Optional[str]`` field reads like any other ``str | None``.
    """
    if isinstance(schema, list):
        return [strip_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs", "patternProperties"):
            out[key] = {name: strip_titles(sub) for name, sub in value.items()}
        elif key in ("default", "enum", "const", "examples"):
            out[key] = value
        elif key == "anyOf" and isinstance(value, list):
            merged = union_schema(strip_titles(value))
            if "anyOf" in merged or set(merged) & set(schema):
                out[key] = strip_titles(value)
            else:
                out.update(merged)
        else:
            out[key] = strip_titles(value)
    return out
