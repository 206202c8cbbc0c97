"""langchain-core's function-calling tests, translated to ``course_lib.reference``.

Peer: langchain-ai/langchain, ``libs/core/tests/unit_tests/utils/test_function_calling.py``.
Translated: every case about turning a function (or the types of its parameters) into a tool
schema, strict mode, format conversion and Google docstrings. Left out, as a different job:
langchain's own objects as input (``BaseTool``, ``StructuredTool``, runnables, Bedrock and
JSON-schema dicts with a ``title``), ``tool_example_to_messages`` (few-shot message building)
and built-in tool passthrough. Each test names the case it comes from; where our convention
differs on purpose, the test asserts ours and says why in one line.
"""

import copy
import json
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from typing import Annotated, Any, Literal

import pytest
import typing_extensions as te
from pydantic import BaseModel, ConfigDict, Field

from course_lib.reference import (
    ToolRegistry,
    convert_tool,
    function_to_tool,
    parameters_schema,
    to_strict,
)
from course_lib.reference.docstrings import parse_docstring

PEER = "langchain-ai/langchain libs/core/tests/unit_tests/utils/test_function_calling.py"

EXPECTED_PARAMETERS = {
    "type": "object",
    "properties": {
        "arg1": {"type": "integer", "description": "foo"},
        "arg2": {"type": "string", "enum": ["bar", "baz"], "description": "one of 'bar', 'baz'"},
    },
    "required": ["arg1", "arg2"],
    "additionalProperties": False,  # ours: closed, so a model cannot invent arguments
}
EXPECTED = {
    "name": "dummy_function",
    "description": "Dummy function.",
    "parameters": EXPECTED_PARAMETERS,
}


def dummy_function(arg1: int, arg2: Literal["bar", "baz"]) -> None:
    """Dummy function.

    Args:
        arg1: foo
        arg2: one of 'bar', 'baz'
    """


class Dummy:
    def dummy_function(self, arg1: int, arg2: Literal["bar", "baz"]) -> None:
        """Dummy function.

        Args:
            arg1: foo
            arg2: one of 'bar', 'baz'
        """


class DummyWithClassMethod:
    @classmethod
    def dummy_function(cls, arg1: int, arg2: Literal["bar", "baz"]) -> None:
        """Dummy function.

        Args:
            arg1: foo
            arg2: one of 'bar', 'baz'
        """


# test_convert_to_openai_function: the `function` and `function_docstring_annotations` fixtures
def test_function_with_google_docstring():
    assert function_to_tool(dummy_function)["function"] == EXPECTED


# test_convert_to_openai_function: the `annotated_function` fixture
def test_annotated_descriptions_without_docstring_sections():
    def dummy_function(
        arg1: Annotated[int, "foo"],
        arg2: Annotated[Literal["bar", "baz"], "one of 'bar', 'baz'"],
    ) -> None:
        """Dummy function."""

    assert function_to_tool(dummy_function)["function"] == EXPECTED


# test_convert_to_openai_function: `DummyWithClassMethod.dummy_function`
def test_classmethod_taken_from_its_class():
    assert function_to_tool(DummyWithClassMethod.dummy_function)["function"] == EXPECTED


# test_convert_to_openai_function: `Dummy.dummy_function`
def test_unbound_method_is_refused_and_the_bound_one_converts():
    # Ours refuses it: a registry calling it would have no instance to pass as self.
    with pytest.raises(TypeError, match="bound method"):
        function_to_tool(Dummy.dummy_function)
    assert function_to_tool(Dummy().dummy_function)["function"] == EXPECTED


# test_convert_to_openai_function: the `anthropic_tool` fixture
def test_anthropic_format_carries_the_same_schema_as_input_schema():
    tool = convert_tool(function_to_tool(dummy_function), "anthropic")
    assert tool == {
        "name": "dummy_function",
        "description": "Dummy function.",
        "input_schema": EXPECTED_PARAMETERS,
    }


class DummyModel(BaseModel):
    """Dummy function."""

    arg1: int = Field(..., description="foo")
    arg2: Literal["bar", "baz"] = Field(..., description="one of 'bar', 'baz'")


# test_convert_to_openai_function: the `pydantic` / `dummy_pydantic` fixtures
def test_pydantic_model_as_a_parameter_keeps_field_descriptions():
    # Ours converts functions; a model becomes the schema of a parameter (titles left out).
    def use(model: DummyModel) -> None:
        """Use it."""

    # A model's schema is what pydantic validates: it ignores extra keys, so none is closed.
    assert parameters_schema(use)["properties"]["model"] == {
        "type": "object",
        "description": "Dummy function.",
        "properties": EXPECTED_PARAMETERS["properties"],
        "required": ["arg1", "arg2"],
    }


