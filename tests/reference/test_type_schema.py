"""type_schema: one annotation to JSON Schema, one pitfall per test."""

from __future__ import annotations

import collections.abc as cabc
import dataclasses
import datetime as dt
import enum
import json
import pathlib
import typing
import uuid
from decimal import Decimal
from typing import Annotated, Any, Literal, Optional, Union

import annotated_types as at
import jsonschema
import pytest
import typing_extensions as te
from pydantic import BaseModel, Field, StringConstraints

from course_lib.reference import type_schema


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mode(str, enum.Enum):  # what enum.StrEnum (Python 3.11+) is made of
    FAST = "fast"
    SAFE = "safe"


def count_titles(node: Any) -> int:
    """Number of `title` keywords (not properties named title) anywhere in a schema."""
    if isinstance(node, list):
        return sum(count_titles(v) for v in node)
    if not isinstance(node, dict):
        return 0
    total = 0
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            total += 1
        elif key in ("properties", "$defs"):
            total += sum(count_titles(v) for v in value.values())
        elif key not in ("enum", "default", "const"):
            total += count_titles(value)
    return total


def valid(schema: dict, value: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (type(None), {"type": "null"}),
        (Any, {}),
        (dt.datetime, {"type": "string", "format": "date-time"}),
        (dt.date, {"type": "string", "format": "date"}),
        (dt.time, {"type": "string", "format": "time"}),
        (uuid.UUID, {"type": "string", "format": "uuid"}),
        (pathlib.Path, {"type": "string"}),
    ],
)
def test_scalars_map_to_their_json_type(annotation, expected):
    assert type_schema(annotation) == expected


def test_bool_is_boolean_never_integer():
    assert type_schema(bool) == {"type": "boolean"}
    assert not valid(type_schema(int), True)
    assert not valid(type_schema(bool), 1)


def test_decimal_is_a_string_of_digits_so_no_precision_is_lost():
    schema = type_schema(Decimal)
    assert schema["type"] == "string"
    assert valid(schema, "12.50") and valid(schema, "-3")
    assert not valid(schema, "12,50") and not valid(schema, 12.5)


def test_decimal_digits_are_ascii_only():
    # Python's Decimal reads "١٢" (Arabic-Indic digits) as 12, but a JSON Schema validator in
    # another language would not agree with a pattern using \d; the schema says [0-9].
    schema = type_schema(Decimal)
    assert not valid(schema, "١٢") and not valid(schema, "１２.５")
    assert valid(schema, "0.5")


def test_the_module_and_the_function_have_different_names():
    import importlib

    module = importlib.import_module("course_lib.reference.type_map")
    assert module.type_schema is type_schema
    assert callable(type_schema) and not isinstance(type_schema, type(module))


def test_list_and_sequence_have_items():
    assert type_schema(list[int]) == {"type": "array", "items": {"type": "integer"}}
    assert type_schema(cabc.Sequence[str]) == {"type": "array", "items": {"type": "string"}}
    assert type_schema(typing.List[bool]) == {"type": "array", "items": {"type": "boolean"}}  # noqa: UP006


def test_bare_containers_are_still_typed():
    assert type_schema(list) == {"type": "array"}
    assert type_schema(dict) == {"type": "object"}


@pytest.mark.parametrize(
    ("alias", "expected"),
    [
        (typing.List, {"type": "array"}),  # noqa: UP006
        (typing.Sequence, {"type": "array"}),
        (typing.MutableSequence, {"type": "array"}),
        (typing.Tuple, {"type": "array"}),  # noqa: UP006
        (typing.Set, {"type": "array", "uniqueItems": True}),  # noqa: UP006
        (typing.FrozenSet, {"type": "array", "uniqueItems": True}),  # noqa: UP006
        (typing.AbstractSet, {"type": "array", "uniqueItems": True}),
        (typing.Dict, {"type": "object"}),  # noqa: UP006
        (typing.Mapping, {"type": "object"}),
    ],
)
def test_bare_typing_aliases_hold_anything_like_the_bare_builtins(alias, expected):
    """typing.List has origin list and no args; it must not crash or read as an empty tuple."""
    assert type_schema(alias) == expected


def test_an_empty_tuple_is_still_an_array_of_length_zero():
    """Only the bare alias is 'a tuple of anything'; tuple[()] has the same origin and args."""
    empty = {"type": "array", "minItems": 0, "maxItems": 0}
    assert type_schema(tuple[()]) == empty
    assert type_schema(typing.Tuple[()]) == empty  # noqa: UP006
    assert valid(empty, []) and not valid(empty, [1])


def test_fixed_tuple_uses_prefix_items_and_length():
    assert type_schema(tuple[int, str]) == {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "minItems": 2,
        "maxItems": 2,
    }


def test_variadic_tuple_is_an_array_of_one_type():
    assert type_schema(tuple[float, ...]) == {"type": "array", "items": {"type": "number"}}


