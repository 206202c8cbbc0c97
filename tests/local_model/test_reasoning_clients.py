"""Third-party clients with the reasoning model: they must send its reasoning items back.

The OpenAI Agents SDK (its default Responses model) and langchain-openai (``use_responses_api``)
run a tool loop on ``local-toy-reasoning``, in English and Chinese, streamed and not, in process
and over HTTP: they pass only because they resend the ``reasoning`` items (or, with ``store:
false``, their ``encrypted_content``). The pitfall real users meet is here too: ``store: false``
without ``include`` leaves nothing to send back, and the request after the first one fails with
the real API's 404. Every reply the SDK got is validated with its types in strict mode.
"""

from __future__ import annotations

import asyncio

import httpx2
import openai
import pytest
from openai.types.shared import Reasoning
from strict_replies import check_all, recording_async_client, recording_clients
from test_real_clients import agent_tool, agents_setup, weather

REASONING = "local-toy-reasoning"
QUESTIONS = [
    ("What's the weather in Beijing and Shanghai?", "Beijing"),
    ("北京的天气怎么样？", "北京"),
]


# -- the OpenAI Agents SDK ------------------------------------------------------------------------


def run_agent(question: str, settings=None, *, stream: bool = False, base_url=None):
    """The agent's final output and the reply types of every request, all strictly checked."""
    agents = agents_setup()
    client, recorder = recording_async_client(base_url)
    agent = agents.Agent(
        name="weather",
        instructions="Answer.",
        tools=[agent_tool(agents)],
        model=REASONING,
        model_settings=settings or agents.ModelSettings(),
    )
    config = agents.RunConfig(
        model_provider=agents.OpenAIProvider(openai_client=client), tracing_disabled=True
    )

    async def run():
        if not stream:
            return await agents.Runner.run(agent, question, run_config=config)
        result = agents.Runner.run_streamed(agent, question, run_config=config)
        async for _ in result.stream_events():
            pass
        return result

    result = asyncio.run(run())
    check_all(recorder)
    return result


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("question, city", QUESTIONS)
def test_the_agents_sdk_runs_a_tool_loop_on_the_reasoning_model(question, city, stream):
    agents = agents_setup()
    settings = agents.ModelSettings(reasoning=Reasoning(effort="low", summary="auto"))
    result = run_agent(question, settings, stream=stream)
    assert f'get_weather(city="{city}", unit="c")' in result.final_output
    kinds = [item.type for item in result.new_items]
    assert kinds[0] == "reasoning_item" and "tool_call_item" in kinds


def test_the_agents_sdk_runs_statelessly_with_encrypted_reasoning():
    agents = agents_setup()
    settings = agents.ModelSettings(store=False, response_include=["reasoning.encrypted_content"])
    result = run_agent("北京的天气怎么样？", settings)
    assert 'get_weather(city="北京", unit="c")' in result.final_output


def test_store_false_without_encrypted_reasoning_fails_as_it_does_for_real():
    agents = agents_setup()
    with pytest.raises(openai.NotFoundError, match="Items are not persisted when `store`"):
        run_agent("北京的天气怎么样？", agents.ModelSettings(store=False))


def test_the_agents_sdk_works_with_the_reasoning_model_over_http(http_server):
    result = run_agent("上海的天气怎么样？", stream=True, base_url=http_server.base_url)
    assert 'get_weather(city="上海", unit="c")' in result.final_output


# -- langchain-openai -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"reasoning": {"effort": "low", "summary": "auto"}},
        {"store": False, "include": ["reasoning.encrypted_content"]},
    ],
    ids=["stored", "summary", "stateless"],
)
@pytest.mark.parametrize("question, city", QUESTIONS)
def test_langchain_on_the_responses_api_resends_the_reasoning_items(question, city, options):
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    @tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        return weather(city)

    client, _, recorder = recording_clients()
    model = ChatOpenAI(
        model=REASONING,
        api_key="unused",
        base_url=str(client.base_url),
        http_client=httpx2.Client(transport=recorder),
        max_retries=0,
        use_responses_api=True,
        **options,
    ).bind_tools([get_weather])
    ai = model.invoke(question)
    results = [
        ToolMessage(get_weather.invoke(c["args"]), tool_call_id=c["id"]) for c in ai.tool_calls
    ]
    final = model.invoke([HumanMessage(question), ai, *results])
    assert f'get_weather(city="{city}")' in final.text and "晴" in final.text
    check_all(recorder)
