"""The tools exercise 06.5 sends to ``anthropic_strict``, each with an argument object it accepts.

Every tool is an Anthropic tool as the SDK or the reference registry writes one (``name``,
``description``, ``input_schema``), plain JSON. ``RANGED`` is what ``anthropic.beta_tool(...,
strict=True)`` makes of ``search_my_notes(keyword: str, limit: Annotated[int, Field(ge=1,
le=50)] = 5)`` without its ``strict`` flag (the tests prove it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from course_lib.checks.lesson06.to_strict.cases import NUMBER, STRING, closed_node, object_node
from course_lib.i18n import ENGLISH, translate

# The cases' names as a label shows them: said in the learner's language at the failure; a
# case and a rule hold the English (``name``), which ``said`` turns into the words in force.
CASE_TEXTS = {
    "ranged": "the search_my_notes tool beta_tool made, with a range",
    "nested": "objects nested in objects and in an array",
    "arrays": "arrays with uniqueItems, minItems and maxItems",
    "definitions": "$defs, anyOf and allOf",
    "no_parameters": "a tool without parameters",
    "open_map": "scores with weights: dict[str, int]",
    "bare_object": 'a bare {{"type": "object"}} property',
}
NAME_KEYS = {translate(CASE_TEXTS, key, ENGLISH): key for key in CASE_TEXTS}


def english(key: str) -> str:
    return translate(CASE_TEXTS, key, ENGLISH)


def said(name: str) -> str:
    """A case's name in the language in force."""
    return translate(CASE_TEXTS, NAME_KEYS[name]) if name in NAME_KEYS else name


@dataclass(frozen=True)
class AnthropicCase:
    name: str
    tool: dict
    sample: dict


def _tool(name: str, description: str, schema: dict) -> dict:
    return {"name": name, "description": description, "input_schema": schema}


RANGED = _tool(
    "search_my_notes",
    "Search my notes for a keyword.",
    {
        "additionalProperties": False,
        "properties": {
            "keyword": {"title": "Keyword", "type": "string"},
            "limit": {
                "default": 5, "maximum": 50, "minimum": 1, "title": "Limit", "type": "integer"
            },
        },
        "required": ["keyword"],
        "type": "object",
    },
)  # fmt: skip
NESTED = _tool(
    "plan_trip",
    "Plan a trip.",
    closed_node(
        {"trip": object_node({"city": {"type": "string", "description": "城市", "maxLength": 40},
                              "nights": {"type": "integer", "description": "How many nights.",
                                         "minimum": 1}},
                             ["city"]),
         "stops": {"type": "array", "maxItems": 5,
                   "items": object_node({"city": {"type": "string", "minLength": 1},
                                         "note": {"type": "string", "enum": ["早", "晚"]}},
                                        ["city"])}},
        ["trip"],
    ),
)  # fmt: skip
ARRAYS = _tool(
    "tag_place",
    "Tag a place.",
    closed_node(
        {"tags": {"type": "array", "items": STRING, "uniqueItems": True},
         "point": {"type": "array", "items": NUMBER, "minItems": 2, "maxItems": 2},
         "cities": {"type": "array", "items": STRING, "minItems": 1}},
        ["tags", "point", "cities"],
    ),
)  # fmt: skip
DEFINITIONS = _tool(
    "book",
    "Book a stay.",
    closed_node(
        {"stay": {"anyOf": [{"$ref": "#/$defs/Stay"}, {"type": "null"}], "default": None},
         "guests": {"allOf": [{"type": "integer", "multipleOf": 1, "exclusiveMinimum": 0}]}},
        ["guests"],
        **{"$defs": {"Stay": object_node({"hotel": STRING,
                                          "stars": {"type": "integer", "maximum": 5}},
                                         ["hotel"])}},
    ),
)  # fmt: skip
NO_PARAMETERS = _tool("now", "The time now.", {"type": "object", "properties": {}})

RANGED_CASE = english("ranged")
NESTED_CASE = english("nested")
ARRAYS_CASE = english("arrays")
DEFINITIONS_CASE = english("definitions")
NO_PARAMETERS_CASE = english("no_parameters")

CASES = (
    AnthropicCase(RANGED_CASE, RANGED, {"keyword": "豆腐", "limit": 3}),
    AnthropicCase(
        NESTED_CASE,
        NESTED,
        {"trip": {"city": "上海", "nights": 2}, "stops": [{"city": "北京", "note": "早"}]},
    ),
    AnthropicCase(ARRAYS_CASE, ARRAYS, {"tags": ["a"], "point": [39.9, 116.4], "cities": ["北京"]}),
    AnthropicCase(
        DEFINITIONS_CASE, DEFINITIONS, {"stay": {"hotel": "锦江", "stars": 4}, "guests": 2}
    ),
    AnthropicCase(NO_PARAMETERS_CASE, NO_PARAMETERS, {}),
)

OPEN_MAP_CASE = english("open_map")
OPEN_MAPS: tuple[tuple[str, dict[str, Any]], ...] = (
    (OPEN_MAP_CASE, _tool("scores", "Score names.", closed_node(
        {"weights": {"type": "object", "additionalProperties": {"type": "integer"}}},
        ["weights"]))),
    (english("bare_object"),
     _tool("tag", "Tag.", object_node({"meta": {"type": "object"}}, ["meta"]))),
)  # fmt: skip
