"""Streamed replies join back to exactly the non-streamed reply, through the real SDK."""

from __future__ import annotations

import json

import pytest
from local_model_fixtures import CALC, NOTES, WEATHER, answer_calls, user

from course_lib.local_model import MODEL, ScriptedPolicy, Turn, call, make_client
from course_lib.local_model.server import serve


def join(stream) -> tuple[str | None, list[dict], str | None, list]:
    """Join chunks by hand: text pieces in order, tool-call fragments by ``index``."""
    text: str | None = None
    calls: dict[int, dict] = {}
    finish = None
    chunks = list(stream)
    for chunk in chunks:
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                text = (text or "") + delta.content
            for fragment in delta.tool_calls or []:
                slot = calls.setdefault(fragment.index, {"id": None, "name": "", "arguments": ""})
                slot["id"] = fragment.id or slot["id"]
                if fragment.function:
                    slot["name"] += fragment.function.name or ""
                    slot["arguments"] += fragment.function.arguments or ""
            finish = choice.finish_reason or finish
    return text, [calls[i] for i in sorted(calls)], finish, chunks


def flat(message) -> tuple[str | None, list[dict]]:
    calls = [
        {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
        for c in message.tool_calls or []
    ]
    return message.content, calls


def weather_after_results() -> list[dict]:
    messages = user("What's the weather in Beijing and 上海?")
    first = make_client().chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])
    return answer_calls(messages, first.choices[0].message, lambda n, a: {"sky": "晴", **a})


CONVERSATIONS = {
    "plain text": (user("hello"), None),
    "one tool call": (user("Find my notes about python decorators, limit 3"), [NOTES, WEATHER]),
    "three parallel calls": (user("北京、上海和深圳的天气怎么样？"), [WEATHER]),
    "calls to two tools": (user("Weather in Paris? Also calculate 12 * (3 + 4)."), [WEATHER, CALC]),
    "clarifying question": (user("What's the weather like?"), [WEATHER]),
    "final answer quoting results": (None, [WEATHER]),
}


@pytest.mark.parametrize("case", list(CONVERSATIONS))
def test_streamed_chunks_join_to_exactly_the_non_streamed_reply(case):
    messages, tools = CONVERSATIONS[case]
    messages = messages or weather_after_results()
    request = dict(model=MODEL, messages=messages, **({"tools": tools} if tools else {}))
    whole = make_client(seed=7).chat.completions.create(**request)
    text, calls, finish, _ = join(
        make_client(seed=7).chat.completions.create(**request, stream=True)
    )
    assert (text, calls) == flat(whole.choices[0].message)
    assert finish == whole.choices[0].finish_reason


def test_streaming_over_http_joins_to_the_same_reply_as_in_process():
    request = dict(model=MODEL, messages=user("北京和上海的天气"), tools=[WEATHER], stream=True)
    with serve(seed=3) as server:
        import openai

        remote = openai.OpenAI(api_key="unused", base_url=server.base_url, max_retries=0)
        over_http = join(remote.chat.completions.create(**request))[:3]
    in_process = join(make_client(seed=3).chat.completions.create(**request))[:3]
    assert over_http == in_process
    assert len(in_process[1]) == 2


def test_parallel_calls_stream_interleaved_by_index_each_opening_with_id_and_name():
    stream = make_client().chat.completions.create(
        model=MODEL,
        messages=user("Weather in Beijing, Shanghai and Shenzhen"),
        tools=[WEATHER],
        stream=True,
    )
    fragments = [f for chunk in stream for c in chunk.choices for f in c.delta.tool_calls or []]
    order = [f.index for f in fragments]
    assert order[:3] == [0, 1, 2]  # each call opens before any arguments flow
    assert order[3:6] == [0, 1, 2]  # argument fragments alternate between calls
    openers = fragments[:3]
    assert all(f.id.startswith("call_") and f.function.name == "get_weather" for f in openers)
    assert all(f.function.arguments == "" for f in openers)
    assert all(f.id is None and f.function.name is None for f in fragments[3:])


def test_text_streams_in_small_pieces_after_a_role_delta():
    stream = make_client().chat.completions.create(model=MODEL, messages=user("你好"), stream=True)
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    pieces = [c.choices[0].delta.content for c in chunks[1:] if c.choices[0].delta.content]
    assert len(pieces) > 5 and max(len(p) for p in pieces) <= 12


def test_include_usage_adds_a_last_chunk_with_usage_and_no_choices():
    request = dict(model=MODEL, messages=user("Weather in Tokyo?"), tools=[WEATHER])
    whole = make_client().chat.completions.create(**request)
    _, _, _, chunks = join(
        make_client().chat.completions.create(
            **request, stream=True, stream_options={"include_usage": True}
        )
    )
    assert chunks[-1].choices == [] and chunks[-1].usage == whole.usage
    assert all(c.usage is None for c in chunks[:-1])
    usage = whole.usage
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens > 0


def test_without_include_usage_no_chunk_carries_usage():
    stream = make_client().chat.completions.create(model=MODEL, messages=user("hello"), stream=True)
    assert all(c.usage is None and c.choices for c in stream)


def test_a_scripted_turn_with_text_and_calls_streams_the_text_first():
    turn = Turn("Let me check.", (call("get_weather", city="北京"),))
    stream = make_client(ScriptedPolicy([turn])).chat.completions.create(
        model=MODEL, messages=user("北京天气"), tools=[WEATHER], stream=True
    )
    text, calls, finish, chunks = join(stream)
    assert text == "Let me check." and finish == "tool_calls"
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == [
        ("get_weather", {"city": "北京"})
    ]
    first_call = next(
        i for i, c in enumerate(chunks) if c.choices and c.choices[0].delta.tool_calls
    )
    last_text = max(i for i, c in enumerate(chunks) if c.choices and c.choices[0].delta.content)
    assert last_text < first_call
