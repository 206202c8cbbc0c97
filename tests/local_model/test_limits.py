"""Token limits, stop sequences and ``n`` honoured on all three APIs, through the real SDKs.

A limit cuts what the model would have said (its text at a streaming piece, a forced call's
arguments at a character) and the reply says so the way each API does; a stop sequence ends the
text just before it; streamed and non-streamed replies agree, and usage counts what came back.
``limits.end`` and ``partial_object`` are checked directly too, over generated texts.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from local_model_fixtures import NOTES, WEATHER, flat, for_anthropic, user

from course_lib.local_model import MODEL
from course_lib.local_model.limits import LENGTH, STOP_SEQUENCE, Limits, end, turn_tokens
from course_lib.local_model.messages_reply import partial_object
from course_lib.local_model.turns import ToolCall, Turn
from course_lib.local_model.wire import count_tokens, text_pieces

NO_TOOLS = user("Tell me a joke about databases.")  # answered with a long sentence
CHINESE = user("讲一个关于数据库的笑话。")
FORCED = dict(messages=user("Find my notes about tax return, at most 3."), tools=[NOTES])


def _chat_text(client, **kwargs) -> tuple:
    reply = client.chat.completions.create(model=MODEL, **kwargs)
    choice = reply.choices[0]
    return choice.message.content, choice.finish_reason, reply.usage


@pytest.mark.parametrize("messages", [NO_TOOLS, CHINESE], ids=["english", "chinese"])
def test_chat_max_tokens_cuts_the_text_with_finish_reason_length(any_client, messages):
    full, finish, _ = _chat_text(any_client, messages=messages)
    assert finish == "stop" and count_tokens(full) > 6
    cut, finish, usage = _chat_text(any_client, messages=messages, max_completion_tokens=6)
    assert finish == "length" and full.startswith(cut) and len(cut) < len(full)
    assert usage.completion_tokens == count_tokens(cut) <= 6
    older, _, _ = _chat_text(any_client, messages=messages, max_tokens=6)
    assert older == cut


def test_chat_stream_cut_by_max_tokens_joins_to_the_same_text_and_usage(any_client):
    cut, _, usage = _chat_text(any_client, messages=NO_TOOLS, max_tokens=6)
    stream = any_client.chat.completions.create(
        model=MODEL,
        messages=NO_TOOLS,
        max_tokens=6,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    finishes = [
        c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason
    ]
    assert (text, finishes, chunks[-1].usage) == (cut, ["length"], usage)


def test_a_forced_chat_call_is_cut_inside_its_arguments(any_client):
    whole = any_client.chat.completions.create(model=MODEL, tool_choice="required", **FORCED)
    arguments = whole.choices[0].message.tool_calls[0].function.arguments
    cut = any_client.chat.completions.create(
        model=MODEL, tool_choice="required", max_completion_tokens=9, **FORCED
    )
    call = cut.choices[0].message.tool_calls[0]
    assert cut.choices[0].finish_reason == "length"
    assert arguments.startswith(call.function.arguments) and call.function.arguments != arguments
    with pytest.raises(ValueError):
        json.loads(call.function.arguments)
    assert cut.usage.completion_tokens <= 9


def test_chat_stop_ends_the_text_before_the_sequence_streamed_and_not(any_client):
    full, _, _ = _chat_text(any_client, messages=NO_TOOLS)
    text, finish, usage = _chat_text(any_client, messages=NO_TOOLS, stop=["tools", "model"])
    assert finish == "stop" and text == full[: full.index("model")]
    assert usage.completion_tokens == count_tokens(text)
    stream = any_client.chat.completions.create(
        model=MODEL, messages=NO_TOOLS, stop="model", stream=True
    )
    assert "".join(c.choices[0].delta.content or "" for c in stream) == text


def test_chat_n_answers_with_that_many_choices_each_call_with_its_own_id(any_client):
    question = user("What's the weather in Beijing and 上海?")
    one = any_client.chat.completions.create(model=MODEL, messages=question, tools=[WEATHER])
    three = any_client.chat.completions.create(model=MODEL, messages=question, tools=[WEATHER], n=3)
    assert [c.index for c in three.choices] == [0, 1, 2]
    shapes = {
        tuple((t.function.name, t.function.arguments) for t in c.message.tool_calls)
        for c in three.choices
    }
    assert len(shapes) == 1
    ids = [t.id for c in three.choices for t in c.message.tool_calls]
    assert len(set(ids)) == len(ids) == 6
    assert three.usage.completion_tokens == 3 * one.usage.completion_tokens
    assert three.usage.prompt_tokens == one.usage.prompt_tokens


def test_chat_n_streams_every_choice_to_its_finish(any_client):
    stream = any_client.chat.completions.create(model=MODEL, messages=NO_TOOLS, n=2, stream=True)
    texts = {0: "", 1: ""}
    finished = []
    for chunk in stream:
        for choice in chunk.choices:
            texts[choice.index] += choice.delta.content or ""
            if choice.finish_reason:
                finished.append((choice.index, choice.finish_reason))
    assert texts[0] == texts[1] and texts[0].startswith("I am the local toy model")
    assert finished == [(0, "stop"), (1, "stop")]


def test_responses_max_output_tokens_makes_an_incomplete_response(any_client):
    full = any_client.responses.create(model=MODEL, input=NO_TOOLS[0]["content"])
    cut = any_client.responses.create(
        model=MODEL, input=NO_TOOLS[0]["content"], max_output_tokens=16
    )
    assert (cut.status, cut.incomplete_details.reason) == ("incomplete", "max_output_tokens")
    assert cut.output[0].status == "incomplete" and cut.completed_at is None
    assert full.output_text.startswith(cut.output_text) and cut.output_text != full.output_text
    assert cut.usage.output_tokens == count_tokens(cut.output_text) <= 16
    events = list(
        any_client.responses.create(
            model=MODEL, input=NO_TOOLS[0]["content"], max_output_tokens=16, stream=True
        )
    )
    assert events[-1].type == "response.incomplete"
    assert events[-1].response.output_text == cut.output_text


def test_a_forced_responses_call_cut_short_is_an_incomplete_item(any_client):
    cut = any_client.responses.create(
        model=MODEL,
        input=FORCED["messages"][0]["content"],
        tools=[flat(NOTES)],
        tool_choice="required",
        max_output_tokens=16,
    )
    call = cut.output[0]
    assert (cut.status, call.type, call.status) == ("incomplete", "function_call", "incomplete")


def _blocks(message) -> list[tuple]:
    """What a message says, without ids (each request mints its own)."""
    return [
        (b.type, b.text) if b.type == "text" else (b.type, b.name, b.input) for b in message.content
    ]


def test_anthropic_max_tokens_cuts_the_text_streamed_and_not(any_anthropic):
    full = any_anthropic.messages.create(model=MODEL, max_tokens=1024, messages=NO_TOOLS)
    cut = any_anthropic.messages.create(model=MODEL, max_tokens=6, messages=NO_TOOLS)
    assert (full.stop_reason, cut.stop_reason) == ("end_turn", "max_tokens")
    assert full.content[0].text.startswith(cut.content[0].text)
    assert cut.usage.output_tokens == count_tokens(cut.content[0].text) <= 6
    with any_anthropic.messages.stream(model=MODEL, max_tokens=6, messages=NO_TOOLS) as stream:
        final = stream.get_final_message()
    assert _blocks(final) == _blocks(cut) and final.stop_reason == "max_tokens"
    assert final.usage.output_tokens == cut.usage.output_tokens


def test_anthropic_stop_sequences_end_the_text_and_name_the_sequence(any_anthropic):
    full = any_anthropic.messages.create(model=MODEL, max_tokens=1024, messages=NO_TOOLS).content
    stops = ["tools", "model"]
    reply = any_anthropic.messages.create(
        model=MODEL, max_tokens=1024, messages=NO_TOOLS, stop_sequences=stops
    )
    assert (reply.stop_reason, reply.stop_sequence) == ("stop_sequence", "model")
    assert reply.content[0].text == full[0].text[: full[0].text.index("model")]
    with any_anthropic.messages.stream(
        model=MODEL, max_tokens=1024, messages=NO_TOOLS, stop_sequences=stops
    ) as stream:
        final = stream.get_final_message()
    assert (_blocks(final), final.stop_sequence) == (_blocks(reply), "model")


def test_an_anthropic_tool_use_cut_short_keeps_the_members_it_had_completed(any_anthropic):
    kwargs = dict(
        model=MODEL,
        messages=FORCED["messages"],
        tools=[for_anthropic(NOTES)],
        tool_choice={"type": "any"},
    )
    whole = any_anthropic.messages.create(max_tokens=1024, **kwargs).content[0].input
    cut = any_anthropic.messages.create(max_tokens=12, **kwargs)
    assert cut.stop_reason == "max_tokens"
    begun = cut.content[0].input
    assert begun != whole and begun.items() <= whole.items()
    with any_anthropic.messages.stream(max_tokens=12, **kwargs) as stream:
        assert _blocks(stream.get_final_message()) == _blocks(cut)


# -- limits.end and partial_object, directly ------------------------------------------------------

TEXTS = st.text(alphabet=st.sampled_from(list("ab cd.\n北京天气")), max_size=60)
UNTIMED = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # no clock


@UNTIMED
@given(TEXTS, st.integers(min_value=0, max_value=30))
def test_a_cut_text_is_the_longest_run_of_whole_pieces_within_the_limit(text, budget):
    ending = end(Turn(text), Limits(max_tokens=budget))
    kept = ending.turn.content
    assert text.startswith(kept) and turn_tokens(ending.turn) <= budget
    if ending.reason == LENGTH:
        pieces = text_pieces(text)
        taken = len(text_pieces(kept)) if kept else 0
        assert count_tokens(kept + pieces[taken]) > budget
    else:
        assert kept == text


@UNTIMED
@given(TEXTS, st.lists(st.sampled_from(["b", "天", "d.", "zz"]), max_size=3))
def test_a_stop_sequence_ends_the_text_before_its_first_appearance(text, stops):
    ending = end(Turn(text, (ToolCall.of("f", {"a": 1}),)), Limits(stop=tuple(stops)))
    found = [text.index(s) for s in stops if s in text]
    if found:
        assert ending.reason == STOP_SEQUENCE and ending.turn.content == text[: min(found)]
        assert ending.turn.tool_calls == () and ending.stop_sequence in stops
    else:
        assert ending.turn.content == text and len(ending.turn.tool_calls) == 1


def test_a_limit_keeps_whole_calls_and_cuts_the_first_that_does_not_fit():
    calls = (
        ToolCall.of("get_weather", {"city": "Beijing"}),
        ToolCall.of("get_weather", {"city": "上海"}),
    )
    first = 3 + count_tokens("get_weather") + count_tokens(calls[0].arguments)
    ending = end(Turn(None, calls), Limits(max_tokens=first + 6))
    assert ending.reason == LENGTH and ending.cut_call
    assert ending.turn.tool_calls[0] == calls[0]
    assert calls[1].arguments.startswith(ending.turn.tool_calls[1].arguments)
    assert turn_tokens(ending.turn) <= first + 6
    assert end(Turn(None, calls), Limits(max_tokens=first + 1)).turn.tool_calls == calls[:1]


@pytest.mark.parametrize(
    "text, begun",
    [
        ('{"keyword": "tax return", "limit": 3}', {"keyword": "tax return", "limit": 3}),
        ('{"keyword": "tax return", "lim', {"keyword": "tax return"}),
        ('{"keyword": "tax ret', {}),
        ('{"a": {"b": [1, 2', {"a": {"b": [1, 2]}}),
        ('{"a": "say \\"hi', {}),
        ("", {}),
    ],
)
def test_partial_object_keeps_the_members_that_were_complete(text, begun):
    assert partial_object(text) == begun
