"""The OpenAI Agents SDK's strict-schema tests, translated to ``course_lib.reference.to_strict``.

Peer: openai/openai-agents-python, ``tests/test_strict_schema.py`` (``ensure_strict_json_schema``).
Every case is about the same job, so every case is translated; each test names the one it comes
from. Our conventions, asserted where they differ (each time with one line of why):

- a property that was optional becomes nullable, not just required: otherwise the model could no
  longer leave it out, and ``ToolRegistry.call`` reads that null as "use the default";
- the top level must be an object (a tool's parameters), so cases whose root is an array, a
  string or ``{}`` are translated with that schema as a property;
- ``allOf`` and ``$ref`` siblings are *intersected* (JSON Schema's meaning) rather than refused,
  and refused only when the parts contradict each other;
- annotations other than ``description`` (``title``, ``$anchor``, ``contentMediaType``) and
  shape-neutral constraints (``minLength``) are dropped: strict mode rejects or ignores them.
"""

import copy
from collections import OrderedDict

import pytest

from course_lib.reference import to_strict
from course_lib.reference.strict import _Strictifier

PEER = "openai/openai-agents-python tests/test_strict_schema.py"


def wrap(schema: dict, name: str = "value") -> dict:
    """A parameters schema with ``schema`` as its only (required) property."""
    return {"type": "object", "properties": {name: schema}, "required": [name]}


def strict_value(schema: dict) -> dict:
    return to_strict(wrap(schema))["properties"]["value"]


def nested_objects(depth: int) -> dict:
    root: dict = {"type": "object", "properties": {}}
    current = root
    for _ in range(depth):
        child: dict = {"type": "object", "properties": {}}
        current["properties"]["child"] = child
        current = child
    return root


def chained_refs(depth: int) -> dict:
    defs: dict = {f"L{i}": {"$ref": f"#/$defs/L{i + 1}"} for i in range(depth)}
    defs[f"L{depth}"] = {"type": "string"}
    return {
        "$defs": defs,
        "type": "object",
        "properties": {"value": {"$ref": "#/$defs/L0", "description": "value"}},
    }


CLOSED_EMPTY = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}


# test_empty_schema_has_additional_properties_false
def test_empty_schema_is_refused_but_an_object_without_properties_is_closed():
    # Ours refuses {}: it accepts anything, not only objects; {"type": "object"} is a tool
    # without parameters and is closed.
    with pytest.raises(ValueError, match="object schema at the top level"):
        to_strict({})
    assert to_strict({"type": "object"}) == CLOSED_EMPTY


# test_empty_schema_returns_fresh_copy
def test_each_result_is_a_fresh_object():
    first = to_strict({"type": "object"})
    first["properties"]["polluted"] = {"type": "string"}
    first["required"].append("polluted")
    assert to_strict({"type": "object"}) == CLOSED_EMPTY


# test_non_dict_schema_errors
def test_non_dict_input_is_a_type_error():
    with pytest.raises(TypeError, match="expects a JSON Schema object"):
        to_strict([])  # type: ignore[arg-type]


# test_deeply_nested_schema_is_rejected_before_recursive_conversion
def test_very_deep_nesting_is_a_value_error_not_a_recursion_error():
    with pytest.raises(ValueError, match="nested more than 100 levels deep"):
        to_strict(nested_objects(1_000))


# test_reasonably_nested_schema_remains_supported
def test_ten_levels_of_nesting_are_supported_and_eleven_are_not():
    assert to_strict(nested_objects(10))["additionalProperties"] is False
    # Ours also applies OpenAI's documented limit of 10 levels of objects.
    with pytest.raises(ValueError, match="11 levels deep"):
        to_strict(nested_objects(11))


# test_deeply_chained_refs_are_rejected_before_recursive_conversion
def test_long_chain_of_references_is_followed_in_linear_work():
    # Ours follows the chain (iteratively) instead of refusing it; the work stays linear.
    schema = chained_refs(1_000)
    converter = _Strictifier(schema)
    result = converter.run()
    assert result["properties"]["value"] == {"type": ["string", "null"], "description": "value"}
    assert converter.budget.spent <= 10 * converter.budget.size


