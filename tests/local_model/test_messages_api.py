"""The Anthropic Messages API (``POST /v1/messages``) through the real ``anthropic`` SDK.

``make_anthropic_client()`` in process and ``anthropic.Anthropic(base_url=...)`` over HTTP:
``tool_use``/``tool_result`` round trips, ``is_error``, ``tool_choice``, ``system``,
``max_tokens``, streaming events, and Anthropic's own 400s in Anthropic's error shape.
"""

from __future__ import annotations

import json
import re

import anthropic
import httpx2
import pytest
from local_model_fixtures import NOTES, WEATHER, for_anthropic, user

from course_lib.local_model import MODEL, Turn, make_anthropic_client, make_client
from course_lib.local_model.scripted import ScriptedPolicy, call

TOOLS = [for_anthropic(WEATHER), for_anthropic(NOTES)]


def uses(message) -> list[tuple[str, dict]]:
    return [(b.name, b.input) for b in message.content if b.type == "tool_use"]


def _text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def answer(message, result=lambda name, args: {"sky": "晴", **args}, **extra) -> list[dict]:
    """The assistant turn, then one user message holding a tool_result per tool_use."""
    results = [
        {
            "type": "tool_result",
            "tool_use_id": block.id,
            "content": _text(result(block.name, block.input)),
            **extra,
        }
        for block in message.content
        if block.type == "tool_use"
    ]
    return [
        {
            "role": "assistant",
            "content": [b.model_dump(exclude_none=True) for b in message.content],
        },
        {"role": "user", "content": results},
    ]


@pytest.mark.parametrize(
    "question, cities",
    [
        ("What's the weather in Beijing and Shanghai?", ["Beijing", "Shanghai"]),
        ("上海的天气怎么样？", ["上海"]),
    ],
)
def test_a_tool_use_round_trip_answers_from_the_tool_results(any_anthropic, question, cities):
    messages = [{"role": "user", "content": question}]
    first = any_anthropic.messages.create(
        model=MODEL, max_tokens=1024, messages=messages, tools=TOOLS
    )
    assert first.stop_reason == "tool_use" and first.role == "assistant"
    assert uses(first) == [("get_weather", {"city": city}) for city in cities]
    assert all(b.id.startswith("toolu_01") for b in first.content)
    messages += answer(first)
    final = any_anthropic.messages.create(
        model=MODEL, max_tokens=1024, messages=messages, tools=TOOLS
    )
    assert final.stop_reason == "end_turn"
    text = final.content[0].text
    for city in cities:
        assert f'get_weather(city="{city}")' in text and "晴" in text


