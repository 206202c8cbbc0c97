"""The reasoning model on the Responses API through the real ``openai`` SDK, in process and HTTP.

What a 2026 reasoning model does with tools: a ``reasoning`` item before its calls, which must
go back with them (by hand, or kept by ``previous_response_id``); with ``store: false`` it
travels as ``encrypted_content``, which nobody can alter or make up. Every reply and stream
event is validated with the SDK's types in strict mode (``strict_replies.py``).
"""

from __future__ import annotations

import base64
import json

import openai
import pytest
from local_model_fixtures import WEATHER, flat
from strict_replies import checked_clients

from course_lib.local_model.client import local_endpoint

REASONING = "local-toy-reasoning"
QUESTION = "What's the weather in Beijing and 上海?"
TOOLS = [flat(WEATHER)]
INCLUDE = ["reasoning.encrypted_content"]


@pytest.fixture(params=["in-process", "http"])
def client(request, http_server):
    base_url = None if request.param == "in-process" else http_server.base_url
    with checked_clients(base_url) as (openai_client, _):
        yield openai_client


def ask(client: openai.OpenAI, question: str = QUESTION, **options):
    options.setdefault("model", REASONING)
    return client.responses.create(input=question, tools=TOOLS, **options)


def items(response) -> list[dict]:
    return [item.model_dump(exclude_none=True) for item in response.output]


def outputs(response) -> list[dict]:
    return [
        {
            "type": "function_call_output",
            "call_id": item.call_id,
            "output": json.dumps(
                {"city": json.loads(item.arguments)["city"], "sky": "晴"}, ensure_ascii=False
            ),
        }
        for item in response.output
        if item.type == "function_call"
    ]


def conversation(response, *, keep=lambda item: True) -> list[dict]:
    """The question, the reply's items (those ``keep`` keeps), then the call outputs."""
    question = {"role": "user", "content": QUESTION}
    return [question, *filter(keep, items(response)), *outputs(response)]


def without_reasoning(item: dict) -> bool:
    return item["type"] != "reasoning"


# -- the reply ------------------------------------------------------------------------------------


def test_a_reasoning_item_comes_first_and_usage_counts_its_tokens(client):
    reply = ask(client)
    plain = ask(client, model="local-toy")
    assert [item.type for item in reply.output] == ["reasoning", "function_call", "function_call"]
    assert [item.type for item in plain.output] == ["function_call", "function_call"]
    reasoning = reply.output[0]
    assert reasoning.id.startswith("rs_") and reasoning.summary == []
    assert reasoning.encrypted_content is None
    used = reply.usage
    assert used.output_tokens_details.reasoning_tokens > 0
    visible = used.output_tokens - used.output_tokens_details.reasoning_tokens
    assert visible == plain.usage.output_tokens
    assert used.total_tokens == used.input_tokens + used.output_tokens
    assert plain.usage.output_tokens_details.reasoning_tokens == 0
    assert reply.reasoning.effort == "medium" and plain.reasoning.effort is None


def test_the_calls_are_the_default_models_calls(client):
    def calls(response):
        return [(i.name, i.arguments) for i in response.output if i.type == "function_call"]

    assert calls(ask(client)) == calls(ask(client, model="local-toy"))


@pytest.mark.parametrize("summary", ["auto", "detailed", "concise"])
def test_a_summary_comes_when_asked_for(client, summary):
    reply = ask(client, reasoning={"summary": summary})
    parts = reply.output[0].summary
    assert [part.type for part in parts] == ["summary_text"]
    assert 'get_weather(city="Beijing"' in parts[0].text
    if summary == "concise":  # the decision only
        assert "\n" not in parts[0].text and "asks" not in parts[0].text
    else:
        assert parts[0].text.startswith('The user asks: "What')


def test_a_chinese_question_is_reasoned_in_chinese(client):
    reply = ask(client, "北京今天天气怎么样？", reasoning={"summary": "auto"})
    assert "用户问" in reply.output[0].summary[0].text