# test_object_without_additional_properties
def test_object_is_closed_and_every_property_required():
    result = to_strict({"type": "object", "properties": {"a": {"type": "string"}}})
    assert result["additionalProperties"] is False
    assert result["required"] == ["a"]
    # Ours makes the formerly optional "a" nullable, so the model can still leave it out.
    assert result["properties"]["a"] == {"type": ["string", "null"]}


# test_open_object_rejection_is_opt_in
def test_object_with_empty_properties_is_closed():
    assert to_strict({"type": "object", "properties": {}}) == CLOSED_EMPTY


# test_open_object_rejection_rejects_preserved_pure_refs (ordinary and percent-encoded)
@pytest.mark.parametrize(
    ("ref", "definitions", "name"),
    [
        ("#/$defs/value", {"value": {"type": "string"}}, "value"),
        ("#/$defs/a%20b", {"a b": {"type": "string"}}, "a_b"),
    ],
    ids=["ordinary", "percent-encoded"],
)
def test_reference_alone_stays_a_reference_to_a_converted_definition(ref, definitions, name):
    schema = {"$defs": definitions, "type": "object", "properties": {"value": {"$ref": ref}}}
    result = to_strict(copy.deepcopy(schema))
    # Ours: optional, so nullable; the definition is converted too (theirs leaves it unchecked).
    assert result["properties"]["value"] == {
        "anyOf": [{"$ref": f"#/$defs/{name}"}, {"type": "null"}]
    }
    assert result["$defs"] == {name: {"type": "string"}}


# test_typeless_root_is_normalized_to_object
def test_root_without_type_but_with_properties_is_an_object():
    assert to_strict({"properties": {"a": {"type": "string"}}}) == {
        "type": "object",
        "properties": {"a": {"type": ["string", "null"]}},  # ours: nullable, see above
        "required": ["a"],
        "additionalProperties": False,
    }


# test_nullable_object_root_errors
def test_nullable_object_at_the_top_is_refused():
    with pytest.raises(ValueError, match="object schema at the top level"):
        to_strict({"type": ["object", "null"], "properties": {"a": {"type": "string"}}})


# test_open_map_root_errors
def test_open_map_at_the_top_is_refused():
    with pytest.raises(ValueError):
        to_strict({"additionalProperties": {"type": "string"}})


# test_nested_typeless_open_map_errors
def test_nested_typeless_open_map_is_refused():
    schema = {
        "type": "object",
        "properties": {"metadata": {"additionalProperties": {"type": "string"}}},
    }
    with pytest.raises(ValueError, match=r"parameters\.metadata: .*open map"):
        to_strict(schema)


# test_union_root_errors (anyOf and oneOf)
@pytest.mark.parametrize("union_keyword", ["anyOf", "oneOf"])
def test_union_at_the_top_is_refused(union_keyword):
    schema = {union_keyword: [{"properties": {"a": {"type": "string"}}}, {"type": "null"}]}
    with pytest.raises(ValueError, match="object schema at the top level"):
        to_strict(schema)


# test_nested_typeless_objects_get_additional_properties (property, array-item, any-of)
@pytest.mark.parametrize(
    ("schema", "path"),
    [
        ({"type": "object", "properties": {"config": {"properties": {}}}}, ("config",)),
        (wrap({"type": "array", "items": {"properties": {}}}), ("value", "items")),
        (
            {
                "type": "object",
                "properties": {"value": {"anyOf": [{"properties": {}}, {"type": "null"}]}},
            },
            ("value", "anyOf", 0),
        ),
    ],
    ids=["property", "array-item", "any-of"],
)
def test_nested_objects_without_type_are_typed_and_closed(schema, path):
    node = to_strict(schema)["properties"]
    for key in path:
        node = node[key]
    if "anyOf" in node and "type" not in node:  # an optional property became nullable
        node = node["anyOf"][0]
    assert node["type"] == "object"
    assert node["additionalProperties"] is False


