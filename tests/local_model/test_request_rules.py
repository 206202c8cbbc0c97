"""Request rules through the real SDKs, in process and over HTTP (``spec_errors`` has the table).

The parameters the local model accepts are the SDKs' own request types; a parameter the SDK
does not know is a ``TypeError`` before anything is sent, so the learner's way to send one is
``extra_body`` (then the API's 400) or raw HTTP (tested too). Parameters the model has no use
for are accepted and change nothing but what a reply echoes; ``allowed_tools`` narrows the
tools the model may call.
"""

from __future__ import annotations

import json
import typing

import anthropic
import openai
import pytest
import raw_http
from anthropic.types import message_create_params
from local_model_fixtures import NOTES, WEATHER, flat, for_anthropic, user
from openai.types.chat import chat_completion_stream_options_param, completion_create_params
from openai.types.responses import response_create_params

from course_lib.local_model import MODEL, sdk_params


def _keys(*typed_dicts) -> set[str]:
    return {key for kind in typed_dicts for key in typing.get_type_hints(kind)}


def test_the_accepted_parameters_are_the_keys_of_the_sdks_request_types():
    chat = completion_create_params
    assert sdk_params.CHAT == _keys(
        chat.CompletionCreateParamsNonStreaming, chat.CompletionCreateParamsStreaming
    )
    responses = response_create_params
    assert sdk_params.RESPONSES == _keys(
        responses.ResponseCreateParamsNonStreaming, responses.ResponseCreateParamsStreaming
    )
    messages = message_create_params
    assert sdk_params.MESSAGES == sdk_params.ANTHROPIC_SAMPLING | _keys(
        messages.MessageCreateParamsNonStreaming, messages.MessageCreateParamsStreaming
    )
    options = chat_completion_stream_options_param.ChatCompletionStreamOptionsParam
    assert sdk_params.CHAT_STREAM_OPTIONS == _keys(options)
    assert sdk_params.RESPONSES_STREAM_OPTIONS == _keys(responses.StreamOptions)


def test_a_typo_is_a_type_error_in_the_sdk_and_a_400_over_raw_http(http_server):
    client = openai.OpenAI(api_key="unused", base_url=http_server.base_url, max_retries=0)
    with pytest.raises(TypeError, match="temprature"):
        client.chat.completions.create(model=MODEL, messages=user("hi"), temprature=0.2)
    body = raw_http.chat_body("hi", temprature=0.2)
    reply = raw_http.one(
        http_server.base_url, raw_http.request("POST", "/v1/chat/completions", body)
    )
    assert reply.status == 400
    assert reply.json()["error"] == {
        "message": "Unknown parameter: 'temprature'.",
        "type": "invalid_request_error",
        "param": "temprature",
        "code": "unknown_parameter",
    }


def test_an_unknown_parameter_sent_in_extra_body_is_refused_by_both_openai_apis(any_client):
    with pytest.raises(openai.BadRequestError) as caught:
        any_client.chat.completions.create(
            model=MODEL, messages=user("hi"), extra_body={"max_output_tokens": 20}
        )
    assert caught.value.body["param"] == "max_output_tokens"
    assert caught.value.body["code"] == "unknown_parameter"
    with pytest.raises(openai.BadRequestError) as caught:
        any_client.responses.create(model=MODEL, input="hi", extra_body={"max_tokens": 20})
    assert caught.value.body["message"] == "Unknown parameter: 'max_tokens'."


def test_anthropic_sampling_parameters_travel_in_extra_body_and_are_range_checked(any_anthropic):
    with pytest.raises(TypeError, match="temperature"):
        any_anthropic.messages.create(
            model=MODEL, max_tokens=64, messages=user("hi"), temperature=0.5
        )
    reply = any_anthropic.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=user("hi"),
        extra_body={"temperature": 0.5, "top_k": -1},
    )
    assert reply.stop_reason == "end_turn"
    with pytest.raises(anthropic.BadRequestError) as caught:
        any_anthropic.messages.create(
            model=MODEL, max_tokens=64, messages=user("hi"), extra_body={"temperature": 1.5}
        )
    assert caught.value.body["error"]["message"] == "temperature: range: 0..1"
    assert caught.value.body["request_id"].startswith("req_011C")


def test_the_anthropic_temperature_kwarg_is_refused_by_the_sdk_and_checked_over_raw_http(
    http_server,
):
    root = http_server.base_url.removesuffix("/v1")
    claude = anthropic.Anthropic(api_key="unused", base_url=root, max_retries=0)
    with pytest.raises(TypeError):
        claude.messages.create(model=MODEL, max_tokens=9, messages=user("hi"), temperature=3)
    body = json.dumps(
        {"model": MODEL, "max_tokens": 9, "messages": user("hi"), "temperature": 3}
    ).encode()
    headers = {"anthropic-version": "2023-06-01", "content-type": "application/json"}
    reply = raw_http.one(
        http_server.base_url, raw_http.request("POST", "/v1/messages", body, headers=headers)
    )
    assert reply.status == 400
    assert reply.json()["error"] == {
        "type": "invalid_request_error",
        "message": "temperature: range: 0..1",
    }