class DocumentedArgs(te.TypedDict):
    """Dummy function.

    Args:
        arg1: foo
        arg2: one of 'bar', 'baz'
    """

    arg1: int
    arg2: Literal["bar", "baz"]


class AnnotatedArgs(te.TypedDict):
    """Dummy function."""

    arg1: Annotated[int, ..., "foo"]
    arg2: Annotated[Literal["bar", "baz"], ..., "one of 'bar', 'baz'"]


# test_convert_to_openai_function: the `dummy_*_typed_dict` and `*_typed_dict_docstring` fixtures
@pytest.mark.parametrize("typed_dict", [DocumentedArgs, AnnotatedArgs])
def test_typed_dict_class_docstring_and_annotations_describe_its_fields(typed_dict):
    def use(args: typed_dict) -> None:  # type: ignore[valid-type]
        """Use it."""

    assert parameters_schema(use)["properties"]["args"] == {
        "type": "object",
        "description": "Dummy function.",
        "properties": EXPECTED_PARAMETERS["properties"],
        "required": ["arg1", "arg2"],
        "additionalProperties": False,
    }


class Nested(BaseModel):
    nested_arg1: int = Field(..., description="foo")
    nested_arg2: Literal["bar", "baz"] = Field(..., description="one of 'bar', 'baz'")


NESTED = {
    "type": "object",
    "properties": {
        "nested_arg1": {"type": "integer", "description": "foo"},
        "nested_arg2": {
            "type": "string",
            "enum": ["bar", "baz"],
            "description": "one of 'bar', 'baz'",
        },
    },
    "required": ["nested_arg1", "nested_arg2"],
    "additionalProperties": False,
}


def my_function(arg1: Nested) -> None:
    """Dummy function."""


# test_convert_to_openai_function_nested (and the xfail'ed test_..._nested_v2)
def test_nested_model_is_inlined_and_fully_described():
    # A model's schema is what pydantic validates: it ignores extra keys, so it is not closed.
    open_nested = {k: v for k, v in NESTED.items() if k != "additionalProperties"}
    assert function_to_tool(my_function)["function"] == {
        "name": "my_function",
        "description": "Dummy function.",
        "parameters": {
            "type": "object",
            "properties": {"arg1": open_nested},
            "required": ["arg1"],
            "additionalProperties": False,
        },
    }


# test_convert_to_openai_function_nested_strict
def test_nested_model_in_strict_mode():
    assert function_to_tool(my_function, strict=True)["function"] == {
        "name": "my_function",
        "description": "Dummy function.",
        "parameters": {
            "type": "object",
            "properties": {"arg1": NESTED},
            "required": ["arg1"],
            "additionalProperties": False,
        },
        "strict": True,
    }


class NestedA(BaseModel):
    foo: str


class NestedB(BaseModel):
    bar: int


class NestedC(BaseModel):
    baz: bool


# test_convert_to_openai_function_strict_union_of_objects_arg_type
def test_union_of_models_in_strict_mode_is_any_of_closed_objects():
    def my_function(my_arg: NestedA | NestedB | NestedC) -> None:
        """Dummy function."""

    def closed(name: str, json_type: str) -> dict:
        return {
            "type": "object",
            "properties": {name: {"type": json_type}},
            "required": [name],
            "additionalProperties": False,
        }

    # Ours leaves pydantic's "title" keywords out: noise the model pays for in tokens.
    parameters = function_to_tool(my_function, strict=True)["function"]["parameters"]
    assert parameters["properties"]["my_arg"] == {
        "anyOf": [closed("foo", "string"), closed("bar", "integer"), closed("baz", "boolean")]
    }


# test_convert_to_openai_function_no_description
def test_tool_without_description_has_no_description_key_in_any_format():
    def dummy_function(arg1: int, arg2: Literal["bar", "baz"]) -> None:
        pass

    tool = function_to_tool(dummy_function)
    assert "description" not in tool["function"]
    for format in ("responses", "anthropic", "gemini"):
        assert "description" not in convert_tool(tool, format)


# test_convert_to_openai_function_no_description_no_params
def test_tool_without_description_and_parameters():
    def dummy_function() -> None:
        pass

    assert function_to_tool(dummy_function)["function"] == {
        "name": "dummy_function",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    }