def test_effort_sets_how_much_is_thought(client):
    tokens = [
        ask(client, reasoning={"effort": effort}).usage.output_tokens_details.reasoning_tokens
        for effort in ("minimal", "low", "medium", "high")
    ]
    assert tokens == sorted(set(tokens)) and tokens[0] > 0
    none = ask(client, reasoning={"effort": "none"})
    assert [item.type for item in none.output] == ["function_call", "function_call"]
    assert none.usage.output_tokens_details.reasoning_tokens == 0
    again = client.responses.create(model=REASONING, input=conversation(none), tools=TOOLS)
    assert "晴" in again.output_text  # nothing to send back when nothing was thought


def test_encrypted_content_comes_only_when_included(client):
    assert ask(client).output[0].encrypted_content is None
    assert ask(client, store=False).output[0].encrypted_content is None
    sealed = ask(client, include=INCLUDE).output[0].encrypted_content
    assert isinstance(sealed, str) and len(sealed) > 40
    assert "Beijing" not in base64.b64decode(sealed).decode("latin-1")  # not readable


# -- sending it back ------------------------------------------------------------------------------


def test_items_resent_by_hand_with_the_reasoning_item_complete_the_round_trip(client):
    first = ask(client)
    final = client.responses.create(model=REASONING, input=conversation(first), tools=TOOLS)
    assert [item.type for item in final.output] == ["reasoning", "message"]
    assert (
        'get_weather(city="Beijing", unit="c")' in final.output_text and "晴" in final.output_text
    )


def test_previous_response_id_carries_the_reasoning_items(client):
    first = ask(client)
    final = client.responses.create(
        model=REASONING, previous_response_id=first.id, input=outputs(first), tools=TOOLS
    )
    assert "晴" in final.output_text


def test_a_call_sent_back_without_its_reasoning_item_is_the_real_400(client):
    first = ask(client)
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(
            model=REASONING, input=conversation(first, keep=without_reasoning), tools=TOOLS
        )
    reasoning, call = first.output[0], first.output[1]
    assert caught.value.body["message"] == (
        f"Item '{call.id}' of type 'function_call' was provided without its required "
        f"'reasoning' item: '{reasoning.id}'."
    )
    assert caught.value.body["param"] == "input" and caught.value.body["code"] is None


def test_a_reasoning_item_sent_without_what_followed_it_is_refused(client):
    first = ask(client)
    alone = [{"role": "user", "content": QUESTION}, items(first)[0]]
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model=REASONING, input=alone, tools=TOOLS)
    assert caught.value.body["message"] == (
        f"Item '{first.output[0].id}' of type 'reasoning' was provided without its required "
        "following item."
    )


def test_an_answer_sent_back_without_its_reasoning_item_is_refused_too(client):
    first = ask(client)
    final = client.responses.create(model=REASONING, input=conversation(first), tools=TOOLS)
    history = conversation(first) + [i for i in items(final) if i["type"] == "message"]
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model=REASONING, input=[*history, _user("thanks")], tools=TOOLS)
    message = caught.value.body["message"]
    assert message.startswith(f"Item '{final.output[1].id}' of type 'message'")
    assert message.endswith(f"required 'reasoning' item: '{final.output[0].id}'.")
    with_it = conversation(first) + items(final) + [_user("thanks")]
    assert client.responses.create(model=REASONING, input=with_it, tools=TOOLS).output_text


def _user(text: str) -> dict:
    return {"role": "user", "content": text}


def test_store_false_round_trip_carries_the_reasoning_as_encrypted_content(client):
    first = ask(client, store=False, include=INCLUDE)
    final = client.responses.create(
        model=REASONING, input=conversation(first), tools=TOOLS, store=False, include=INCLUDE
    )
    assert "晴" in final.output_text
    with pytest.raises(openai.BadRequestError):  # nothing was stored to continue from
        client.responses.create(model=REASONING, previous_response_id=first.id, input="more")


