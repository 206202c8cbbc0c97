"""uvicorn's httptools connection, plus what uvicorn leaves to whoever deploys it.

uvicorn parses HTTP with ``httptools`` (the C parser ``llhttp``, which Node.js uses too) and
hands complete requests to the ASGI app (``http_app.py``). We measured it against uvicorn's
pure-Python h11 connection, which ``serve-model`` used before: the same request posted on a
kept-alive connection costs about 0.1 ms less of the server's CPU, a quarter of what the whole
server spends on a small request (``benchmarks/bench_local_model.py``). Out of the box uvicorn
(1) answers a malformed request with a plain-text 400, (2) sets no limit on a request's head
and never times out a connection that has not finished sending it (a slowloris client holds it
forever), (3) closes a connection as soon as the client half-closes it, even while that
client's request is still being answered, and (4) answers HTTP/1.0 streams with a chunked body
that HTTP/1.0 does not have. :class:`LocalModelProtocol` keeps uvicorn's parsing and fixes those:

- a malformed request gets the JSON error the client's SDK parses, with the status that fits
  (``http_heads.py``: 400, 405 for an unknown method, 413, 501, 505), then the connection
  closes (the parser cannot go on after an error); requests before it in a pipelined batch are
  answered first;
- a head over ``max_header_bytes`` gets 431 while it is still arriving, and an HTTP/1.1 request
  without ``Host`` gets 400, as RFC 9112 asks;
- while a connection waits for a request it has an *idle* timer (closed silently, as any
  keep-alive connection may be) and, once the first byte of a request arrives, a *header*
  timer (answered 408, then closed);
- a client that stops reading our reply is dropped after ``write_timeout``;
- a half-closed connection gets its answers (pipelined ones too) before it is closed, and half
  a request then gets 400 at once;
- an HTTP/1.0 stream is sent as it is produced and ended by closing the connection.

One module because the four fixes are overrides of one uvicorn class (``HttpToolsProtocol``)
and its request cycle, and they share its state (the parser, the timers, the transport): a
change to one (the half-close, a timer) has to be read beside the others.
"""

from __future__ import annotations

import asyncio
import http
import logging
import socket
import urllib.parse
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from course_lib.local_model.http_errors import error_json, message
from course_lib.local_model.http_heads import Refusal, malformed, path_of, refusal
from course_lib.local_model.http_limits import ServerLimits

log = logging.getLogger(__name__)
MAX_QUOTED_HEAD = 64 * 1024  # the most of a refused head kept to read its error from


class HeadRefused(Exception):
    """Raised in a parser callback to stop parsing: ``LocalModelProtocol.refused`` says why."""


