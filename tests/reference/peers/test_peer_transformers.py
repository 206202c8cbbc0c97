"""transformers' tests of ``get_json_schema``, translated to ``course_lib.reference``.

Peer: huggingface/transformers, ``tests/utils/test_chat_template_utils.py``, class
``JsonSchemaGeneratorTest``. Every case there is about the same job (a function becomes a tool
schema), so every case is translated; each test names the case it comes from. Where our
convention differs on purpose, the test asserts ours and says why in one line. Conventions that
apply to every case here: our objects are closed (``additionalProperties: false``, so a model
cannot invent arguments), defaults are emitted, and null is JSON Schema's ``"null"`` type (not
OpenAPI's ``nullable``, which JSON Schema validators ignore).
"""

from __future__ import annotations

from typing import Literal

import pytest

from course_lib.reference import ToolRegistry, function_to_tool, parameters_schema

PEER = "huggingface/transformers tests/utils/test_chat_template_utils.py"


def params(func) -> dict:
    return function_to_tool(func)["function"]["parameters"]


def closed(properties: dict, required: list[str] | None = None) -> dict:
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


# test_simple_function
def test_simple_function_becomes_a_tool_with_its_docstring_texts():
    def fn(x: int):
        """
        Test function

        Args:
             x: The input
        """
        return x

    assert function_to_tool(fn)["function"] == {
        "name": "fn",
        "description": "Test function",
        "parameters": closed({"x": {"type": "integer", "description": "The input"}}, ["x"]),
    }


# test_no_arguments
def test_function_without_arguments_has_empty_properties_and_no_required_list():
    def fn():
        """
        Test function
        """
        return True

    # Ours leaves out an empty "required": it says nothing its absence does not.
    assert function_to_tool(fn)["function"]["parameters"] == closed({})


# test_bare_container_types
def test_bare_list_tuple_and_dict_hold_anything_but_cannot_be_strict():
    def fn(x: list, y: tuple, z: dict):
        """
        Test function

        Args:
            x: The first input
            y: The second input
            z: The third input
        """
        return x

    assert params(fn)["properties"] == {
        "x": {"type": "array", "description": "The first input"},
        "y": {"type": "array", "description": "The second input"},
        "z": {"type": "object", "description": "The third input"},
    }
    # Ours also offers strict mode, which needs items and fixed keys: refused, naming the place.
    with pytest.raises(ValueError, match=r"fn\(\).*parameters\.x: .*what an array holds"):
        function_to_tool(fn, strict=True)


# test_union
def test_union_of_plain_types_is_a_type_list():
    def fn(x: int | float):
        """
        Test function

        Args:
            x: The input
        """
        return x

    assert params(fn)["properties"]["x"] == {
        "type": ["integer", "number"],
        "description": "The input",
    }


# test_union_with_duplicate_types
def test_union_members_with_the_same_json_type_appear_once():
    def fn(x: list | tuple, y: list | tuple | dict | None = None):
        """
        Test function

        Args:
            x: The first input
            y: The second input
        """
        return x

    props = params(fn)["properties"]
    assert props["x"] == {"type": "array", "description": "The first input"}
    # Ours writes null as a JSON type (theirs: OpenAPI's "nullable") and shows the default.
    assert props["y"] == {
        "type": ["array", "object", "null"],
        "default": None,
        "description": "The second input",
    }
    assert params(fn)["required"] == ["x"]


# test_optional
def test_optional_without_default_is_nullable_and_still_required():
    def fn(x: int | None):
        """
        Test function

        Args:
            x: The input
        """
        return x

    schema = params(fn)
    assert schema["properties"]["x"] == {"type": ["integer", "null"], "description": "The input"}
    assert schema["required"] == ["x"]


# test_default_arg
def test_parameter_with_default_is_optional_and_shows_its_default():
    def fn(x: int = 42):
        """
        Test function

        Args:
             x: The input
        """
        return x

    # Ours emits the default: the model reads what leaving the argument out means.
    assert params(fn) == closed(
        {"x": {"type": "integer", "default": 42, "description": "The input"}}
    )


# test_nested_list
def test_nested_lists_say_what_they_hold_at_every_level():
    def fn(x: list[list[str | int]]):
        """
        Test function

        Args:
            x: The input
        """
        return x

    # Ours keeps the annotation's order of union members (theirs sorts them).
    assert params(fn)["properties"]["x"] == {
        "type": "array",
        "items": {"type": "array", "items": {"type": ["string", "integer"]}},
        "description": "The input",
    }


# test_multiple_arguments
def test_every_argument_gets_its_own_description():
    def fn(x: int, y: str):
        """
        Test function

        Args:
            x: The input
            y: Also the input
        """
        return x

    assert params(fn) == closed(
        {
            "x": {"type": "integer", "description": "The input"},
            "y": {"type": "string", "description": "Also the input"},
        },
        ["x", "y"],
    )