@pytest.mark.parametrize(
    "question",
    ["Find my notes about python decorators, limit 3", "北京、上海和深圳的天气怎么样？", "hello"],
)
def test_anthropic_gets_the_same_decisions_as_chat_completions(question):
    chat = make_client().chat.completions.create(
        model=MODEL, messages=user(question), tools=[WEATHER, NOTES]
    )
    message = chat.choices[0].message
    claude = make_anthropic_client().messages.create(
        model=MODEL, max_tokens=1024, messages=user(question), tools=TOOLS
    )
    expected = [
        (c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []
    ]
    assert uses(claude) == expected
    texts = [b.text for b in claude.content if b.type == "text"]
    assert texts == ([message.content] if message.content else [])


def test_a_result_marked_is_error_is_read_as_a_failure():
    claude = make_anthropic_client()
    messages = [{"role": "user", "content": "Weather in Atlantis?"}]
    first = claude.messages.create(model=MODEL, max_tokens=1024, messages=messages, tools=TOOLS)
    messages += answer(first, lambda name, args: "city not found", is_error=True)
    final = claude.messages.create(model=MODEL, max_tokens=1024, messages=messages, tools=TOOLS)
    assert 'get_weather(city="Atlantis") failed: city not found' in final.content[0].text


def test_an_error_result_that_is_already_an_error_object_is_read_as_that_error():
    claude = make_anthropic_client()
    messages = [{"role": "user", "content": "Weather in Atlantis?"}]
    first = claude.messages.create(model=MODEL, max_tokens=1024, messages=messages, tools=TOOLS)
    error = json.dumps({"error": "no weather station in Atlantis", "tool": "get_weather"})
    messages += answer(first, lambda name, args: error, is_error=True)
    final = claude.messages.create(model=MODEL, max_tokens=1024, messages=messages, tools=TOOLS)
    text = final.content[0].text
    assert 'get_weather(city="Atlantis") failed: no weather station in Atlantis' in text
    assert '{"error"' not in text


def test_the_system_prompt_reaches_the_policy_as_a_system_message():
    seen = []

    class Recorder:
        def respond(self, request):
            seen.append(request.messages)
            return Turn("ok")

    make_anthropic_client(Recorder()).messages.create(
        model=MODEL, max_tokens=10, system="Be brief.", messages=user("hi")
    )
    assert seen == [[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]]


def test_tool_choice_any_tool_none_and_disable_parallel(any_anthropic):
    question = "Weather in Beijing, Shanghai and Shenzhen?"
    ask = dict(model=MODEL, max_tokens=1024, messages=user(question), tools=TOOLS)
    assert not uses(any_anthropic.messages.create(**ask, tool_choice={"type": "none"}))
    forced = any_anthropic.messages.create(
        model=MODEL,
        max_tokens=100,
        messages=user("hello"),
        tools=TOOLS,
        tool_choice={"type": "any"},
    )
    assert len(uses(forced)) == 1
    named = any_anthropic.messages.create(
        **ask, tool_choice={"type": "tool", "name": "search_notes"}
    )
    assert {name for name, _ in uses(named)} == {"search_notes"}
    one = any_anthropic.messages.create(
        **ask, tool_choice={"type": "auto", "disable_parallel_tool_use": True}
    )
    assert uses(one) == [("get_weather", {"city": "Beijing"})]


def test_a_text_longer_than_max_tokens_is_cut_and_says_so():
    claude = make_anthropic_client()
    whole = claude.messages.create(model=MODEL, max_tokens=1024, messages=user("hello"))
    cut = claude.messages.create(model=MODEL, max_tokens=3, messages=user("hello"))
    assert whole.stop_reason == "end_turn" and cut.stop_reason == "max_tokens"
    assert whole.content[0].text.startswith(cut.content[0].text) and cut.content[0].text
    assert cut.usage.output_tokens <= 3


def test_usage_counts_input_and_output_tokens():
    reply = make_anthropic_client().messages.create(
        model=MODEL, max_tokens=1024, messages=user("Weather in Tokyo?"), tools=TOOLS
    )
    assert reply.usage.input_tokens > 0 and reply.usage.output_tokens > 0


# -- streaming ------------------------------------------------------------------------------------


def test_a_streamed_tool_use_follows_the_real_event_sequence(any_anthropic):
    request = dict(model=MODEL, max_tokens=1024, messages=user("北京和上海的天气"), tools=TOOLS)
    events = list(any_anthropic.messages.create(**request, stream=True))
    kinds = [event.type for event in events]
    assert kinds[:3] == ["message_start", "content_block_start", "content_block_delta"]
    assert kinds[-2:] == ["message_delta", "message_stop"]
    assert kinds.count("content_block_start") == kinds.count("content_block_stop") == 2
    deltas = [e.delta for e in events if e.type == "content_block_delta"]
    assert {d.type for d in deltas} == {"input_json_delta"}
    joined: dict[int, str] = {}
    for event in events:
        if event.type == "content_block_delta":
            joined[event.index] = joined.get(event.index, "") + event.delta.partial_json
    assert [json.loads(joined[i]) for i in sorted(joined)] == [{"city": "北京"}, {"city": "上海"}]
    assert events[-2].delta.stop_reason == "tool_use"


def test_the_sdk_stream_helper_builds_the_same_message_as_the_plain_call(any_anthropic):
    messages = user("What's the weather in Paris?")
    first = make_anthropic_client(seed=4).messages.create(
        model=MODEL, max_tokens=1024, messages=messages, tools=TOOLS
    )
    with make_anthropic_client(seed=4).messages.stream(
        model=MODEL, max_tokens=1024, messages=messages, tools=TOOLS
    ) as stream:
        streamed = stream.get_final_message()
    assert streamed.model_dump(exclude={"content"}) == first.model_dump(exclude={"content"})
    assert uses(streamed) == uses(first)
    messages += answer(first)
    with any_anthropic.messages.stream(
        model=MODEL, max_tokens=1024, messages=messages, tools=TOOLS
    ) as stream:
        text = "".join(stream.text_stream)
    assert text.startswith("Here is what the tools returned:") and "Paris" in text


def test_a_scripted_call_with_malformed_json_cannot_travel_over_anthropic_and_says_why():
    from course_lib.local_model.scripted import faults

    claude = make_anthropic_client(
        ScriptedPolicy([faults.malformed_json(call("get_weather", city="北京"))])
    )
    with pytest.raises(anthropic.InternalServerError) as caught:
        claude.messages.create(model=MODEL, max_tokens=100, messages=user("北京天气"), tools=TOOLS)
    assert "tool_use input is always an object" in caught.value.body["error"]["message"]


# -- Anthropic's 400s -----------------------------------------------------------------------------

USE = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "北京"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "晴"}
VIOLATIONS = [
    (
        "a tool_result without its tool_use",
        dict(messages=[{"role": "user", "content": [RESULT]}]),
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1",
    ),
    (
        "a tool_use left without a tool_result",
        dict(
            messages=[
                {"role": "user", "content": "北京天气"},
                {"role": "assistant", "content": [USE]},
                {"role": "user", "content": "and?"},
            ]
        ),
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_1",
    ),
    (
        "text before the tool_result that answers the call",
        dict(
            messages=[
                {"role": "user", "content": "北京天气"},
                {"role": "assistant", "content": [USE]},
                {"role": "user", "content": [{"type": "text", "text": "Here:"}, RESULT]},
            ]
        ),
        "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. "
        "Messages following `tool_use` blocks must begin with a matching number of "
        "`tool_result` blocks.",
    ),
    (
        "the results without the assistant message (the two user turns combine)",
        dict(
            messages=[
                {"role": "user", "content": "北京天气"},
                {"role": "user", "content": [RESULT]},
            ]
        ),
        "messages.0.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1",
    ),
    (
        "no messages",
        dict(messages=[]),
        "messages: at least one message is required",
    ),
    (
        "a role Anthropic does not have",
        dict(messages=[{"role": "system", "content": "be nice"}]),
        "messages.0.role: Input should be 'user' or 'assistant'",
    ),
    (
        "an OpenAI tool sent to Anthropic",
        dict(messages=user("hi"), tools=[WEATHER]),
        "tools.0: the local model has no server tools (got type 'function')",
    ),
    (
        "a tool without input_schema",
        dict(messages=user("hi"), tools=[{"name": "get_weather", "description": "x"}]),
        "tools.0.custom.input_schema: Field required",
    ),
    (
        "a tool name with a space",
        dict(messages=user("hi"), tools=[{**TOOLS[0], "name": "get weather"}]),
        "tools.0.custom.name: String should match pattern",
    ),
    (
        "a tool choice naming no tool there is",
        dict(messages=user("hi"), tools=TOOLS, tool_choice={"type": "tool", "name": "nope"}),
        "tool_choice: Tool 'nope' not found",
    ),
    (
        "an empty user message",
        dict(messages=[{"role": "user", "content": ""}]),
        "messages.0: all messages must have non-empty content",
    ),
]


