"""Strict semantics as api.openai.com has them, and arguments filled by role and by type.

* ``default`` is allowed in strict schemas, and a required parameter with a default gets it;
* a nullable required parameter (strict mode's optional one) gets ``null`` when not given;
* a forced call (``required``, a named tool, Anthropic ``any``/``tool``) always satisfies the
  tool's ``required`` with type-correct values;
* parameters sharing an enum or a kind of thing are filled by role ("from X to Y");
* every filled value validates against its schema (``jsonschema`` is the oracle).
"""

from __future__ import annotations

import json

import jsonschema
import pytest
from local_model_fixtures import CONVERT, NOTES, WEATHER, for_anthropic, tool, user

from course_lib.local_model import MODEL, make_anthropic_client, make_client
from course_lib.local_model.arguments import fill_arguments

STRICT_NOTES = {
    "type": "function",
    "function": {
        "name": "search_notes",
        "description": "Search the user's notes by keyword.",
        "parameters": {
            "type": "object",
            "properties": {
                "keyword": {"type": "string", "description": "Word or phrase to look for"},
                "limit": {"type": "integer", "default": 5, "description": "How many notes"},
                "tag": {"type": ["string", "null"], "description": "Only this tag"},
            },
            "required": ["keyword", "limit", "tag"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}


def first_call(reply) -> tuple[str, dict]:
    function = reply.choices[0].message.tool_calls[0].function
    return function.name, json.loads(function.arguments)


def test_a_strict_schema_with_a_default_is_accepted_and_the_default_fills_the_gap(any_client):
    reply = any_client.chat.completions.create(
        model=MODEL, messages=user("Search my notes for 豆腐"), tools=[STRICT_NOTES]
    )
    assert first_call(reply) == ("search_notes", {"keyword": "豆腐", "limit": 5, "tag": None})


def test_a_value_the_request_gives_wins_over_the_default_and_null():
    reply = make_client().chat.completions.create(
        model=MODEL,
        messages=user("Search my notes for tofu, limit 2, tagged recipes"),
        tools=[STRICT_NOTES],
    )
    assert first_call(reply)[1] == {"keyword": "tofu", "limit": 2, "tag": "recipes"}


def test_a_nullable_required_parameter_gets_null_through_the_responses_api_too():
    tool_ = {"type": "function", **STRICT_NOTES["function"]}
    reply = make_client().responses.create(
        model=MODEL, input="Search my notes for 豆腐", tools=[tool_]
    )
    assert json.loads(reply.output[0].arguments) == {"keyword": "豆腐", "limit": 5, "tag": None}


FORCED_TOOLS = [WEATHER, NOTES, CONVERT, STRICT_NOTES]


@pytest.mark.parametrize("target", FORCED_TOOLS, ids=lambda t: t["function"]["name"])
@pytest.mark.parametrize("question", ["hello", "你好"])
def test_a_forced_call_always_satisfies_the_tools_required_with_valid_values(target, question):
    named = {"type": "function", "function": {"name": target["function"]["name"]}}
    for choice in ("required", named):
        reply = make_client().chat.completions.create(
            model=MODEL, messages=user(question), tools=[target], tool_choice=choice
        )
        name, arguments = first_call(reply)
        assert name == target["function"]["name"]
        jsonschema.validate(arguments, target["function"]["parameters"])


def test_a_forced_placeholder_says_it_was_not_found_in_the_language_of_the_request():
    for question, note in (("hello", "(not found in the request)"), ("你好", "（请求中没有找到）")):
        reply = make_client().chat.completions.create(
            model=MODEL, messages=user(question), tools=[WEATHER], tool_choice="required"
        )
        assert first_call(reply)[1] == {"city": note}


@pytest.mark.parametrize("choice", [{"type": "any"}, {"type": "tool", "name": "convert_currency"}])
def test_anthropic_forced_calls_satisfy_required_too(choice):
    reply = make_anthropic_client().messages.create(
        model=MODEL,
        max_tokens=100,
        messages=user("hello"),
        tools=[for_anthropic(CONVERT)],
        tool_choice=choice,
    )
    block = reply.content[0]
    assert block.type == "tool_use"
    jsonschema.validate(block.input, CONVERT["function"]["parameters"])


# -- roles ----------------------------------------------------------------------------------------

UNITS = ["km", "mi", "m", "ft"]
CONVERT_UNITS = tool(
    "convert_length",
    "Convert a length from one unit to another.",
    {
        "value": {"type": "number"},
        "from_unit": {"type": "string", "enum": UNITS},
        "to_unit": {"type": "string", "enum": UNITS},
    },
    ["value", "from_unit", "to_unit"],
)
FLIGHTS = tool(
    "search_flights",
    "Search flights between two cities.",
    {
        "origin": {"type": "string", "description": "City to fly from"},
        "destination": {"type": "string", "description": "City to fly to"},
    },
    ["origin", "destination"],
)
BY_DESCRIPTION = tool(
    "translate",
    "Translate text between languages.",
    {
        "text": {"type": "string"},
        "lang_a": {"type": "string", "description": "Language to translate into"},
        "lang_b": {"type": "string", "description": "Language to translate from"},
    },
    ["text", "lang_a", "lang_b"],
)


@pytest.mark.parametrize(
    "schema, request_text, expected",
    [
        (
            CONVERT_UNITS,
            "Convert 12 km to miles",
            {"value": 12, "from_unit": "km", "to_unit": "mi"},
        ),
        (
            CONVERT_UNITS,
            "Convert 3 miles into kilometers",
            {"value": 3, "from_unit": "mi", "to_unit": "km"},
        ),
        (
            CONVERT_UNITS,
            "How many feet is 5 meters?",
            {"value": 5, "from_unit": "m", "to_unit": "ft"},
        ),
        (CONVERT_UNITS, "把 12 公里换成英里", {"value": 12, "from_unit": "km", "to_unit": "mi"}),
        (
            FLIGHTS,
            "Flights from Beijing to Shanghai",
            {"origin": "Beijing", "destination": "Shanghai"},
        ),
        (
            FLIGHTS,
            "Flights to Shanghai from Beijing",
            {"origin": "Beijing", "destination": "Shanghai"},
        ),
        (FLIGHTS, "从北京到上海的航班", {"origin": "北京", "destination": "上海"}),
        (
            CONVERT,
            "Convert 100 USD to CNY",
            {"amount": 100, "from_currency": "USD", "to_currency": "CNY"},
        ),
        (
            CONVERT,
            "把100美元换成人民币",
            {"amount": 100, "from_currency": "USD", "to_currency": "CNY"},
        ),
        (
            CONVERT,
            "How much is 20 euros in yen?",
            {"amount": 20, "from_currency": "EUR", "to_currency": "JPY"},
        ),
        (
            BY_DESCRIPTION,
            'Translate "good morning" from English into French',
            {"text": "good morning", "lang_a": "French", "lang_b": "English"},
        ),
    ],
)
def test_parameters_sharing_a_pool_are_filled_by_their_role(schema, request_text, expected):
    filled = fill_arguments(schema["function"], request_text)
    assert filled.calls == [expected] and not filled.missing


def test_a_role_with_nothing_left_for_it_is_missing_so_the_model_asks():
    filled = fill_arguments(CONVERT_UNITS["function"], "Convert 12 km")
    assert filled.calls == [{"value": 12, "from_unit": "km"}] and filled.missing == ["to_unit"]
    reply = make_client().chat.completions.create(
        model=MODEL, messages=user("Convert 12 km"), tools=[CONVERT_UNITS]
    )
    assert "to_unit" in reply.choices[0].message.content


def test_an_enum_member_that_is_the_empty_string_is_valid_and_never_matched():
    schema = tool("pick", "Pick a color.", {"color": {"type": "string", "enum": ["", "red"]}}, [])
    assert fill_arguments(schema["function"], "pick red").calls == [{"color": "red"}]
    reply = make_client().chat.completions.create(
        model=MODEL, messages=user("pick a color"), tools=[schema]
    )
    assert reply.choices[0].finish_reason in ("stop", "tool_calls")


TYPED = tool(
    "plan_trip",
    "Plan a trip to a city with people, days and a budget.",
    {
        "city": {"type": "string"},
        "days": {"type": "integer", "minimum": 1},
        "budget": {"type": "number"},
        "people": {"type": "array", "items": {"type": "string"}, "description": "Who travels"},
        "day_list": {"type": "array", "items": {"type": "integer"}},
        "mode": {"type": "array", "items": {"type": "string", "enum": ["train", "plane"]}},
        "hotel": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "nights": {"type": "integer"}},
            "required": ["city"],
        },
        "stops": {
            "type": "array",
            "items": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
        "window": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "flag": {"type": "boolean"},
    },
    ["city"],
)


@pytest.mark.parametrize(
    "request_text",
    [
        "Plan a trip to Paris for 3.5 days with Alice and Bob, budget 1200.5, by train or plane",
        "去北京玩三天，和小明、小红一起，预算 2000",
        "Plan a trip: 'Lisbon', 4 days, stops in Tokyo",
        "nothing at all",
    ],
)
def test_every_filled_value_has_its_parameters_type(request_text):
    parameters = TYPED["function"]["parameters"]
    for arguments in fill_arguments(TYPED["function"], request_text).calls:
        jsonschema.validate(arguments, {**parameters, "required": []})
