"""Every protocol violation gets HTTP 400 with an OpenAI-style body naming the problem.

Each case runs through the real SDK twice: in process and over HTTP on loopback.
"""

from __future__ import annotations

import copy

import httpx2
import openai
import pytest
from local_model_fixtures import NOTES, WEATHER, user

from course_lib.local_model import MODEL

CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "北京"}'},
}
CALL_2 = {
    "id": "call_2",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "上海"}'},
}
ASKED = {"role": "assistant", "content": None, "tool_calls": [CALL, CALL_2]}


def answer(call_id: str, content: object = "晴") -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def with_tool(**function_changes) -> list[dict]:
    weather = copy.deepcopy(WEATHER)
    weather["function"].update(function_changes)
    return [weather]


# (case id, create() keyword arguments, words the message must contain, param)
VIOLATIONS = [
    (
        "tool message with no assistant tool_calls before it",
        dict(messages=[*user("hi"), answer("call_1")]),
        ["role 'tool' must be a response to a preceeding message with 'tool_calls'"],
        "messages.[1].role",
    ),
    (
        "tool message answering an id that was not asked for",
        dict(messages=[*user("hi"), ASKED, answer("call_9"), answer("call_1")]),
        ["'call_9' not found in 'tool_calls'", "call_1"],
        "messages.[2].tool_call_id",
    ),
    (
        "assistant tool_calls not all answered before the next message",
        dict(messages=[*user("hi"), ASKED, answer("call_1"), *user("and?")]),
        ["must be followed by tool messages responding to each 'tool_call_id'", "call_2"],
        "messages.[3].role",
    ),
    (
        "assistant message appended once per call (the classic loop bug)",
        dict(messages=[*user("hi"), ASKED, ASKED, answer("call_1"), answer("call_2")]),
        ["did not have response messages: call_1, call_2", "once"],
        "messages.[2].role",
    ),
    (
        "tool_calls left unanswered at the end",
        dict(messages=[*user("hi"), ASKED]),
        ["did not have response messages: call_1, call_2"],
        "messages.[2].role",
    ),
    (
        "tool message without tool_call_id",
        dict(messages=[*user("hi"), ASKED, {"role": "tool", "content": "晴"}, answer("call_2")]),
        ["Missing required parameter: 'messages[2].tool_call_id'"],
        "messages[2].tool_call_id",
    ),
    (
        "tool content that is an object, not a string",
        dict(messages=[*user("hi"), ASKED, answer("call_1", {"temp": 21}), answer("call_2")]),
        ["messages[2].content", "but got an object", "json.dumps"],
        "messages[2].content",
    ),
    (
        "tool content that is a number",
        dict(messages=[*user("hi"), ASKED, answer("call_1", 21), answer("call_2")]),
        ["messages[2].content", "but got an integer"],
        "messages[2].content",
    ),
    (
        "arguments sent as an object instead of a JSON string",
        dict(
            messages=[
                *user("hi"),
                {
                    "role": "assistant",
                    "tool_calls": [{**CALL, "function": {"name": "f", "arguments": {"a": 1}}}],
                },
                answer("call_1"),
            ]
        ),
        ["function.arguments': expected a string"],
        "messages[1].tool_calls[0].function.arguments",
    ),
    (
        "unknown role",
        dict(messages=[{"role": "bot", "content": "hi"}]),
        ["Invalid value: 'bot'", "Supported values are"],
        "messages[0].role",
    ),
    (
        "empty messages",
        dict(messages=[]),
        ["'messages': empty array"],
        "messages",
    ),
    (
        "tool name with a space",
        dict(messages=user("hi"), tools=with_tool(name="get weather")),
        ["tools[0].function.name", "does not match pattern", "^[a-zA-Z0-9_-]+$"],
        "tools[0].function.name",
    ),
    (
        "tool name in Chinese",
        dict(messages=user("hi"), tools=with_tool(name="天气")),
        ["does not match pattern", "description"],
        "tools[0].function.name",
    ),
    (
        "tool name longer than 64 characters",
        dict(messages=user("hi"), tools=with_tool(name="x" * 65)),
        ["string too long", "maximum length 64"],
        "tools[0].function.name",
    ),
    (
        "parameters that are not an object schema",
        dict(messages=user("hi"), tools=with_tool(parameters={"type": "string"})),
        ["Invalid schema for function 'get_weather'", "'type: \"object\"'", "'type: \"string\"'"],
        "tools[0].function.parameters",
    ),
    (
        "parameters that are a list",
        dict(messages=user("hi"), tools=with_tool(parameters=[{"city": "string"}])),
        ["tools[0].function.parameters", "expected an object"],
        "tools[0].function.parameters",
    ),
    (
        "duplicate tool names",
        dict(messages=user("hi"), tools=[WEATHER, NOTES, WEATHER]),
        ["duplicate function name 'get_weather'", "tools[0]", "tools[2]"],
        "tools[2].function.name",
    ),
    (
        "empty tools list",
        dict(messages=user("hi"), tools=[]),
        ["'tools': empty array", "Leave 'tools' out"],
        "tools",
    ),
    (
        "tool without a function",
        dict(messages=user("hi"), tools=[{"type": "function"}]),
        ["Missing required parameter: 'tools[0].function'"],
        "tools[0].function",
    ),
    (
        "strict tool whose object is open",
        dict(messages=user("hi"), tools=with_tool(strict=True)),
        ["'additionalProperties' is required to be supplied and to be false"],
        "tools[0].function.parameters",
    ),
    (
        "strict tool with an optional property",
        dict(
            messages=user("hi"),
            tools=with_tool(
                strict=True,
                parameters={**WEATHER["function"]["parameters"], "additionalProperties": False},
            ),
        ),
        ["'required' is required to be supplied", "Missing 'unit'"],
        "tools[0].function.parameters",
    ),
    (
        "tool_choice naming an unknown tool",
        dict(
            messages=user("hi"),
            tools=[WEATHER],
            tool_choice={"type": "function", "function": {"name": "get_wether"}},
        ),
        ["'get_wether' was not found in 'tools'", "get_weather"],
        "tool_choice",
    ),
    (
        "tool_choice required without tools",
        dict(messages=user("hi"), tool_choice="required"),
        ["'tool_choice' is only allowed when 'tools' are specified"],
        "tool_choice",
    ),
    (
        "tool_choice with an unknown mode",
        dict(messages=user("hi"), tools=[WEATHER], tool_choice="any"),
        ["Invalid value: 'any'", "'none', 'auto', and 'required'"],
        "tool_choice",
    ),
    (
        "stream_options without stream",
        dict(messages=user("hi"), stream_options={"include_usage": True}),
        ["'stream_options' parameter is only allowed when 'stream' is enabled"],
        "stream_options",
    ),
]