@pytest.mark.parametrize(
    "kwargs, words", [v[1:] for v in VIOLATIONS], ids=[v[0] for v in VIOLATIONS]
)
def test_a_protocol_violation_is_a_400_in_anthropics_shape(any_anthropic, kwargs, words):
    with pytest.raises(anthropic.BadRequestError) as caught:
        any_anthropic.messages.create(model=MODEL, max_tokens=100, **kwargs)
    body = caught.value.body
    assert caught.value.status_code == 400
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert words in body["error"]["message"]


def test_consecutive_user_messages_are_combined_into_one_turn_as_anthropic_documents():
    second_use = {**USE, "id": "toolu_2", "input": {"city": "上海"}}
    second_result = {**RESULT, "tool_use_id": "toolu_2", "content": "多云"}
    one_message_each = [
        {"role": "user", "content": "北京和上海的天气"},
        {"role": "assistant", "content": [USE, second_use]},
        {"role": "user", "content": [RESULT]},
        {"role": "user", "content": [second_result]},
    ]
    claude = make_anthropic_client()
    reply = claude.messages.create(
        model=MODEL, max_tokens=1024, messages=one_message_each, tools=TOOLS
    )
    combined = [*one_message_each[:2], {"role": "user", "content": [RESULT, second_result]}]
    same = claude.messages.create(model=MODEL, max_tokens=1024, messages=combined, tools=TOOLS)
    assert reply.stop_reason == "end_turn"
    assert [b.text for b in reply.content] == [b.text for b in same.content]
    assert "晴" in reply.content[0].text and "多云" in reply.content[0].text


