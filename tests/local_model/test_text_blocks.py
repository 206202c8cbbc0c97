"""Several text blocks in one Anthropic reply (``Turn.in_blocks``), as the real API may send them.

The Messages API splits a reply's text into several ``text`` blocks (around citations, around
server tool calls), so code that reads ``content[0].text`` loses the rest. A turn given in parts
comes back as one block per part: plain and streamed, in process and over HTTP, byte for byte
the same on every run, strictly valid for the SDK's types; a limit that cuts the text keeps the
blocks before the cut. The OpenAI APIs, whose text is one string, get the parts joined.
"""

from __future__ import annotations

import json

import anthropic
import pytest
import spec_cases
import spec_check

from course_lib.local_model import (
    ScriptedPolicy,
    Turn,
    call,
    make_anthropic_client,
    make_client,
    memo,
)
from course_lib.local_model.endpoint import LocalEndpoint
from course_lib.local_model.server import serve

PARTS = ("Paris is cloudy, not sunny.", " London has rain.")
TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    }
]
QUESTION = "Is it sunny in Paris or in London?"


def policy() -> ScriptedPolicy:
    return ScriptedPolicy([Turn.in_blocks(*PARTS)])


def body(**extra) -> dict:
    messages = [{"role": "user", "content": QUESTION}]
    return {"model": "local-toy", "max_tokens": 1024, "messages": messages, "tools": TOOLS} | extra


def texts(message) -> list[str]:
    return [block.text for block in message.content if block.type == "text"]


def test_a_turn_in_parts_comes_back_as_one_text_block_per_part():
    reply = make_anthropic_client(policy()).messages.create(**body())
    assert texts(reply) == list(PARTS)
    assert [block.type for block in reply.content] == ["text", "text"]
    assert reply.stop_reason == "end_turn"


def test_streamed_the_blocks_arrive_apart_and_the_sdk_joins_them_in_its_final_text():
    client = make_anthropic_client(policy())
    with client.messages.stream(**body()) as stream:
        starts = [e.index for e in stream if e.type == "content_block_start"]
        final = stream.get_final_message()
    assert starts == [0, 1]
    assert texts(final) == list(PARTS)
    assert stream.get_final_text() == "".join(PARTS)


def test_text_before_calls_in_parts_keeps_its_blocks_before_the_tool_use():
    turn = Turn.in_blocks(
        "Let me look.", " Both cities.", tool_calls=(call("get_weather", city="Paris"),)
    )
    reply = make_anthropic_client(ScriptedPolicy([turn])).messages.create(**body())
    assert [block.type for block in reply.content] == ["text", "text", "tool_use"]
    assert reply.stop_reason == "tool_use"


def test_a_strict_tools_conformed_input_leaves_the_text_blocks_as_they_were():
    strict = [
        {
            **TOOLS[0],
            "strict": True,
            "input_schema": {**TOOLS[0]["input_schema"], "additionalProperties": False},
        }
    ]
    calls = (call("get_weather"),)  # no city: the strict grammar fills it in
    turn = Turn.in_blocks("Let me look.", " Both cities.", tool_calls=calls)
    reply = make_anthropic_client(ScriptedPolicy([turn])).messages.create(**body(tools=strict))
    assert [block.type for block in reply.content] == ["text", "text", "tool_use"]
    assert "city" in reply.content[2].input


def test_max_tokens_cuts_the_text_and_keeps_the_blocks_before_the_cut():
    reply = make_anthropic_client(policy()).messages.create(**body(max_tokens=9))
    assert reply.stop_reason == "max_tokens"
    first, rest = texts(reply)
    assert first == PARTS[0] and PARTS[1].startswith(rest) and rest != PARTS[1]


def test_a_stop_sequence_in_the_second_part_ends_it_there():
    reply = make_anthropic_client(policy()).messages.create(**body(stop_sequences=["rain"]))
    assert reply.stop_reason == "stop_sequence"
    assert texts(reply) == [PARTS[0], " London has "]


def test_a_stop_sequence_in_the_first_part_leaves_one_block():
    reply = make_anthropic_client(policy()).messages.create(**body(stop_sequences=["sunny"]))
    assert texts(reply) == ["Paris is cloudy, not "]


def test_the_openai_apis_get_the_parts_joined():
    client = make_client(policy())
    chat = client.chat.completions.create(
        model="local-toy", messages=[{"role": "user", "content": QUESTION}]
    )
    assert chat.choices[0].message.content == "".join(PARTS)
    client = make_client(policy())
    assert client.responses.create(model="local-toy", input=QUESTION).output_text == "".join(PARTS)


def test_the_thinking_model_puts_its_thinking_block_before_the_text_blocks():
    client = make_anthropic_client(policy())
    reply = client.messages.create(**body(model="local-toy-reasoning", max_tokens=2048))
    assert [block.type for block in reply.content] == ["thinking", "text", "text"]
    assert texts(reply) == list(PARTS)


def test_parts_that_do_not_join_to_the_text_are_refused():
    with pytest.raises(ValueError, match="join to its content"):
        Turn("Paris.", parts=("Lon", "don."))
    with pytest.raises(ValueError, match="non-empty"):
        Turn.in_blocks("Paris.", "")


def _exchanges(send) -> list[spec_cases.Exchange]:
    out = []
    for stream in (False, True):
        for extra in ({}, {"max_tokens": 9}, {"stop_sequences": ["rain"]}):
            request = body(stream=stream, **extra)
            raw = json.dumps(request).encode()
            status, kind, reply = send("POST", "/v1/messages", raw, spec_cases.ANTHROPIC)
            out.append(spec_cases.Exchange("messages", str(extra), request, status, kind, reply))
    return out


def _in_process(endpoint: LocalEndpoint):
    def send(method, path, raw, headers):
        reply = endpoint.handle(method, path, raw, headers)
        data = reply.body if isinstance(reply.body, bytes) else b"".join(reply.body)
        return reply.status, reply.content_type, data

    return send


def _over_http(server):
    import http.client

    host, port = server.server_address

    def send(method, path, raw, headers):
        connection = http.client.HTTPConnection(host, port, timeout=30)
        try:
            connection.request(method, path, body=raw, headers=headers)
            reply = connection.getresponse()
            return reply.status, reply.getheader("content-type"), reply.read()
        finally:
            connection.close()

    return send


def test_every_reply_and_event_validates_strictly_on_both_roads_with_the_same_bytes_every_run():
    here = _exchanges(_in_process(LocalEndpoint(policy())))
    with memo.bypassed():
        again = _exchanges(_in_process(LocalEndpoint(policy())))
    with serve(policy=policy()) as server:
        there = _exchanges(_over_http(server))
    assert [x.reply for x in here] == [x.reply for x in again] == [x.reply for x in there]
    for exchange in here:
        assert exchange.status == 200, exchange.reply
        objects = spec_check.validate(exchange)
        assert not spec_check.missing_fields(objects), exchange.label
    message = anthropic.types.Message.model_validate_json(here[0].reply, strict=True)
    assert texts(message) == list(PARTS)
