"""The ASGI application behind ``serve-model``: one HTTP request, one ``LocalEndpoint.handle`` call.

uvicorn (with ``http_protocol.py``) owns the bytes on the wire: parsing, chunked bodies,
keep-alive, HTTP/1.0 framing. This module owns what a request means before and after the model:
methods (``HEAD`` and CORS preflight answered here, anything unknown 405 with ``Allow``), the body
cap (413) and the body deadline (408), and the reply: bytes with a ``Content-Length``, or a stream
sent as it is produced (chunked for HTTP/1.1; for HTTP/1.0 ``http_protocol.py`` ends it by
closing).

The model is CPU-bound Python, so it runs on a small thread pool: the event loop that accepts
and reads every other connection never waits for it, except for a small request to the
built-in policy, whose bounded work costs less than the trip to a thread and back
(``ServerLimits.inline_body_bytes``). A bug in the model (an exception) becomes a
JSON 500 and a logged traceback; a bug in the middle of a stream ends it with an error event,
which the SDKs raise as ``APIError``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from course_lib.local_model.endpoint import LocalEndpoint
from course_lib.local_model.http_errors import error_json, is_anthropic_path, message
from course_lib.local_model.http_limits import ServerLimits
from course_lib.local_model.policy import HeuristicPolicy

log = logging.getLogger(__name__)

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

ENDPOINT_METHODS = ("GET", "POST", "DELETE")  # DELETE: the Responses API deletes stored replies
ALLOWED = "GET, HEAD, POST, DELETE, OPTIONS"
STREAM_BATCH_BYTES = 64 * 1024  # one write per this much of a stream, not one per event
CORS = [(b"access-control-allow-origin", b"*")]


@dataclass
class Prepared:
    """A reply from the worker thread: its head, its first bytes, and the rest of a stream."""

    status: int
    content_type: str
    first: bytes
    stream: bool  # sent without a Content-Length (chunked, or closed at the end for HTTP/1.0)
    rest: Iterator[bytes] | None  # the stream's pieces after ``first``; None once it has ended


class BodyRefused(Exception):
    """The body cannot be used: answer ``status`` with ``text`` (and close unless ``keep``)."""

    def __init__(self, status: int, text: str, *, keep: bool) -> None:
        super().__init__(text)
        self.status, self.text, self.keep = status, text, keep


class ClientGone(Exception):
    """The client disconnected before its request was complete: nobody to answer."""


class EndpointApp:
    """ASGI 3 application answering every HTTP request from one :class:`LocalEndpoint`."""

    def __init__(self, endpoint: LocalEndpoint, limits: ServerLimits, pool: Executor) -> None:
        self.endpoint = endpoint
        self.limits = limits
        self.pool = pool
        # Exactly the built-in policy: a subclass or any other policy may take any time.
        self.bounded_policy = type(endpoint.policy) is HeuristicPolicy

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # lifespan is off and websockets are not served; nothing else arrives
        path = scope["path"]
        started = False

        async def tracked_send(event: dict[str, Any]) -> None:
            nonlocal started
            started = True
            await send(event)

        try:
            await self.answer(scope, path, receive, tracked_send)
        except ClientGone:
            pass
        except asyncio.CancelledError:  # the server is stopping and its grace period is over
            if not started:
                text = message("shutting_down")
                await send_whole(send, 503, error_json(path, 503, text), close=True)
        except Exception as error:  # our bug: say so in JSON rather than uvicorn's plain 500
            log.exception("Unexpected error answering %s %s", scope["method"], path)
            if not started:
                text = message("internal", error=f"{type(error).__name__}: {error}")
                await send_whole(send, 500, error_json(path, 500, text), close=True)

    async def answer(self, scope: dict[str, Any], path: str, receive: Receive, send: Send) -> None:
        method, headers = scope["method"], dict(scope["headers"])
        try:
            body = await read_body(receive, headers, self.limits)
        except BodyRefused as refusal:
            await send_whole(
                send,
                refusal.status,
                error_json(path, refusal.status, refusal.text),
                close=not refusal.keep,
            )
            return
        refusal = self.refuse(scope, method, headers)
        if refusal is not None:
            status, text, extra = refusal
            await send_whole(send, status, error_json(path, status, text), extra=extra)
            return
        if method == "OPTIONS":
            await send_preflight(send, headers)
            return
        loop = asyncio.get_running_loop()
        as_method = "GET" if method == "HEAD" else method
        request_headers = {
            name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]
        }
        if self.answers_inline(body):
            prepared = self.prepare(as_method, path, body, request_headers)
        else:
            prepared = await loop.run_in_executor(
                self.pool, self.prepare, as_method, path, body, request_headers
            )
        # Both framings at once may be an attempt to smuggle a request: RFC 9112 (6.3) says to
        # answer it (the parser reads the chunked body) and then close the connection.
        both = b"transfer-encoding" in headers and b"content-length" in headers
        await self.send_reply(receive, send, path, prepared, close=both)

    def refuse(
        self, scope: dict[str, Any], method: str, headers: dict[bytes, bytes]
    ) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
        """``(status, text, extra headers)`` for a request this layer will not pass on, or None."""
        version = scope["http_version"]
        if version not in ("1.0", "1.1"):
            return 505, message("version", version=version), [(b"connection", b"close")]
        if method not in (*ENDPOINT_METHODS, "HEAD", "OPTIONS"):
            text = message("method", method=method, allowed=ALLOWED)
            return 405, text, [(b"allow", ALLOWED.encode())]
        encoding = headers.get(b"content-encoding", b"identity").decode("latin-1").strip()
        if encoding.lower() not in ("", "identity"):
            return 415, message("content_encoding", encoding=encoding), []
        return None

    def answers_inline(self, body: bytes) -> bool:
        """Whether this request is answered on the event loop rather than by a worker."""
        limit = self.limits.inline_body_bytes
        return self.bounded_policy and limit > 0 and len(body) <= limit

    def prepare(
        self, method: str, path: str, body: bytes, headers: dict[str, str] | None = None
    ) -> Prepared:
        """In a worker thread: the endpoint's reply and, for a stream, its first batch."""
        reply = self.endpoint.handle(method, path, body, headers)
        if isinstance(reply.body, bytes):
            return Prepared(reply.status, reply.content_type, reply.body, False, None)
        stream = iter(reply.body)
        first, done = next_batch(stream)
        return Prepared(reply.status, reply.content_type, first, True, None if done else stream)

    async def send_reply(
        self, receive: Receive, send: Send, path: str, prepared: Prepared, *, close: bool
    ) -> None:
        content_type = prepared.content_type.encode()
        if not prepared.stream:
            await send_whole(
                send, prepared.status, prepared.first, content_type=content_type, close=close
            )
            return
        headers = [(b"content-type", content_type), (b"cache-control", b"no-cache"), *CORS]
        if close:
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": prepared.status, "headers": headers})
        done = prepared.rest is None
        await send({"type": "http.response.body", "body": prepared.first, "more_body": not done})
        if done:
            return
        loop = asyncio.get_running_loop()
        hung_up = asyncio.ensure_future(receive())  # the body is read: this waits for a hang-up
        try:
            while not done and not hung_up.done():  # a client gone stops costing model time
                try:
                    piece, done = await loop.run_in_executor(self.pool, next_batch, prepared.rest)
                except Exception as error:  # the head is sent: end the stream with an error event
                    log.exception("Unexpected error in the middle of a stream for %s", path)
                    text = message("internal", error=f"{type(error).__name__}: {error}")
                    piece, done = stream_error_event(path, text), True
                await send({"type": "http.response.body", "body": piece, "more_body": not done})
        finally:
            hung_up.cancel()