def post_messages(body: dict, headers: dict | None = None) -> httpx2.Response:
    from course_lib.local_model.client import local_endpoint
    from course_lib.local_model.transport import LocalTransport

    http = httpx2.Client(transport=LocalTransport(local_endpoint()), base_url="http://local")
    return http.post("/v1/messages", json=body, headers=headers)


def test_a_request_without_max_tokens_is_refused_as_anthropic_refuses_it():
    reply = post_messages(
        {"model": MODEL, "messages": user("hi")}, {"anthropic-version": "2023-06-01"}
    )
    assert reply.status_code == 400
    body = reply.json()
    assert body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "max_tokens: Field required"},
        "request_id": body["request_id"],
    }
    assert re.fullmatch(r"req_011C[A-Za-z0-9]{20}", body["request_id"])


def test_a_request_without_an_anthropic_version_header_is_refused():
    reply = post_messages({"model": MODEL, "max_tokens": 10, "messages": user("hi")})
    assert reply.status_code == 400
    assert reply.json()["error"]["message"] == "anthropic-version: header is required"


def _models_answer_in_anthropics_shape(claude) -> None:
    model = claude.models.retrieve(claude.models.list().data[0].id)
    assert model.type == "model" and model.id == MODEL
    with pytest.raises(anthropic.NotFoundError) as caught:
        claude.models.retrieve("claude-not-here")
    assert caught.value.body["error"]["type"] == "not_found_error"


def test_the_models_endpoint_answers_in_anthropics_shape():
    # The endpoint tells the APIs apart by the anthropic-version header the SDK sends.
    _models_answer_in_anthropics_shape(make_anthropic_client())


def test_the_models_endpoint_answers_in_anthropics_shape_over_http_too():
    from course_lib.local_model.server import serve

    with serve() as server:
        root = server.base_url.removesuffix("/v1")
        _models_answer_in_anthropics_shape(anthropic.Anthropic(api_key="unused", base_url=root))
        raw = httpx2.post(
            f"{root}/v1/messages",
            json={"model": MODEL, "messages": user("hi")},
            headers={"anthropic-version": "2023-06-01"},
        )
        assert (raw.status_code, raw.json()["error"]["message"]) == (
            400,
            "max_tokens: Field required",
        )
