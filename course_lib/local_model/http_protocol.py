"""uvicorn's h11 connection, plus what uvicorn leaves to whoever deploys it.

uvicorn parses HTTP with h11 and hands complete requests to the ASGI app (``http_app.py``). Out of
the box it (1) answers a malformed request with a plain-text 400, (2) never times out a
connection that has not finished sending its headers (a slowloris client holds it forever), and
(3) closes a connection as soon as the client half-closes it, even while that client's request
is still being answered. :class:`LocalModelProtocol` keeps uvicorn's parsing and fixes those:

- a malformed request gets the JSON error the client's SDK parses, with h11's status hint
  (400, 431 for headers over the limit, 501 for a transfer coding we do not read);
- while a connection waits for a request it has an *idle* timer (closed silently, as any
  keep-alive connection may be) and, once the first byte of a request arrives, a *header*
  timer (answered 408, then closed);
- a client that stops reading our reply is dropped after ``write_timeout``;
- a half-closed connection gets its answers (pipelined ones too) before it is closed.
"""

from __future__ import annotations

import asyncio
import http
import logging
import socket
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from course_lib.local_model.http_errors import error_json, message
from course_lib.local_model.http_limits import ServerLimits

log = logging.getLogger(__name__)
MAX_QUOTED_HEAD = 64 * 1024  # more than any head h11 accepts (ServerLimits.max_header_bytes)


class RememberingConnection(h11.Connection):
    """An h11 connection that keeps its last protocol error and the request head that caused it,
    so the reply can use h11's status hint and quote the bad header."""

    last_error: h11.RemoteProtocolError | None = None
    last_head: bytes = b""

    def next_event(self) -> Any:
        if self.their_state is h11.IDLE:  # h11 consumes the head even when it then refuses it
            self.last_head = self.trailing_data[0][:MAX_QUOTED_HEAD]
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            self.last_error = error
            raise
        # Only our eof_received tells h11 about an EOF, and uvicorn's event loop has no case for
        # ConnectionClosed (it would ask again forever): the connection is closing anyway.
        return h11.NEED_DATA if isinstance(event, h11.ConnectionClosed) else event


class LocalModelProtocol(H11Protocol):
    """One client connection; ``limits`` bound its headers and how long it may stall."""

    def __init__(self, *args: Any, limits: ServerLimits, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = limits
        self.conn = RememberingConnection(h11.SERVER, limits.max_header_bytes)
        self.logger = log  # uvicorn's own warnings ("Invalid HTTP request") go to our logger
        self.waiting: tuple[str, asyncio.TimerHandle] | None = None
        self.client_done = False  # the client half-closed: no more bytes will come
        self.write_stall: asyncio.TimerHandle | None = None

    # --- connection events -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            # Small replies must not wait ~40 ms for the client's delayed ACK (Nagle).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.watch_for_request()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self.watch_for_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # may start the next pipelined request
        if self.client_done and not self.transport.is_closing():
            if not self.answer_what_is_left():
                self.transport.close()
            return
        self.watch_for_request()

    def eof_received(self) -> bool:
        """The client has finished sending (a half-close): answer every request it sent,
        pipelined ones included, then close. (uvicorn would close at once.)"""
        self.client_done = True
        if not self.answer_what_is_left():
            self.transport.close()
        return True  # the transport stays open for our replies; we close it ourselves

    def answer_what_is_left(self) -> bool:
        """After the client's EOF: whether a reply is still owed (so the connection stays)."""
        state = self.conn.their_state
        if state is h11.SEND_BODY or (state is h11.IDLE and self.conn.trailing_data[0]):
            # Half a request: h11 reports it as a protocol error, answered by send_400_response.
            self.conn.receive_data(b"")
            self.handle_events()
            return True
        return self.cycle is not None and not self.cycle.response_complete

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

    # --- timers while a request's head is awaited ------------------------------------------

    def watch_for_request(self) -> None:
        """Arm the idle timer, or the header timer once a request has begun; else disarm."""
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            self.stop_waiting()
            return
        mode = "header" if self.conn.trailing_data[0] else "idle"
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
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if mode == "idle":
            self.conn.send(h11.ConnectionClosed())
            self.transport.close()
            return
        log.info("408 for a client whose headers took over %ss.", self.limits.header_timeout)
        text = message("head_timeout", seconds=self.limits.header_timeout)
        self.send_error(408, text, self.buffered_path(self.conn.trailing_data[0]))

    # --- malformed requests ----------------------------------------------------------------

    def send_400_response(self, msg: str) -> None:
        """uvicorn calls this for every h11 protocol error; answer it in JSON."""
        error = self.conn.last_error
        status = error.error_status_hint if error is not None else 400
        detail = str(error).split(": bytearray(", 1)[0][:200] if error is not None else msg
        if status == 431:
            text = message("headers_too_large", limit=self.limits.max_header_bytes)
        elif status == 501:
            text = message("transfer_coding", detail=detail)
        elif "Content-Length" in detail:
            status, text = self.content_length_error(self.buffered_header(b"content-length"))
        else:
            status, text = 400, message("malformed", detail=detail)
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            path = self.scope["path"]
            if cycle.response_started:  # too late for a reply: end the one in progress
                self.transport.close()
                return
            cycle.disconnected = True  # the app's receive() now says so, and its send() is a no-op
            cycle.message_event.set()
        else:
            path = self.buffered_path(self.conn.last_head)
        self.send_error(status, text, path)

    def content_length_error(self, value: str) -> tuple[int, str]:
        """h11 refuses a Content-Length over 20 digits: that is a body too large, not a typo."""
        if value.isascii() and value.isdigit():
            return 413, message("body_too_large", size=value, limit=self.limits.max_body_bytes)
        return 400, message("content_length", value=value)

    @staticmethod
    def buffered_path(head: bytes) -> str:
        """The target in a request line h11 has not accepted (to pick the error's shape)."""
        line = head.split(b"\r\n", 1)[0].split(b" ")
        return line[1].decode("latin-1") if len(line) > 1 else "/"

    def buffered_header(self, name: bytes) -> str:
        """A header's raw value(s) in the refused request head, for the error message."""
        head = self.conn.last_head.split(b"\r\n\r\n", 1)[0]
        values = [
            line.split(b":", 1)[1].strip().decode("utf-8", "replace")
            for line in head.split(b"\r\n")[1:]
            if b":" in line and line.split(b":", 1)[0].strip().lower() == name
        ]
        return ", ".join(values)[:200]

    def send_error(self, status: int, text: str, path: str) -> None:
        """Write one JSON error reply and close: the connection's framing cannot be trusted."""
        body = error_json(path, status, text)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"access-control-allow-origin", b"*"),
            (b"connection", b"close"),
        ]
        reason = http.HTTPStatus(status).phrase.encode()
        try:
            self.transport.write(
                self.conn.send(h11.Response(status_code=status, headers=headers, reason=reason))
                + self.conn.send(h11.Data(data=body))
                + self.conn.send(h11.EndOfMessage())
            )
        except h11.LocalProtocolError:  # a reply was already under way on this connection
            pass
        self.transport.close()