# test_function_optional_param (xfail there)
def test_nullable_parameters_without_defaults_stay_required():
    def func5(a: str | None, b: str, c: list[str | None] | None) -> None:
        """A test function."""

    # Ours: required means "has no default"; a nullable type does not make it optional.
    assert parameters_schema(func5)["required"] == ["a", "b", "c"]


# test_function_no_params
def test_function_without_parameters_has_no_required_list():
    def nullary_function() -> None:
        """Nullary function."""

    assert not parameters_schema(nullary_function).get("required")


class SubTool(te.TypedDict):
    """Subtool docstring."""

    args: Annotated[dict[str, Any], {}, "this does bar"]


class Tool(te.TypedDict):
    """Docstring.

    Args:
        arg1: foo
    """

    arg1: str
    arg2: int | str | bool
    arg3: list[SubTool] | None
    arg4: Annotated[Literal["bar", "baz"], ..., "this does foo"]
    arg5: Annotated[float | None, None]
    arg7: Annotated[list[SubTool], ...]
    arg8: Annotated[tuple[SubTool], ...]
    arg9: Annotated[Sequence[SubTool], ...]
    arg12: Annotated[dict[str, SubTool], ...]
    arg13: Annotated[Mapping[str, SubTool], ...]
    arg14: Annotated[MutableMapping[str, SubTool], ...]
    arg15: Annotated[bool, False, "flag"]


def _tool_fields() -> tuple[dict, dict]:
    def use(tool: Tool) -> None:
        """Use it."""

    schema = parameters_schema(use)
    return schema["properties"]["tool"], schema["$defs"]


SUB_TOOL_REF = {"$ref": "#/$defs/SubTool"}


# test__convert_typed_dict_to_openai_function: SubTool (unhashable {} metadata, class docstring)
def test_typed_dict_with_unhashable_annotated_metadata_and_a_docstring():
    _, defs = _tool_fields()
    assert defs["SubTool"] == {
        "type": "object",
        "description": "Subtool docstring.",
        "properties": {"args": {"type": "object", "description": "this does bar"}},
        "required": ["args"],
        "additionalProperties": False,
    }


# test__convert_typed_dict_to_openai_function: arg1 to arg4 and the class docstring
def test_typed_dict_fields_scalars_unions_and_descriptions():
    tool, _ = _tool_fields()
    props = tool["properties"]
    assert tool["description"] == "Docstring."
    assert props["arg1"] == {"type": "string", "description": "foo"}
    # Ours writes a union of plain types as a type list: the same set, fewer tokens.
    assert props["arg2"] == {"type": ["integer", "string", "boolean"]}
    assert props["arg3"] == {"anyOf": [{"type": "array", "items": SUB_TOOL_REF}, {"type": "null"}]}
    assert props["arg4"] == {
        "type": "string",
        "enum": ["bar", "baz"],
        "description": "this does foo",
    }


# test__convert_typed_dict_to_openai_function: arg5, arg15 (their `Annotated[T, default, text]`)
def test_positional_annotated_metadata_is_not_a_default():
    tool, _ = _tool_fields()
    # Ours: defaults come from the signature or Field(default=...); a bare value in Annotated
    # is unknown metadata (the TypedDict has no default, so pydantic requires the key too).
    assert tool["properties"]["arg5"] == {"type": ["number", "null"]}
    assert tool["properties"]["arg15"] == {"type": "boolean", "description": "flag"}
    assert {"arg5", "arg15"} <= set(tool["required"])


# test__convert_typed_dict_to_openai_function: arg7 to arg9 (list, tuple, Sequence)
def test_typed_dict_fields_of_sequences_of_a_typed_dict():
    tool, _ = _tool_fields()
    props = tool["properties"]
    assert props["arg7"] == props["arg9"] == {"type": "array", "items": SUB_TOOL_REF}
    # Ours writes tuples as 2020-12 prefixItems (theirs: the old draft's items list).
    assert props["arg8"] == {
        "type": "array",
        "prefixItems": [SUB_TOOL_REF],
        "minItems": 1,
        "maxItems": 1,
    }


# test__convert_typed_dict_to_openai_function: arg12 to arg14 (dict, Mapping, MutableMapping)
def test_typed_dict_fields_of_mappings_to_a_typed_dict():
    tool, _ = _tool_fields()
    for name in ("arg12", "arg13", "arg14"):
        assert tool["properties"][name] == {"type": "object", "additionalProperties": SUB_TOOL_REF}