def test_store_false_without_encrypted_content_leaves_nothing_to_send_back(client):
    first = ask(client, store=False)
    with pytest.raises(openai.NotFoundError) as caught:
        client.responses.create(model=REASONING, input=conversation(first), tools=TOOLS)
    assert caught.value.body["message"] == (
        f"Item with id '{first.output[0].id}' not found. Items are not persisted when `store` "
        "is set to false. Try again with `store` set to true, or remove this item from your "
        "input."
    )
    with pytest.raises(openai.BadRequestError):
        client.responses.create(
            model=REASONING, input=conversation(first, keep=without_reasoning), tools=TOOLS
        )


def changed(sealed: str) -> str:
    middle = len(sealed) // 2
    return sealed[:middle] + ("A" if sealed[middle] != "A" else "B") + sealed[middle + 1 :]


def test_encrypted_content_that_was_altered_moved_or_made_up_is_refused(client):
    first, other = ask(client, store=False, include=INCLUDE), ask(client, include=INCLUDE)
    made_up = base64.b64encode(b"x" * 64).decode()
    for sealed in (changed(first.output[0].encrypted_content), other.output[0].encrypted_content):
        for content in (sealed, made_up):
            history = conversation(first)
            history[1] = {**history[1], "encrypted_content": content}
            with pytest.raises(openai.BadRequestError) as caught:
                client.responses.create(model=REASONING, input=history, tools=TOOLS)
            assert caught.value.body["code"] == "invalid_encrypted_content"
            assert caught.value.body["message"] == (
                f"The encrypted content for item {first.output[0].id} could not be verified. "
                "Reason: Encrypted content could not be decrypted or parsed."
            )


def test_a_reasoning_item_id_must_look_like_one(client):
    history = [_user(QUESTION), {"type": "reasoning", "id": "fc_123", "summary": []}]
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model=REASONING, input=history)
    assert caught.value.body["param"] == "input[1].id"


@pytest.mark.parametrize(
    "options, param",
    [
        ({"reasoning": {"effort": "extreme"}}, "reasoning.effort"),
        ({"reasoning": {"summary": "short"}}, "reasoning.summary"),
        ({"include": ["reasoning"]}, "include[0]"),
    ],
)
def test_unknown_reasoning_options_are_refused_naming_the_parameter(client, options, param):
    with pytest.raises(openai.BadRequestError) as caught:
        ask(client, **options)
    assert caught.value.body["param"] == param
    assert caught.value.body["message"].startswith("Invalid value: ")


def test_the_default_model_never_reasons_whatever_it_is_asked(client):
    reply = ask(client, model="local-toy", reasoning={"summary": "auto"}, include=INCLUDE)
    assert all(item.type == "function_call" for item in reply.output)
    assert reply.usage.output_tokens_details.reasoning_tokens == 0


# -- streaming ------------------------------------------------------------------------------------


def test_the_stream_helper_assembles_the_reasoning_item(client):
    options = dict(reasoning={"summary": "auto"}, include=INCLUDE)
    plain = ask(client, **options)
    with client.responses.stream(model=REASONING, input=QUESTION, tools=TOOLS, **options) as stream:
        deltas = [e.delta for e in stream if e.type == "response.reasoning_summary_text.delta"]
        streamed = stream.get_final_response()
    reasoning = streamed.output[0]
    assert reasoning.type == "reasoning" and reasoning.encrypted_content
    assert "".join(deltas) == reasoning.summary[0].text == plain.output[0].summary[0].text
    assert [(i.type, getattr(i, "arguments", None)) for i in streamed.output] == [
        (i.type, getattr(i, "arguments", None)) for i in plain.output
    ]
    final = client.responses.create(model=REASONING, input=conversation(streamed), tools=TOOLS)
    assert "晴" in final.output_text


def test_the_same_request_gets_byte_identical_replies_on_fresh_endpoints():
    body = json.dumps(
        {
            "model": REASONING,
            "input": QUESTION,
            "tools": TOOLS,
            "reasoning": {"summary": "auto"},
            "include": INCLUDE,
        }
    ).encode()
    replies = [local_endpoint().handle("POST", "/v1/responses", body).body for _ in range(2)]
    assert replies[0] == replies[1] and b"encrypted_content" in replies[0]
