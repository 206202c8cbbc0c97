"""function_to_tool and convert_tool: one tool in four provider formats."""

import copy
from typing import Literal, Optional

import pytest
from pydantic import BaseModel

from course_lib.reference import convert_tool, function_to_tool, parameters_schema
from course_lib.reference.formats import gemini_schema


def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. 上海.
    """
    return city


PARAMS = parameters_schema(get_weather)
DESCRIPTION = "Get the current weather for a city."


def test_openai_chat_completions_format():
    assert function_to_tool(get_weather) == {
        "type": "function",
        "function": {"name": "get_weather", "description": DESCRIPTION, "parameters": PARAMS},
    }


def test_openai_strict_flag_and_strict_schema():
    tool = function_to_tool(get_weather, strict=True)
    assert tool["function"]["strict"] is True
    assert tool["function"]["parameters"]["required"] == ["city", "unit"]


def test_responses_format_is_flat_and_always_says_strict():
    assert function_to_tool(get_weather, format="responses") == {
        "type": "function",
        "name": "get_weather",
        "description": DESCRIPTION,
        "parameters": PARAMS,
        "strict": False,
    }


def test_anthropic_format_uses_input_schema():
    assert function_to_tool(get_weather, format="anthropic") == {
        "name": "get_weather",
        "description": DESCRIPTION,
        "input_schema": PARAMS,
    }


def test_gemini_format_is_a_function_declaration_without_additional_properties():
    tool = function_to_tool(get_weather, format="gemini")
    assert tool == {
        "name": "get_weather",
        "description": DESCRIPTION,
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. 上海."},
                "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
            },
            "required": ["city"],
        },
    }


def test_name_and_description_overrides():
    tool = function_to_tool(get_weather, name="weather", description="Weather now.")
    assert tool["function"]["name"] == "weather"
    assert tool["function"]["description"] == "Weather now."


def test_unknown_format_lists_the_formats():
    with pytest.raises(ValueError, match="unknown tool format 'mistral'.*openai, responses, "):
        function_to_tool(get_weather, format="mistral")
    with pytest.raises(ValueError, match="anthropic, gemini"):
        convert_tool(function_to_tool(get_weather), "bedrock")


@pytest.mark.parametrize("fmt", ["openai", "responses", "anthropic", "gemini"])
def test_convert_tool_equals_function_to_tool(fmt):
    assert convert_tool(function_to_tool(get_weather), fmt) == function_to_tool(
        get_weather, format=fmt
    )


def test_convert_tool_does_not_mutate_its_input():
    tool = function_to_tool(get_weather)
    before = copy.deepcopy(tool)
    for fmt in ["openai", "responses", "anthropic", "gemini"]:
        convert_tool(tool, fmt)
    assert tool == before


def test_convert_tool_rejects_something_that_is_not_a_chat_completions_tool():
    with pytest.raises(ValueError, match="expects an OpenAI Chat Completions tool"):
        convert_tool({"name": "get_weather", "input_schema": {}}, "openai")


def test_convert_keeps_strict_for_responses():
    tool = function_to_tool(get_weather, strict=True)
    assert convert_tool(tool, "responses")["strict"] is True


def test_gemini_nullable_instead_of_null_type():
    def f(note: Optional[str] = None, count: int | str | None = None) -> None: ...

    params = gemini_schema(parameters_schema(f))
    assert params["properties"]["note"] == {"type": "string", "nullable": True, "default": None}
    assert params["properties"]["count"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert params["properties"]["count"]["nullable"] is True
    assert '"null"' not in str(params)


def test_gemini_optional_literal_keeps_its_enum_without_null():
    def f(unit: Optional[Literal["c", "f"]] = None, tags: Optional[list[str]] = None) -> None: ...

    params = gemini_schema(parameters_schema(f))
    unit = params["properties"]["unit"]
    assert (unit["type"], unit["enum"], unit["nullable"]) == ("string", ["c", "f"], True)
    tags = params["properties"]["tags"]  # anyOf [array, null] in our schema
    assert (tags["type"], tags["items"], tags["nullable"]) == ("array", {"type": "string"}, True)


class Address(BaseModel):
    city: str


class Node(BaseModel):
    children: list["Node"] = []


def test_gemini_inlines_references_and_refuses_recursion():
    def ship(to: Address, back: Address | None = None) -> None: ...

    params = gemini_schema(parameters_schema(ship))
    assert "$ref" not in str(params) and "$defs" not in str(params)
    assert params["properties"]["to"]["properties"] == {"city": {"type": "string"}}

    def walk(tree: Node) -> None: ...

    with pytest.raises(ValueError, match="Node refers to itself.*recursive"):
        gemini_schema(parameters_schema(walk))


def test_gemini_moves_unknown_formats_into_the_description_and_stringifies_enums():
    import datetime as dt

    def f(day: dt.date, level: Literal[1, 2]) -> None: ...

    params = gemini_schema(parameters_schema(f))
    assert params["properties"]["day"] == {"type": "string", "description": "(format: date)"}
    assert params["properties"]["level"] == {"type": "integer", "enum": ["1", "2"]}


def test_gemini_refuses_open_maps():
    def f(counts: dict[str, int]) -> None: ...

    with pytest.raises(ValueError, match=r"parameters\.counts: Gemini cannot express an open map"):
        function_to_tool(f, format="gemini")


def test_gemini_omits_parameters_for_a_function_without_any():
    def now() -> str:
        """The time."""
        return ""

    assert function_to_tool(now, format="gemini") == {"name": "now", "description": "The time."}
