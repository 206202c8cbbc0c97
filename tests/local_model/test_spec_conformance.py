"""The local model against the APIs' specifications, as the SDKs' own types encode them.

A deterministic, broad set of requests (``spec_cases.py``: all three APIs, every model in
``spec_cases.MODELS``, streamed and not, tools, forced and allowed-tools calls, token limits,
stop sequences, ``n``, structured outputs, round trips) is played in process and over HTTP.
Every reply, stream event and error must validate strictly against the SDK types
(``spec_check.py``) and carry every field its specification requires (``spec_fields.py``);
both roads must answer byte for byte alike. Every kind of invalid request
(``spec_errors.REFUSALS``) gets the real API's status, type, ``param``, ``code`` and wording on
both roads, and hostile values for every option (``spec_errors.HOSTILE``) get a 400 or a valid
reply, never a 500.
"""

from __future__ import annotations

import http.client
import json
from collections import Counter
from collections.abc import Iterator

import pytest
import spec_cases
import spec_check
import spec_errors
from spec_errors import REFUSALS, Refusal
from test_reply_corpus import in_process as endpoint_send

from course_lib.local_model import openai_options, sdk_params
from course_lib.local_model.endpoint import LocalEndpoint
from course_lib.local_model.policy import HeuristicPolicy
from course_lib.local_model.server import serve

ROADS = ["in-process", "http"]


def in_process() -> spec_cases.Send:
    return endpoint_send(LocalEndpoint(HeuristicPolicy()))


@pytest.fixture(scope="module")
def server() -> Iterator:
    with serve() as running:  # a server of its own: its ids start where in_process() starts
        yield running


def over_http(server) -> spec_cases.Send:
    host, port = server.server_address

    def send(method: str, path: str, raw: bytes, headers: dict[str, str]):
        connection = http.client.HTTPConnection(host, port, timeout=30)
        try:
            connection.request(method, path, body=raw or None, headers=headers)
            reply = connection.getresponse()
            return reply.status, reply.getheader("content-type"), reply.read()
        finally:
            connection.close()

    return send


@pytest.fixture(scope="module")
def played(server) -> dict[str, list[spec_cases.Exchange]]:
    return {"in-process": spec_cases.play(in_process()), "http": spec_cases.play(over_http(server))}


def _reply(exchange: spec_cases.Exchange) -> dict:
    return json.loads(exchange.reply) if not exchange.streamed else {}


def test_the_generated_set_covers_the_apis_streams_limits_calls_and_round_trips(played):
    exchanges = played["in-process"]
    kinds = Counter((x.api, x.streamed) for x in exchanges if x.status == 200)
    assert all(kinds[(api, streamed)] >= 10 for api in spec_cases.PATHS for streamed in (0, 1))
    endings = {
        ending
        for x in exchanges
        if x.status == 200 and not x.streamed
        for ending in (
            [c["finish_reason"] for c in _reply(x).get("choices", [])]
            + [_reply(x).get("status"), _reply(x).get("stop_reason")]
        )
    }
    wanted = {"stop", "length", "tool_calls", "completed", "incomplete"}
    assert wanted | {"end_turn", "max_tokens", "stop_sequence", "tool_use"} <= endings
    assert any(len(_reply(x).get("choices", [])) > 1 for x in exchanges)
    assert any(x.label.endswith((" results", " previous")) for x in exchanges)


@pytest.mark.parametrize("road", ROADS)
def test_every_reply_stream_event_and_error_validates_strictly_against_the_sdk_types(played, road):
    for exchange in played[road]:
        try:
            spec_check.validate(exchange)
        except Exception as error:
            pytest.fail(f"{exchange.label}: {error}")


@pytest.mark.parametrize("road", ROADS)
def test_every_object_carries_every_field_its_specification_requires(played, road):
    problems = set()
    for exchange in played[road]:
        problems.update(spec_check.missing_fields(spec_check.validate(exchange)))
    assert not problems


def test_both_roads_answer_byte_for_byte_alike(played):
    pairs = zip(played["in-process"], played["http"], strict=True)
    for here, there in pairs:
        assert (here.status, here.content_type, here.reply) == (
            there.status,
            there.content_type,
            there.reply,
        ), here.label


@pytest.mark.parametrize("road", ROADS)
@pytest.mark.parametrize("anthropic", [False, True], ids=["openai", "anthropic"])
def test_the_model_list_validates_with_every_required_field(server, road, anthropic):
    send = in_process() if road == "in-process" else over_http(server)
    headers = {"anthropic-version": "2023-06-01"} if anthropic else {}
    status, _, raw = send("GET", "/v1/models", b"", headers)
    assert status == 200
    assert not spec_check.missing_fields(spec_check.validate_model_list(raw, anthropic=anthropic))


def _refuse(send: spec_cases.Send, refusal: Refusal) -> tuple[int, dict]:
    request = spec_cases.Request(refusal.api, refusal.label, refusal.body)
    exchange = spec_cases.exchange(send, request)
    error = spec_check.validate_error(refusal.api, exchange.reply)
    assert not spec_check.missing_fields([error])
    return exchange.status, json.loads(exchange.reply)


@pytest.mark.parametrize("road", ROADS)
@pytest.mark.parametrize("refusal", REFUSALS, ids=[f"{r.api}: {r.label}" for r in REFUSALS])
def test_each_invalid_request_gets_the_real_status_type_param_code_and_wording(
    server, road, refusal
):
    send = in_process() if road == "in-process" else over_http(server)
    status, body = _refuse(send, refusal)
    error = dict(body["error"])
    message = error.pop("message")
    assert status == refusal.status
    # the API's sentence, sometimes followed by one of ours on what to fix
    assert message == refusal.message or message.startswith(refusal.message + " ")
    if refusal.api == "messages":
        assert error == {"type": refusal.type}
    else:
        assert error == {"type": refusal.type, "param": refusal.param, "code": refusal.code}


def _hostile_requests() -> Iterator[tuple[str, str, dict]]:
    anthropic_options = ["temperature", "top_p", "top_k", "stop_sequences", "metadata"]
    anthropic_options += ["service_tier", "inference_geo", "container", "cache_control", "stream"]
    anthropic_options += ["max_tokens", "system", "tools", "tool_choice"]
    chat_options = [*openai_options.CHAT_RULES, "stop", "tools", "tool_choice", "messages"]
    responses_options = [*openai_options.RESPONSES_RULES, "input", "tools", "tool_choice"]
    base = {
        "chat": spec_errors.chat(),
        "responses": spec_errors.responses(),
        "messages": spec_errors.messages(),
    }
    for api, options in (
        ("chat", chat_options),
        ("responses", responses_options),
        ("messages", anthropic_options),
    ):
        for option in options:
            for number, value in enumerate(spec_errors.HOSTILE):
                yield api, f"{api} {option}={number}", {**base[api], option: value}


def test_every_option_the_rules_cover_is_one_the_sdk_types_list():
    assert set(openai_options.CHAT_RULES) <= sdk_params.CHAT
    assert set(openai_options.RESPONSES_RULES) <= sdk_params.RESPONSES


def test_hostile_values_for_every_option_get_a_400_or_a_valid_reply_never_a_500():
    send = in_process()
    answered = Counter()
    for api, label, body in _hostile_requests():
        exchange = spec_cases.exchange(send, spec_cases.Request(api, label, body))
        answered[exchange.status] += 1
        assert exchange.status in (200, 400), (label, exchange.reply[:300])
        try:
            spec_check.validate(exchange)
        except Exception as error:
            pytest.fail(f"{label}: {error}")
    assert answered[400] > answered[200] > 0
