"""Third-party clients against the local model, unchanged: what a learner meets with a provider.

``AsyncOpenAI`` (``make_async_client()``), langchain-openai (``bind_tools``, strict,
``with_structured_output``, ``use_responses_api=True``) and the OpenAI Agents SDK (its default
Responses model, ``OpenAIChatCompletionsModel``, ``output_type``), each doing a tool round trip
in English and in Chinese, streamed and not, in process and over HTTP. The Agents SDK's tracing
is off (it would try the network).
"""

from __future__ import annotations

import asyncio
import json

import httpx2
import openai
import pytest
from local_model_fixtures import WEATHER, flat, user
from pydantic import BaseModel

from course_lib.local_model import MODEL, make_async_client
from course_lib.local_model.client import LOCAL_API_KEY, LOCAL_BASE_URL, local_endpoint
from course_lib.local_model.transport import AsyncLocalTransport, LocalTransport

QUESTIONS = [("What's the weather in Beijing?", "Beijing"), ("上海的天气怎么样？", "上海")]


def weather(city: str) -> str:
    return json.dumps({"city": city, "sky": "晴", "temp_c": 21}, ensure_ascii=False)


class Weather(BaseModel):
    city: str
    temp_c: int


# -- AsyncOpenAI ----------------------------------------------------------------------------------


async def async_chat_round_trip(client: openai.AsyncOpenAI, question: str) -> str:
    messages = user(question)
    first = await client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])
    message = first.choices[0].message
    messages.append(message.model_dump(exclude_none=True))
    for tool_call in message.tool_calls:
        city = json.loads(tool_call.function.arguments)["city"]
        messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": weather(city)})
    stream = await client.chat.completions.create(
        model=MODEL, messages=messages, tools=[WEATHER], stream=True
    )
    return "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])


@pytest.mark.parametrize("question, city", QUESTIONS)
def test_async_openai_does_a_streamed_round_trip(http_server, question, city):
    remote = openai.AsyncOpenAI(api_key="unused", base_url=http_server.base_url, max_retries=0)
    for client in (make_async_client(), remote):
        answer = asyncio.run(async_chat_round_trip(client, question))
        assert f'get_weather(city="{city}")' in answer and "晴" in answer


def test_async_openai_speaks_the_responses_api_too():
    async def run() -> str:
        client = make_async_client()
        first = await client.responses.create(
            model=MODEL, input="北京天气", tools=[flat(WEATHER, strict=False)]
        )
        outputs = [
            {"type": "function_call_output", "call_id": i.call_id, "output": weather("北京")}
            for i in first.output
        ]
        final = await client.responses.create(
            model=MODEL,
            input=outputs,
            previous_response_id=first.id,
            tools=[flat(WEATHER, strict=False)],
        )
        return final.output_text

    assert 'get_weather(city="北京")' in asyncio.run(run())


# -- langchain-openai -----------------------------------------------------------------------------


def chat_openai(base_url: str | None = None, **options):
    """A ``ChatOpenAI`` on the local model: in process, or over HTTP at ``base_url``."""
    from langchain_openai import ChatOpenAI

    if base_url:
        return ChatOpenAI(
            model=MODEL, api_key="unused", base_url=base_url, max_retries=0, **options
        )
    endpoint = local_endpoint()
    return ChatOpenAI(
        model=MODEL,
        api_key=LOCAL_API_KEY,
        base_url=LOCAL_BASE_URL,
        http_client=httpx2.Client(transport=LocalTransport(endpoint)),
        http_async_client=httpx2.AsyncClient(transport=AsyncLocalTransport(endpoint)),
        max_retries=0,
        **options,
    )