@pytest.mark.parametrize("container", [set, frozenset, cabc.Set])
def test_sets_are_arrays_of_unique_items(container):
    schema = type_schema(container[int])
    assert schema == {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}


def test_dict_with_str_keys_describes_its_values():
    assert type_schema(dict[str, float]) == {
        "type": "object",
        "additionalProperties": {"type": "number"},
    }


def test_dict_with_non_str_keys_is_refused_naming_the_key_type():
    with pytest.raises(TypeError, match=r"JSON object keys are always strings.*dict\[int"):
        type_schema(dict[int, str])


@pytest.mark.parametrize("annotation", [Optional[int], int | None, Union[int, None]])
def test_optional_spellings_all_become_a_type_list_with_null(annotation):
    assert type_schema(annotation) == {"type": ["integer", "null"]}


def test_optional_literal_adds_null_to_type_and_enum():
    schema = type_schema(Optional[Literal["a", "b"]])
    assert schema == {"type": ["string", "null"], "enum": ["a", "b", None]}
    assert type_schema(Literal["a", "b", None]) == schema


def test_optional_scalar_keeps_its_constraints_beside_the_type_list():
    schema = type_schema(Optional[Annotated[int, Field(ge=0)]])
    assert schema == {"type": ["integer", "null"], "minimum": 0}
    assert type_schema(Optional[dt.date]) == {"type": ["string", "null"], "format": "date"}


def test_optional_containers_and_classes_stay_anyof_with_null():
    assert type_schema(Optional[list[str]]) == {
        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]
    }
    branches = type_schema(Optional[Point])["anyOf"]
    assert branches[-1] == {"type": "null"} and len(branches) == 2


def test_a_described_member_stays_a_branch_of_its_own():
    schema = type_schema(Union[Annotated[int, "a count"], str])
    assert schema == {"anyOf": [{"type": "integer", "description": "a count"}, {"type": "string"}]}


def test_pydantic_model_unions_use_the_same_short_form():
    class Contact(BaseModel):
        name: str
        email: Optional[str] = None

    schema = type_schema(Contact)
    assert schema["properties"]["email"] == {"type": ["string", "null"], "default": None}


def test_null_is_never_encoded_as_openapi_nullable():
    assert "nullable" not in json.dumps(type_schema(Optional[list[str]]))


def test_union_keeps_every_member():
    assert type_schema(Union[int, str]) == {"type": ["integer", "string"]}
    assert type_schema(int | str | None) == {"type": ["integer", "string", "null"]}
    mixed = type_schema(Union[int, list[int]])
    assert mixed == {
        "anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]
    }


def test_union_with_any_is_any():
    assert type_schema(Union[int, Any]) == {}


def test_literal_is_a_typed_enum():
    assert type_schema(Literal["c", "f"]) == {"type": "string", "enum": ["c", "f"]}
    assert type_schema(Literal[1, 2]) == {"type": "integer", "enum": [1, 2]}


def test_literal_of_mixed_types_lists_each_type():
    assert type_schema(Literal["a", 1, None]) == {
        "type": ["string", "integer", "null"],
        "enum": ["a", 1, None],
    }


def test_literal_true_is_boolean_not_integer():
    assert type_schema(Literal[True]) == {"type": "boolean", "enum": [True]}


@pytest.mark.parametrize(
    ("cls", "expected"),
    [
        (Color, {"type": "string", "enum": ["red", "green"]}),
        (Level, {"type": "integer", "enum": [1, 2]}),
        (Mode, {"type": "string", "enum": ["fast", "safe"]}),
    ],
)
def test_enum_classes_become_enums_of_their_values(cls, expected):
    assert type_schema(cls) == expected


def test_enum_with_non_json_values_is_refused():
    class Odd(enum.Enum):
        A = (1, 2)

    with pytest.raises(TypeError, match="Enum Odd.*not a JSON"):
        type_schema(Odd)


def test_an_enum_without_members_is_refused_by_name():
    """No members means no valid value: an empty "enum" list would be a tool nobody can call."""

    class Nothing(enum.Enum):
        pass

    with pytest.raises(TypeError, match="Enum Nothing.*no members"):
        type_schema(Nothing)


class Movie(te.TypedDict):
    """A film."""

    title: str
    year: te.NotRequired[int]


class Partial(te.TypedDict, total=False):
    a: int
    b: te.Required[str]


def test_typeddict_marks_not_required_keys():
    assert type_schema(Movie) == {
        "type": "object",
        "description": "A film.",
        "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
        "required": ["title"],
        "additionalProperties": False,
    }


def test_total_false_typeddict_honours_required():
    assert type_schema(Partial)["required"] == ["b"]


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0
    tags: list[str] = dataclasses.field(default_factory=list)


