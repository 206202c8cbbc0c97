"""The OpenAI Responses API (``POST /v1/responses``) through the real ``openai`` SDK.

Round trips with ``call_id``/``function_call_output``, ``previous_response_id`` and its bounded
store, ``store=false``, tool_choice, streaming events, and the real API's 400s; in process and
over HTTP. The Responses API must decide exactly what Chat Completions decides.
"""

from __future__ import annotations

import json

import openai
import pytest
from local_model_fixtures import (
    CALC,
    NOTES,
    STRICT_WEATHER,
    WEATHER,
    flat,
    strict_parameters,
    user,
)

from course_lib.local_model import MODEL, ScriptedPolicy, Turn, call, make_client

# Loose tools, as Chat Completions reads them: without "strict": false the Responses API would
# make them strict (see the strict-by-default tests below).
TOOLS = [flat(WEATHER, strict=False), flat(NOTES, strict=False)]


def outputs_for(response, result=lambda name, args: {"sky": "晴", **args}) -> list[dict]:
    return [
        {
            "type": "function_call_output",
            "call_id": item.call_id,
            "output": json.dumps(result(item.name, json.loads(item.arguments)), ensure_ascii=False),
        }
        for item in response.output
        if item.type == "function_call"
    ]


def calls_of(response) -> list[tuple[str, dict]]:
    return [(i.name, json.loads(i.arguments)) for i in response.output if i.type == "function_call"]


@pytest.mark.parametrize(
    "question, cities",
    [
        ("What's the weather in Beijing and Shanghai?", ["Beijing", "Shanghai"]),
        ("北京的天气怎么样？", ["北京"]),
    ],
)
def test_a_round_trip_with_previous_response_id_answers_from_the_outputs(
    any_client, question, cities
):
    first = any_client.responses.create(model=MODEL, input=question, tools=TOOLS)
    assert first.object == "response" and first.status == "completed"
    assert calls_of(first) == [("get_weather", {"city": city}) for city in cities]
    assert all(
        item.call_id.startswith("call_") and item.id.startswith("fc_") for item in first.output
    )
    final = any_client.responses.create(
        model=MODEL, input=outputs_for(first), previous_response_id=first.id, tools=TOOLS
    )
    assert final.previous_response_id == first.id
    assert [item.type for item in final.output] == ["message"]
    for city in cities:
        assert f'get_weather(city="{city}")' in final.output_text and "晴" in final.output_text


def test_sending_the_whole_conversation_gets_the_same_answer_as_previous_response_id():
    client = make_client()
    first = client.responses.create(model=MODEL, input="上海天气", tools=TOOLS, store=False)
    history = [
        {"type": "message", "role": "user", "content": "上海天气"},
        *[item.model_dump(exclude_none=True) for item in first.output],
        *outputs_for(first),
    ]
    whole = client.responses.create(model=MODEL, input=history, tools=TOOLS)
    stored = client.responses.create(model=MODEL, input="上海天气", tools=TOOLS)
    chained = client.responses.create(
        model=MODEL, input=outputs_for(stored), previous_response_id=stored.id, tools=TOOLS
    )
    assert whole.output_text == chained.output_text
    assert whole.output_text.startswith("工具返回的结果如下")