def langchain_round_trip(model, question: str, *, stream: bool) -> tuple[list, str]:
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import tool

    @tool
    def get_weather(city: str, unit: str = "c") -> str:
        """Get the current weather for a city."""
        return weather(city)

    bound = model.bind_tools([get_weather], **({"strict": True} if stream else {}))
    if stream:
        chunks = list(bound.stream(question))
        ai = chunks[0]
        for chunk in chunks[1:]:
            ai = ai + chunk
    else:
        ai = bound.invoke(question)
    messages = [HumanMessage(question), ai]
    for call in ai.tool_calls:
        messages.append(ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"]))
    final = bound.invoke(messages)
    text = final.content if isinstance(final.content, str) else final.text
    return ai.tool_calls, text


@pytest.mark.parametrize("responses_api", [False, True], ids=["chat", "responses"])
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed-strict"])
@pytest.mark.parametrize("question, city", QUESTIONS)
def test_langchain_bind_tools_does_a_round_trip(question, city, stream, responses_api):
    model = chat_openai(use_responses_api=responses_api)
    calls, answer = langchain_round_trip(model, question, stream=stream)
    assert [c["name"] for c in calls] == ["get_weather"]
    assert calls[0]["args"]["city"] == city
    if stream:  # strict: the optional unit became required, and the model used its default
        assert calls[0]["args"]["unit"] == "c"
    assert f'city="{city}"' in answer and "晴" in answer


def test_langchain_over_http_does_the_same_round_trip(http_server):
    calls, answer = langchain_round_trip(chat_openai(http_server.base_url), "北京天气", stream=True)
    assert calls[0]["args"]["city"] == "北京" and "晴" in answer


@pytest.mark.parametrize("responses_api", [False, True], ids=["chat", "responses"])
@pytest.mark.parametrize("method", ["json_schema", "function_calling"])
def test_langchain_with_structured_output_returns_the_model(method, responses_api):
    class City(BaseModel):
        city: str
        country: str | None

    model = chat_openai(use_responses_api=responses_api)
    for text, city in (("Tell me about Paris", "Paris"), ("介绍一下巴黎", "巴黎")):
        result = model.with_structured_output(City, method=method).invoke(text)
        assert result == City(city=city, country=None)


# -- the OpenAI Agents SDK ------------------------------------------------------------------------


def agents_setup():
    import agents  # a dev dependency: a missing install fails here, loudly

    agents.set_tracing_disabled(True)
    return agents


def agent_tool(agents):
    @agents.function_tool
    def get_weather(city: str, unit: str = "c") -> str:
        """Get the current weather for a city.

        Args:
            city: City name, e.g. Beijing or 北京.
            unit: Temperature unit.
        """
        return weather(city)

    return get_weather


def run_agent(agents, agent, question: str, *, stream: bool, client=None):
    provider = agents.OpenAIProvider(openai_client=client or make_async_client())
    config = agents.RunConfig(model_provider=provider, tracing_disabled=True)

    async def run():
        if not stream:
            return (await agents.Runner.run(agent, question, run_config=config)).final_output
        result = agents.Runner.run_streamed(agent, question, run_config=config)
        async for _ in result.stream_events():
            pass
        return result.final_output

    return asyncio.run(run())


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("question, city", QUESTIONS)
def test_the_agents_sdk_default_model_does_a_round_trip(question, city, stream):
    agents = agents_setup()
    agent = agents.Agent(
        name="weather", instructions="Answer.", tools=[agent_tool(agents)], model=MODEL
    )
    answer = run_agent(agents, agent, question, stream=stream)
    assert f'get_weather(city="{city}", unit="c")' in answer and "晴" in answer


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("question, city", QUESTIONS)
def test_the_agents_sdk_chat_completions_model_does_a_round_trip(question, city, stream):
    agents = agents_setup()
    model = agents.OpenAIChatCompletionsModel(model=MODEL, openai_client=make_async_client())
    agent = agents.Agent(
        name="weather", instructions="Answer.", tools=[agent_tool(agents)], model=model
    )
    answer = run_agent(agents, agent, question, stream=stream)
    assert f'get_weather(city="{city}", unit="c")' in answer


@pytest.mark.parametrize("chat_model", [False, True], ids=["responses", "chat"])
@pytest.mark.parametrize("question, city", QUESTIONS)
def test_the_agents_sdk_output_type_comes_back_filled_from_the_tool_result(
    question, city, chat_model
):
    agents = agents_setup()
    model = (
        agents.OpenAIChatCompletionsModel(model=MODEL, openai_client=make_async_client())
        if chat_model
        else MODEL
    )
    agent = agents.Agent(
        name="weather",
        instructions="Answer.",
        tools=[agent_tool(agents)],
        model=model,
        output_type=Weather,
    )
    assert run_agent(agents, agent, question, stream=False) == Weather(city=city, temp_c=21)


def test_the_agents_sdk_works_over_http(http_server):
    agents = agents_setup()
    remote = openai.AsyncOpenAI(api_key="unused", base_url=http_server.base_url, max_retries=0)
    agent = agents.Agent(
        name="weather", instructions="Answer.", tools=[agent_tool(agents)], model=MODEL
    )
    answer = run_agent(agents, agent, "北京的天气怎么样？", stream=True, client=remote)
    assert 'get_weather(city="北京", unit="c")' in answer