# test_nested_nullable_object_preserves_type_union
def test_nested_object_or_null_keeps_its_type_list_and_is_closed():
    schema = {
        "type": "object",
        "properties": {
            "config": {"type": ["object", "null"], "properties": {"key": {"type": "string"}}}
        },
    }
    assert to_strict(schema)["properties"]["config"] == {
        "type": ["object", "null"],
        "properties": {"key": {"type": ["string", "null"]}},  # ours: nullable, see above
        "required": ["key"],
        "additionalProperties": False,
    }


# test_object_with_true_additional_properties,
# test_typeless_object_with_additional_properties_errors,
# test_object_with_empty_dict_additional_properties,
# test_object_with_schema_additional_properties
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "number"}}, "additionalProperties": True},
        {"properties": {"a": {"type": "number"}}, "additionalProperties": True},
        {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {}},
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "additionalProperties": {"type": "string"},
        },
    ],
    ids=["true", "typeless-true", "empty-schema", "schema"],
)
def test_objects_open_to_extra_keys_are_refused(schema):
    with pytest.raises(ValueError, match="open map"):
        to_strict(schema)


# test_explicit_non_object_with_properties_is_not_closed
def test_object_keywords_on_a_non_object_are_dropped():
    schema = {"type": "string", "properties": {}, "required": [], "additionalProperties": True}
    # Ours drops them: they have no effect on a string, and strict mode allows no extra keys.
    assert strict_value(schema) == {"type": "string"}


# test_object_with_false_additional_properties_is_allowed
def test_closed_object_stays_closed():
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": False,
    }
    result = to_strict(schema)
    assert result["additionalProperties"] is False
    assert result["required"] == ["a"]


# test_array_items_processing_and_default_removal
def test_array_items_are_converted_and_defaults_removed():
    result = strict_value({"type": "array", "items": {"type": "number", "default": None}})
    assert result == {"type": "array", "items": {"type": "number"}}


# test_anyOf_processing
def test_any_of_branches_are_converted():
    schema = wrap(
        {
            "anyOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}},
                {"type": "number", "default": None},
            ]
        }
    )
    first, second = to_strict(schema)["properties"]["value"]["anyOf"]
    assert first["additionalProperties"] is False and first["required"] == ["a"]
    assert second == {"type": "number"}


# test_allOf_single_entry_merging
def test_single_all_of_entry_is_merged_into_its_parent():
    result = to_strict({"type": "object", "allOf": [{"properties": {"a": {"type": "boolean"}}}]})
    assert "allOf" not in result
    assert result["additionalProperties"] is False
    assert result["required"] == ["a"]
    assert result["properties"]["a"] == {"type": ["boolean", "null"]}  # ours: nullable


# test_allOf_single_ref_entry_merging
def test_all_of_a_reference_to_an_alias_is_resolved_to_its_end():
    schema = {
        "$defs": {
            "Inner": {
                "type": "object",
                "properties": {"b": {"type": "string"}},
                "required": ["b"],
            },
            "Outer": {"$ref": "#/$defs/Inner"},
        },
        "type": "object",
        "allOf": [{"$ref": "#/$defs/Outer"}],
    }
    assert to_strict(schema) == {
        "type": "object",
        "properties": {"b": {"type": "string"}},
        "required": ["b"],
        "additionalProperties": False,
    }


COMPONENTS_ALIAS = {
    "components": {
        "schemas": {
            "Inner": {
                "type": "object",
                "description": "inner",
                "properties": {"value": {"type": "string"}},
            },
            "Outer": {"$ref": "#/components/schemas/Inner", "description": "outer"},
        }
    },
    "type": "object",
    "allOf": [{"$ref": "#/components/schemas/Outer", "title": "entry"}],
}