@pytest.mark.parametrize(
    "question, tools",
    [
        ("Find my notes about python decorators, limit 3", [WEATHER, NOTES]),
        ("北京、上海和深圳的天气怎么样？", [WEATHER]),
        ("Weather in Paris? Also calculate 12 * (3 + 4).", [WEATHER, CALC]),
        ("What's the weather like?", [WEATHER]),
        ("hello", [WEATHER]),
    ],
)
def test_the_responses_api_decides_exactly_what_chat_completions_decides(question, tools):
    chat = make_client().chat.completions.create(model=MODEL, messages=user(question), tools=tools)
    message = chat.choices[0].message
    responses = make_client().responses.create(
        model=MODEL, input=question, tools=[flat(t, strict=False) for t in tools]
    )
    chat_calls = [
        (c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []
    ]
    assert calls_of(responses) == chat_calls
    assert (responses.output_text or None) == message.content


def test_instructions_become_the_system_prompt_and_are_echoed():
    seen = []

    class Recorder:
        def respond(self, request):
            seen.append(request.messages)
            return Turn("ok")

    reply = make_client(Recorder()).responses.create(
        model=MODEL, instructions="Answer briefly.", input="hi"
    )
    assert reply.instructions == "Answer briefly."
    assert seen[0][0] == {"role": "system", "content": "Answer briefly."}
    assert seen[0][1] == {"role": "user", "content": "hi"}


def test_store_false_leaves_nothing_to_continue_from(any_client):
    first = any_client.responses.create(
        model=MODEL, input="Weather in Tokyo?", tools=TOOLS, store=False
    )
    assert first.store is False
    with pytest.raises(openai.BadRequestError) as caught:
        any_client.responses.create(
            model=MODEL, input=outputs_for(first), previous_response_id=first.id, tools=TOOLS
        )
    assert caught.value.body["code"] == "previous_response_not_found"
    assert caught.value.body["param"] == "previous_response_id"
    assert f"Previous response with id '{first.id}' not found" in caught.value.body["message"]


def test_the_store_is_bounded_and_forgets_the_oldest_response_first():
    from course_lib.local_model.endpoint import LocalEndpoint
    from course_lib.local_model.policy import HeuristicPolicy

    endpoint = LocalEndpoint(HeuristicPolicy(), stored_responses=2)
    ids = []
    for text in ("one", "two", "three"):
        body = json.dumps({"model": MODEL, "input": text}).encode()
        ids.append(json.loads(endpoint.handle("POST", "/v1/responses", body).body)["id"])
    statuses = [endpoint.handle("GET", f"/v1/responses/{i}", b"").status for i in ids]
    assert statuses == [404, 200, 200]


def test_a_stored_response_can_be_retrieved_and_an_unknown_one_is_a_404(any_client):
    created = any_client.responses.create(model=MODEL, input="hello")
    assert any_client.responses.retrieve(created.id).output_text == created.output_text
    with pytest.raises(openai.NotFoundError):
        any_client.responses.retrieve("resp_does_not_exist")


def test_tool_choice_none_required_named_and_no_parallel_calls(any_client):
    question = "Weather in Beijing, Shanghai and Shenzhen?"
    assert not calls_of(
        any_client.responses.create(model=MODEL, input=question, tools=TOOLS, tool_choice="none")
    )
    forced = any_client.responses.create(
        model=MODEL, input="hello", tools=TOOLS, tool_choice="required"
    )
    assert len(calls_of(forced)) == 1
    named = any_client.responses.create(
        model=MODEL,
        input=question,
        tools=TOOLS,
        tool_choice={"type": "function", "name": "search_notes"},
    )
    assert {name for name, _ in calls_of(named)} == {"search_notes"}
    one = any_client.responses.create(
        model=MODEL, input=question, tools=TOOLS, parallel_tool_calls=False
    )
    assert calls_of(one) == [("get_weather", {"city": "Beijing"})]
    assert one.parallel_tool_calls is False


def test_usage_adds_up_and_tools_are_echoed_flat_with_strict():
    reply = make_client().responses.create(model=MODEL, input="Weather in Tokyo?", tools=TOOLS)
    usage = reply.usage
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens > 0
    assert [tool.name for tool in reply.tools] == ["get_weather", "search_notes"]
    assert all(tool.strict is False for tool in reply.tools)  # sent with "strict": false
    strict_tool = {
        **flat(WEATHER),
        "parameters": strict_parameters(WEATHER["function"]["parameters"]),
    }
    echoed = make_client().responses.create(model=MODEL, input="hi", tools=[strict_tool])
    assert echoed.tools[0].strict is True


# -- strict by default ----------------------------------------------------------------------------
# OpenAI's guide: a Responses tool without "strict" is normalized into strict mode when it can be
# (objects closed, every property required), and falls back to non-strict calling when it cannot.

OPTIONAL_UNIT = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
            "days": {"type": "integer"},
            "tags": {"type": ["array", "null"], "items": {"type": "string"}},
        },
        "required": ["city"],
    },
}


