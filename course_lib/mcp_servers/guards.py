"""Two answers the SDK's transports leave out, so that no malformed message goes unanswered.

The SDK's ``Server`` serves both protocol revisions on both transports: a client that opens
with ``initialize`` gets the 2025-11-25 handshake (and, over HTTP, a session), a request that
carries ``io.modelcontextprotocol/protocolVersion`` in its ``_meta`` is served by 2026-07-28's
rules. Two kinds of input fall between the cracks, and these guards answer them with the errors
the specification names:

- **stdio**: a line that is not JSON, or not one JSON-RPC message, is dropped by the SDK without
  a word, so a client waits for an answer that never comes. ``answer_unreadable_lines`` answers
  it as JSON-RPC 2.0 does: ``-32700`` (parse error) or ``-32600`` (invalid request), with
  ``id: null`` because no id could be read.
- **Streamable HTTP**: the SDK picks the revision from the ``MCP-Protocol-Version`` header
  alone, so a 2026-07-28 request whose header is missing (or names a 2025 revision) lands on the
  2025 session path and is told "Missing session ID". ``EnvelopeHeaderGuard`` reads the body
  first: such a request is a 2026-07-28 request with a bad header, and the specification's
  answer is ``400`` with ``-32020`` (``HeaderMismatch``), found by the SDK's own request ladder
  (``classify_inbound_request``) after its own Host/Origin check. On the 2025 path it also
  answers JSON that is no JSON-RPC message with ``-32600`` (the SDK's 2025 transport says
  ``-32602`` and quotes pydantic), and keeps an ``Mcp-Session-Id`` off error responses (the SDK
  mints one for a session it then discards).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    MCP_PROTOCOL_VERSION_HEADER,
    InboundLadderRejection,
    classify_inbound_request,
)
from mcp.shared.message import SessionMessage
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

SESSION_HEADER = b"mcp-session-id"
MESSAGES = {
    "parse_error": "Parse error: a line must hold one JSON-RPC message as JSON.",
    "invalid_request": (
        "Invalid Request: a line must hold one JSON-RPC 2.0 request, notification or response "
        "object (a string or integer id, never null)."
    ),
    "invalid_body": (
        "Invalid Request: the body must be one JSON-RPC 2.0 request, notification or response "
        "object (a string or integer id, never null)."
    ),
}

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# -- stdio ----------------------------------------------------------------------------------------


def unreadable_error(error: Exception) -> types.JSONRPCError:
    """The answer to a line the transport could not read as a JSON-RPC message."""
    is_json = not (
        isinstance(error, ValidationError)
        and any(detail.get("type") == "json_invalid" for detail in error.errors())
    )
    data = (
        types.ErrorData(code=types.INVALID_REQUEST, message=MESSAGES["invalid_request"])
        if is_json
        else types.ErrorData(code=types.PARSE_ERROR, message=MESSAGES["parse_error"])
    )
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=data)


async def answer_unreadable_lines(
    transport_read: Any, transport_write: Any, to_server: Any
) -> None:
    """Pass every readable message from the transport on to the server (``to_server`` is the
    send end of the server's read stream); answer every unreadable line on the transport's
    write stream. Ends, closing the server's stream, when the transport's read side ends."""
    async with to_server:
        async for item in transport_read:
            try:
                if isinstance(item, Exception):
                    await transport_write.send(SessionMessage(unreadable_error(item)))
                else:
                    await to_server.send(item)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the server has stopped: nobody is left to read or answer


# -- Streamable HTTP ------------------------------------------------------------------------------


def carries_modern_envelope(body: Any) -> bool:
    """Whether ``body`` is a request (not ``initialize``) whose ``params._meta`` holds the
    2026-07-28 protocol-version key, a key no 2025 request can carry (its prefix is reserved)."""
    if not isinstance(body, dict) or "id" not in body or body.get("method") == "initialize":
        return False
    params = body.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and types.PROTOCOL_VERSION_META_KEY in meta


def is_jsonrpc_message(body: Any) -> bool:
    """Whether ``body`` (decoded JSON) is one JSON-RPC message as the SDK reads them."""
    try:
        types.jsonrpc_message_adapter.validate_python(body, by_name=False)
    except ValidationError:
        return False
    return True


class EnvelopeHeaderGuard:
    """ASGI middleware before the SDK's MCP endpoint: answers a 2026-07-28 request whose
    ``MCP-Protocol-Version`` header is missing or names another era, and JSON that is no
    JSON-RPC message; passes everything else on (the body replayed as it came)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        path: str,
        security: TransportSecuritySettings | None,
        max_body_size: int,
    ) -> None:
        self.app = app
        self.path = path
        self.security = TransportSecurityMiddleware(security)
        self.max_body_size = max_body_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._worth_reading(scope):
            await self.app(scope, receive, send)
            return
        messages, complete = await self._read_body(receive)
        replay = _replaying(messages, receive)
        if complete:
            body = b"".join(message.get("body", b"") for message in messages)
            rejection = await self._rejection(scope, replay, body)
            if rejection is not None:
                await rejection(scope, replay, send)
                return
        await self.app(scope, replay, _without_session_on_errors(send))

    def _worth_reading(self, scope: Scope) -> bool:
        """A POST to the endpoint that neither belongs to a 2025 session nor names a 2026
        revision in its header: the only requests the SDK may route by the header wrongly."""
        if scope.get("type") != "http" or scope.get("method") != "POST":
            return False
        if scope.get("path") != self.path:
            return False
        headers = dict(scope["headers"])  # ASGI gives lower-case names, as bytes
        if SESSION_HEADER in headers:
            return False
        version = headers.get(MCP_PROTOCOL_VERSION_HEADER.encode("latin-1"))
        return version is None or version.decode("latin-1") not in MODERN_PROTOCOL_VERSIONS

    async def _read_body(self, receive: Receive) -> tuple[list[Message], bool]:
        """The body's messages, up to the size limit; ``complete`` when the whole body came
        (a larger one is left to the SDK, which answers 413)."""
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message.get("type") != "http.request":
                return messages, False
            size += len(message.get("body", b""))
            if size > self.max_body_size:
                return messages, False
            if not message.get("more_body", False):
                return messages, True

    async def _rejection(self, scope: Scope, receive: Receive, body: bytes) -> Response | None:
        try:
            decoded = json.loads(body)
        except (ValueError, RecursionError):
            return None  # the SDK answers a parse error itself
        modern = carries_modern_envelope(decoded)
        if not modern and is_jsonrpc_message(decoded):
            return None  # a 2025 message: the SDK's session path answers it
        request = Request(scope, receive)
        refused = await self.security.validate_request(request, is_post=True)
        if refused is not None:
            return refused
        if not modern:
            invalid = InboundLadderRejection(types.INVALID_REQUEST, MESSAGES["invalid_body"])
            return _error_response(None, invalid)
        headers = {key.lower(): value for key, value in request.headers.items()}
        verdict = classify_inbound_request(decoded, headers=headers)
        if not isinstance(verdict, InboundLadderRejection):
            return None
        return _error_response(decoded.get("id"), verdict)


def _error_response(request_id: Any, rejection: InboundLadderRejection) -> Response:
    """The ladder's rejection as its JSON-RPC error, with the HTTP status the SDK gives it."""
    valid_id = isinstance(request_id, (str, int)) and not isinstance(request_id, bool)
    error = types.JSONRPCError(
        jsonrpc="2.0",
        id=request_id if valid_id else None,
        error=types.ErrorData(code=rejection.code, message=rejection.message, data=rejection.data),
    )
    body = error.model_dump(mode="json", by_alias=True, exclude_none=True)
    body.setdefault("id", None)
    return Response(
        json.dumps(body, separators=(",", ":")),
        status_code=ERROR_CODE_HTTP_STATUS.get(rejection.code, 400),
        media_type="application/json",
    )


def _without_session_on_errors(send: Send) -> Send:
    """``send``, but an error response for a request that came without a session carries no
    ``Mcp-Session-Id``: no session was opened for it (the SDK discards it at once)."""

    async def sending(message: Message) -> None:
        if message.get("type") == "http.response.start" and message.get("status", 200) >= 400:
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != SESSION_HEADER]
            message = {**message, "headers": headers}
        await send(message)

    return sending


def _replaying(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives ``messages`` again, then whatever ``receive`` gives next."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
