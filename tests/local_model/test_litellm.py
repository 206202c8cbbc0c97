"""litellm against the local model, unchanged: ``litellm.completion`` with tools on its ``openai/``
route (in process: litellm takes the ``openai`` client it should use) and its ``anthropic/``
route (litellm speaks the Messages API itself, over HTTP to ``serve()`` on loopback), in English
and in Chinese, streamed and not.

With the reasoning model, litellm's ``thinking`` blocks must go back with the assistant message
on the Anthropic route (dropped, the real API's 400), and ``reasoning_effort`` on the OpenAI route
is accepted with reasoning tokens reported. The OpenAI route's replies are validated with the
``openai`` SDK's types in strict mode. litellm is told to use its bundled model list (it would
fetch one from the network) and ``thinking`` is allowed by name, as litellm's error says to do
for a model it does not know.
"""

from __future__ import annotations

import json

import pytest
from strict_replies import check_all, recording_clients
from test_real_clients import QUESTIONS, weather

from course_lib.local_model import MODEL

REASONING = "local-toy-reasoning"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City, e.g. 北京"}},
            "required": ["city"],
        },
    },
}
THINKING = {"thinking": {"type": "enabled", "budget_tokens": 1024}}


@pytest.fixture(scope="module")
def litellm():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm  # a dev dependency: a missing install fails here, loudly

    litellm.suppress_debug_info = True
    return litellm


class Route:
    """One litellm route to the local model: the model prefix and how to reach it."""

    def __init__(self, litellm, name: str, server, model: str = MODEL) -> None:
        self.litellm, self.name, self.recorder = litellm, name, None
        self.model = f"{name}/{model}"
        if name == "openai":
            client, _, self.recorder = recording_clients()
            self.options = {"client": client}
        else:
            self.options = {"api_base": server.base_url.removesuffix("/v1"), "api_key": "unused"}

    def complete(self, messages: list[dict], *, stream: bool, **options):
        reply = self.litellm.completion(
            model=self.model,
            messages=messages,
            tools=[WEATHER],
            stream=stream,
            num_retries=0,
            **self.options,
            **options,
        )
        if stream:
            reply = self.litellm.stream_chunk_builder(list(reply), messages=messages)
        return reply

    def round_trip(self, question: str, *, stream: bool, keep=lambda message: message, **options):
        """Ask, run the calls, ask again; the first message and the final reply."""
        messages = [{"role": "user", "content": question}]
        first = self.complete(messages, stream=stream, **options).choices[0].message
        messages.append(keep(first.model_dump(exclude_none=True)))
        for call in first.tool_calls:
            city = json.loads(call.function.arguments)["city"]
            messages.append({"role": "tool", "tool_call_id": call.id, "content": weather(city)})
        return first, self.complete(messages, stream=stream, **options)


ROUTES = ["openai", "anthropic"]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("question, city", QUESTIONS)
@pytest.mark.parametrize("route", ROUTES)
def test_litellm_completion_does_a_tool_round_trip(
    litellm, http_server, route, question, city, stream
):
    way = Route(litellm, route, http_server)
    first, final = way.round_trip(question, stream=stream)
    assert [json.loads(c.function.arguments) for c in first.tool_calls] == [{"city": city}]
    answer = final.choices[0].message.content
    assert f'get_weather(city="{city}")' in answer and "晴" in answer
    if way.recorder:
        check_all(way.recorder)


@pytest.mark.parametrize("route", ROUTES)
def test_litellm_common_parameters_are_accepted(litellm, http_server, route):
    way = Route(litellm, route, http_server)
    options = {"temperature": 0.2, "max_tokens": 800, "stop": ["#"], "tool_choice": "auto"}
    if route == "openai":
        options |= {"top_p": 0.9, "seed": 7, "parallel_tool_calls": False, "user": "u-1"}
    _, final = way.round_trip("北京天气", stream=False, **options)
    assert 'get_weather(city="北京")' in final.choices[0].message.content


# -- the reasoning model ------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("question, city", QUESTIONS)
def test_litellm_sends_thinking_blocks_back_on_the_anthropic_route(
    litellm, http_server, question, city, stream
):
    way = Route(litellm, "anthropic", http_server, REASONING)
    first, final = way.round_trip(
        question, stream=stream, allowed_openai_params=["thinking"], **THINKING
    )
    assert first.thinking_blocks[0]["signature"]
    assert f'get_weather(city="{city}")' in final.choices[0].message.content


def test_litellm_without_the_thinking_blocks_gets_the_real_apis_400(litellm, http_server):
    def drop(message: dict) -> dict:
        message.pop("thinking_blocks", None)
        message.pop("reasoning_content", None)
        message.get("provider_specific_fields", {}).pop("thinking_blocks", None)
        return message

    way = Route(litellm, "anthropic", http_server, REASONING)
    with pytest.raises(litellm.BadRequestError, match="Expected `thinking` or `redacted_thinking`"):
        way.round_trip(
            "北京天气", stream=False, keep=drop, allowed_openai_params=["thinking"], **THINKING
        )


@pytest.mark.parametrize("question, city", QUESTIONS)
def test_litellm_reasoning_effort_on_the_openai_route_reports_reasoning_tokens(
    litellm, http_server, question, city
):
    way = Route(litellm, "openai", http_server, REASONING)
    first = way.complete(
        [{"role": "user", "content": question}], stream=False, reasoning_effort="low"
    )
    assert json.loads(first.choices[0].message.tool_calls[0].function.arguments) == {"city": city}
    assert first.usage.completion_tokens_details.reasoning_tokens > 0
    check_all(way.recorder)
