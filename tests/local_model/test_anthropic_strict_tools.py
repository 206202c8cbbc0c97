"""Anthropic strict tool use through the SDK: inputs that always validate, and the grammar's limits.

A tool with ``"strict": true`` gets an ``input`` that validates against its ``input_schema`` even
when the policy means otherwise (a loose tool keeps the policy's fault); its schema must stay in
the grammar's subset (the refusals are the structured outputs' ones, at ``tools.N.custom``), and
a request may hold at most 20 strict tools, 24 optional and 16 union-typed parameters. The SDK's
tool runner with ``@beta_tool(strict=True)`` completes its loop, streamed and not (the local model
declines its message threads in the shape the SDK recovers from). Every reply is validated with
the SDK's types in strict mode.
"""

from __future__ import annotations

import json

import anthropic
import jsonschema
import pytest
from anthropic import beta_tool
from strict_replies import checked_clients
from test_anthropic_structured import MODELS, REFUSALS, closed, structured

from course_lib.local_model import make_anthropic_client
from course_lib.local_model.scripted import ScriptedPolicy, call


@pytest.fixture(params=["in-process", "http"])
def claude(request, http_server):
    base_url = None if request.param == "in-process" else http_server.base_url
    with checked_clients(base_url) as (_, anthropic_client):
        yield anthropic_client


@pytest.mark.parametrize("schema, message", REFUSALS)
def test_the_same_schema_gets_it_on_a_strict_tool_and_not_on_a_loose_one(claude, schema, message):
    tool = {"name": "record", "description": "Record a person.", "input_schema": schema}
    question = [{"role": "user", "content": "Record Alice from Paris."}]
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(
            model="local-toy", max_tokens=99, messages=question, tools=[{**tool, "strict": True}]
        )
    assert caught.value.body["error"]["message"] == message.format(where="tools.0.custom")
    assert claude.messages.create(model="local-toy", max_tokens=99, messages=question, tools=[tool])


def strict_tool(number: int, properties: dict | None = None, required=None) -> dict:
    properties = properties or {"city": {"type": "string"}}
    return {
        "name": f"tool_{number}",
        "description": "Look something up.",
        "input_schema": closed(properties, required),
        "strict": True,
    }


def optional_tool(number: int, optional: int) -> dict:
    properties = {f"p{k}": {"type": "string"} for k in range(optional)}
    return strict_tool(number, properties, required=[])


def union_tool(number: int, unions: int) -> dict:
    properties = {f"p{k}": {"type": ["string", "null"]} for k in range(unions)}
    return strict_tool(number, properties)


@pytest.mark.parametrize(
    "within, beyond, message",
    [
        (
            [strict_tool(n) for n in range(20)],
            [strict_tool(n) for n in range(21)],
            "Too many strict tools (21). The maximum number of strict tools supported is 20. "
            "Try reducing the number of tools marked as strict.",
        ),
        (
            [optional_tool(0, 12), optional_tool(1, 12)],
            [optional_tool(0, 12), optional_tool(1, 13)],
            "Schemas contains too many optional parameters (25), which would make grammar "
            "compilation inefficient. Reduce the number of optional parameters in your tool "
            "schemas (limit: 24).",
        ),
        (
            [union_tool(0, 16)],
            [union_tool(0, 9), union_tool(1, 8)],
            "Schemas contains too many parameters with union types (17 parameters with type "
            "arrays or anyOf) which exceeds the limit: 16",
        ),
    ],
)
def test_the_request_wide_limits_of_strict_schemas(claude, within, beyond, message):
    question = [{"role": "user", "content": "Look up Paris."}]
    assert claude.messages.create(model="local-toy", max_tokens=99, messages=question, tools=within)
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(model="local-toy", max_tokens=99, messages=question, tools=beyond)
    assert caught.value.body["error"]["message"] == message
    loose = [{k: v for k, v in tool.items() if k != "strict"} for tool in beyond]
    assert claude.messages.create(model="local-toy", max_tokens=99, messages=question, tools=loose)


def test_the_output_format_counts_toward_the_limits(claude):
    many = closed({f"p{k}": {"type": "string"} for k in range(20)}, required=[])
    with pytest.raises(anthropic.BadRequestError) as caught:
        structured(claude, many, "Paris", tools=[optional_tool(0, 5)])
    assert "too many optional parameters (25)" in caught.value.body["error"]["message"]


# -- the guarantee --------------------------------------------------------------------------------

BOOKING = closed(
    {
        "city": {"type": "string"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "nights": {"type": "integer"},
        "unit": {"enum": ["c", "f"]},
    }
)
FAULTY = call("book", city=3, nights="two", unit="kelvin", extra=True)


def test_a_strict_tools_input_always_validates_even_when_the_policy_means_otherwise():
    tool = {"name": "book", "description": "Book a trip.", "input_schema": BOOKING}
    question = [{"role": "user", "content": "Book Paris."}]
    strict = make_anthropic_client(ScriptedPolicy([FAULTY]))
    reply = strict.messages.create(
        model="local-toy", max_tokens=99, messages=question, tools=[{**tool, "strict": True}]
    )
    jsonschema.validate(reply.content[0].input, BOOKING)
    loose = make_anthropic_client(ScriptedPolicy([FAULTY]))
    reply = loose.messages.create(model="local-toy", max_tokens=99, messages=question, tools=[tool])
    assert reply.content[0].input == json.loads(FAULTY.arguments)  # a loose tool keeps the fault


@pytest.mark.parametrize(
    "question", ["Book 3 nights in Paris, code ABC.", "在巴黎订3晚", "Book it"]
)
def test_the_toy_models_own_strict_calls_validate(claude, question):
    tool = {"name": "book", "description": "Book a trip.", "input_schema": BOOKING, "strict": True}
    reply = claude.messages.create(
        model="local-toy",
        max_tokens=99,
        messages=[{"role": "user", "content": question}],
        tools=[tool],
        tool_choice={"type": "any"},
    )
    jsonschema.validate(reply.content[0].input, BOOKING)


# -- the SDK's tool runner ------------------------------------------------------------------------


@beta_tool(strict=True)
def get_weather(city: str, unit: str = "c") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. Beijing or 北京.
        unit: Temperature unit, c or f.
    """
    return json.dumps({"city": city, "sky": "晴"}, ensure_ascii=False)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("model", MODELS)
def test_the_sdks_tool_runner_completes_a_strict_tool_loop(claude, model, stream):
    runner = claude.beta.messages.tool_runner(
        model=model,
        max_tokens=4000,
        tools=[get_weather],
        messages=[{"role": "user", "content": "北京和上海的天气怎么样？"}],
        stream=stream,
    )
    replies = [step.get_final_message() if stream else step for step in runner]
    assert [b.type for b in replies[0].content if b.type == "tool_use"] == ["tool_use"] * 2
    final = replies[-1].content[-1].text
    assert 'get_weather(city="北京")' in final and "晴" in final


def test_a_thread_is_declined_in_the_shape_the_sdk_understands(claude):
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.beta.messages.create(
            model="local-toy",
            max_tokens=99,
            messages=[{"role": "user", "content": "hi"}],
            thread={"type": "create"},
        )
    assert caught.value.error_code == "thread_unsupported_request"
    assert "without 'thread'" in caught.value.body["error"]["message"]
