"""The errors the HTTP layer answers by itself, as JSON in the shape the client's SDK parses.

Most errors come from :class:`LocalEndpoint` (a bad conversation, an unknown URL). These are the
ones a request meets before it gets there: a malformed request line, a body too large or too
slow, a method we do not serve, our own bug. A request to the Anthropic Messages API
(``/v1/messages``) gets Anthropic's shape ``{"type": "error", "error": {"type", "message"},
"request_id"}``;
everything else gets OpenAI's ``{"error": {"message", "type", "param", "code"}}``, so
``openai.APIStatusError`` / ``anthropic.APIStatusError`` carry our sentence as their message.
"""

from __future__ import annotations

import json
import re
from typing import Any

from course_lib.local_model.wire import request_id

MESSAGES = {
    "malformed": (
        "The request is not valid HTTP/1.1 ({detail}). Check the request line, the headers and "
        "how the body is framed (Content-Length or Transfer-Encoding: chunked)."
    ),
    "content_length": (
        "Invalid Content-Length header {value!r}: send the body's length in bytes, as ASCII "
        "digits (and only one Content-Length)."
    ),
    "headers_too_large": (
        "The request line and headers are longer than {limit} bytes. Send shorter headers or "
        "a shorter URL."
    ),
    "transfer_coding": (
        "This server reads request bodies framed by Content-Length or Transfer-Encoding: "
        "chunked only ({detail}). Send the body uncompressed, framed by one of them."
    ),
    "content_encoding": (
        "Content-Encoding {encoding!r} is not supported. Send the JSON body uncompressed."
    ),
    "version": "HTTP/{version} is not supported. Send the request as HTTP/1.1 or HTTP/1.0.",
    "method": "The method {method!r} is not allowed. The local model answers {allowed}.",
    "head_timeout": (
        "The request line and headers did not arrive within {seconds:g} seconds. Send the "
        "whole request without pausing."
    ),
    "body_timeout": (
        "The request body did not arrive within {seconds:g} seconds ({received} of {declared} "
        "bytes came). Send the whole body without pausing."
    ),
    "body_timeout_chunked": (
        "The chunked request body did not end within {seconds:g} seconds ({received} bytes "
        "came). Send the whole body, then the last chunk, without pausing."
    ),
    "body_too_large": (
        "The request body is {size} bytes; this server accepts at most {limit} bytes. Send a "
        "shorter request, or start serve-model with a larger --max-body-mb."
    ),
    "body_too_large_chunked": (
        "The chunked request body is longer than {limit} bytes, the most this server accepts. "
        "Send a shorter request, or start serve-model with a larger --max-body-mb."
    ),
    "shutting_down": "The local model server is shutting down. Start it again and retry.",
    "internal": (
        "The local model failed on this request ({error}). This is a bug in course_lib, not in "
        "your request; the server's log has the traceback."
    ),
}

# Every other status (4xx, and 501/505, which are about the request too) is the client's to fix.
OPENAI_TYPES = {500: "server_error", 503: "server_error"}
ANTHROPIC_TYPES = {
    404: "not_found_error",
    413: "request_too_large",
    500: "api_error",
    503: "api_error",
}
ANTHROPIC_PATH = re.compile(r"/messages(/|$)")


def message(key: str, **fields: Any) -> str:
    """One sentence from :data:`MESSAGES`, its placeholders filled."""
    return MESSAGES[key].format(**fields)


def is_anthropic_path(path: str) -> bool:
    """Whether ``path`` belongs to the Anthropic Messages API (answered in Anthropic's shape)."""
    return bool(ANTHROPIC_PATH.search(path.split("?", 1)[0].rstrip("/")))


def error_payload(path: str, status: int, text: str) -> dict[str, Any]:
    """The JSON error body a client of ``path`` expects, for an HTTP ``status``."""
    if is_anthropic_path(path):
        kind = ANTHROPIC_TYPES.get(status, "invalid_request_error")
        error = {"type": kind, "message": text}
        return {"type": "error", "error": error, "request_id": request_id(path, text)}
    kind = OPENAI_TYPES.get(status, "invalid_request_error")
    return {"error": {"message": text, "type": kind, "param": None, "code": None}}


def error_json(path: str, status: int, text: str) -> bytes:
    return json.dumps(error_payload(path, status, text), ensure_ascii=False).encode()
