"""serve-model as an HTTP/1.1 server: framing, keep-alive, HTTP/1.0, HEAD, CORS, threads.

Raw sockets say exactly which bytes go out; the real ``openai`` SDK is the normal client.
"""

from __future__ import annotations

import json
import threading

import openai
import pytest
from local_model_fixtures import WEATHER, user
from raw_http import SharedReader, chat_body, connect, exchange, one, read_reply, request

from course_lib.local_model import HeuristicPolicy
from course_lib.local_model.http_limits import ServerLimits
from course_lib.local_model.server import serve

CHAT = "/v1/chat/completions"


@pytest.fixture(scope="module")
def server():
    with serve(limits=ServerLimits(idle_timeout=5.0)) as running:
        yield running


def test_a_chunked_request_body_is_read_whole_and_the_connection_stays_in_step(server):
    body = chat_body()
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (body[:7], body[7:30], body[30:]))
    first = (
        f"POST {CHAT} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        + chunked
        + b"0\r\n\r\n"
    )
    replies = exchange(server.base_url, first + request("GET", "/v1/models"), replies=2)
    assert [r.status for r in replies] == [200, 200]
    call = replies[0].json()["choices"][0]["message"]
    assert call["content"] is not None or call["tool_calls"]
    assert replies[1].json()["object"] == "list"


def test_a_body_framed_both_chunked_and_by_length_is_read_chunked_then_the_connection_closes(
    server,
):
    body = chat_body()
    data = (
        f"POST {CHAT} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        f"Content-Length: 5\r\n\r\n{len(body):x}\r\n".encode()
        + body
        + b"\r\n0\r\n\r\n"
    )
    with connect(server.base_url) as sock:
        sock.sendall(data + request("GET", "/v1/models"))  # the smuggled request is not answered
        reader = SharedReader(sock)
        reply = read_reply(reader)
        assert reply.status == 200 and reply.closes
        assert reader.read(1) == b""


def test_pipelined_requests_are_answered_in_order_on_one_connection(server):
    texts = ["Hello", "你好", "What's the weather in Paris?"]
    data = b"".join(request("POST", CHAT, chat_body(t)) for t in texts)
    replies = exchange(server.base_url, data, replies=3)
    assert [r.status for r in replies] == [200, 200, 200]
    contents = [r.json()["choices"][0]["message"]["content"] for r in replies]
    assert "你好" in contents[1] and "你好" not in contents[0]
    assert len({r.json()["id"] for r in replies}) == 3


def test_keep_alive_serves_many_requests_on_one_http_1_1_connection(server):
    with connect(server.base_url) as sock:
        reader = SharedReader(sock)
        for _ in range(20):
            sock.sendall(request("POST", CHAT, chat_body()))
            reply = read_reply(reader)
            assert reply.status == 200 and not reply.closes


def test_an_http_1_0_client_gets_a_stream_as_a_plain_body_closed_at_the_end(server):
    with connect(server.base_url) as sock:
        sock.sendall(request("POST", CHAT, chat_body(stream=True), version="HTTP/1.0"))
        reply = read_reply(SharedReader(sock))
        assert reply.status == 200  # (answered "HTTP/1.1 200", as RFC 9110 lets it)
        assert not reply.chunked and reply.closes
        assert reply.body.endswith(b"data: [DONE]\n\n")
        events = [json.loads(line[6:]) for line in reply.body.split(b"\n\n")[:-2]]
        assert events[0]["object"] == "chat.completion.chunk"
        assert sock.recv(1) == b""  # the end of the body is the end of the connection


def test_an_http_1_1_stream_is_chunked_and_the_connection_stays_open(server):
    replies = exchange(
        server.base_url,
        request("POST", CHAT, chat_body(stream=True)) + request("GET", "/v1/models"),
        replies=2,
    )
    assert replies[0].chunked and not replies[0].closes
    assert replies[0].headers["content-type"].startswith("text/event-stream")
    assert replies[0].body.endswith(b"data: [DONE]\n\n")
    assert replies[1].status == 200


def test_an_http_1_0_request_without_a_stream_gets_a_content_length_and_a_close(server):
    reply = one(server.base_url, request("GET", "/v1/models", version="HTTP/1.0"), "GET")
    assert reply.status == 200 and reply.closes and not reply.chunked
    assert int(reply.headers["content-length"]) == len(reply.body)


