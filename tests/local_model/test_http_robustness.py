"""serve-model against malformed and hostile clients, on 127.0.0.1.

Every request gets a well-formed JSON reply with the right status (4xx for the client's mistakes,
500 only for our own bug), nothing is dropped without a reply where HTTP allows one, and the
server keeps answering a normal client (the real ``openai`` SDK) while a huge body or a hundred
stalled connections are in flight. Timeouts are shrunk so stalls are answered in about a second;
every wait is bounded generously and only outcomes are asserted, never speed.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from typing import Any

import openai
import pytest
from local_model_fixtures import WEATHER, user
from raw_http import (
    READ_TIMEOUT,
    SharedReader,
    chat_body,
    closed_by_server,
    connect,
    exchange,
    one,
    read_reply,
    request,
)

from course_lib.local_model.endpoint import LocalEndpoint, Reply
from course_lib.local_model.http_limits import MEGABYTE, ServerLimits
from course_lib.local_model.policy import HeuristicPolicy
from course_lib.local_model.server import LocalModelServer, running, serve

CHAT = "/v1/chat/completions"
LIMITS = ServerLimits(
    max_body_bytes=MEGABYTE, header_timeout=1.0, body_timeout=1.5, idle_timeout=2.0
)


@pytest.fixture(scope="module")
def server():
    with serve(limits=LIMITS) as running_server:
        yield running_server


def normal_client_works(base_url: str, city: str = "Beijing") -> bool:
    remote = openai.OpenAI(api_key="unused", base_url=base_url, max_retries=0, timeout=60)
    reply = remote.chat.completions.create(
        model="m", messages=user(f"Weather in {city}?"), tools=[WEATHER]
    )
    return city in reply.choices[0].message.tool_calls[0].function.arguments


HOST = b"Host: x\r\n"
MALFORMED = {
    # name: (raw bytes, status, a fragment of the error message)
    "garbage bytes (a TLS hello)": (
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(256)) + b"\r\n\r\n",
        400,
        "not valid HTTP/1.1",
    ),
    "a request line with no version": (b"POST /v1/chat/completions\r\n\r\n", 400, "not valid"),
    "a Content-Length that is a word": (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\n{}",
        400,
        "Invalid Content-Length header 'lots'",
    ),
    "a Content-Length in full-width digits": (
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: １２\r\n\r\n".encode(),
        400,
        "Invalid Content-Length header '１２'",
    ),
    "a negative Content-Length": (
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
        400,
        "Invalid Content-Length header '-5'",
    ),
    "two different Content-Lengths": (
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        400,
        "Invalid Content-Length",
    ),
    "a Content-Length of 10**30": (
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1" + b"0" * 30 + b"\r\n\r\n",
        413,
        "accepts at most 1048576 bytes",
    ),
    "a Content-Length of 10**19": (
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1" + b"0" * 19 + b"\r\n\r\n",
        413,
        "accepts at most 1048576 bytes",
    ),
    "a transfer coding other than chunked": (
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nxx",
        501,
        "Transfer-Encoding: chunked",
    ),
    "a chunk size that is not hex": (
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
        400,
        "not valid HTTP/1.1",
    ),
    "a header line without a colon": (b"GET / HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n", 400, ""),
    "a NUL byte in a header": (b"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 400, ""),
    "HTTP/1.1 without Host": (b"GET /v1/models HTTP/1.1\r\n\r\n", 400, "Host"),
    "a non-ASCII byte in the path": (b"GET /\xe5\x8c\x97 HTTP/1.1\r\nHost: x\r\n\r\n", 400, ""),
    "the HTTP/2 preface": (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505, "HTTP/2.0 is not supported"),
    "HTTP/3.0": (b"GET /v1/models HTTP/3.0\r\nHost: x\r\n\r\n", 505, "HTTP/3.0"),
    "a lowercase method": (b"get /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 405, "'get'"),
    "an invented method": (b"BREW /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 405, "'BREW'"),
    "CONNECT (a tunnel)": (
        b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
        405,
        "'CONNECT'",
    ),
    "PUT": (
        b"PUT /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
        405,
        "",
    ),
    "a 20 KB header sent at once": (
        b"GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n",
        431,
        "longer than 16384 bytes",
    ),
    "a gzip-encoded body": (
        request("POST", CHAT, b"\x1f\x8b\x08\x00", headers={"Content-Encoding": "gzip"}),
        415,
        "Content-Encoding 'gzip'",
    ),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_request_gets_a_json_error_with_the_right_status(server, name):
    data, status, fragment = MALFORMED[name]
    reply = one(server.base_url, data)
    assert reply.status == status, reply.body
    assert reply.json()["error"]["type"] == "invalid_request_error"
    assert fragment in reply.error_message()


def test_405_names_the_allowed_methods_in_an_allow_header(server):
    reply = one(server.base_url, request("PATCH", CHAT, b"{}"))
    assert reply.status == 405
    assert set(reply.headers["allow"].split(", ")) >= {"GET", "POST", "HEAD", "OPTIONS"}


def test_an_unknown_method_over_http_1_0_gets_405_with_allow_then_a_close(server):
    with connect(server.base_url) as sock:
        sock.sendall(b"BREW /v1/models HTTP/1.0\r\n\r\n")
        reply = read_reply(SharedReader(sock), "GET")
        assert reply.status == 405 and reply.closes and "'BREW'" in reply.error_message()
        assert "POST" in reply.headers["allow"].split(", ")
        assert closed_by_server(sock)


def test_a_head_too_large_for_the_limit_sent_whole_with_a_long_url_gets_431(server):
    data = request("GET", "/v1/models?q=" + "a" * 20_000)  # every header short, the URL not
    reply = one(server.base_url, data, "GET")
    assert reply.status == 431 and "longer than 16384 bytes" in reply.error_message()


def test_a_malformed_head_after_a_good_request_in_one_packet_gets_a_400_naming_the_fault(server):
    # The parser names what it refused; the bytes of a head that began mid-packet are not kept.
    data = request("POST", CHAT, chat_body()) + b"BREW /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"
    replies = exchange(server.base_url, data, replies=2)
    assert [r.status for r in replies] == [200, 400]
    assert "not valid HTTP/1.1 (Invalid method encountered)" in replies[1].error_message()
    assert replies[1].closes


def test_the_same_bad_head_in_its_own_packet_after_a_reply_gets_its_405(server):
    with connect(server.base_url) as sock:
        reader = SharedReader(sock)
        sock.sendall(request("POST", CHAT, chat_body()))
        assert read_reply(reader).status == 200
        sock.sendall(b"BREW /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
        assert read_reply(reader, "GET").status == 405


def test_an_upgrade_request_is_answered_plainly_and_nothing_after_it_is_read(server):
    upgrade = request("GET", "/v1/models", headers={"Connection": "Upgrade", "Upgrade": "h2c"})
    with connect(server.base_url) as sock:
        sock.sendall(upgrade + request("GET", "/v1/models"))
        reader = SharedReader(sock)
        reply = read_reply(reader, "GET")
        assert reply.status == 200 and reply.closes
        assert reader.read(1) == b""  # the request after it is not answered


def test_a_url_longer_than_the_header_limit_gets_431_while_it_is_still_arriving(server):
    with connect(server.base_url) as sock:
        sock.sendall(b"GET /" + b"a" * 100_000)  # no end of line yet: refused unfinished
        reply = read_reply(SharedReader(sock), "GET")
    assert reply.status == 431 and "longer than 16384 bytes" in reply.error_message()


ENDPOINT_MISTAKES = {
    "bad JSON": (b'{"model": "m", "messages": [', 400),
    "JSON that is a list": (b"[]", 400),
    "JSON that is a string": (b'"hello"', 400),
    "JSON that is a number": (b"12", 400),
    "JSON null": (b"null", 400),
    "bytes that are not UTF-8": (b'{"model": "\xff\xfe"}', 400),
    "an empty body": (b"", 400),
}


@pytest.mark.parametrize("name", ENDPOINT_MISTAKES)
def test_a_body_that_is_not_a_json_object_gets_the_endpoints_400(server, name):
    body, status = ENDPOINT_MISTAKES[name]
    reply = one(server.base_url, request("POST", CHAT, body))
    assert reply.status == status
    assert reply.json()["error"]["type"] == "invalid_request_error"


def test_the_content_type_does_not_matter_when_the_body_is_json_as_curl_d_sends_it(server):
    form = {"Content-Type": "application/x-www-form-urlencoded"}  # curl -d without -H
    assert one(server.base_url, request("POST", CHAT, chat_body(), headers=form)).status == 200
    text = {"Content-Type": "text/plain"}
    reply = one(server.base_url, request("POST", CHAT, b"model=m&messages=hi", headers=text))
    assert reply.status == 400 and "Content-Type: application/json" in reply.error_message()


@pytest.mark.parametrize(
    "path",
    ["/", "/" * 3000, "/v1/../../etc/passwd", "/v1/%00%ff", "/v1/chat/completions/../x", "*"],
)
def test_an_absurd_path_gets_a_json_404(server, path):
    reply = one(server.base_url, request("POST", path, chat_body()))
    assert reply.status == 404 and reply.json()["error"]["message"]


def test_errors_on_anthropic_paths_come_in_anthropics_shape(server):
    too_large = request("POST", "/v1/messages", headers={"Content-Length": "9" * 19})
    wrong_method = request("PUT", "/v1/messages", b"{}")
    bad_length = b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\n"
    for data, status, kind in (
        (too_large, 413, "request_too_large"),
        (wrong_method, 405, "invalid_request_error"),
        (bad_length, 400, "invalid_request_error"),
    ):
        reply = one(server.base_url, data)
        assert reply.status == status
        assert reply.json()["type"] == "error" and reply.json()["error"]["type"] == kind
        assert reply.error_message()


def test_a_body_over_the_cap_sent_whole_gets_413_and_the_connection_goes_on(server):
    body = b'{"model": "m", "messages": [], "pad": "' + b"x" * (2 * MEGABYTE) + b'"}'
    replies = exchange(
        server.base_url, request("POST", CHAT, body) + request("GET", "/v1/models"), replies=2
    )
    assert replies[0].status == 413 and not replies[0].closes
    assert f"is {len(body)} bytes" in replies[0].error_message()
    assert replies[1].status == 200


def test_a_chunked_body_over_the_cap_gets_413(server):
    piece = b"x" * 65536
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(20))  # 1.25 MB
    data = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    reply = one(server.base_url, data + chunks + b"0\r\n\r\n")
    assert reply.status == 413 and "1048576 bytes" in reply.error_message()


def test_a_large_body_waiting_for_100_continue_gets_413_before_sending_it(server):
    head = request(
        "POST", CHAT, headers={"Content-Length": str(5 * MEGABYTE), "Expect": "100-continue"}
    )
    with connect(server.base_url) as sock:
        sock.sendall(head)  # and never the body
        reply = read_reply(SharedReader(sock))
    assert reply.status == 413 and reply.closes


def test_a_normal_body_with_expect_100_continue_is_answered(server):
    body = chat_body()
    head = f"POST {CHAT} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n"
    head += "Expect: 100-continue\r\n\r\n"
    with connect(server.base_url) as sock:
        sock.sendall(head.encode())
        assert sock.recv(64).startswith(b"HTTP/1.1 100 ")
        sock.sendall(body)
        assert read_reply(SharedReader(sock)).status == 200


# --- stalled, idle and half-closed connections --------------------------------------------------


def test_headers_that_stop_coming_get_408_after_the_header_timeout(server):
    with connect(server.base_url) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
        reply = read_reply(SharedReader(sock))
        assert reply.status == 408 and reply.closes
        assert "did not arrive within 1 seconds" in reply.error_message()
        assert closed_by_server(sock)


def test_a_body_that_stops_midway_gets_408_saying_how_much_came(server):
    with connect(server.base_url) as sock:
        sock.sendall(request("POST", CHAT, headers={"Content-Length": "100"}) + b'{"model":')
        reply = read_reply(SharedReader(sock))
        assert reply.status == 408 and reply.closes
        assert "(9 of 100 bytes came)" in reply.error_message()
        assert closed_by_server(sock)


def test_a_dripping_client_is_cut_off_by_the_deadline_not_kept_alive_by_each_byte(server):
    with connect(server.base_url) as sock:
        sock.settimeout(0.3)
        head = b"GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200
        reply = b""
        for byte in head:  # one byte every 50 ms: 10 s in all, far past the 1 s header timeout
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break
            try:
                reply += sock.recv(65536)
            except TimeoutError:
                continue
            if reply.endswith(b"}"):
                break
            time.sleep(0.05)
    # a reply at all proves the cut: the header never ends, so only the deadline can answer it
    assert reply.startswith(b"HTTP/1.1 408 "), reply


def test_an_idle_connection_is_closed_without_a_reply(server):
    with connect(server.base_url) as sock:
        assert sock.recv(1) == b""  # EOF after the idle timeout, no bytes


def test_a_connection_idle_after_a_reply_is_closed_but_answered_while_used(server):
    with connect(server.base_url) as sock:
        reader = SharedReader(sock)
        sock.sendall(request("GET", "/v1/models"))
        assert read_reply(reader, "GET").status == 200
        assert reader.read(1) == b""  # then closed once idle


def test_a_client_that_half_closes_after_its_request_still_gets_the_reply(server):
    with connect(server.base_url) as sock:
        sock.sendall(request("POST", CHAT, chat_body("What's the weather in Beijing?")))
        sock.shutdown(socket.SHUT_WR)
        reply = read_reply(SharedReader(sock))
    assert reply.status == 200 and reply.json()["choices"][0]["message"]["content"]


def test_pipelined_requests_then_a_half_close_are_all_answered_before_the_close(server):
    texts = ["Hello", "你好", "What's the weather in Paris?"]
    with connect(server.base_url) as sock:
        sock.sendall(b"".join(request("POST", CHAT, chat_body(t)) for t in texts))
        sock.shutdown(socket.SHUT_WR)
        reader = SharedReader(sock)
        statuses = [read_reply(reader).status for _ in texts]
        assert reader.read(1) == b""
    assert statuses == [200, 200, 200]


def test_a_half_closed_partial_request_gets_400_at_once_not_a_timeout(server):
    for partial in (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n",
        request("POST", CHAT, headers={"Content-Length": "100"}) + b'{"model":',
    ):
        with connect(server.base_url) as sock:
            sock.sendall(partial)
            sock.shutdown(socket.SHUT_WR)
            reply = read_reply(SharedReader(sock))
        assert reply.status == 400 and "not valid HTTP/1.1" in reply.error_message()


def test_pipelined_garbage_after_a_good_request_gets_the_good_reply_then_a_400(server):
    data = request("POST", CHAT, chat_body()) + b"\x00\x01 garbage\r\n\r\n"
    replies = exchange(server.base_url, data, replies=2)
    assert [r.status for r in replies] == [200, 400]
    assert replies[1].closes


# --- load: hostile connections in flight while a normal client is served -------------------------


def test_a_hundred_stalled_connections_do_not_stop_a_normal_client_and_each_gets_408(server):
    stalled = []
    try:
        for index in range(100):
            sock = connect(server.base_url)
            if index % 2:
                sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-A: 1")
            else:
                sock.sendall(request("POST", CHAT, headers={"Content-Length": "50"}) + b"{")
            stalled.append(sock)
        assert all(normal_client_works(server.base_url, city) for city in ("Paris", "北京"))
        deadline = time.monotonic() + 60  # all 100 replies, in all: a hang fails, not stalls
        statuses = []
        for sock in stalled:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            statuses.append(read_reply(SharedReader(sock)).status)
    finally:
        for sock in stalled:
            sock.close()
    assert statuses == [408] * 100
    assert normal_client_works(server.base_url)


def test_a_50_mb_body_in_flight_does_not_stop_a_normal_client_and_gets_413():
    size = 50 * MEGABYTE
    limits = ServerLimits(max_body_bytes=4 * MEGABYTE, body_timeout=300.0)
    with serve(limits=limits) as big, connect(big.base_url) as sock:
        outcome = {}

        def send_slowly() -> None:
            sock.sendall(request("POST", CHAT, headers={"Content-Length": str(size)}))
            piece = b"x" * MEGABYTE
            for _ in range(size // MEGABYTE):
                sock.sendall(piece)
                time.sleep(0.01)
            outcome["reply"] = read_reply(SharedReader(sock))

        sender = threading.Thread(target=send_slowly)
        sender.start()
        try:
            answered = [normal_client_works(big.base_url, city) for city in ("Tokyo", "上海")]
        finally:
            sender.join(READ_TIMEOUT * 4)
        assert answered == [True, True]
        reply = outcome["reply"]
        assert reply.status == 413
        assert f"is {size} bytes; this server accepts at most {4 * MEGABYTE}" in (
            reply.error_message()
        )
        assert normal_client_works(big.base_url)


# --- our own bugs ---------------------------------------------------------------------------------


class RaisingEndpoint(LocalEndpoint):
    """The local model, except that a chat request raises: a bug on our side of the wire."""

    def handle(self, method: str, path: str, body: bytes, *headers: Any) -> Reply:
        if path.endswith("/chat/completions"):
            raise RuntimeError("the endpoint broke")
        return super().handle(method, path, body, *headers)


def test_an_exception_in_the_endpoint_becomes_a_json_500_and_the_server_goes_on(caplog):
    endpoint = RaisingEndpoint(HeuristicPolicy())
    with running(LocalModelServer(("127.0.0.1", 0), endpoint, limits=LIMITS)) as broken:
        remote = openai.OpenAI(api_key="unused", base_url=broken.base_url, max_retries=0)
        with pytest.raises(openai.InternalServerError, match="the endpoint broke") as raised:
            remote.chat.completions.create(model="m", messages=user("hi"))
        assert "bug in course_lib" in str(raised.value)
        assert remote.models.list().data  # still serving
    assert "Unexpected error answering POST /v1/chat/completions" in caplog.text


class FailingStream(LocalEndpoint):
    """An endpoint whose stream breaks after 100 KB of events, as a bug mid-stream would."""

    def handle(self, method: str, path: str, body: bytes, *headers: Any) -> Reply:
        def events():
            for _ in range(2000):
                yield b'data: {"pad": "' + b"x" * 50 + b'"}\n\n'
            raise RuntimeError("the stream broke")

        return Reply(200, "text/event-stream; charset=utf-8", events())


def test_a_stream_that_fails_midway_ends_with_an_error_event_the_sdk_raises(caplog):
    endpoint = FailingStream(HeuristicPolicy())
    with running(LocalModelServer(("127.0.0.1", 0), endpoint, limits=LIMITS)) as broken:
        replies = exchange(
            broken.base_url, request("POST", CHAT, chat_body(stream=True)), replies=1
        )
    assert replies[0].status == 200
    last = replies[0].body.rstrip(b"\n").rsplit(b"\n\n", 1)[-1]
    assert last.startswith(b'data: {"error": ') and b"the stream broke" in last
    assert "Unexpected error in the middle of a stream" in caplog.text


class HugeStream(LocalEndpoint):
    """The local model, plus ``/v1/huge``: a 64 MB stream, to see what happens to a client
    that stops reading."""

    produced = 0

    def handle(self, method: str, path: str, body: bytes, *headers: Any) -> Reply:
        if path != "/v1/huge":
            return super().handle(method, path, body, *headers)
        return Reply(200, "text/event-stream", self.pieces())

    def pieces(self):
        for _ in range(1024):
            self.produced += 1
            yield b"data: " + b"x" * 65530


def test_a_client_that_stops_reading_is_dropped_after_the_write_timeout():
    limits = ServerLimits(write_timeout=0.5)
    endpoint = HugeStream(HeuristicPolicy())
    with running(LocalModelServer(("127.0.0.1", 0), endpoint, limits=limits)) as server:
        with connect(server.base_url) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
            sock.sendall(request("POST", "/v1/huge", b"{}"))
            time.sleep(3)  # not reading: the server's buffers fill, then it gives up
            received = 0
            try:
                while chunk := sock.recv(1 << 20):
                    received += len(chunk)
            except ConnectionResetError:
                pass
        assert received < 32 * MEGABYTE  # dropped long before the 64 MB were sent
        assert endpoint.produced < 512  # and the stream stopped being produced
        assert normal_client_works(server.base_url)


# --- fuzz ----------------------------------------------------------------------------------------


def mutations(seed: int, count: int) -> list[bytes]:
    """Valid requests with bytes flipped, inserted, deleted or repeated; and random bytes."""
    rng = random.Random(seed)
    valid = [
        request("POST", CHAT, chat_body("Weather in 北京?", tools=[WEATHER])),
        request("GET", "/v1/models"),
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        b'5\r\n{"a":\r\n2\r\n1}\r\n0\r\n\r\n',
    ]
    cases = []
    for _ in range(count):
        if rng.random() < 0.15:
            cases.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))))
            continue
        data = bytearray(rng.choice(valid))
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(5, len(data))  # keep the method: a HEAD reply has no body
            kind = rng.randrange(4)
            if kind == 0:
                data[at] = rng.randrange(256)
            elif kind == 1:
                data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
            elif kind == 2:
                del data[at : at + rng.randrange(1, 9)]
            else:
                data[at:at] = data[at : at + 40] * rng.randrange(2, 50)
        cases.append(bytes(data))
    return cases


def replies_until_close(base_url: str, data: bytes, timeout: float) -> list:
    """Everything the server answers to ``data`` followed by a half-close."""
    with connect(base_url, timeout=max(0.1, timeout)) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        reader = SharedReader(sock)
        replies = []
        while reader.peek(1):
            replies.append(read_reply(reader, "POST"))
        return replies


def test_fuzzed_requests_all_get_json_replies_and_never_a_500(server):
    deadline = time.monotonic() + 120  # for all 300: a hang fails the test instead of stalling it
    for data in mutations(seed=20261201, count=300):
        replies = replies_until_close(server.base_url, data, deadline - time.monotonic())
        if data.strip(b"\r\n"):
            assert replies, f"no reply to {data[:120]!r}"
        for reply in replies:
            assert reply.status < 500 or reply.status in (501, 505), (data[:120], reply.body)
            assert reply.json(), data[:120]
    assert normal_client_works(server.base_url)
