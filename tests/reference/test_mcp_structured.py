"""Structured results of the reference ``serve_registry``: which tools list an ``outputSchema``,
and the ``structuredContent`` of their answers, in both protocol revisions.

Oracles: jsonschema (every output schema is valid JSON Schema 2020-12, every structured answer
fits it), the SDK's own checks (its 2025-11-25 and 2026-07-28 result models, and its
``ClientSession``, which raises on structured content that breaks the schema), and the SDK's
``MCPServer``, whose structured answers for the same functions are the same JSON.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any, Literal, TypedDict

import anyio
import pydantic
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp_types import methods

from course_lib.mcp_servers.connect import connect_in_memory
from course_lib.reference import ToolRegistry
from course_lib.reference.mcp_server import call_result, listed_tools, serve_registry
from course_lib.reference.mcp_structured import ToolOutput, tool_output

REVISIONS = ["2026-07-28", "2025-11-25"]


class Weather(TypedDict):
    city: str
    temperature: int


@dataclasses.dataclass
class Note:
    number: int
    title: str


class Colleague(pydantic.BaseModel):
    name: str
    office: str


def weather() -> Weather:
    """The weather in 北京."""
    return {"city": "北京", "temperature": 31}


def note() -> Note:
    """Note #2."""
    return Note(2, "豆腐")


def colleague() -> Colleague:
    """Where 李四 works."""
    return Colleague(name="李四", office="北京")


def tags() -> dict[str, int]:
    """Tags and their counts."""
    return {"home": 2, "work": 1}


def plain() -> dict:
    """Any object."""
    return {"any": ["thing"]}


def notes() -> list[str]:
    """Every note."""
    return ["北京 trip", "Shopping"]


def numbers() -> set[int]:
    """Some numbers."""
    return {3, 1, 2}


def pair() -> tuple[int, str]:
    """A pair."""
    return (1, "一")


def maybe() -> dict | None:
    """Nothing, this time."""
    return None


async def later() -> list[int]:
    """Numbers, awaited."""
    return [1, 2]


def scaled(factor: int, values: list[int]) -> list[int]:
    return [factor * value for value in values]


STRUCTURED = [weather, note, colleague, tags, plain, notes, numbers, pair, maybe, later]
OBJECTS = {weather, note, colleague, tags, plain}


def text() -> str:
    """Text, not data."""
    return "北京"


def count() -> int:
    """A number: a scalar, so text."""
    return 3


def text_or_data() -> str | dict:
    """Sometimes text: its answer may not be JSON."""
    return "x"


def unannotated():
    """No promise."""
    return {"a": 1}


def choice() -> Literal["a", "b"]:
    """A string in the end."""
    return "a"


def unresolvable() -> NoSuchType:  # noqa: F821
    """An annotation nobody can resolve."""


def anything() -> Any:
    """Anything at all."""


UNSTRUCTURED = [text, count, text_or_data, unannotated, choice, unresolvable, anything]


