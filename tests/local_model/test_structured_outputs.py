"""Structured outputs: ``response_format`` (Chat) and ``text.format`` (Responses).

The reply is JSON that validates against the schema (checked with ``jsonschema``, an oracle
independent of the local model), filled from the request the way tool arguments are, with
deterministic placeholders where the request says nothing; invalid schemas get the real 400s.
"""

from __future__ import annotations

import json

import jsonschema
import openai
import pytest
from local_model_fixtures import STRICT_WEATHER, answer_calls, user
from pydantic import BaseModel

from course_lib.local_model import MODEL, make_client


class Person(BaseModel):
    name: str
    city: str
    age: int | None


def schema_format(schema: dict, *, name: str = "Answer", strict: bool = True) -> dict:
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": schema, "strict": strict},
    }


def closed(properties: dict, **extra) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
        **extra,
    }


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Alice is 30 and lives in Paris.", Person(name="Alice", city="Paris", age=30)),
        ("张三住在北京，今年30岁。", Person(name="张三", city="北京", age=30)),
        ("Bob lives in Tokyo.", Person(name="Bob", city="Tokyo", age=None)),
    ],
)
def test_parse_with_a_pydantic_model_fills_it_from_the_request(any_client, text, expected):
    reply = any_client.chat.completions.parse(
        model=MODEL, messages=user(text), response_format=Person
    )
    assert reply.choices[0].message.parsed == expected


class Trip(BaseModel):
    name: str
    cities: list[str]
    nights: int


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "张三 spends 4 nights in 上海 and 北京.",
            Trip(name="张三", cities=["上海", "北京"], nights=4),
        ),
        ("小明要去北京和上海玩5晚。", Trip(name="小明", cities=["北京", "上海"], nights=5)),
    ],
)
def test_a_list_named_cities_is_filled_with_the_places_the_request_names(text, expected):
    reply = make_client().chat.completions.parse(
        model=MODEL, messages=user(text), response_format=Trip
    )
    assert reply.choices[0].message.parsed == expected


def test_responses_parse_with_text_format_gives_output_parsed(any_client):
    reply = any_client.responses.parse(model=MODEL, input="Carol lives in 上海", text_format=Person)
    assert reply.output_parsed == Person(name="Carol", city="上海", age=None)


def test_the_stream_helper_parses_the_joined_json():
    client = make_client()
    with client.chat.completions.stream(
        model=MODEL, messages=user("Dave is 41 and lives in London"), response_format=Person
    ) as stream:
        final = stream.get_final_completion()
    assert final.choices[0].message.parsed == Person(name="Dave", city="London", age=41)


def test_what_the_request_does_not_say_gets_a_deterministic_placeholder():
    schema = closed(
        {
            "title": {"type": "string"},
            "when": {"type": "string", "format": "date"},
            "count": {"type": "integer", "minimum": 3},
            "done": {"type": "boolean"},
            "level": {"enum": ["low", "high"]},
            "note": {"type": ["string", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}},
        }
    )
    for text, note in (("hello", "(not found in the request)"), ("你好", "（请求中没有找到）")):
        content = (
            make_client()
            .chat.completions.create(
                model=MODEL, messages=user(text), response_format=schema_format(schema)
            )
            .choices[0]
            .message.content
        )
        value = json.loads(content)
        assert value == {
            "title": note,
            "when": "1970-01-01",
            "count": 3,
            "done": False,
            "level": "low",
            "note": None,
            "tags": [],
        }
        jsonschema.validate(value, schema)


SCHEMAS = {
    "flat record": closed({"city": {"type": "string"}, "days": {"type": "integer"}}),
    "enum and bounds": closed(
        {
            "unit": {"type": "string", "enum": ["c", "f"]},
            "temp": {"type": "number", "minimum": -50, "maximum": 60},
            "code": {"type": "string", "minLength": 5, "maxLength": 8},
        }
    ),
    "nested objects by $ref": {
        "$defs": {
            "Place": closed({"city": {"type": "string"}, "country": {"type": ["string", "null"]}})
        },
        **closed({"home": {"$ref": "#/$defs/Place"}, "work": {"$ref": "#/$defs/Place"}}),
    },
    "a list of records": closed(
        {
            "people": {
                "type": "array",
                "items": closed({"name": {"type": "string"}, "age": {"type": "integer"}}),
            }
        }
    ),
    "anyOf branches": closed(
        {"value": {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}}
    ),
    "const and lists of numbers": closed(
        {"kind": {"const": "report"}, "scores": {"type": "array", "items": {"type": "integer"}}}
    ),
    "recursive tree": {
        "$defs": {
            "Node": closed(
                {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                }
            )
        },
        "$ref": "#/$defs/Node",
    },
    "non-strict root array": {"type": "array", "items": {"type": "string"}},
}
REQUESTS = [
    "Alice and Bob live in Paris; the weather for 3 days, 21.5 degrees in celsius.",
    "北京和上海，5 天，评分 7、8、9。",
    "nothing useful here",
]


