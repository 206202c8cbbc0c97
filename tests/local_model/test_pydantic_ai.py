"""pydantic-ai against the local model, unchanged: its OpenAI Chat, OpenAI Responses and Anthropic
models each run an agent with a tool, in English and in Chinese, streamed and not, in process
(the SDK client pydantic-ai is given carries the local transport) and over HTTP.

What pydantic-ai sends by default must be accepted as the real APIs accept it, and what it needs
back must be there: its structured output is an output tool (``final_result``) forced with
``tool_choice="required"`` after the tool results, and with the reasoning model its reasoning
items and thinking blocks travel back (dropped, they get the real APIs' 400). Every reply the
SDKs got is validated with their own types in strict mode.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest
from strict_replies import check_all, recording_async_clients
from test_real_clients import QUESTIONS, Weather, weather

from course_lib.local_model import MODEL

REASONING = "local-toy-reasoning"
APIS = ["chat", "responses", "anthropic"]


def make_model(api: str, name: str = MODEL, base_url: str | None = None):
    """A pydantic-ai model for ``api`` on the local model, and the recorder of its replies.

    For the reasoning model the OpenAI profile says it reasons, as a user does for a model name
    pydantic-ai does not know: then it asks for encrypted reasoning and sends the items back.
    """
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
    from pydantic_ai.profiles.openai import OpenAIModelProfile
    from pydantic_ai.providers.anthropic import AnthropicProvider
    from pydantic_ai.providers.openai import OpenAIProvider

    client, claude, recorder = recording_async_clients(base_url)
    if api == "anthropic":
        return AnthropicModel(name, provider=AnthropicProvider(anthropic_client=claude)), recorder
    reasons = OpenAIModelProfile(
        supports_thinking=True,
        openai_supports_reasoning=True,
        openai_supports_encrypted_reasoning_content=True,
    )
    kind = OpenAIChatModel if api == "chat" else OpenAIResponsesModel
    profile = {"profile": reasons} if name == REASONING else {}
    return kind(name, provider=OpenAIProvider(openai_client=client), **profile), recorder


def weather_agent(model, **options):
    from pydantic_ai import Agent

    agent = Agent(model, instructions="Answer.", **options)

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Get the current weather for a city.

        Args:
            city: City name, e.g. Beijing or 北京.
        """
        return weather(city)

    return agent


def run(agent, question: str, *, stream: bool):
    """The run's output and its messages (``run`` or ``run_stream``)."""

    async def go():
        if not stream:
            result = await agent.run(question)
            return result.output, result.all_messages()
        async with agent.run_stream(question) as result:
            output = await result.get_output()
        return output, result.all_messages()

    return asyncio.run(go())


def part_kinds(messages) -> list[str]:
    return [part.part_kind for message in messages for part in message.parts]


# -- a tool round trip on every API -------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("question, city", QUESTIONS)
@pytest.mark.parametrize("api", APIS)
def test_pydantic_ai_agent_does_a_tool_round_trip(api, question, city, stream):
    model, recorder = make_model(api)
    output, messages = run(weather_agent(model), question, stream=stream)
    assert f'get_weather(city="{city}")' in output and "晴" in output
    assert part_kinds(messages).count("tool-call") == 1
    check_all(recorder)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("question, city", QUESTIONS)
@pytest.mark.parametrize("api", APIS)
def test_pydantic_ai_output_type_comes_back_filled_from_the_tool_result(
    api, question, city, stream
):
    """Its output tool is called after the results, forced with ``tool_choice="required"``."""
    model, recorder = make_model(api)
    output, _ = run(weather_agent(model, output_type=Weather), question, stream=stream)
    assert output == Weather(city=city, temp_c=21)
    check_all(recorder)


SETTINGS = {  # what pydantic-ai sends for each API (it leaves out what the API has not)
    "chat": {"seed": 7, "presence_penalty": 0.1, "frequency_penalty": 0.1, "stop_sequences": ["#"]},
    "responses": {},
    "anthropic": {"stop_sequences": ["#"]},
}


