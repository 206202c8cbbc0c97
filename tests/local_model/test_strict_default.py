"""The Responses API's strict-by-default normalization, on schemas of every shape.

A schema that can be strict is closed and fully required all the way down (nested objects,
array items, ``anyOf`` branches, ``$defs``) and then passes strict mode's own check; one with an
open map anywhere cannot be, and the tool falls back to non-strict calling.
"""

from __future__ import annotations

import pytest

from course_lib.local_model.strict_default import as_the_model_reads_it, normalize
from course_lib.local_model.tool_schemas import check_strict

NESTED = {
    "type": "object",
    "properties": {
        "trip": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "nights": {"type": "integer"}},
            "required": ["city"],
        },
        "stops": {
            "type": "array",
            "items": {"$ref": "#/$defs/Stop"},
        },
        "note": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {}}]},
    },
    "$defs": {"Stop": {"type": "object", "properties": {"name": {"type": "string"}}}},
}


def test_every_object_is_closed_and_fully_required_all_the_way_down():
    normalized = normalize(NESTED)
    assert normalized is not None
    check_strict("function", normalized, param="", code=None)  # raises if anything is open
    assert normalized["required"] == ["trip", "stops", "note"]
    assert normalized["properties"]["trip"]["required"] == ["city", "nights"]
    assert normalized["$defs"]["Stop"] == {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "additionalProperties": False,
        "required": ["name"],
    }
    assert normalized["properties"]["note"]["anyOf"][1]["additionalProperties"] is False


def test_normalizing_leaves_the_schema_it_was_given_unchanged():
    before = repr(NESTED)
    normalize(NESTED)
    assert repr(NESTED) == before


@pytest.mark.parametrize(
    "open_part",
    [
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"type": "object", "properties": {}, "additionalProperties": True},
        {"type": "object"},
        {"type": "array", "items": {"type": "object", "additionalProperties": True}},
    ],
    ids=["a map of strings", "additionalProperties true", "no properties", "a map in items"],
)
def test_a_schema_with_an_open_map_cannot_be_made_strict(open_part):
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "extra": open_part}}
    assert normalize(schema) is None


def test_the_model_fills_a_newly_required_property_only_when_it_has_nothing_to_fall_back_on():
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["c", "f"], "default": "f"},
            "limit": {"type": "integer", "minimum": 1},
            "tags": {"type": ["array", "null"], "items": {"type": "string"}},
        },
        "required": ["city"],
    }
    reading = as_the_model_reads_it(schema, normalize(schema))
    properties = reading["properties"]
    assert "default" not in properties["city"]  # required before: still asked for
    assert properties["unit"]["default"] == "f"  # its own default
    assert properties["limit"]["default"] == 1  # a filler within its bounds
    assert "default" not in properties["tags"]  # null is allowed: the model sends null
