"""The reasoning model on Chat Completions: no reasoning items (the API has none), only tokens.

``reasoning_effort`` is accepted and sets how much is thought; ``completion_tokens_details.
reasoning_tokens`` reports it, streamed and not; and the parameters real reasoning models
refuse on this API (``max_tokens``, a ``temperature`` other than 1) are refused with their words.
"""

from __future__ import annotations

import openai
import pytest
from local_model_fixtures import WEATHER, user
from strict_replies import checked_clients

REASONING = "local-toy-reasoning"
QUESTION = user("What's the weather in Beijing and 上海?")


@pytest.fixture(params=["in-process", "http"])
def client(request, http_server):
    base_url = None if request.param == "in-process" else http_server.base_url
    with checked_clients(base_url) as (openai_client, _):
        yield openai_client


def ask(client, **options):
    options.setdefault("model", REASONING)
    return client.chat.completions.create(messages=QUESTION, tools=[WEATHER], **options)


def test_reasoning_tokens_are_reported_and_counted_in_the_completion(client):
    reply, plain = ask(client), ask(client, model="local-toy")
    thought = reply.usage.completion_tokens_details.reasoning_tokens
    assert thought > 0 and plain.usage.completion_tokens_details.reasoning_tokens == 0
    assert reply.usage.completion_tokens == plain.usage.completion_tokens + thought
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens
    calls = [(c.function.name, c.function.arguments) for c in reply.choices[0].message.tool_calls]
    plain_calls = plain.choices[0].message.tool_calls
    assert calls == [(c.function.name, c.function.arguments) for c in plain_calls]


def test_reasoning_effort_sets_how_much_is_thought(client):
    tokens = [
        ask(client, reasoning_effort=effort).usage.completion_tokens_details.reasoning_tokens
        for effort in ("none", "minimal", "low", "medium", "high")
    ]
    assert tokens[0] == 0 and tokens == sorted(set(tokens))
    default = ask(client).usage.completion_tokens_details.reasoning_tokens
    assert default == tokens[3]  # medium


def test_a_streamed_reply_reports_the_same_usage(client):
    reply = ask(client, reasoning_effort="low")
    chunks = list(
        ask(client, reasoning_effort="low", stream=True, stream_options={"include_usage": True})
    )
    assert chunks[-1].usage.completion_tokens_details == reply.usage.completion_tokens_details


def test_max_tokens_is_refused_as_reasoning_models_refuse_it(client):
    with pytest.raises(openai.BadRequestError) as caught:
        ask(client, max_tokens=100)
    assert caught.value.body == {
        "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
        "'max_completion_tokens' instead.",
        "type": "invalid_request_error",
        "param": "max_tokens",
        "code": "unsupported_parameter",
    }
    assert ask(client, max_completion_tokens=1000).choices[0].message.tool_calls
    assert ask(client, model="local-toy", max_tokens=100).choices[0].message.tool_calls


def test_a_temperature_other_than_1_is_refused(client):
    with pytest.raises(openai.BadRequestError) as caught:
        ask(client, temperature=0.2)
    assert caught.value.body["message"] == (
        "Unsupported value: 'temperature' does not support 0.2 with this model. Only the "
        "default (1) value is supported."
    )
    assert caught.value.body["code"] == "unsupported_value"
    assert ask(client, temperature=1).choices[0].message.tool_calls


def test_an_unknown_effort_is_refused_naming_the_parameter(client):
    with pytest.raises(openai.BadRequestError) as caught:
        ask(client, reasoning_effort="extreme")
    assert caught.value.body["param"] == "reasoning_effort"