# test__convert_typed_dict_to_openai_function: arg6 and arg10 (Iterable)
def test_iterable_is_refused_with_advice():
    def use(values: Iterable[int]) -> None: ...

    # Ours refuses it: pydantic would hand the tool a one-shot iterator, not the list sent.
    with pytest.raises(TypeError, match=r"parameter 'values': unsupported type .*list\[\.\.\.\]"):
        parameters_schema(use)


# test__convert_typed_dict_to_openai_function_fail
def test_mutable_set_of_anything_is_an_array_of_unique_items():
    class Tool(te.TypedDict):
        arg1: te.MutableSet[Any]  # noqa: UP006

    def use(tool: Tool) -> None: ...

    # Ours accepts it (pydantic validates it); theirs raises on its old code path.
    field = parameters_schema(use)["properties"]["tool"]["properties"]["arg1"]
    assert field == {"type": "array", "items": {}, "uniqueItems": True}


# test_convert_union_type
def test_union_of_int_and_str():
    def magic_function(value: int | str) -> str:
        """Compute a magic function."""
        return ""

    # Ours: a type list, the same set as their anyOf in fewer tokens.
    assert parameters_schema(magic_function)["properties"]["value"] == {
        "type": ["integer", "string"]
    }


# test_convert_to_openai_function_no_args
def test_strict_tool_without_arguments():
    def empty_tool() -> str:
        """No args."""
        return "foo"

    # Ours lists "required": [] as well: strict mode asks for it on every object.
    assert function_to_tool(empty_tool, strict=True)["function"] == {
        "name": "empty_tool",
        "description": "No args.",
        "parameters": {
            "type": "object",
            "properties": {},
            "required": [],
            "additionalProperties": False,
        },
        "strict": True,
    }


# test_convert_to_openai_function_nested_strict_2
def test_open_maps_are_refused_in_strict_mode():
    def my_function(arg1: dict[str, Any], arg2: dict[str, Any] | None) -> None:
        """Dummy function."""

    # Ours refuses: closing an open map, as theirs does, makes it accept only {}.
    with pytest.raises(ValueError, match=r"my_function\(\).*parameters\.arg1: .*open map"):
        function_to_tool(my_function, strict=True)


class MyModel(BaseModel):
    """Dummy schema."""

    arg1: int = Field(..., description="foo")
    arg2: str | None = Field(None, description="bar")


# test_convert_to_openai_function_strict_required
def test_strict_mode_requires_fields_with_defaults_too():
    def use(model: MyModel) -> None: ...

    model = function_to_tool(use, strict=True)["function"]["parameters"]["properties"]["model"]
    assert model["required"] == ["arg1", "arg2"]


class Inner(BaseModel):
    """Inner schema."""

    required_field: str = Field(..., description="req")
    optional_field: str = Field(default="x", description="opt")


class Outer(BaseModel):
    """Outer schema."""

    inner: Inner = Field(..., description="nested")


# test_convert_to_openai_function_strict_nested_required
def test_strict_nested_model_requires_every_field_and_call_reads_null_as_the_default():
    registry = ToolRegistry()

    @registry.tool
    def use(outer: Outer) -> str:
        """Use it."""
        return outer.inner.optional_field

    (tool,) = registry.schemas(strict=True)
    inner = tool["function"]["parameters"]["properties"]["outer"]["properties"]["inner"]
    assert set(inner["required"]) == {"required_field", "optional_field"}
    assert inner["additionalProperties"] is False
    # Ours also makes the call side agree: the null strict mode offers means "use the default".
    arguments = {"outer": {"inner": {"required_field": "r", "optional_field": None}}}
    assert registry.call("use", arguments) == "x"


# test_convert_to_openai_function_strict_nested_required_via_defs_ref
def test_strict_definitions_reached_by_ref_are_closed_and_the_input_is_untouched():
    raw = {
        "type": "object",
        "properties": {"inner": {"$ref": "#/$defs/Inner"}},
        "$defs": {
            "Inner": {
                "type": "object",
                "properties": {
                    "required_field": {"type": "string"},
                    "optional_field": {"type": "string"},
                },
            }
        },
    }
    before = copy.deepcopy(raw)
    strict = to_strict(raw)
    inner = strict["$defs"]["Inner"]
    assert set(inner["required"]) == {"required_field", "optional_field"}
    assert inner["additionalProperties"] is False
    assert raw == before