@pytest.mark.parametrize("case", list(SCHEMAS))
@pytest.mark.parametrize("text", REQUESTS)
def test_the_json_always_validates_against_its_schema(case, text):
    schema = SCHEMAS[case]
    strict = case != "non-strict root array" and case != "recursive tree"
    content = (
        make_client()
        .chat.completions.create(
            model=MODEL, messages=user(text), response_format=schema_format(schema, strict=strict)
        )
        .choices[0]
        .message.content
    )
    jsonschema.validate(json.loads(content), schema)


def test_json_object_mode_answers_with_a_json_object():
    content = (
        make_client()
        .chat.completions.create(
            model=MODEL,
            messages=user("Say hello in JSON."),
            response_format={"type": "json_object"},
        )
        .choices[0]
        .message.content
    )
    prose = make_client().chat.completions.create(model=MODEL, messages=user("Say hello in JSON."))
    assert json.loads(content) == {"answer": prose.choices[0].message.content}


def test_with_tools_it_calls_first_and_fills_the_format_from_the_results():
    class Weather(BaseModel):
        city: str
        temp_c: int

    client = make_client()
    messages = user("What's the weather in 北京?")
    first = (
        client.chat.completions.parse(
            model=MODEL, messages=messages, tools=[STRICT_WEATHER], response_format=Weather
        )
        .choices[0]
        .message
    )
    assert first.tool_calls and first.parsed is None
    answer_calls(messages, first, lambda name, args: {"city": args["city"], "temp_c": 21})
    final = client.chat.completions.parse(
        model=MODEL, messages=messages, tools=[STRICT_WEATHER], response_format=Weather
    )
    assert final.choices[0].message.parsed == Weather(city="北京", temp_c=21)


INVALID = [
    (
        "a strict schema with an open object",
        schema_format(
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            name="Open",
        ),
        "Invalid schema for response_format 'Open': In context=(), 'additionalProperties' is "
        "required",
        "response_format",
    ),
    (
        "a strict schema with an optional property",
        schema_format(
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": False,
            }
        ),
        "Missing 'a'",
        "response_format",
    ),
    (
        "a strict schema whose root is an array",
        schema_format({"type": "array", "items": {"type": "string"}}),
        "schema must be a JSON Schema of 'type: \"object\"', got 'type: \"array\"'",
        "response_format",
    ),
    (
        "a strict schema with a reference to nothing",
        schema_format(closed({"a": {"$ref": "#/$defs/Missing"}})),
        "reference to component '#/$defs/Missing' which was not found",
        "response_format",
    ),
    (
        "a json_schema without a name",
        {"type": "json_schema", "json_schema": {"schema": closed({})}},
        "Missing required parameter: 'response_format.json_schema.name'",
        "response_format.json_schema.name",
    ),
    (
        "an unknown format type",
        {"type": "xml"},
        "Invalid value: 'xml'. Supported values are: 'text', 'json_object', and 'json_schema'.",
        "response_format.type",
    ),
    (
        "json_object without the word json in the messages",
        {"type": "json_object"},
        "'messages' must contain the word 'json' in some form",
        "messages",
    ),
    (
        "an enum that is not an array",
        schema_format(closed({"unit": {"type": "string", "enum": "cf"}})),
        "In context=('properties', 'unit'), 'enum' must be an array",
        "response_format",
    ),
]


@pytest.mark.parametrize(
    "response_format, words, param", [v[1:] for v in INVALID], ids=[v[0] for v in INVALID]
)
def test_an_invalid_format_is_a_400_like_the_real_apis(any_client, response_format, words, param):
    with pytest.raises(openai.BadRequestError) as caught:
        any_client.chat.completions.create(
            model=MODEL, messages=user("hi"), response_format=response_format
        )
    assert caught.value.body["param"] == param
    assert words in caught.value.body["message"]


def test_a_strict_text_format_error_names_text_format_schema_with_the_real_code(any_client):
    with pytest.raises(openai.BadRequestError) as caught:
        any_client.responses.create(
            model=MODEL,
            input="hi",
            text={
                "format": {
                    "type": "json_schema",
                    "name": "Open",
                    "strict": True,
                    "schema": {"type": "object", "properties": {}},
                }
            },
        )
    assert caught.value.body["param"] == "text.format.schema"
    assert caught.value.body["code"] == "invalid_json_schema"
