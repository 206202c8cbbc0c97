"""``collect_stream`` joins streamed fragments by ``index`` back into the non-streamed reply."""

from __future__ import annotations

import json
import random

import pytest
from openai.types.chat import ChatCompletionChunk

from course_lib.local_model import ScriptedPolicy, Turn, call, make_client
from course_lib.reference import ToolRegistry
from course_lib.reference.streaming import collect_stream

MODEL = "local-toy"


def chunk(delta: dict, finish_reason: str | None = None) -> dict:
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [choice],
    }


def fragment(index: int, *, id: str | None = None, name: str | None = None, arguments="") -> dict:
    piece: dict = {"index": index, "function": {"arguments": arguments}}
    if id is not None:
        piece |= {"id": id, "type": "function"}
        piece["function"]["name"] = name
    return chunk({"tool_calls": [piece]})


INTERLEAVED = [
    chunk({"role": "assistant"}),
    fragment(0, id="call_a", name="get_weather"),
    fragment(1, id="call_b", name="get_time"),
    fragment(1, arguments='{"city": '),
    fragment(0, arguments='{"city": "北'),
    fragment(0, arguments='京"}'),
    fragment(1, arguments='"上海"}'),
    chunk({}, "tool_calls"),
]
JOINED = [
    {"id": "call_a", "name": "get_weather", "arguments": '{"city": "北京"}'},
    {"id": "call_b", "name": "get_time", "arguments": '{"city": "上海"}'},
]


def test_joins_interleaved_fragments_by_index_not_by_arrival():
    joined = collect_stream(INTERLEAVED)
    assert joined["tool_calls"] == JOINED
    assert joined["content"] is None and joined["finish_reason"] == "tool_calls"


def test_reads_sdk_chunk_objects_as_well_as_dicts():
    chunks = [ChatCompletionChunk.model_validate(c) for c in INTERLEAVED]
    assert collect_stream(chunks)["tool_calls"] == JOINED


def test_orders_calls_by_index_even_when_a_later_index_starts_first():
    reordered = [
        INTERLEAVED[0],
        INTERLEAVED[2],
        INTERLEAVED[3],
        *INTERLEAVED[1:2],
        *INTERLEAVED[4:],
    ]
    assert collect_stream(reordered)["tool_calls"] == JOINED


def index_of(chunk: dict) -> int:
    return chunk["choices"][0]["delta"]["tool_calls"][0]["index"]


@pytest.mark.parametrize("seed", range(20))
def test_any_interleaving_that_keeps_each_calls_own_order_joins_the_same(seed):
    rng = random.Random(seed)
    fragments = INTERLEAVED[1:-1]
    queues = [[c for c in fragments if index_of(c) == i] for i in (0, 1)]
    shuffled = []
    while any(queues):
        shuffled.append(rng.choice([q for q in queues if q]).pop(0))
    assert collect_stream(shuffled)["tool_calls"] == JOINED


def test_text_pieces_are_joined_and_a_usage_chunk_without_choices_is_kept():
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    chunks = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "北京"}),
        chunk({"content": "晴"}),
        chunk({}, "stop"),
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [],
            "usage": usage,
        },
    ]
    joined = collect_stream(chunks)
    assert joined == {
        "content": "北京晴",
        "tool_calls": [],
        "finish_reason": "stop",
        "usage": usage,
    }


def test_an_empty_stream_has_no_content_and_no_calls():
    assert collect_stream([]) == {
        "content": None,
        "tool_calls": [],
        "finish_reason": None,
        "usage": None,
    }


def registry() -> ToolRegistry:
    tools = ToolRegistry()

    @tools.tool
    def get_weather(city: str) -> str:
        """Current weather in a city."""
        return city

    return tools


@pytest.mark.parametrize(
    "question",
    ["What is the weather in 北京, 上海 and Paris?", "北京的天气怎么样？", "hello"],
)
def test_the_local_models_stream_joins_to_exactly_the_non_streamed_reply(question):
    request = {
        "model": MODEL,
        "messages": [{"role": "user", "content": question}],
        "tools": registry().schemas(),
    }
    message = make_client().chat.completions.create(**request).choices[0].message
    streamed = make_client().chat.completions.create(
        **request, stream=True, stream_options={"include_usage": True}
    )
    joined = collect_stream(streamed)
    assert joined["content"] == message.content
    expected = [
        {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
        for c in message.tool_calls or []
    ]
    assert joined["tool_calls"] == expected
    assert joined["usage"] is not None


def test_text_and_calls_in_one_streamed_turn_are_both_kept():
    turn = Turn(
        "Let me look.", (call("get_weather", city="上海"), call("get_weather", city="北京"))
    )
    client = make_client(ScriptedPolicy([turn]))
    stream = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "x"}],
        tools=registry().schemas(),
        stream=True,
    )
    joined = collect_stream(stream)
    assert joined["content"] == "Let me look."
    assert [json.loads(c["arguments"])["city"] for c in joined["tool_calls"]] == ["上海", "北京"]
    assert joined["finish_reason"] == "tool_calls"