# test_convert_to_openai_function_arbitrary_type_error
def test_model_with_an_arbitrary_class_field_is_refused_with_a_helpful_message():
    class CustomClass:
        def __init__(self, name: str) -> None:
            self.name = name

    class SchemaWithArbitraryType(BaseModel):
        """Schema with arbitrary type."""

        model_config = ConfigDict(arbitrary_types_allowed=True)
        custom_obj: CustomClass = Field(..., description="A custom object")
        name: str = Field(..., description="A name")

    def use(value: SchemaWithArbitraryType) -> None: ...

    with pytest.raises(TypeError) as caught:
        parameters_schema(use)
    message = str(caught.value)
    assert "parameter 'value'" in message and "SchemaWithArbitraryType" in message
    assert "JSON" in message and "arbitrary_types_allowed" in message


# test_convert_to_openai_function_strict_defaults
def test_strict_mode_closes_a_model_whose_fields_all_have_defaults():
    class MyModel(BaseModel):
        """Dummy schema."""

        arg1: int = Field(default=3, description="foo")
        arg2: str | None = Field(default=None, description="bar")

    def use(model: MyModel = MyModel()) -> None: ...  # noqa: B008

    parameters = function_to_tool(use, strict=True)["function"]["parameters"]
    assert parameters["additionalProperties"] is False
    assert parameters["properties"]["model"]["anyOf"][0]["additionalProperties"] is False


# TestParseGoogleDocstring: the seven continuation-line cases
@pytest.mark.parametrize(
    ("case", "docstring", "expected"),
    [
        (
            "test_continuation_line_with_colon",
            "Search the knowledge base.\n\nArgs:\n    query: The search query to use\n"
            "        for finding things: important ones\n    top_k: Number of results to return",
            {
                "query": "The search query to use for finding things: important ones",
                "top_k": "Number of results to return",
            },
        ),
        (
            "test_simple_args_still_work",
            "Do something.\n\nArgs:\n    x: The x value\n    y: The y value",
            {"x": "The x value", "y": "The y value"},
        ),
        (
            "test_continuation_line_without_colon",
            "Do something.\n\nArgs:\n    name: A very long description that\n"
            "        spans multiple lines\n    age: The age",
            {"name": "A very long description that spans multiple lines", "age": "The age"},
        ),
        (
            "test_multiple_continuation_lines_with_colons",
            "Process data.\n\nArgs:\n    config: Configuration string in format\n"
            "        key1: value1\n        key2: value2\n    verbose: Enable verbose output",
            {
                "config": "Configuration string in format key1: value1 key2: value2",
                "verbose": "Enable verbose output",
            },
        ),
        (
            "test_annotated_arg_with_colon_continuation",
            "Run a query.\n\nArgs:\n    query (str): The query to run\n"
            "        details: extra info\n    k (int): Number of results",
            {"query": "The query to run details: extra info", "k": "Number of results"},
        ),
        (
            "test_returns_section_after_args_excluded",
            "Do work.\n\nArgs:\n    x: The x value\n\nReturns:\n    result: yes\n",
            {"x": "The x value"},
        ),
        (
            "test_same_indent_colon_line_is_new_arg",
            "Do work.\n\nArgs:\n    a: first\n    b: second",
            {"a": "first", "b": "second"},
        ),
        (
            "test_more_indented_second_arg_folds_into_previous",
            "Do work.\n\nArgs:\n    x: the x value\n        y: the y value",
            {"x": "the x value y: the y value"},
        ),
    ],
    ids=lambda value: value if isinstance(value, str) and value.startswith("test_") else "",
)
def test_google_docstring_continuation_lines(case, docstring, expected):
    assert parse_docstring(docstring).params == expected


# test_convert_to_openai_tool_wrapped_function_strict
def test_an_existing_tools_parameters_can_be_made_strict():
    function_def = {
        "name": "lookup",
        "description": "Lookup data",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
    }
    strict = to_strict(function_def["parameters"])
    assert strict["additionalProperties"] is False
    # Ours: "query" was optional, so it becomes nullable (the model's null means "not given").
    assert strict["properties"]["query"] == {"type": ["string", "null"]}


# test_convert_to_openai_tool_wrapped_function_strict_none_unchanged
def test_converting_to_the_same_format_gives_an_equal_copy():
    tool = {
        "type": "function",
        "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}},
    }
    converted = convert_tool(tool, "openai")
    # Ours returns a copy, never the caller's object: changing one must not change the other.
    assert converted == tool and converted is not tool
    assert json.dumps(converted) == json.dumps(tool)