# test_allOf_single_ref_entry_preserves_annotated_aliases
def test_all_of_through_an_annotated_alias_keeps_the_outer_description():
    result = to_strict(copy.deepcopy(COMPONENTS_ALIAS))
    assert "$ref" not in result and "allOf" not in result
    assert result["description"] == "outer"
    assert "title" not in result  # ours: strict mode has no titles
    assert result["properties"] == {"value": {"type": ["string", "null"]}}
    assert result["required"] == ["value"]


OVERLAP_DEFS = {"T": {"type": "object", "properties": {"inner": {"type": "string"}}}}


# test_allOf_single_ref_entry_rejects_overlapping_parent_constraints,
# test_nested_single_allOf_rejects_overlapping_parent_constraints
@pytest.mark.parametrize(
    "all_of",
    [[{"$ref": "#/$defs/T", "description": "alias"}], [{"allOf": [{"$ref": "#/$defs/T"}]}]],
    ids=["single", "nested"],
)
def test_all_of_beside_properties_merges_both_sets_of_properties(all_of):
    schema = {
        "$defs": OVERLAP_DEFS,
        "type": "object",
        "properties": {"outer": {"type": "string"}},
        "allOf": all_of,
    }
    # Ours merges them: both parts are open, so "has outer and inner" is exactly their meaning.
    result = to_strict(schema)
    assert set(result["properties"]) == {"outer", "inner"}
    assert result["required"] == ["outer", "inner"]


# test_allOf_single_ref_entry_rejects_json_distinct_equal_python_values (top-level, nested)
@pytest.mark.parametrize(
    ("referenced", "parent"),
    [(1, True), ({"nested": [1]}, {"nested": [True]})],
    ids=["top-level", "nested"],
)
def test_consts_equal_in_python_but_not_in_json_conflict(referenced, parent):
    schema = wrap({"const": parent, "allOf": [{"$ref": "#/$defs/T"}]})
    schema["$defs"] = {"T": {"const": referenced}}
    with pytest.raises(ValueError, match="'const' is given twice with different values"):
        to_strict(schema)


# test_allOf_single_ref_entry_accepts_equal_json_numbers
def test_consts_equal_as_json_numbers_merge():
    schema = wrap({"const": 1.0, "allOf": [{"$ref": "#/$defs/T"}]})
    schema["$defs"] = {"T": {"const": 1}}
    result = to_strict(schema)["properties"]["value"]
    assert result["const"] == 1 and isinstance(result["const"], int)


# test_allOf_single_ref_entry_accepts_equal_mapping_subclasses
def test_consts_equal_as_json_objects_merge():
    schema = wrap({"const": {"nested": [1]}, "allOf": [{"$ref": "#/$defs/T"}]})
    schema["$defs"] = {"T": {"const": OrderedDict([("nested", [1])])}}
    assert to_strict(schema)["properties"]["value"]["const"] == {"nested": [1]}


