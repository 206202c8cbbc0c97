"""What to answer a request head the HTTP parser refused: the status and the sentence.

``llhttp`` (the C parser under ``httptools``, which ``serve-model`` reads HTTP with) stops at the
first byte it cannot accept and says why in a short phrase ("Invalid method encountered",
"Content-Length overflow", ...), without the bytes. :func:`refusal` turns that phrase, and the
refused head when the server still has it, into the status a client can act on: 405 for an
unknown method, 505 for another HTTP version, 413 for a ``Content-Length`` too large to read, 400
for a ``Content-Length`` that is not a number, 501 for a transfer coding we do not read, 400 for
the rest; with a sentence from :data:`course_lib.local_model.http_errors.MESSAGES`.

The head is known when it began a packet (the usual case: one request, or the first of a
pipelined batch). One that began in the middle of a packet, after another request, is answered
with a plain 400 that says the request is not valid HTTP/1.1, naming the parser's reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from course_lib.local_model.http_app import ALLOWED
from course_lib.local_model.http_errors import message
from course_lib.local_model.http_limits import ServerLimits

TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 5.6.2: a method is a token
VERSION = re.compile(rb"HTTP/(\d)\.(\d)")


@dataclass(frozen=True)
class Refusal:
    """The reply to a refused head: status, sentence, extra headers, and the path it was for."""

    status: int
    text: str
    path: str = "/"
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)


def request_line(head: bytes) -> list[bytes]:
    """The request line's parts (method, target, version), as the client sent them."""
    return head.split(b"\r\n", 1)[0].split(b"\n", 1)[0].split(b" ")


def path_of(head: bytes | None) -> str:
    """The target of a request line, to pick the error's shape (Anthropic's or OpenAI's)."""
    parts = request_line(head or b"")
    return parts[1].decode("latin-1") if len(parts) > 1 else "/"


def header_values(head: bytes, name: bytes) -> str:
    """A header's raw value(s) in a head, joined, for an error message."""
    lines = head.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]
    values = [
        line.split(b":", 1)[1].strip().decode("utf-8", "replace")
        for line in lines
        if b":" in line and line.split(b":", 1)[0].strip().lower() == name
    ]
    return ", ".join(values)[:200]


def other_version(head: bytes | None) -> str | None:
    """The version a request line names when it is an HTTP version other than 1.0 and 1.1."""
    parts = request_line(head or b"")
    match = VERSION.fullmatch(parts[-1]) if len(parts) == 3 else None
    if match is None or parts[-1] in (b"HTTP/1.0", b"HTTP/1.1"):
        return None
    return f"{match[1].decode()}.{match[2].decode()}"


def malformed(reason: str, head: bytes | None = None) -> Refusal:
    return Refusal(400, message("malformed", detail=reason[:200]), path_of(head))


def refusal(reason: str, head: bytes | None, limits: ServerLimits) -> Refusal:
    """The reply to a head ``llhttp`` refused for ``reason``; ``head`` is its bytes when known
    (they may run on into the body: only the head's part is read)."""
    if head is None:
        return malformed(reason)
    path = path_of(head)
    version = other_version(head)
    if version is not None:
        return Refusal(505, message("version", version=version), path)
    if "method" in reason.lower():
        parts = request_line(head)
        if len(parts) == 3 and TOKEN.fullmatch(parts[0]) and VERSION.fullmatch(parts[2]):
            method = parts[0].decode("ascii")
            text = message("method", method=method, allowed=ALLOWED)
            return Refusal(405, text, path, [(b"allow", ALLOWED.encode())])
        return malformed(reason, head)
    if "Content-Length" in reason:
        value = header_values(head, b"content-length")
        if value.isascii() and value.isdigit():  # longer than 64 bits: a body too large
            text = message("body_too_large", size=value, limit=limits.max_body_bytes)
            return Refusal(413, text, path)
        return Refusal(400, message("content_length", value=value), path)
    if "Transfer-Encoding" in reason:
        value = header_values(head, b"transfer-encoding")
        detail = f"Transfer-Encoding: {value}" if value else reason
        return Refusal(501, message("transfer_coding", detail=detail), path)
    return malformed(reason, head)