@pytest.mark.parametrize("function", STRUCTURED, ids=lambda f: f.__name__)
def test_a_tool_returning_an_object_or_array_promises_an_object_schema_valid_in_both_revisions(
    function,
):
    output = tool_output(function)
    assert output is not None and output.schema["type"] == "object"
    assert output.wrapped == (function not in OBJECTS)
    Draft202012Validator.check_schema(output.schema)
    tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": output.schema}
    # the SDK's own wire model of each revision accepts it
    methods.validate_server_result("tools/list", "2025-11-25", {"tools": [tool]})
    modern = {"tools": [tool], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
    methods.validate_server_result("tools/list", "2026-07-28", modern)


@pytest.mark.parametrize("function", UNSTRUCTURED, ids=lambda f: f.__name__)
def test_a_tool_returning_text_a_scalar_or_nothing_known_promises_no_schema(function):
    assert tool_output(function) is None


def test_a_partial_and_an_async_tool_promise_what_their_function_returns():
    wrapped_list = {"type": "object", "properties": {"result": {"type": "array",
                    "items": {"type": "integer"}}}, "required": ["result"],
                    "additionalProperties": False}  # fmt: skip
    assert tool_output(functools.partial(scaled, 2)) == ToolOutput(wrapped_list, wrapped=True)
    assert tool_output(later) == ToolOutput(wrapped_list, wrapped=True)


def test_an_answer_that_is_not_the_json_of_a_value_or_does_not_fit_is_named_not_sent():
    output = tool_output(notes)
    assert output.structured("notes", '["a"]') == ({"result": ["a"]}, None)
    cut = '["a", "b' + "\n[... cut 10 of 20 characters ...]"
    assert output.structured("notes", cut)[1].startswith(
        "tool 'notes' declares an output schema, but its answer is not the JSON of a value"
    )
    content, problem = output.structured("notes", "[1]")
    assert content is None
    assert "result[0]: expected string, got integer 1" in problem


def registry_of(*functions) -> ToolRegistry:
    registry = ToolRegistry()
    for function in functions:
        registry.tool(function)
    return registry


def ask(server, calls, *, protocol: str):
    """List the tools, then make ``calls``, with a real ``ClientSession`` in ``protocol``."""

    async def main():
        with anyio.fail_after(60):
            async with connect_in_memory(server, protocol=protocol) as session:
                listing = (await session.list_tools()).tools
                return listing, [await session.call_tool(name, {}) for name in calls]

    return anyio.run(main)


@pytest.mark.parametrize("protocol", REVISIONS)
def test_every_structured_answer_fits_its_schema_and_repeats_the_text_in_both_revisions(
    protocol,
):
    registry = registry_of(*STRUCTURED, text)
    listing, results = ask(serve_registry(registry), registry.names(), protocol=protocol)
    schemas = {tool.name: tool.output_schema for tool in listing}
    assert schemas == {t.name: t.output_schema for t in listed_tools(registry)}
    for tool, result in zip(registry, results, strict=True):
        assert result.is_error is False, tool.name
        (block,) = result.content
        assert block.text == registry.call(tool.name, {})  # the text stays the registry's
        if schemas[tool.name] is None:
            assert result.structured_content is None
            continue
        value = json.loads(block.text)
        wrapped = tool_output(tool.function).wrapped
        assert result.structured_content == ({"result": value} if wrapped else value)
        Draft202012Validator(schemas[tool.name]).validate(result.structured_content)


SAME_AS_MCPSERVER = [weather, note, colleague, tags, notes, numbers, pair, maybe]


def test_structured_answers_are_the_json_the_sdks_own_mcpserver_sends_for_the_same_tools():
    sdk = MCPServer("sdk")
    for function in SAME_AS_MCPSERVER:
        sdk.add_tool(function)
    names = [function.__name__ for function in SAME_AS_MCPSERVER]

    async def structured(server):
        async with Client(server, mode="legacy", cache=None) as client:
            return [(await client.call_tool(name, {})).structured_content for name in names]

    ours = anyio.run(structured, serve_registry(registry_of(*SAME_AS_MCPSERVER)))
    assert ours == anyio.run(structured, sdk)


@pytest.mark.parametrize("protocol", REVISIONS)
def test_error_answers_stay_as_they_were_without_structured_content(protocol):
    def broken() -> list[str]:
        """Always fails."""
        raise LookupError("nothing in 北京")

    registry = registry_of(broken)
    _, (failed, unknown) = ask(serve_registry(registry), ["broken", "brokn"], protocol=protocol)
    for result, name in ((failed, "broken"), (unknown, "brokn")):
        assert result.is_error and result.structured_content is None
        assert [block.text for block in result.content] == [registry.call(name, {})]


def test_a_tool_that_breaks_its_promise_answers_a_tool_error_saying_so():
    def liar() -> list[int]:
        """Says integers, returns text."""
        return ["北京"]  # type: ignore[list-item]

    registry = registry_of(liar)
    _, (result,) = ask(serve_registry(registry), ["liar"], protocol="2026-07-28")
    assert result.is_error and result.structured_content is None
    error = json.loads(result.content[0].text)
    assert error["tool"] == "liar"
    assert "result[0]: expected integer" in error["error"]


def test_a_result_cut_at_the_registrys_limit_is_a_tool_error_not_broken_json():
    def many() -> list[str]:
        """A long list."""
        return ["北京"] * 200

    registry = ToolRegistry(max_result_chars=100)
    registry.tool(many)
    result = call_result(registry.call("many", {}), name="many", output=tool_output(many))
    assert result.is_error and result.structured_content is None
    assert "max_result_chars" in json.loads(result.content[0].text)["error"]


def test_a_tool_without_a_docstring_is_listed_without_a_description():
    def undocumented() -> str:
        return "ok"

    listing, (result,) = ask(serve_registry(registry_of(undocumented)), ["undocumented"],
                             protocol="2026-07-28")  # fmt: skip
    assert (listing[0].name, listing[0].description) == ("undocumented", None)
    assert result.content[0].text == "ok"