UNUSED_CHAT = dict(
    temperature=0.2,
    top_p=0.9,
    seed=7,
    user="learner-1",
    metadata={"lesson": "03"},
    store=False,
    prompt_cache_key="lesson-03",
    safety_identifier="hash-1",
    frequency_penalty=0.5,
    presence_penalty=-0.5,
    verbosity="low",
    logprobs=False,
)


def test_parameters_the_model_has_no_use_for_are_accepted_and_change_nothing(any_client):
    messages = user("What's the weather in Beijing?")
    plain = any_client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])
    tuned = any_client.chat.completions.create(
        model=MODEL, messages=messages, tools=[WEATHER], **UNUSED_CHAT
    )
    calls = [(c.function.name, c.function.arguments) for c in plain.choices[0].message.tool_calls]
    assert calls == [
        (c.function.name, c.function.arguments) for c in tuned.choices[0].message.tool_calls
    ]
    assert tuned.service_tier == "default"


def test_the_service_tier_asked_for_is_the_one_a_reply_reports(any_client):
    reply = any_client.chat.completions.create(
        model=MODEL, messages=user("hi"), service_tier="flex"
    )
    assert reply.service_tier == "flex"
    fast = any_client.responses.create(model=MODEL, input="hi", service_tier="fast")
    assert fast.service_tier == "priority"


def test_responses_echo_truncation_as_sent(any_client):
    assert (
        any_client.responses.create(model=MODEL, input="hi", truncation="auto").truncation == "auto"
    )
    assert any_client.responses.create(model=MODEL, input="hi").truncation == "disabled"


def test_parallel_tool_calls_needs_tools_on_chat_completions(any_client):
    with pytest.raises(openai.BadRequestError) as caught:
        any_client.chat.completions.create(
            model=MODEL, messages=user("hi"), parallel_tool_calls=False
        )
    assert caught.value.body["param"] == "parallel_tool_calls"
    reply = any_client.chat.completions.create(
        model=MODEL, messages=user("weather in Paris"), tools=[WEATHER], parallel_tool_calls=False
    )
    assert reply.choices[0].finish_reason == "tool_calls"


def test_anthropic_refuses_empty_and_blank_text_blocks_and_a_prefill_ending_in_whitespace(
    any_anthropic,
):
    cases = {
        "messages: text content blocks must be non-empty": [
            {"role": "user", "content": [{"type": "text", "text": ""}]}
        ],
        "messages: text content blocks must contain non-whitespace text": [
            {"role": "user", "content": [{"type": "text", "text": "\n\t "}]}
        ],
        "messages: final assistant content cannot end with trailing whitespace": [
            *user("Name a city."),
            {"role": "assistant", "content": [{"type": "text", "text": "Paris\n"}]},
        ],
    }
    for message, conversation in cases.items():
        with pytest.raises(anthropic.BadRequestError) as caught:
            any_anthropic.messages.create(model=MODEL, max_tokens=64, messages=conversation)
        assert caught.value.body["error"]["message"] == message
    prefill = [*user("Name a city."), {"role": "assistant", "content": "The city is"}]
    assert any_anthropic.messages.create(model=MODEL, max_tokens=64, messages=prefill).content


def _names_called(reply) -> list[str]:
    return [call.function.name for call in reply.choices[0].message.tool_calls or []]


def test_allowed_tools_narrow_what_chat_completions_may_call(any_client):
    question = user("What's the weather in Beijing?")
    only_notes = {"type": "function", "function": {"name": "search_notes"}}
    required = {
        "type": "allowed_tools",
        "allowed_tools": {"mode": "required", "tools": [only_notes]},
    }
    forced = any_client.chat.completions.create(
        model=MODEL, messages=question, tools=[WEATHER, NOTES], tool_choice=required
    )
    assert _names_called(forced) == ["search_notes"]
    auto = {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [only_notes]}}
    free = any_client.chat.completions.create(
        model=MODEL, messages=question, tools=[WEATHER, NOTES], tool_choice=auto
    )
    assert _names_called(free) == []  # the weather tool is sent but not allowed this turn
    plain = any_client.chat.completions.create(
        model=MODEL, messages=question, tools=[WEATHER, NOTES]
    )
    assert _names_called(plain) == ["get_weather"]


def test_allowed_tools_narrow_what_responses_may_call_and_are_echoed_as_sent(any_client):
    choice = {
        "type": "allowed_tools",
        "mode": "required",
        "tools": [{"type": "function", "name": "search_notes"}],
    }
    reply = any_client.responses.create(
        model=MODEL,
        input="What's the weather in Beijing?",
        tools=[flat(WEATHER), flat(NOTES)],
        tool_choice=choice,
    )
    assert [item.name for item in reply.output if item.type == "function_call"] == ["search_notes"]
    assert reply.tool_choice.model_dump() == choice
    assert len(reply.tools) == 2


def test_anthropic_tools_still_answer_a_forced_tool_choice(any_anthropic):
    reply = any_anthropic.messages.create(
        model=MODEL,
        max_tokens=256,
        messages=user("hmm"),
        tools=[for_anthropic(WEATHER)],
        tool_choice={"type": "any"},
    )
    assert reply.stop_reason == "tool_use" and reply.content[-1].caller.type == "direct"
