"""Anthropic structured outputs (``output_config.format``) and strict tool use, through the SDK.

The JSON text always validates against the schema (``jsonschema`` is the oracle) and is filled
from the request; ``messages.parse``/``messages.stream`` give the parsed model; a strict tool's
input always validates, even when the policy means otherwise; schemas outside the grammar's
subset and requests past its limits get the real API's 400, worded as it words them. The SDK's
tool runner with ``@beta_tool(strict=True)`` completes its loop. Every reply is validated with
the SDK's types in strict mode.
"""

from __future__ import annotations

import json

import anthropic
import jsonschema
import pytest
from local_model_fixtures import WEATHER, for_anthropic
from pydantic import BaseModel
from strict_replies import checked_clients

MODELS = ["local-toy", "local-toy-reasoning"]


def closed(properties: dict, required: list[str] | None = None, **extra) -> dict:
    required = list(properties) if required is None else required
    schema = {"type": "object", "properties": properties, "required": required}
    return {**schema, "additionalProperties": False, **extra}


PERSON = closed(
    {
        "name": {"type": "string"},
        "city": {"type": "string"},
        "age": {"type": ["integer", "null"]},
        "level": {"enum": ["low", "high"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}$"},
        "email": {"type": "string", "format": "email"},
        "home": closed({"street": {"type": "string"}, "zip": {"type": "string"}}, ["zip"]),
    },
    required=["name", "city", "age", "level", "code", "home"],
)
SCHEMAS = {
    "person": PERSON,
    "defs": {
        **closed({"stops": {"type": "array", "items": {"$ref": "#/$defs/Stop"}, "minItems": 1}}),
        "$defs": {"Stop": closed({"name": {"type": "string"}, "nights": {"type": "integer"}})},
    },
    "union": closed({"value": {"anyOf": [{"type": "number"}, {"type": "string"}]}}),
}
QUESTIONS = ["Alice is 30 and lives in Paris.", "张三住在北京，今年30岁。", "hello"]


@pytest.fixture(params=["in-process", "http"])
def claude(request, http_server):
    base_url = None if request.param == "in-process" else http_server.base_url
    with checked_clients(base_url) as (_, anthropic_client):
        yield anthropic_client


def structured(claude, schema: dict, question: str, model: str = "local-toy", **options):
    return claude.messages.create(
        model=model,
        max_tokens=4000,
        messages=[{"role": "user", "content": question}],
        output_config={"format": {"type": "json_schema", "schema": schema}},
        **options,
    )


# -- structured outputs ---------------------------------------------------------------------------


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("name", SCHEMAS)
def test_the_reply_is_json_that_validates_against_the_schema(claude, name, model):
    for question in QUESTIONS:
        reply = structured(claude, SCHEMAS[name], question, model)
        text = reply.content[-1].text
        jsonschema.validate(json.loads(text), SCHEMAS[name])
        assert reply.stop_reason == "end_turn"


def test_the_values_are_filled_from_the_request(claude):
    for question, expected in zip(
        QUESTIONS[:2], [("Alice", "Paris", 30), ("张三", "北京", 30)], strict=True
    ):
        value = json.loads(structured(claude, PERSON, question).content[0].text)
        assert (value["name"], value["city"], value["age"]) == expected


class Person(BaseModel):
    name: str
    city: str
    age: int | None = None
    tags: list[str] = []


@pytest.mark.parametrize("beta", [False, True], ids=["messages", "beta.messages"])
@pytest.mark.parametrize("model", MODELS)
def test_messages_parse_gives_the_parsed_model(claude, model, beta):
    messages = claude.beta.messages if beta else claude.messages
    for question, expected in [
        ("Alice is 30 and lives in Paris.", Person(name="Alice", city="Paris", age=30)),
        ("张三住在北京，今年30岁。", Person(name="张三", city="北京", age=30)),
    ]:
        reply = messages.parse(
            model=model,
            max_tokens=4000,
            messages=[{"role": "user", "content": question}],
            output_format=Person,
        )
        assert reply.parsed_output == expected


def test_messages_stream_with_an_output_format_parses_the_final_message(claude):
    with claude.messages.stream(
        model="local-toy",
        max_tokens=1024,
        messages=[{"role": "user", "content": "Bob lives in Rome."}],
        output_format=Person,
    ) as stream:
        final = stream.get_final_message()
    assert final.parsed_output == Person(name="Bob", city="Rome")


def test_after_tool_results_the_json_is_filled_from_them(claude):
    schema = closed({"city": {"type": "string"}, "temp_c": {"type": "integer"}})
    messages = [{"role": "user", "content": "What's the weather in Paris?"}]
    tools = [for_anthropic(WEATHER)]
    first = claude.messages.create(
        model="local-toy", max_tokens=999, messages=messages, tools=tools
    )
    result = {
        "type": "tool_result",
        "tool_use_id": first.content[0].id,
        "content": '{"temp_c": 21}',
    }
    messages += [
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": [result]},
    ]
    final = claude.messages.create(
        model="local-toy",
        max_tokens=999,
        messages=messages,
        tools=tools,
        output_config={"format": {"type": "json_schema", "schema": schema}},
    )
    assert json.loads(final.content[0].text) == {"city": "Paris", "temp_c": 21}


# -- the grammar's refusals -----------------------------------------------------------------------


def bounded(**keywords) -> dict:
    return closed({"value": keywords})


REFUSALS = [
    (
        {"type": "object", "properties": {"name": {"type": "string"}}},
        "{where}: For 'object' type, 'additionalProperties' must be explicitly set to false",
    ),
    (
        closed({"home": {"type": "object", "properties": {"zip": {"type": "string"}}}}),
        "{where}: For 'object' type, 'additionalProperties' must be explicitly set to false",
    ),
    (
        {**closed({"name": {"type": "string"}}), "additionalProperties": True},
        "{where}: For 'object' type, 'additionalProperties: true' is not supported. Please set "
        "'additionalProperties' to false",
    ),
    (
        bounded(type="integer", minimum=1),
        "{where}: For 'integer' type, property 'minimum' is not supported",
    ),
    (
        bounded(type="number", minimum=1, maximum=5),
        "{where}: For 'number' type, properties maximum, minimum are not supported",
    ),
    (
        bounded(type="string", maxLength=9),
        "{where}: For 'string' type, property 'maxLength' is not supported",
    ),
    (
        bounded(type="array", items={"type": "string"}, maxItems=4),
        "{where}: For 'array' type, property 'maxItems' is not supported",
    ),
    (
        bounded(type="array", items={"type": "string"}, minItems=2),
        "{where}: For 'array' type, 'minItems' values other than 0 or 1 are not supported",
    ),
    (
        {
            **closed({"root": {"$ref": "#/$defs/Node"}}),
            "$defs": {
                "Node": closed({"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}})
            },
        },
        "Circular reference detected in schema definitions: Node -> Node. Self-referencing or "
        "mutually-referencing definitions are not supported.",
    ),
    *[
        (
            closed({"value": value}),
            "{where}: JSON schema is invalid. It must match JSON Schema draft 2020-12 "
            "(https://json-schema.org/draft/2020-12).",
        )
        for value in (
            {"$ref": "#/$defs/Missing"},
            {"$ref": "https://example.com/schema.json"},
            {"type": "string", "pattern": "(unclosed"},
        )
    ],
]


@pytest.mark.parametrize("schema, message", REFUSALS)
def test_a_schema_outside_the_grammar_gets_the_real_400_as_output_format(claude, schema, message):
    with pytest.raises(anthropic.BadRequestError) as caught:
        structured(claude, schema, "Alice lives in Paris.")
    expected = message.format(where="output_config.format.schema")
    assert caught.value.body["error"]["message"] == expected


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"output_config": {"format": {"type": "json", "schema": PERSON}}},
            "output_config.format.type: Input should be 'json_schema'",
        ),
        (
            {"output_config": {"format": {"type": "json_schema"}}},
            "output_config.format.schema: Field required",
        ),
        (
            {"tools": [{"name": "t", "input_schema": closed({}), "strict": "yes"}]},
            "tools.0.custom.strict: Input should be a valid boolean",
        ),
    ],
)
def test_malformed_options_are_refused_naming_the_field(claude, options, message):
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(
            model="local-toy",
            max_tokens=99,
            messages=[{"role": "user", "content": "hi"}],
            **options,
        )
    assert caught.value.body["error"]["message"] == message