# test_allOf_single_circular_ref_is_rejected, test_allOf_single_annotated_circular_ref_is_rejected
@pytest.mark.parametrize(
    "container",
    [
        {"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}},
        {
            "components": {
                "schemas": {
                    "A": {"$ref": "#/components/schemas/B", "description": "a"},
                    "B": {"$ref": "#/components/schemas/A", "description": "b"},
                }
            }
        },
    ],
    ids=["plain", "annotated"],
)
def test_circular_references_are_refused(container):
    ref = "#/$defs/A" if "$defs" in container else "#/components/schemas/A"
    schema = {**container, "type": "object", "allOf": [{"$ref": ref}]}
    with pytest.raises(ValueError, match="round in a circle"):
        to_strict(schema)


# test_allOf_single_ref_chain_spends_node_budget
def test_following_references_is_counted_as_work():
    schema = {
        "components": {
            "schemas": {
                "A": {"$ref": "#/components/schemas/B"},
                "B": {"$ref": "#/components/schemas/C"},
                "C": {"type": "object", "properties": {}},
            }
        },
        "type": "object",
        "allOf": [{"$ref": "#/components/schemas/A"}],
    }
    converter = _Strictifier(schema)
    assert converter.run() == CLOSED_EMPTY
    # Each pointer step is spent: three references, at least one step for each of their tokens.
    assert converter.budget.spent >= 3 * 3
    converter = _Strictifier(schema)
    converter.budget.limit = 4
    with pytest.raises(ValueError, match="too large to make strict"):
        converter.run()


NESTED_ID_CASES = {
    # test_allOf_single_ref_rejects_nested_id_before_promoting_target
    "promoting-target": {
        "$defs": {"T": {"type": "string"}},
        "contentSchema": {"$id": "https://example.test/nested", "$ref": "#/$defs/T"},
        "type": "object",
        "allOf": [{"$ref": "#/contentSchema"}],
    },
    # test_allOf_single_ref_rejects_nested_id_owner_before_resolution
    "owner": wrap(
        {
            "$id": "https://example.test/nested",
            "$defs": {"T": {"type": "integer"}},
            "allOf": [{"$ref": "#/$defs/T"}],
        }
    ),
    # test_allOf_single_ref_rejects_descendant_nested_id_owner_before_resolution
    "descendant": wrap(
        {
            "$id": "https://example.test/nested",
            "$defs": {"T": {"type": "integer"}},
            "type": "object",
            "properties": {"child": {"allOf": [{"$ref": "#/$defs/T"}]}},
        }
    ),
    # test_allOf_single_ref_rejects_promoted_nested_id_with_descendant_ref
    "promoted": {
        "$defs": {"T": {"type": "string"}},
        "contentSchema": {
            "$id": "https://example.test/nested",
            "$defs": {"T": {"type": "integer"}},
            "type": "object",
            "properties": {"value": {"$ref": "#/$defs/T"}},
        },
        "type": "object",
        "allOf": [{"$ref": "#/contentSchema"}],
    },
    # test_allOf_single_ref_rejects_target_below_nested_id_resource
    "target-below": {
        "$defs": {"T": {"type": "string"}},
        "contentSchema": {
            "$id": "https://example.test/nested",
            "$defs": {"T": {"type": "integer"}},
            "target": {"$ref": "#/$defs/T"},
        },
        "type": "object",
        "allOf": [{"$ref": "#/contentSchema/target"}],
    },
    # test_nested_ref_with_id_is_rejected_before_resolution
    "ref-with-id": wrap(
        {
            "$id": "https://example.test/nested",
            "$defs": {"T": {"type": "integer"}},
            "$ref": "#/$defs/T",
        }
    ),
}


@pytest.mark.parametrize("schema", NESTED_ID_CASES.values(), ids=NESTED_ID_CASES)
def test_nested_id_resources_are_refused(schema):
    schema.setdefault("$defs", {}).setdefault("T", {"type": "string"})
    with pytest.raises(ValueError, match=r"nested \$id"):
        to_strict(schema)


# test_allOf_single_ref_allows_id_as_schema_map_member_name (defs, components-schemas)
@pytest.mark.parametrize(
    ("container", "ref"),
    [
        ({"$defs": {"$id": {"type": "object", "properties": {}}}}, "#/$defs/$id"),
        (
            {"components": {"schemas": {"$id": {"type": "object", "properties": {}}}}},
            "#/components/schemas/$id",
        ),
    ],
    ids=["defs", "components-schemas"],
)
def test_a_definition_named_id_is_a_name_not_a_keyword(container, ref):
    assert to_strict({**container, "type": "object", "allOf": [{"$ref": ref}]}) == CLOSED_EMPTY


# test_ref_allows_unrelated_id_definition_name
def test_an_unrelated_definition_named_id_does_not_disturb_references():
    schema = {
        "$defs": {"$id": {"type": "integer"}, "T": {"type": "string"}},
        "type": "object",
        "properties": {"value": {"$ref": "#/$defs/T", "description": "value"}},
        "required": ["value"],
    }
    assert to_strict(schema)["properties"]["value"] == {"type": "string", "description": "value"}


# test_allOf_single_ref_entry_decodes_json_pointer_tokens (slash, tilde, replacement-order)
@pytest.mark.parametrize(
    ("definition_name", "ref_token"),
    [("a/b", "a~1b"), ("a~b", "a~0b"), ("a~1b", "a~01b")],
    ids=["slash", "tilde", "replacement-order"],
)
def test_json_pointer_escapes_are_decoded(definition_name, ref_token):
    schema = {
        "$defs": {definition_name: {"type": "object", "properties": {"value": {"type": "string"}}}},
        "type": "object",
        "allOf": [{"$ref": f"#/$defs/{ref_token}"}],
    }
    result = to_strict(schema)
    assert result["properties"] == {"value": {"type": ["string", "null"]}}
    assert result["required"] == ["value"]


# test_allOf_single_entry_cannot_overwrite_strict_object (true, schema)
@pytest.mark.parametrize("additional_properties", [True, {}], ids=["true", "schema"])
def test_all_of_cannot_open_an_object(additional_properties):
    schema = {
        "properties": {"a": {"type": "string"}},
        "allOf": [{"additionalProperties": additional_properties}],
    }
    with pytest.raises(ValueError, match="open map"):
        to_strict(schema)


# test_default_removal_on_non_object
def test_default_is_removed_from_a_scalar():
    assert strict_value({"type": "string", "default": None}) == {"type": "string"}


# test_ref_expansion
def test_reference_with_a_description_is_expanded_from_definitions():
    schema = {
        "definitions": {"refObj": {"type": "string", "default": None}},
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/refObj", "description": "desc"}},
        "required": ["a"],
    }
    assert to_strict(schema)["properties"]["a"] == {"type": "string", "description": "desc"}


# test_ref_no_expansion_when_alone
def test_top_level_reference_must_reach_an_object():
    # Ours refuses a root that is only a reference to nothing: the top must be an object.
    with pytest.raises(ValueError, match="points to nothing"):
        to_strict({"$ref": "#/definitions/refObj"})


# test_invalid_ref_format
def test_reference_outside_the_document_is_refused():
    schema = {"type": "object", "properties": {"a": {"$ref": "invalid", "description": "desc"}}}
    with pytest.raises(ValueError, match="only references inside this document"):
        to_strict(schema)


# test_chained_ref_with_sibling_keys_is_resolved
def test_chained_alias_with_a_description_is_resolved_to_the_type():
    schema = {
        "$defs": {"Inner": {"type": "string"}, "Outer": {"$ref": "#/$defs/Inner"}},
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/Outer", "description": "desc"}},
        "required": ["a"],
    }
    assert to_strict(schema)["properties"]["a"] == {"type": "string", "description": "desc"}


def reference_ladder(depth: int, sibling: str) -> dict:
    defs: dict = {
        f"L{i}": {
            "type": "object",
            "properties": {
                "a": {"$ref": f"#/$defs/L{i + 1}", sibling: "t"},
                "b": {"$ref": f"#/$defs/L{i + 1}", sibling: "t"},
            },
        }
        for i in range(depth)
    }
    defs[f"L{depth}"] = {"type": "string"}
    return {
        "$defs": defs,
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/L0", sibling: "t"}},
    }


# test_ref_expansion_bomb_is_rejected (with title siblings, and the same with descriptions)
@pytest.mark.parametrize("sibling", ["title", "description"])
def test_reference_ladder_is_refused_after_linear_work(sibling):
    schema = reference_ladder(30, sibling)
    converter = _Strictifier(schema)
    # Ours drops titles, so the ladder stays references (2 per level); it is refused anyway,
    # for going 30 levels deep. With descriptions each level would double: refused as well.
    with pytest.raises(ValueError, match="deep"):
        converter.run()
    assert converter.budget.spent <= converter.budget.limit


# test_ref_with_incompatible_sibling_is_rejected
def test_reference_beside_other_properties_merges_them():
    schema = {
        "$defs": {
            "T": {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}
        },
        "type": "object",
        "properties": {
            "node": {
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                "$ref": "#/$defs/T",
            }
        },
        "required": ["node"],
    }
    # Ours merges them: T is open, so the value must have "a" and "b", which is what this says.
    node = to_strict(schema)["properties"]["node"]
    assert node["properties"] == {"a": {"type": "string"}, "b": {"type": "string"}}
    assert set(node["required"]) == {"a", "b"}


# test_ref_with_incompatible_type_sibling_is_rejected,
# test_ref_with_single_all_of_sibling_is_rejected
@pytest.mark.parametrize(
    ("node", "defs"),
    [
        (
            {"type": "string", "$ref": "#/$defs/T"},
            {"T": {"type": "object", "properties": {"b": {"type": "string"}}}},
        ),
        (
            {"$ref": "#/$defs/A", "allOf": [{"$ref": "#/$defs/B"}]},
            {"A": {"type": "string"}, "B": {"type": "integer"}},
        ),
    ],
    ids=["type-sibling", "all-of-sibling"],
)
def test_reference_with_a_contradicting_sibling_is_refused(node, defs):
    schema = {**wrap(node, "node"), "$defs": defs}
    with pytest.raises(ValueError, match="no value can have type"):
        to_strict(schema)


# test_ref_with_validation_sibling_is_rejected
def test_reference_with_a_shape_neutral_constraint_beside_it():
    schema = {
        **wrap({"$ref": "#/$defs/T", "minLength": 1}, "node"),
        "$defs": {"T": {"type": "string"}},
    }
    # Ours keeps the reference's meaning and drops minLength, which strict mode cannot carry
    # (ToolRegistry.call still enforces it).
    assert to_strict(schema)["properties"]["node"] == {"$ref": "#/$defs/T"}


# test_ref_with_interacting_object_sibling_is_rejected
def test_closed_sibling_that_forbids_the_references_properties_is_refused():
    schema = {
        **wrap({"$ref": "#/$defs/T", "additionalProperties": False}, "node"),
        "$defs": {
            "T": {
                "type": "object",
                "properties": {"b": {"type": "string"}},
                "required": ["b"],
                "additionalProperties": False,
            }
        },
    }
    with pytest.raises(ValueError, match="allows only the properties"):
        to_strict(schema)


# test_ref_with_annotation_sibling_is_still_expanded
def test_reference_with_annotations_is_expanded_keeping_only_the_description():
    schema = {
        **wrap(
            {
                "contentMediaType": "application/json",
                "description": "a node",
                "title": "Node",
                "$ref": "#/$defs/T",
            },
            "node",
        ),
        "$defs": {
            "T": {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}
        },
    }
    # Ours drops title and contentMediaType: strict mode rejects keywords beyond its subset.
    assert to_strict(schema)["properties"]["node"] == {
        "type": "object",
        "properties": {"b": {"type": "string"}},
        "required": ["b"],
        "additionalProperties": False,
        "description": "a node",
    }


# test_ref_with_schema_metadata_is_still_expanded, test_root_ref_with_id_is_still_expanded
@pytest.mark.parametrize(
    "metadata",
    [
        {"$schema": "https://json-schema.org/draft/2020-12/schema"},
        {"$id": "https://example.test/root"},
    ],
    ids=["schema", "id"],
)
def test_top_level_reference_is_expanded_and_metadata_dropped(metadata):
    schema = {
        **metadata,
        "$defs": {"T": {"type": "object", "properties": {"value": {"type": "string"}}}},
        "$ref": "#/$defs/T",
    }
    # Ours drops $schema and $id: the result is one self-contained strict schema.
    assert to_strict(schema) == {
        "type": "object",
        "properties": {"value": {"type": ["string", "null"]}},
        "required": ["value"],
        "additionalProperties": False,
    }


# test_ref_with_anchor_is_still_expanded
def test_reference_with_an_anchor_is_kept_as_a_reference():
    schema = {**wrap({"$anchor": "value", "$ref": "#/$defs/T"}), "$defs": {"T": {"type": "string"}}}
    # Ours drops $anchor (nothing can point to it after conversion), leaving a plain reference.
    assert to_strict(schema)["properties"]["value"] == {"$ref": "#/$defs/T"}