def next_batch(stream: Iterator[bytes]) -> tuple[bytes, bool]:
    """Up to ~64 KB of a stream's next pieces, and whether the stream has ended."""
    pieces: list[bytes] = []
    size = 0
    for piece in stream:
        pieces.append(piece)
        size += len(piece)
        if size >= STREAM_BATCH_BYTES:
            return b"".join(pieces), False
    return b"".join(pieces), True


def stream_error_event(path: str, text: str) -> bytes:
    """The server-sent event that makes the client's SDK raise ``APIError`` mid-stream."""
    data = error_json(path, 500, text)
    if is_anthropic_path(path):
        return b"event: error\ndata: " + data + b"\n\n"
    return b"data: " + data + b"\n\n"


async def read_body(receive: Receive, headers: dict[bytes, bytes], limits: ServerLimits) -> bytes:
    """The whole request body, within the size cap and the body deadline."""
    declared = headers.get(b"content-length")
    size = int(declared) if declared is not None else None  # the parser has checked it is digits
    cap, discard = limits.max_body_bytes, max(limits.max_discard_bytes, limits.max_body_bytes)
    if size is not None and size > cap:
        too_large = message("body_too_large", size=size, limit=cap)
        if size > discard or headers.get(b"expect", b"").lower() == b"100-continue":
            raise BodyRefused(413, too_large, keep=False)  # never sent, or too much to read
    chunks: list[bytes] = []
    received = 0
    more = True
    with BodyDeadline(limits.body_timeout) as deadline:
        while more:
            try:
                event = await receive()
            except asyncio.CancelledError:
                if not deadline.passed():
                    raise
                text = body_timeout_text(limits, received, size)
                raise BodyRefused(408, text, keep=False) from None
            if event["type"] == "http.disconnect":
                raise ClientGone
            piece = event.get("body", b"")
            received += len(piece)
            more = event.get("more_body", False)
            if received <= cap:
                chunks.append(piece)
            elif received > discard:
                raise BodyRefused(413, message("body_too_large_chunked", limit=cap), keep=False)
    if received > cap:  # read to the end and thrown away: the connection can go on
        text = message("body_too_large", size=received, limit=cap)
        raise BodyRefused(413, text, keep=True)
    return b"".join(chunks)


