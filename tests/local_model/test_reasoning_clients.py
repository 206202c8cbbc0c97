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
import json

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


def run_agent(question: str, settings=None, *, stream=False, base_url=None, **run_options):
    """The agent's run result, every reply it got strictly checked."""
    return run_recorded(question, settings, stream=stream, base_url=base_url, **run_options)[0]


def run_recorded(question: str, settings=None, *, stream=False, base_url=None, **run_options):
    """:func:`run_agent`, and the recorder of what was sent and got. ``run_options`` go to
    ``Runner.run`` (``previous_response_id``, ...), ``call_model_input_filter`` to the config."""
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
        model_provider=agents.OpenAIProvider(openai_client=client),
        tracing_disabled=True,
        call_model_input_filter=run_options.pop("call_model_input_filter", None),
    )

    async def run():
        if not stream:
            return await agents.Runner.run(agent, question, run_config=config, **run_options)
        result = agents.Runner.run_streamed(agent, question, run_config=config, **run_options)
        async for _ in result.stream_events():
            pass
        return result

    result = asyncio.run(run())
    check_all(recorder)
    return result, recorder


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


def sent(recorder) -> list[dict]:
    """The bodies of the requests the SDK sent, in order."""
    return [json.loads(record.sent) for record in recorder.records if record.method == "POST"]


def received(recorder) -> list[dict]:
    return [json.loads(record.body) for record in recorder.records if record.method == "POST"]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("question, city", QUESTIONS)
def test_the_agents_sdk_resends_each_reasoning_item_before_its_call(question, city, stream):
    result, recorder = run_recorded(question, stream=stream)
    assert f'get_weather(city="{city}", unit="c")' in result.final_output
    kinds = [item.get("type") for item in sent(recorder)[1]["input"]]
    assert kinds[1:3] == ["reasoning", "function_call"]


def drop_reasoning(data):
    """A ``call_model_input_filter`` that loses the reasoning items (a trimmed history)."""
    data.model_data.input = [i for i in data.model_data.input if i.get("type") != "reasoning"]
    return data.model_data


def test_the_agents_sdk_without_its_reasoning_items_gets_the_real_400():
    with pytest.raises(openai.BadRequestError, match="without its required 'reasoning' item"):
        run_agent("北京的天气怎么样？", call_model_input_filter=drop_reasoning)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("question, city", QUESTIONS)
def test_the_agents_sdk_chains_by_previous_response_id_and_sends_only_the_outputs(
    question, city, stream
):
    """``auto_previous_response_id``: the server keeps the reasoning items and the calls."""
    result, recorder = run_recorded(question, stream=stream, auto_previous_response_id=True)
    assert f'get_weather(city="{city}", unit="c")' in result.final_output
    first, second = sent(recorder)
    kinds = {item.get("type") for item in second["input"]}
    assert kinds == {"function_call_output"} and "previous_response_id" not in first
    if not stream:  # a streamed reply's id is in its events
        assert second["previous_response_id"] == received(recorder)[0]["id"]


# -- langchain-openai -----------------------------------------------------------------------------


def langchain_round_trip(question: str, **options):
    """One tool round trip of langchain-openai's ChatOpenAI on the reasoning model, recorded:
    the first reply, the final one and the recorder."""
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
        **options,
    ).bind_tools([get_weather])
    ai = model.invoke(question)
    results = [
        ToolMessage(get_weather.invoke(c["args"]), tool_call_id=c["id"]) for c in ai.tool_calls
    ]
    return ai, model.invoke([HumanMessage(question), ai, *results]), recorder


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
    _, final, recorder = langchain_round_trip(question, use_responses_api=True, **options)
    assert f'get_weather(city="{city}")' in final.text and "晴" in final.text
    check_all(recorder)


@pytest.mark.parametrize("question, city", QUESTIONS)
def test_langchain_on_chat_completions_takes_reasoning_effort(question, city):
    ai, final, recorder = langchain_round_trip(
        question, use_responses_api=False, reasoning_effort="low"
    )
    assert ai.usage_metadata["output_token_details"]["reasoning"] > 0
    assert f'get_weather(city="{city}")' in final.text and "晴" in final.text
    assert {json.loads(r.sent)["reasoning_effort"] for r in recorder.records} == {"low"}
    assert {r.path for r in recorder.records} == {"/v1/chat/completions"}
    check_all(recorder)