@pytest.mark.parametrize(
    "kwargs, words, param", [v[1:] for v in VIOLATIONS], ids=[v[0] for v in VIOLATIONS]
)
def test_a_protocol_violation_is_a_400_whose_message_names_the_problem(
    any_client, kwargs, words, param
):
    with pytest.raises(openai.BadRequestError) as caught:
        any_client.chat.completions.create(model=MODEL, **kwargs)
    error = caught.value
    assert error.status_code == 400
    assert error.body["type"] == "invalid_request_error"
    assert error.body["param"] == param
    for word in words:
        assert word in error.body["message"]


def test_a_correct_round_trip_with_the_same_messages_is_accepted(any_client):
    messages = [*user("北京和上海的天气"), ASKED, answer("call_2"), answer("call_1")]
    reply = any_client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])
    assert reply.choices[0].finish_reason == "stop"


def test_tool_content_as_a_list_of_text_parts_is_accepted(any_client):
    parts = [{"type": "text", "text": "晴"}]
    messages = [*user("北京和上海的天气"), ASKED, answer("call_1", parts), answer("call_2", parts)]
    reply = any_client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])
    assert "晴" in reply.choices[0].message.content


@pytest.mark.parametrize("road", ["in-process", "http"])
def test_a_body_that_is_not_json_is_a_400_that_says_so(road, http_server):
    from course_lib.local_model.endpoint import LocalEndpoint
    from course_lib.local_model.policy import HeuristicPolicy
    from course_lib.local_model.transport import LocalTransport

    if road == "http":
        http = httpx2.Client(base_url=http_server.base_url)
    else:
        transport = LocalTransport(LocalEndpoint(HeuristicPolicy()))
        http = httpx2.Client(transport=transport, base_url="http://local/v1")
    response = http.post("/chat/completions", content=b"{not json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert "could not parse the JSON body" in error["message"]


def test_an_unknown_path_is_a_404_in_the_same_error_shape(http_server):
    response = httpx2.get(http_server.base_url + "/completions/legacy")
    assert response.status_code == 404
    assert "Invalid URL (GET /v1/completions/legacy)" in response.json()["error"]["message"]