def test_a_tool_without_strict_is_made_strict_and_the_model_sends_every_property():
    reply = make_client().responses.create(
        model=MODEL, input="北京天气", tools=[OPTIONAL_UNIT], tool_choice="required"
    )
    assert reply.tools[0].strict is True
    assert reply.tools[0].parameters == OPTIONAL_UNIT["parameters"]  # echoed as sent
    # the default where there is one, null where allowed, a type-correct filler otherwise
    assert calls_of(reply) == [
        ("get_weather", {"city": "北京", "unit": "c", "days": 0, "tags": None})
    ]


def test_strict_false_keeps_the_same_tool_loose():
    reply = make_client().responses.create(
        model=MODEL, input="北京天气", tools=[{**OPTIONAL_UNIT, "strict": False}]
    )
    assert reply.tools[0].strict is False
    assert calls_of(reply) == [("get_weather", {"city": "北京"})]


def test_a_tool_that_cannot_be_made_strict_falls_back_to_non_strict_calling():
    open_map = {
        **OPTIONAL_UNIT,
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "filters": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "required": ["city"],
        },
    }
    reply = make_client().responses.create(model=MODEL, input="上海天气", tools=[open_map])
    assert reply.tools[0].strict is False
    assert calls_of(reply) == [("get_weather", {"city": "上海"})]
    with pytest.raises(openai.BadRequestError) as caught:  # asked for explicitly: refused
        make_client().responses.create(
            model=MODEL, input="上海天气", tools=[{**open_map, "strict": True}]
        )
    assert "'additionalProperties' is required to be supplied and to be false" in str(caught.value)


def test_previous_response_id_with_the_whole_conversation_again_is_a_duplicate_item_400():
    client = make_client()
    first = client.responses.create(model=MODEL, input="上海天气", tools=TOOLS)
    again = [
        {"type": "message", "role": "user", "content": "上海天气"},
        *[item.model_dump(exclude_none=True) for item in first.output],
        *outputs_for(first),
    ]
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(
            model=MODEL, input=again, previous_response_id=first.id, tools=TOOLS
        )
    assert caught.value.body["param"] == "input"
    assert caught.value.body["message"] == (
        f"Duplicate item found with id {first.output[0].id}. Remove duplicate items from your "
        "input and try again."
    )


# -- streaming ------------------------------------------------------------------------------------


def test_a_streamed_call_follows_the_real_event_sequence_and_joins_to_the_whole_reply():
    request = dict(model=MODEL, input="北京和上海的天气", tools=TOOLS)
    whole = make_client(seed=5).responses.create(**request)
    events = list(make_client(seed=5).responses.create(**request, stream=True))
    kinds = [event.type for event in events]
    per_call = ["response.output_item.added", "response.function_call_arguments.delta"]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[2:4] == per_call and kinds[-1] == "response.completed"
    assert kinds.count("response.output_item.done") == 2
    assert kinds.count("response.function_call_arguments.done") == 2
    assert [event.sequence_number for event in events] == list(range(len(events)))
    arguments: dict[int, str] = {}
    for event in events:
        if event.type == "response.function_call_arguments.delta":
            arguments[event.output_index] = arguments.get(event.output_index, "") + event.delta
    assert [arguments[i] for i in sorted(arguments)] == [i.arguments for i in whole.output]
    assert events[-1].response.model_dump() == whole.model_dump()
    assert events[0].response.status == "in_progress" and events[0].response.output == []


