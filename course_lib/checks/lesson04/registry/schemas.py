"""What ``schemas(format=...)`` of exercise 04.1 must return, and the hints for its mistakes."""

from __future__ import annotations

from typing import Any

from course_lib.checks.compare import Hint
from course_lib.checks.lesson04._tool_sources import local_tool
from course_lib.checks.lesson04.registry.cases import METADATA_KEYS, Registration, hint
from course_lib.reference import parameters_schema


def expected_schema(item: Registration, format: str) -> dict:
    named = {"name": item.name, "description": item.description}
    parameters = parameters_schema(local_tool(item.tool))
    if format == "openai":
        return {"type": "function", "function": {**named, "parameters": parameters}}
    if format == "responses":
        return {"type": "function", **named, "parameters": parameters, "strict": False}
    return {**named, "input_schema": parameters}


FORMAT_HINTS: dict[str, list[Hint]] = {
    "openai": [
        (lambda g: "function" not in g, hint("openai_nested")),
        (lambda g: g.get("type") != "function", hint("openai_type")),
        (
            lambda g: (
                isinstance(g.get("function"), dict)
                and set(g["function"]) != {"name", "description", "parameters"}
            ),
            hint("openai_keys"),
        ),
    ],
    "responses": [
        (lambda g: "function" in g, hint("responses_flat")),
        (lambda g: g.get("type") != "function", hint("responses_type")),
        (lambda g: "input_schema" in g, hint("responses_parameters")),
        (lambda g: g.get("strict") is not False, hint("responses_strict")),
    ],
    "anthropic": [
        (lambda g: "function" in g, hint("anthropic_flat")),
        (lambda g: "parameters" in g, hint("anthropic_input_schema")),
        (lambda g: "type" in g, hint("anthropic_type")),
    ],
}


def _names(tools: list[dict]) -> list[Any]:
    return [tool.get("function", tool).get("name") for tool in tools]


def _holds_metadata(tool: Any) -> bool:
    inner = tool.get("function", tool) if isinstance(tool, dict) else {}
    return any(key in part for part in (tool, inner) for key in ("tags", *METADATA_KEYS))


def schema_hints(format: str, expected: list[dict]) -> list[Hint]:
    wanted = _names(expected)

    def description_of(tool: dict) -> Any:
        return tool.get("function", tool).get("description", "")

    return [
        (lambda g: not isinstance(g, list), hint("schemas_list")),
        (lambda g: sorted(_names(g)) == sorted(wanted) and _names(g) != wanted, hint("order")),
        (lambda g: len(g) != len(expected), hint("count")),
        (lambda g: any(_holds_metadata(tool) for tool in g), hint("metadata_in_schema")),
        *[
            (lambda g, test=test: any(test(tool) for tool in g), text)
            for test, text in FORMAT_HINTS[format]
        ],
        (lambda g: any(
            description_of(a) != description_of(b) for a, b in zip(g, expected, strict=False)
        ), hint("use_description")),
    ]  # fmt: skip