# test_multiple_complex_arguments
def test_list_of_union_and_optional_union_with_default():
    def fn(x: list[int | float], y: int | str | None = None):
        """
        Test function

        Args:
            x: The input
            y: Also the input
        """
        return x

    assert params(fn) == closed(
        {
            "x": {
                "type": "array",
                "items": {"type": ["integer", "number"]},
                "description": "The input",
            },
            "y": {
                "type": ["integer", "string", "null"],
                "default": None,
                "description": "Also the input",
            },
        },
        ["x"],
    )


# test_union_of_complex_types
def test_union_with_a_container_or_an_enum_is_any_of():
    def fn(x: str | list[str], y: Literal["a", "b"] | int | None = None):
        """
        Test function

        Args:
            x: The input
            y: Also the input
        """
        return x

    props = params(fn)["properties"]
    assert props["x"] == {
        "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
        "description": "The input",
    }
    assert props["y"] == {
        "anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "integer"}, {"type": "null"}],
        "default": None,
        "description": "Also the input",
    }


# test_missing_docstring
def test_missing_docstring_gives_a_tool_without_description():
    def fn(x: int):
        return x

    # Ours accepts it (a description is optional in every provider's format); theirs raises.
    assert function_to_tool(fn)["function"] == {
        "name": "fn",
        "parameters": closed({"x": {"type": "integer"}}, ["x"]),
    }


# test_missing_param_docstring
def test_undocumented_parameter_has_no_description():
    def fn(x: int):
        """
        Test function
        """
        return x

    # Ours accepts it: the type alone is a valid schema; theirs raises.
    assert params(fn)["properties"]["x"] == {"type": "integer"}


# test_missing_type_hint
def test_missing_type_hint_is_refused_naming_the_parameter():
    def fn(x):
        """
        Test function

        Args:
             x: The input
        """
        return x

    with pytest.raises(TypeError, match=r"fn\(\): parameter 'x' has no type annotation"):
        function_to_tool(fn)


# test_return_value
def test_return_annotation_is_not_part_of_the_tool():
    def fn(x: int) -> int:
        """
        Test function

        Args:
            x: The input
        """
        return x

    # Ours has no "return" key: no provider's tool format carries one.
    assert set(function_to_tool(fn)["function"]) == {"name", "description", "parameters"}


# test_return_value_docstring
def test_returns_section_stays_out_of_the_description():
    def fn(x: int) -> int:
        """
        Test function

        Args:
            x: The input


        Returns:
            The output
        """
        return x

    function = function_to_tool(fn)["function"]
    assert function["description"] == "Test function"
    assert "return" not in function  # ours: see test_return_value


# test_tuple
def test_fixed_tuple_has_one_schema_per_position():
    def fn(x: tuple[int, str]):
        """
        Test function

        Args:
            x: The input


        Returns:
            The output
        """
        return x

    # Ours also fixes the length (minItems/maxItems): prefixItems alone allows more items.
    assert params(fn)["properties"]["x"] == {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "minItems": 2,
        "maxItems": 2,
        "description": "The input",
    }


# test_single_element_tuple_fails
def test_single_element_tuple_is_a_one_item_array():
    def fn(x: tuple[int]):
        """
        Test function

        Args:
            x: The input
        """
        return x

    # Ours accepts it (it is a valid type with a precise schema); theirs refuses it.
    assert params(fn)["properties"]["x"] == {
        "type": "array",
        "prefixItems": [{"type": "integer"}],
        "minItems": 1,
        "maxItems": 1,
        "description": "The input",
    }


# test_ellipsis_type_fails
def test_variable_length_tuple_is_an_array_of_its_item_type():
    def fn(x: tuple[int, ...]):
        """
        Test function

        Args:
            x: The input
        """
        return x

    # Ours accepts it: tuple[int, ...] means exactly list[int] in JSON; theirs refuses it.
    assert params(fn)["properties"]["x"] == {
        "type": "array",
        "items": {"type": "integer"},
        "description": "The input",
    }


# test_enum_extraction
def test_choices_written_in_the_docstring_stay_text():
    def fn(temperature_format: str):
        """
        Test function

        Args:
            temperature_format: The temperature format to use (Choices: ["celsius", "fahrenheit"])
        """
        return -40.0

    # Ours takes enums from annotations (Literal, Enum), never from prose a typo could change.
    assert params(fn)["properties"]["temperature_format"] == {
        "type": "string",
        "description": 'The temperature format to use (Choices: ["celsius", "fahrenheit"])',
    }


# test_enum_extraction_non_string_choices
def test_non_string_choices_come_from_literal_annotations():
    def fn(rating: Literal[1, 2, 3], enabled: Literal[True, False]):
        """
        Test function

        Args:
            rating: The rating to give
            enabled: Whether it is enabled
        """
        return -40.0

    # Ours: the same enums, written as Literal (see test_enum_extraction for why).
    props = params(fn)["properties"]
    assert props["rating"] == {
        "type": "integer",
        "enum": [1, 2, 3],
        "description": "The rating to give",
    }
    assert props["enabled"] == {
        "type": "boolean",
        "enum": [True, False],
        "description": "Whether it is enabled",
    }