@pytest.mark.parametrize("api", APIS)
def test_pydantic_ai_common_model_settings_are_accepted(api):
    from pydantic_ai import ModelSettings

    settings = ModelSettings(
        temperature=0.2, top_p=0.9, max_tokens=800, parallel_tool_calls=False, **SETTINGS[api]
    )
    model, recorder = make_model(api)
    output, _ = run(weather_agent(model, model_settings=settings), "北京天气", stream=False)
    assert 'get_weather(city="北京")' in output
    check_all(recorder)


@pytest.mark.parametrize("api", APIS)
def test_pydantic_ai_works_over_http(http_server, api):
    model, recorder = make_model(api, base_url=http_server.base_url)
    output, _ = run(weather_agent(model, output_type=Weather), "上海的天气怎么样？", stream=True)
    assert output == Weather(city="上海", temp_c=21)
    check_all(recorder)


# -- the reasoning model ------------------------------------------------------------------------

REASONING_SETTINGS = {
    "responses": {"openai_reasoning_effort": "low", "openai_reasoning_summary": "auto"},
    "anthropic": {"anthropic_thinking": {"type": "enabled", "budget_tokens": 1024}},
}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("question, city", QUESTIONS)
@pytest.mark.parametrize("api", ["responses", "anthropic"])
def test_pydantic_ai_sends_the_reasoning_models_thoughts_back(api, question, city, stream):
    """Reasoning items (with their encrypted content) and signed thinking blocks go back with
    the call they preceded; the local model answers 400 when they do not (next test)."""
    model, recorder = make_model(api, REASONING)
    agent = weather_agent(model, model_settings=REASONING_SETTINGS[api])
    output, messages = run(agent, question, stream=stream)
    assert f'get_weather(city="{city}")' in output
    assert part_kinds(messages)[:3] == ["user-prompt", "thinking", "tool-call"]
    check_all(recorder)


@pytest.mark.parametrize(
    "settings", [{"openai_previous_response_id": "auto"}, {"openai_store": False}]
)
def test_pydantic_ai_keeps_reasoning_by_previous_response_id_or_encrypted_content(settings):
    model, recorder = make_model("responses", REASONING)
    output, messages = run(weather_agent(model, model_settings=settings), "北京天气", stream=True)
    assert 'get_weather(city="北京")' in output and "thinking" in part_kinds(messages)
    check_all(recorder)


def drop_thinking(messages):
    """A history processor that loses the thoughts: the pitfall pydantic-ai's docs warn of."""
    from pydantic_ai.messages import ModelResponse, ThinkingPart

    def kept(message):
        if not isinstance(message, ModelResponse):
            return message
        parts = [part for part in message.parts if not isinstance(part, ThinkingPart)]
        return dataclasses.replace(message, parts=parts)

    return [kept(message) for message in messages]


DROPPED = {
    "responses": "of type 'function_call' was provided without its required 'reasoning' item",
    "anthropic": "Expected `thinking` or `redacted_thinking`, but found `tool_use`",
}


@pytest.mark.parametrize("api", ["responses", "anthropic"])
def test_dropping_the_thoughts_gets_the_real_apis_400(api):
    from pydantic_ai.capabilities import ProcessHistory
    from pydantic_ai.exceptions import ModelHTTPError

    model, recorder = make_model(api, REASONING)
    settings = REASONING_SETTINGS[api]
    agent = weather_agent(
        model, model_settings=settings, capabilities=[ProcessHistory(drop_thinking)]
    )
    with pytest.raises(ModelHTTPError) as refused:
        run(agent, "北京天气", stream=False)
    assert refused.value.status_code == 400 and DROPPED[api] in json.dumps(refused.value.body)
    check_all(recorder)


@pytest.mark.parametrize("question, city", QUESTIONS)
def test_pydantic_ai_chat_model_reports_reasoning_tokens(question, city):
    model, recorder = make_model("chat", REASONING)
    agent = weather_agent(model, model_settings={"openai_reasoning_effort": "low"})

    async def go():
        return await agent.run(question)

    result = asyncio.run(go())
    assert f'get_weather(city="{city}")' in result.output
    assert result.usage.details["reasoning_tokens"] > 0
    check_all(recorder)