class HeldWrites:
    """A transport whose writes are kept, to go out with the next write to the real one."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.held = b""

    def write(self, data: bytes) -> None:
        self.held += data

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class PrefixedWrite:
    """A transport whose next write starts with ``prefix``."""

    def __init__(self, transport: asyncio.Transport, prefix: bytes) -> None:
        self.transport = transport
        self.prefix = prefix

    def write(self, data: bytes) -> None:
        prefix, self.prefix = self.prefix, b""
        self.transport.write(prefix + data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class Cycle(RequestResponseCycle):
    """One request and its reply. The reply's head goes out in one packet with the first part
    of its body (uvicorn writes it alone: one more packet, and one more wake-up of a client
    that reads the head and then waits for the body); every body message but HEAD's writes
    once, even an empty one. An HTTP/1.0 reply without a length is ended by closing the
    connection."""

    until_close = False
    head = b""

    async def send(self, message: Any) -> None:
        if not self.response_started:
            if self.scope["http_version"] == "1.0":
                names = {name.lower() for name, _ in message.get("headers", ())}
                if b"content-length" not in names:
                    self.until_close = True
                    self.chunked_encoding = False  # uvicorn would answer chunked
                    self.keep_alive = False
            if self.scope["method"] == "HEAD":  # no body will follow: the head goes now
                await super().send(message)
                return
            transport = self.transport
            held = self.transport = HeldWrites(transport)  # type: ignore[assignment]
            try:
                await super().send(message)
            finally:
                self.transport = transport
            self.head = held.held
            return
        if self.head:
            transport, head = self.transport, self.head
            self.head = b""
            if self.disconnected:
                return
            self.transport = PrefixedWrite(transport, head)  # type: ignore[assignment]
            try:
                await self.send_body(message)
            finally:
                self.transport = transport
            return
        await self.send_body(message)

    async def send_body(self, message: Any) -> None:
        if not self.until_close:
            await super().send(message)
            return
        if self.flow.write_paused and not self.disconnected:
            await self.flow.drain()
        if self.disconnected or self.response_complete:
            return
        if self.scope["method"] != "HEAD":
            self.transport.write(message.get("body", b""))
        if not message.get("more_body", False):
            self.response_complete = True
            self.message_event.set()
            self.transport.close()
            self.on_response()


class LocalModelProtocol(HttpToolsProtocol):
    """One client connection; ``limits`` bound its headers and how long it may stall."""

    cycle_class = Cycle

    def __init__(self, *args: Any, limits: ServerLimits, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = limits
        self.logger = log  # uvicorn's own warnings go to our logger
        # Both framings at once: read the body chunked (RFC 9112 6.3); http_app then closes.
        self.parser.set_dangerous_leniencies(lenient_chunked_length=True)
        self.waiting: tuple[str, asyncio.TimerHandle] | None = None
        self.client_done = False  # the client half-closed: no more bytes will come
        self.write_stall: asyncio.TimerHandle | None = None
        # The request head being read: whether one is, its bytes so far when it began a packet
        # (None when it began after another request in the same packet), and how many came.
        self.in_message = False
        self.heading = False
        self.head: bytearray | None = None
        self.head_size = 0
        self.packet: bytes = b""
        self.packet_fresh = False  # the packet being parsed began between two requests
        self.refused: Refusal | None = None  # why a parser callback stopped the parser
        self.owed: Refusal | None = None  # an error to answer once earlier replies are sent

    # --- connection events -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            # Small replies must not wait ~40 ms for the client's delayed ACK (Nagle).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.watch_for_request()

    def data_received(self, data: bytes) -> None:
        if self.parser is None or self.owed is not None or self.transport.is_closing():
            return  # after an error only its reply is owed: the rest is not read
        if self.heading:
            self.head_size += len(data)
            if self.head is not None and len(self.head) < MAX_QUOTED_HEAD:
                self.head += data[:MAX_QUOTED_HEAD]
        self.packet, self.packet_fresh = data, not self.in_message
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            # ws="none": an Upgrade request is answered as a plain one; what follows it
            # cannot be trusted to be HTTP, so nothing more is read and the reply closes.
            self.parser = None  # type: ignore[assignment]
            if self.cycle is not None:
                self.cycle.keep_alive = False
        except httptools.HttpParserError as error:
            found, self.refused = self.refused, None
            self.refuse(found or refusal(str(error), self.head_if_heading(), self.limits))
            return
        finally:
            self.packet = b""
        if self.heading and self.head_size > self.limits.max_header_bytes:
            self.refuse(Refusal(431, self.headers_too_large(), path_of(self.head)))
            return
        self.watch_for_request()

    def head_if_heading(self) -> bytes | None:
        """The bytes of the head the parser refused, if it is a head and we have them."""
        return bytes(self.head) if self.heading and self.head is not None else None

    def on_response_complete(self) -> None:
        """The reply is sent: start the next pipelined request, answer an error owed after it,
        or wait for the next request (and after the client's half-close: close)."""
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self.flow.resume_reading()
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
            return
        if self.owed is not None:
            self.send_error(self.owed)
            return
        if self.client_done:
            self.answer_what_is_left()
            return
        self.watch_for_request()

    def eof_received(self) -> bool:
        """The client has finished sending (a half-close): answer every request it sent,
        pipelined ones included, then close. (uvicorn would close at once.)"""
        self.client_done = True
        self.answer_what_is_left()
        return True  # the transport stays open for our replies; we close it ourselves

    def answer_what_is_left(self) -> None:
        """After the client's EOF: answer half a request with 400, wait for the replies still
        owed, or close."""
        if self.transport.is_closing() or self.owed is not None:
            return
        if self.in_message:  # half a request: it will never be complete
            head = self.head_if_heading()
            self.refuse(malformed("the connection was closed in the middle of a request", head))
            return
        if self.pipeline or (self.cycle is not None and not self.cycle.response_complete):
            return  # on_response_complete comes back here
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_waiting()
        if self.write_stall is not None:
            self.write_stall.cancel()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.write_stall is None:
            self.write_stall = self.loop.call_later(self.limits.write_timeout, self.drop_reader)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.write_stall is not None:
            self.write_stall.cancel()
            self.write_stall = None

    def drop_reader(self) -> None:
        log.info("Dropping a client that stopped reading for %ss.", self.limits.write_timeout)
        self.transport.abort()

    # --- parser callbacks ------------------------------------------------------------------

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.in_message = self.heading = True
        fresh, self.packet_fresh = self.packet_fresh, False
        self.head = bytearray(self.packet[:MAX_QUOTED_HEAD]) if fresh else None
        # A head that began after another request in this packet: only later packets count.
        self.head_size = len(self.packet) if fresh else 0

    def on_headers_complete(self) -> None:
        head = bytes(self.head) if self.head is not None else None
        path = self.url.decode("latin-1")
        version = self.parser.get_http_version()
        if version == "0.9":  # llhttp reads a request line without a version as HTTP/0.9
            self.stop_parsing(refusal("no HTTP version in the request line", head, self.limits))
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > self.limits.max_header_bytes:
            self.stop_parsing(Refusal(431, self.headers_too_large(), path))
        if version == "1.1" and not any(name == b"host" for name, _ in self.headers):
            text = message("malformed", detail="Missing mandatory Host: header")
            self.stop_parsing(Refusal(400, text, path))
        codings = b",".join(value for name, value in self.headers if name == b"transfer-encoding")
        if codings and codings.rsplit(b",", 1)[-1].strip().lower() != b"chunked":
            detail = "Transfer-Encoding: " + codings.decode("latin-1")[:200]
            self.stop_parsing(Refusal(501, message("transfer_coding", detail=detail), path))
        method = self.parser.get_method()
        if method == b"CONNECT":  # a tunnel: not served (and its target is not a path)
            self.stop_parsing(refusal("Invalid method encountered", head, self.limits))
        try:
            parsed = httptools.parse_url(self.url)
        except httptools.HttpParserInvalidURLError:
            self.stop_parsing(malformed("Invalid request target", head))
        self.heading = False
        self.start_cycle(method.decode("ascii"), version, parsed)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self.in_message = False

    def stop_parsing(self, why: Refusal) -> None:
        self.refused = why
        raise HeadRefused(why.text)

    def start_cycle(self, method: str, version: str, parsed: Any) -> None:
        """uvicorn's ``on_headers_complete`` (ws="none", no concurrency limit), with our
        :class:`Cycle`."""
        scope = self.scope
        scope["method"] = method
        if version != "1.1":
            scope["http_version"] = version
        raw_path = parsed.path
        path = raw_path.decode("ascii")
        if "%" in path:
            path = urllib.parse.unquote(path)
        scope["path"] = self.root_path + path
        scope["raw_path"] = self.root_path.encode("ascii") + raw_path
        scope["query_string"] = parsed.query or b""
        previous = self.cycle
        self.cycle = self.cycle_class(
            scope=scope,
            transport=self.transport,
            flow=self.flow,
            logger=self.logger,
            access_logger=self.access_logger,
            access_log=self.access_log,
            default_headers=self.server_state.default_headers,
            message_event=asyncio.Event(),
            expect_100_continue=self.expect_100_continue,
            keep_alive=version != "1.0" and self.parser.should_keep_alive(),
            on_response=self.on_response_complete,
        )
        if previous is None or previous.response_complete:
            self._start_asgi_task(self.cycle, self.app)
        else:  # pipelined: answered after the ones before it
            self.flow.pause_reading()
            self.pipeline.appendleft((self.cycle, self.app))

    # --- timers while a request's head is awaited ------------------------------------------

    def watch_for_request(self) -> None:
        """Arm the idle timer, or the header timer once a request has begun; else disarm."""
        if self.transport.is_closing() or (self.in_message and not self.heading):
            self.stop_waiting()
            return
        if not self.in_message and (
            self.pipeline or (self.cycle is not None and not self.cycle.response_complete)
        ):
            self.stop_waiting()  # a request is being answered
            return
        mode = "header" if self.heading else "idle"
        if self.waiting is not None and self.waiting[0] == mode:
            return  # the deadline runs from the first byte (or from the last reply), not the last
        self.stop_waiting()
        delay = self.limits.header_timeout if mode == "header" else self.limits.idle_timeout
        self.waiting = (mode, self.loop.call_later(delay, self.waited_too_long, mode))

    def stop_waiting(self) -> None:
        if self.waiting is not None:
            self.waiting[1].cancel()
            self.waiting = None

    def waited_too_long(self, mode: str) -> None:
        self.waiting = None
        if self.transport.is_closing():
            return
        if mode == "idle":
            if not self.in_message:
                self.transport.close()
            return
        if not self.heading:
            return
        log.info("408 for a client whose headers took over %ss.", self.limits.header_timeout)
        text = message("head_timeout", seconds=self.limits.header_timeout)
        self.refuse(Refusal(408, text, path_of(self.head_if_heading())))

    # --- malformed requests ----------------------------------------------------------------

    def headers_too_large(self) -> str:
        return message("headers_too_large", limit=self.limits.max_header_bytes)

    def refuse(self, why: Refusal) -> None:
        """Answer a request the connection layer refuses, then close: the framing of what
        follows cannot be trusted. A reply still owed to an earlier request goes first."""
        self.stop_waiting()
        self.parser = None  # type: ignore[assignment]  # nothing more is parsed
        self.flow.pause_reading()
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            if self.in_message and not self.heading:  # this request's body is what failed
                if cycle.response_started:  # too late for a reply: end the one in progress
                    self.transport.close()
                    return
                cycle.disconnected = True  # its receive() now says so, and its send() a no-op
                cycle.message_event.set()
                why = Refusal(why.status, why.text, cycle.scope["path"], why.headers)
            else:  # an earlier request is still being answered: this error comes after it
                self.owed = why
                return
        self.send_error(why)

    def send_400_response(self, msg: str) -> None:
        """uvicorn's own plain-text 400, should any path of uvicorn's still call it."""
        self.refuse(malformed(msg))

    def send_error(self, why: Refusal) -> None:
        """Write one JSON error reply and close the connection."""
        body = error_json(why.path, why.status, why.text)
        reason = http.HTTPStatus(why.status).phrase.encode()
        head = [
            b"HTTP/1.1 %d %s\r\n" % (why.status, reason),
            b"content-type: application/json\r\n",
            b"content-length: %d\r\n" % len(body),
            b"access-control-allow-origin: *\r\n",
            *(name + b": " + value + b"\r\n" for name, value in why.headers),
            b"connection: close\r\n\r\n",
        ]
        self.owed = None
        self.transport.write(b"".join(head) + body)
        self.transport.close()