# test_literal
def test_literal_of_mixed_types_lists_each_type_once():
    def fn(
        temperature_format: Literal["celsius", "fahrenheit"],
        booleanish: Literal[True, False, 0, 1, "y", "n"] = False,
    ):
        """
        Test function

        Args:
            temperature_format: The temperature format to use
            booleanish: A value that can be regarded as boolean
        """
        return -40.0

    schema = params(fn)
    assert schema["properties"]["temperature_format"] == {
        "type": "string",
        "enum": ["celsius", "fahrenheit"],
        "description": "The temperature format to use",
    }
    assert schema["properties"]["booleanish"] == {
        "type": ["boolean", "integer", "string"],
        "enum": [True, False, 0, 1, "y", "n"],
        "default": False,
        "description": "A value that can be regarded as boolean",
    }
    assert schema["required"] == ["temperature_format"]


# test_multiline_docstring_with_types
def test_wrapped_parameter_description_is_joined_onto_one_line():
    def fn(x: int, y: int):
        """
        Test function

        Args:
            x: The first input

            y: The second input. This is a longer description
               that spans multiple lines with indentation and stuff.

        Returns:
            God knows what
        """

    schema = function_to_tool(fn)["function"]
    assert schema["description"] == "Test function"
    assert schema["parameters"]["properties"]["y"]["description"] == (
        "The second input. This is a longer description that spans multiple lines with "
        "indentation and stuff."
    )


# test_return_none
def test_none_return_adds_nothing():
    def fn(x: int) -> None:
        """
        Test function

        Args:
            x: The first input
        """

    assert function_to_tool(fn)["function"] == {
        "name": "fn",
        "description": "Test function",
        "parameters": closed({"x": {"type": "integer", "description": "The first input"}}, ["x"]),
    }


class _InstanceTool:
    def fn(self, x: int):
        """
        Test function

        Args:
            x: The input
        """
        return x


# test_instance_method
def test_bound_method_works_and_unbound_one_is_refused_with_advice():
    expected = closed({"x": {"type": "integer", "description": "The input"}}, ["x"])
    assert params(_InstanceTool().fn) == expected
    # Ours refuses the unbound method: the registry could not call it without an instance.
    with pytest.raises(TypeError, match=r"register the bound method instead \(an_instance\.fn\)"):
        parameters_schema(_InstanceTool.fn)


class _StaticTool:
    @staticmethod
    def fn(x: int):
        """
        Test function

        Args:
            x: The input
        """
        return x


# test_static_method
def test_static_method_from_the_class_or_an_instance():
    expected = closed({"x": {"type": "integer", "description": "The input"}}, ["x"])
    assert params(_StaticTool.fn) == expected
    assert params(_StaticTool().fn) == expected


class _ClassTool:
    @classmethod
    def fn(cls, x: int):
        """
        Test function

        Args:
            x: The input
        """
        return x


# test_class_method
def test_class_method_from_the_class_or_an_instance_and_it_can_be_called():
    expected = closed({"x": {"type": "integer", "description": "The input"}}, ["x"])
    assert params(_ClassTool.fn) == expected
    assert params(_ClassTool().fn) == expected
    registry = ToolRegistry()
    registry.tool(_ClassTool.fn)
    assert registry.call("fn", {"x": 3}) == "3"


# test_everything_all_at_once
def test_everything_at_once():
    def fn(x: str, y: list[str | int] | None, z: tuple[str | int, str] = (42, "hello")):
        """
        Test function with multiple args, and docstring args that we have to strip out.

        Args:
            x: The first input. It's got a big multiline
               description and also contains
               (choices: ["a", "b", "c"])

            y: The second input. It's a big list with a single-line description.

            z: The third input. It's some kind of tuple with a default arg.

        Returns:
            The output. The return description is also a big multiline
            description that spans multiple lines.
        """

    function = function_to_tool(fn)["function"]
    assert function["description"] == (
        "Test function with multiple args, and docstring args that we have to strip out."
    )
    # Ours: the choices stay text (test_enum_extraction), null is a type, defaults are shown.
    assert function["parameters"] == closed(
        {
            "x": {
                "type": "string",
                "description": "The first input. It's got a big multiline description and "
                'also contains (choices: ["a", "b", "c"])',
            },
            "y": {
                "anyOf": [
                    {"type": "array", "items": {"type": ["string", "integer"]}},
                    {"type": "null"},
                ],
                "description": "The second input. It's a big list with a single-line description.",
            },
            "z": {
                "type": "array",
                "prefixItems": [{"type": ["string", "integer"]}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
                "default": [42, "hello"],
                "description": "The third input. It's some kind of tuple with a default arg.",
            },
        },
        ["x", "y"],
    )
