"""Every reply of a varied corpus is byte-identical whichever way the local model makes it.

The model keeps what it worked out from a request's tools and question (``memo.py``); the
corpus (``reply_corpus.py``: the three APIs, streamed and not, tools, strict schemas,
structured outputs, round trips, Chinese text, broken requests) is played with those memories
bypassed, then twice with them (filling, then full), in process and over HTTP: status, content
type and every byte of every reply must agree.
"""

from __future__ import annotations

import http.client
from collections.abc import Callable

import pytest
import reply_corpus

from course_lib.local_model import memo
from course_lib.local_model.endpoint import LocalEndpoint
from course_lib.local_model.policy import HeuristicPolicy
from course_lib.local_model.server import serve


def in_process(endpoint: LocalEndpoint) -> reply_corpus.Send:
    def send(method: str, path: str, raw: bytes, headers: dict[str, str]):
        reply = endpoint.handle(method, path, raw, headers)
        body = reply.body if isinstance(reply.body, bytes) else b"".join(reply.body)
        return reply.status, reply.content_type, body

    return send


@pytest.fixture(scope="module")
def plain_replies() -> list:
    with memo.bypassed():
        return reply_corpus.play(in_process(LocalEndpoint(HeuristicPolicy())))


def test_the_corpus_covers_successes_client_errors_streams_and_tool_calls(plain_replies):
    statuses = {status for _, status, _, _ in plain_replies}
    kinds = {kind.split(";")[0] for _, _, kind, _ in plain_replies}
    bodies = b"".join(body for _, _, _, body in plain_replies)
    assert {200, 400, 404} <= statuses and kinds == {"application/json", "text/event-stream"}
    for marker in (b'"tool_calls"', b'"function_call"', b'"tool_use"', "北京".encode()):
        assert marker in bodies


def test_replies_are_byte_identical_with_the_memories_bypassed_filling_and_full(plain_replies):
    memo.forget_everything()
    policy = HeuristicPolicy()  # one policy, two endpoints: its plans are kept between them
    hits_before = memo.total_hits()
    filling = reply_corpus.play(in_process(LocalEndpoint(policy)))
    full = reply_corpus.play(in_process(LocalEndpoint(policy)))
    assert memo.total_hits() - hits_before > len(plain_replies)  # the memories were used
    assert filling == plain_replies
    assert full == plain_replies


def over_http(play: Callable[[reply_corpus.Send], list]) -> list:
    """``play`` on a fresh ``serve()``, through one kept-alive ``http.client`` connection."""
    with serve() as server:
        host, port = server.server_address
        connection = http.client.HTTPConnection(host, port, timeout=30)

        def send(method: str, path: str, raw: bytes, headers: dict[str, str]):
            connection.request(
                method, path, body=raw if method == "POST" else None, headers=headers
            )
            reply = connection.getresponse()
            return reply.status, reply.getheader("content-type"), reply.read()

        try:
            return play(send)
        finally:
            connection.close()


def test_replies_over_http_are_byte_identical_to_the_ones_in_process(plain_replies):
    assert over_http(reply_corpus.play) == plain_replies