def test_dataclass_fields_with_defaults_are_optional():
    schema = type_schema(Point)
    assert schema["required"] == ["x"]
    assert schema["properties"]["y"] == {"type": "number", "default": 0.0}
    assert "description" not in schema  # the generated "Point(x: float, ...)" doc is not a text
    assert schema["additionalProperties"] is False


class Address(BaseModel):
    """Where someone lives."""

    title: str = Field(description="Mr, Ms, ...")
    city: str


class Person(BaseModel):
    name: str
    home: Address
    friends: list[Person] = []


def test_pydantic_models_have_no_title_noise_but_keep_title_properties():
    schema = type_schema(Person)
    assert count_titles(schema) == 0
    text = json.dumps(schema)
    assert '"title": {"description": "Mr, Ms, ..."' in text.replace('"type": "string", ', "")


def test_recursive_model_uses_defs_and_refs():
    schema = type_schema(Person)
    assert schema["$ref"] == "#/$defs/Person"
    person = schema["$defs"]["Person"]
    assert person["properties"]["friends"]["items"] == {"$ref": "#/$defs/Person"}
    jsonschema.Draft202012Validator.check_schema(schema)
    alice = {"name": "Alice", "home": {"title": "Ms", "city": "北京"}, "friends": []}
    assert valid(schema, {**alice, "friends": [alice]})
    assert not valid(schema, {**alice, "friends": [{"name": 3}]})


def test_single_use_class_is_inlined_to_keep_the_schema_small():
    schema = type_schema(Address)
    assert "$ref" not in json.dumps(schema)
    assert schema["properties"]["city"] == {"type": "string"}


def test_class_used_twice_stays_in_defs():
    schema = type_schema(tuple[Point, Point])
    assert schema["prefixItems"] == [{"$ref": "#/$defs/Point"}] * 2
    assert set(schema["$defs"]) == {"Point"}


def test_two_classes_with_one_name_do_not_overwrite_each_other():
    def make(field_type):
        return dataclasses.make_dataclass("Item", [("value", field_type)])

    first, second = make(int), make(str)
    schema = type_schema(tuple[first, first, second, second])
    assert sorted(schema["$defs"]) == ["Item", "Item2"]
    assert valid(schema, [{"value": 1}, {"value": 2}, {"value": "a"}, {"value": "b"}])
    assert not valid(schema, [{"value": 1}, {"value": 2}, {"value": 3}, {"value": "b"}])


def test_annotated_string_is_a_description():
    assert type_schema(Annotated[str, "City name"]) == {
        "type": "string",
        "description": "City name",
    }


def test_annotated_field_brings_description_and_constraints():
    schema = type_schema(Annotated[int, Field(ge=1, lt=10, description="How many")])
    assert schema == {
        "type": "integer",
        "minimum": 1,
        "exclusiveMaximum": 10,
        "description": "How many",
    }


def test_annotated_types_constraints_map_to_keywords():
    assert type_schema(Annotated[float, at.Gt(0), at.Le(1)]) == {
        "type": "number",
        "exclusiveMinimum": 0,
        "maximum": 1,
    }
    assert type_schema(Annotated[str, at.MinLen(2), at.MaxLen(5)]) == {
        "type": "string",
        "minLength": 2,
        "maxLength": 5,
    }
    assert type_schema(Annotated[list[int], at.Len(1, 3)]) == {
        "type": "array",
        "items": {"type": "integer"},
        "minItems": 1,
        "maxItems": 3,
    }


def test_pattern_from_field_and_string_constraints():
    assert type_schema(Annotated[str, Field(pattern=r"^\d+$")])["pattern"] == r"^\d+$"
    schema = type_schema(Annotated[str, StringConstraints(pattern=r"^[a-z]+$", max_length=8)])
    assert schema["pattern"] == r"^[a-z]+$" and schema["maxLength"] == 8


def test_unsupported_type_names_the_type():
    with pytest.raises(TypeError, match="unsupported type bytes"):
        type_schema(bytes)
    with pytest.raises(TypeError, match="unsupported type"):
        type_schema(typing.Callable[[int], int])


def test_unresolved_string_annotation_names_the_reference():
    with pytest.raises(TypeError, match="unresolved forward reference 'Missing'"):
        type_schema("Missing")


def test_type_var_is_refused():
    with pytest.raises(TypeError, match="unsupported type ~T"):
        type_schema(typing.TypeVar("T"))


def test_shared_defs_dict_collects_definitions_across_calls():
    defs: dict = {}
    first = type_schema(Point, defs)
    second = type_schema(list[Point], defs)
    assert first == {"$ref": "#/$defs/Point"}
    assert second == {"type": "array", "items": {"$ref": "#/$defs/Point"}}
    assert list(defs) == ["Point"]


def test_every_schema_here_is_valid_json_schema():
    for annotation in [Person, Movie, Point, tuple[int, str], dict[str, list[Color]], Literal[1]]:
        jsonschema.Draft202012Validator.check_schema(type_schema(annotation))