def test_streamed_text_arrives_as_output_text_deltas_inside_a_content_part(any_client):
    events = list(any_client.responses.create(model=MODEL, input="你好", stream=True))
    kinds = [event.type for event in events]
    assert kinds[:5] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
    ]
    assert kinds[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text == events[-1].response.output_text and text.startswith("你好")


def test_the_sdk_stream_helper_gives_the_final_response_and_parsed_arguments(any_client):
    strict_tool = flat(STRICT_WEATHER)
    with any_client.responses.stream(model=MODEL, input="上海天气", tools=[strict_tool]) as stream:
        deltas = [e.delta for e in stream if e.type == "response.function_call_arguments.delta"]
        final = stream.get_final_response()
    assert "".join(deltas) == final.output[0].arguments
    assert final.output[0].parsed_arguments == {"city": "上海", "unit": None}


def test_a_scripted_turn_with_text_and_a_call_gives_a_message_then_a_function_call():
    turn = Turn("Let me check.", (call("get_weather", city="北京"),))
    reply = make_client(ScriptedPolicy([turn])).responses.create(
        model=MODEL, input="x", tools=TOOLS
    )
    assert [item.type for item in reply.output] == ["message", "function_call"]
    assert reply.output_text == "Let me check."


# -- the real API's 400s --------------------------------------------------------------------------

ASKED = {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"}
ANSWER = {"type": "function_call_output", "call_id": "call_1", "output": "晴"}
VIOLATIONS = [
    (
        "an output for a call that was never made",
        dict(input=[{"role": "user", "content": "hi"}, ANSWER]),
        "No tool call found for function call output with call_id call_1.",
        "input",
    ),
    (
        "a call left without its output",
        dict(input=[{"role": "user", "content": "hi"}, ASKED, {"role": "user", "content": "and?"}]),
        "No tool output found for function call call_1.",
        "input",
    ),
    (
        "a Chat Completions tool sent to the Responses API",
        dict(input="hi", tools=[WEATHER]),
        "Missing required parameter: 'tools[0].name'. Responses tools are flat",
        "tools[0].name",
    ),
    (
        "a tool name with a space",
        dict(input="hi", tools=[{**flat(WEATHER), "name": "get weather"}]),
        "does not match pattern",
        "tools[0].name",
    ),
    (
        "a strict tool whose object is open",
        dict(input="hi", tools=[flat(WEATHER, strict=True)]),
        "'additionalProperties' is required to be supplied and to be false",
        "tools[0].parameters",
    ),
    (
        "a tool choice naming a tool that is not there",
        dict(input="hi", tools=TOOLS, tool_choice={"type": "function", "name": "get_wether"}),
        "Tool choice 'function' not found in 'tools' parameter",
        "tool_choice",
    ),
    (
        "an input item of an unknown type",
        dict(input=[{"type": "image_generation_call", "id": "x"}]),
        "Invalid value: 'image_generation_call'",
        "input[0].type",
    ),
    (
        "input that is a number",
        dict(input=42),
        "expected one of a string or array of input items",
        "input",
    ),
    (
        "json_object without the word json in the input",
        dict(input="hi", text={"format": {"type": "json_object"}}),
        "must contain the word 'json'",
        "text.format.type",
    ),
    (
        "a strict text format whose object is open",
        dict(
            input="hi",
            text={
                "format": {
                    "type": "json_schema",
                    "name": "City",
                    "strict": True,
                    "schema": {"type": "object", "properties": {}},
                }
            },
        ),
        "Invalid schema for response_format 'City'",
        "text.format.schema",
    ),
]


@pytest.mark.parametrize(
    "kwargs, words, param", [v[1:] for v in VIOLATIONS], ids=[v[0] for v in VIOLATIONS]
)
def test_a_protocol_violation_is_a_400_worded_like_the_real_api(any_client, kwargs, words, param):
    with pytest.raises(openai.BadRequestError) as caught:
        any_client.responses.create(model=MODEL, **kwargs)
    assert caught.value.status_code == 400
    assert caught.value.body["type"] == "invalid_request_error"
    assert caught.value.body["param"] == param
    assert words in caught.value.body["message"]


def test_an_output_answering_a_call_of_the_previous_response_is_accepted(any_client):
    first = any_client.responses.create(model=MODEL, input="Weather in Paris?", tools=TOOLS)
    with pytest.raises(openai.BadRequestError) as caught:  # a new question, the call unanswered
        any_client.responses.create(
            model=MODEL, input="and Rome?", previous_response_id=first.id, tools=TOOLS
        )
    assert (
        f"No tool output found for function call {first.output[0].call_id}."
        == caught.value.body["message"]
    )