def test_head_answers_the_get_headers_without_a_body_and_keeps_the_connection(server):
    with connect(server.base_url) as sock:
        reader = SharedReader(sock)
        sock.sendall(request("HEAD", "/v1/models"))
        head = read_reply(reader, method="HEAD")
        sock.sendall(request("GET", "/v1/models"))
        get = read_reply(reader, method="GET")
    assert head.status == 200 and head.body == b""
    assert head.headers["content-length"] == get.headers["content-length"]
    assert int(get.headers["content-length"]) == len(get.body) > 0


def test_get_models_by_id_is_routed_to_the_endpoint_with_the_decoded_path(server):
    reply = one(server.base_url, request("GET", "/v1/models/local%2Dtoy?x=1"), "GET")
    # The endpoint decides what /v1/models/{id} answers: the model, or a 404 naming the path it
    # got. Either way it saw the path percent-decoded and without the query, as in process.
    if reply.status == 200:
        assert reply.json()["id"] == "local-toy"
    else:
        assert reply.status == 404
        assert "/v1/models/local-toy)" in reply.error_message()


def test_a_cors_preflight_allows_any_origin_and_echoes_the_requested_headers(server):
    reply = one(
        server.base_url,
        request(
            "OPTIONS",
            CHAT,
            headers={
                "Origin": "http://localhost:8888",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type, x-stainless-os",
            },
        ),
        "OPTIONS",
    )
    assert reply.status == 204
    assert reply.headers["access-control-allow-origin"] == "*"
    assert "POST" in reply.headers["access-control-allow-methods"]
    assert reply.headers["access-control-allow-headers"] == (
        "authorization, content-type, x-stainless-os"
    )


def test_every_reply_carries_access_control_allow_origin_for_browser_clients(server):
    for data in (
        request("POST", CHAT, chat_body()),
        request("POST", CHAT, b"not json"),
        request("PUT", CHAT, b"{}"),
    ):
        assert one(server.base_url, data).headers["access-control-allow-origin"] == "*"


def test_a_slow_request_does_not_hold_up_other_clients():
    release = threading.Event()

    class SlowOnRequest:
        """Blocks a request that says "slow" until released: a heavy prompt, in effect."""

        def respond(self, request):
            if "slow" in request.messages[-1]["content"]:
                assert release.wait(60), "the test never released the slow request"
            return HeuristicPolicy().respond(request)

    with serve(policy=SlowOnRequest()) as running:
        slow_reply = {}

        def slow() -> None:
            remote = openai.OpenAI(api_key="unused", base_url=running.base_url, max_retries=0)
            slow_reply["text"] = remote.chat.completions.create(model="m", messages=user("slow"))

        worker = threading.Thread(target=slow)
        worker.start()
        try:
            remote = openai.OpenAI(api_key="unused", base_url=running.base_url, max_retries=0)
            for city in ("Beijing", "上海", "Paris"):
                reply = remote.chat.completions.create(
                    model="m", messages=user(f"Weather in {city}?"), tools=[WEATHER]
                )
                assert city in reply.choices[0].message.tool_calls[0].function.arguments
            assert "text" not in slow_reply  # still blocked while the others were answered
        finally:
            release.set()
            worker.join(60)
        assert slow_reply["text"].choices[0].message.content


def test_leaving_serve_stops_every_thread_it_started():
    before = set(threading.enumerate())
    with serve(limits=ServerLimits(inline_body_bytes=0)) as running:  # every request on a worker
        remote = openai.OpenAI(api_key="unused", base_url=running.base_url, max_retries=0)
        for _ in range(10):
            remote.chat.completions.create(model="m", messages=user("hi"))
        assert len(set(threading.enumerate()) - before) >= 2  # server loop and model workers
    assert set(threading.enumerate()) - before == set()


class Lingering(HeuristicPolicy):
    """The built-in policy's behaviour under another type: its time is not vouched for."""


@pytest.mark.parametrize(
    "policy, limit, size, inline",
    [
        (HeuristicPolicy(), 16 * 1024, 2_000, True),
        (HeuristicPolicy(), 16 * 1024, 16 * 1024, True),
        (HeuristicPolicy(), 16 * 1024, 16 * 1024 + 1, False),
        (HeuristicPolicy(), 0, 0, False),
        (Lingering(), 16 * 1024, 10, False),
    ],
)
def test_only_a_small_request_to_the_built_in_policy_is_answered_on_the_event_loop(
    policy, limit, size, inline
):
    with serve(policy=policy, limits=ServerLimits(inline_body_bytes=limit)) as running:
        app = running.uvicorn.config.app
        assert app.answers_inline(b"x" * size) is inline


def test_a_negative_inline_size_is_refused_with_its_name():
    with pytest.raises(ValueError, match="inline_body_bytes"):
        ServerLimits(inline_body_bytes=-1)
