"""to_strict: OpenAI strict mode as a pure transformation."""

import copy
import dataclasses
import json
from typing import Annotated, Any, Literal, Optional

import jsonschema
import pytest
from openai.lib._pydantic import to_strict_json_schema
from pydantic import BaseModel, Field

from course_lib.reference import parameters_schema, to_strict, type_schema
from course_lib.reference.model_schemas import strip_titles

STRICT_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
    "$ref", "$defs", "description", "pattern", "format", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
}  # fmt: skip


def assert_openai_strict(schema: dict, path: str = "parameters", root: bool = True) -> None:
    """The strict-mode rules as OpenAI documents them, checked on every node."""
    if root:
        assert schema.get("type") == "object", f"{path}: the root must be an object"
        assert "anyOf" not in schema, f"{path}: the root must not be anyOf"
    unknown = set(schema) - STRICT_KEYWORDS
    assert not unknown, f"{path}: keywords strict mode rejects: {unknown}"
    if "$ref" in schema:
        assert len(schema) == 1, f"{path}: $ref with siblings {set(schema) - {'$ref'}}"
    assert any(k in schema for k in ("type", "anyOf", "$ref", "enum", "const")), path
    if schema.get("type") == "object" or "properties" in schema:
        assert schema.get("additionalProperties") is False, f"{path}: additionalProperties"
        assert schema.get("required") == list(schema.get("properties", {})), f"{path}: required"
    for name, sub in schema.get("properties", {}).items():
        assert_openai_strict(sub, f"{path}.{name}", False)
    for name, sub in schema.get("$defs", {}).items():
        assert_openai_strict(sub, f"$defs.{name}", False)
    if "items" in schema:
        assert_openai_strict(schema["items"], f"{path}[]", False)
    for i, sub in enumerate(schema.get("anyOf", [])):
        assert_openai_strict(sub, f"{path}|{i}", False)


@dataclasses.dataclass
class Stop:
    city: str
    nights: int = 1


class Leg(BaseModel):
    origin: str
    notes: Optional[str] = None
    next: Optional["Leg"] = None


def plan_trip(
    stops: list[Stop],
    budget: Annotated[float, Field(gt=0, description="Total budget")] = 1000.0,
    mode: Literal["train", "plane"] = "train",
    first: Leg | None = None,
    tags: set[str] = frozenset(),
) -> str:
    """Plan a trip."""
    return ""


def test_every_property_required_and_optional_ones_nullable():
    strict = to_strict(parameters_schema(plan_trip))
    assert strict["required"] == ["stops", "budget", "mode", "first", "tags"]
    assert strict["properties"]["mode"] == {
        "type": ["string", "null"],
        "enum": ["train", "plane", None],
    }
    # already nullable stays as it was (no double null)
    assert json.dumps(strict["properties"]["first"]).count('"null"') == 1


def test_description_stays_on_the_outside_of_the_nullable_wrapper():
    strict = to_strict(parameters_schema(plan_trip))
    budget = strict["properties"]["budget"]
    assert budget == {
        "type": ["number", "null"],
        "exclusiveMinimum": 0,
        "description": "Total budget",
    }
    first = strict["properties"]["first"]  # an object or null stays anyOf, description outside
    assert set(first) == {"anyOf"} or first["anyOf"][-1] == {"type": "null"}


def test_nested_objects_defs_and_items_are_closed_and_fully_required():
    strict = to_strict(parameters_schema(plan_trip))
    assert_openai_strict(strict)
    stop = strict["properties"]["stops"]["items"]
    assert stop["required"] == ["city", "nights"]
    assert stop["properties"]["nights"] == {"type": ["integer", "null"]}
    leg = strict["$defs"]["Leg"]
    assert leg["additionalProperties"] is False and leg["required"] == ["origin", "notes", "next"]


def test_defaults_are_removed_everywhere():
    strict = to_strict(parameters_schema(plan_trip))
    assert '"default"' not in json.dumps(strict)


def test_unsupported_constraints_are_dropped_not_sent():
    strict = to_strict(parameters_schema(plan_trip))
    assert "uniqueItems" not in json.dumps(strict)


def test_ref_with_siblings_is_replaced_by_its_definition():
    a_def = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A", "description": "an A"},
            "b": {"$ref": "#/$defs/A"},
        },
        "required": ["a", "b"],
        "$defs": {"A": a_def},
    }
    strict = to_strict(schema)
    assert strict["properties"]["a"]["description"] == "an A"
    assert strict["properties"]["a"]["properties"] == {"x": {"type": "integer"}}
    assert strict["properties"]["b"] == {"$ref": "#/$defs/A"}
    assert_openai_strict(strict)


def test_input_is_never_mutated():
    schema = parameters_schema(plan_trip)
    before = copy.deepcopy(schema)
    to_strict(schema)
    assert schema == before


def test_open_map_is_refused_naming_where():
    def tally(counts: dict[str, int]) -> None: ...

    with pytest.raises(ValueError, match=r"parameters\.counts: .*open map.*dict\[str"):
        to_strict(parameters_schema(tally))


def test_bare_dict_and_any_are_refused():
    def f(options: dict) -> None: ...

    def g(value: Any) -> None: ...

    with pytest.raises(ValueError, match="open map"):
        to_strict(parameters_schema(f))
    with pytest.raises(ValueError, match=r"parameters\.value: .*anything \(Any\)"):
        to_strict(parameters_schema(g))


def test_tuple_is_refused_because_strict_mode_has_no_prefix_items():
    def f(point: tuple[int, int]) -> None: ...

    with pytest.raises(ValueError, match=r"parameters\.point: .*tuples"):
        to_strict(parameters_schema(f))


def test_non_object_root_is_refused():
    with pytest.raises(ValueError, match="object schema at the top level"):
        to_strict(type_schema(list[int]))


def test_strict_output_is_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(to_strict(parameters_schema(plan_trip)))


class Item(BaseModel):
    name: str
    qty: int = Field(description="How many")


class Order(BaseModel):
    items: list[Item]
    note: str | None
    kind: Literal["a", "b"]


def _inline_refs(node: Any, defs: dict) -> Any:
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _inline_refs(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    return {k: _inline_refs(v, defs) for k, v in node.items() if k != "$defs"}


def test_agrees_with_the_openai_sdk_on_a_model_with_all_fields_required():
    theirs = to_strict_json_schema(Order)
    theirs = strip_titles(_inline_refs(theirs, theirs.get("$defs", {})))
    assert to_strict(type_schema(Order)) == theirs