class BodyDeadline:
    """One timer for a whole body: when it runs out, the task reading the body is cancelled
    and :meth:`passed` tells that cancellation from any other. (``asyncio.wait_for`` around
    each ``receive()`` would cost a task and a turn of the event loop per piece: 20 µs, a
    tenth of what the server adds to a small request.)"""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ran_out = False
        self.timer: asyncio.TimerHandle | None = None

    def __enter__(self) -> BodyDeadline:
        task = asyncio.current_task()
        assert task is not None

        def run_out() -> None:
            self.ran_out = True
            task.cancel()

        self.timer = asyncio.get_running_loop().call_later(self.seconds, run_out)
        return self

    def passed(self) -> bool:
        """Whether the deadline cancelled the task (the cancellation is then taken back)."""
        if not self.ran_out:
            return False
        task = asyncio.current_task()
        if task is not None and hasattr(task, "uncancel"):  # Python 3.11+
            task.uncancel()
        return True

    def __exit__(self, *exc_info: object) -> None:
        if self.timer is not None:
            self.timer.cancel()


def body_timeout_text(limits: ServerLimits, received: int, declared: int | None) -> str:
    seconds = limits.body_timeout
    if declared is None:
        return message("body_timeout_chunked", seconds=seconds, received=received)
    return message("body_timeout", seconds=seconds, received=received, declared=declared)


async def send_whole(
    send: Send,
    status: int,
    body: bytes,
    *,
    close: bool = False,
    extra: list[tuple[bytes, bytes]] = (),  # type: ignore[assignment]
    content_type: bytes = b"application/json",
) -> None:
    """One complete reply with a ``Content-Length`` (uvicorn leaves the body out for HEAD)."""
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        *CORS,
        *extra,
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def send_preflight(send: Send, headers: dict[bytes, bytes]) -> None:
    """CORS preflight: any origin may call the local model, with whatever headers it asks for."""
    requested = headers.get(b"access-control-request-headers")
    reply = [
        *CORS,
        (b"access-control-allow-methods", ALLOWED.encode()),
        (b"access-control-max-age", b"600"),
        (b"allow", ALLOWED.encode()),
        (b"content-length", b"0"),
    ]
    if requested:  # echoed: a "*" would not cover Authorization, which every SDK sends
        reply.append((b"access-control-allow-headers", requested))
        reply.append((b"vary", b"Access-Control-Request-Headers"))
    await send({"type": "http.response.start", "status": 204, "headers": reply})
    await send({"type": "http.response.body", "body": b""})
