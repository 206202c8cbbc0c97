"""Raw-socket HTTP for the server's robustness tests (imported as ``raw_http``).

A test writes exactly the bytes it means (malformed ones included) and reads the replies with
the standard library's response parser (``http.client.HTTPResponse``), which understands
Content-Length, chunked and close-delimited bodies. Several replies on one connection
(keep-alive, pipelining) share one buffered reader, so no byte of the next reply is lost.
"""

from __future__ import annotations

import http.client
import json
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

READ_TIMEOUT = 30.0  # generous: the box is loaded; tests bound outcomes, not speed


@dataclass
class RawReply:
    status: int
    headers: dict[str, str]
    body: bytes
    version: int  # 10 or 11
    chunked: bool
    closes: bool  # the server said it will close the connection after this reply
    raw_headers: list[tuple[str, str]] = field(default_factory=list)

    def json(self) -> Any:
        assert self.headers.get("content-type", "").startswith("application/json"), self.headers
        return json.loads(self.body)

    def error_message(self) -> str:
        """The error's sentence, in the OpenAI or the Anthropic shape."""
        return self.json()["error"]["message"]


class SharedReader:
    """One buffered reader for all replies on a connection; ``close`` by a reply is ignored."""

    def __init__(self, sock: socket.socket) -> None:
        self.file = sock.makefile("rb")

    def makefile(self, *args: Any, **kwargs: Any) -> SharedReader:
        return self

    def close(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self.file, name)


def address(base_url: str) -> tuple[str, int]:
    parsed = urlparse(base_url)
    return parsed.hostname, parsed.port


def connect(base_url: str, timeout: float = READ_TIMEOUT) -> socket.socket:
    sock = socket.create_connection(address(base_url), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_reply(reader: SharedReader, method: str = "POST") -> RawReply:
    response = http.client.HTTPResponse(reader, method=method)  # type: ignore[arg-type]
    response.begin()
    body = response.read()
    headers = {name.lower(): value for name, value in response.getheaders()}
    return RawReply(
        status=response.status,
        headers=headers,
        body=body,
        version=response.version,
        chunked=headers.get("transfer-encoding", "").lower() == "chunked",
        closes=response.will_close,
        raw_headers=response.getheaders(),
    )


def exchange(base_url: str, data: bytes, *, replies: int = 1, method: str = "POST") -> list:
    """Send ``data`` on a new connection and read ``replies`` replies."""
    with connect(base_url) as sock:
        sock.sendall(data)
        reader = SharedReader(sock)
        return [read_reply(reader, method) for _ in range(replies)]


def one(base_url: str, data: bytes, method: str = "POST") -> RawReply:
    return exchange(base_url, data, method=method)[0]


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed (EOF or reset) with nothing more to read."""
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def request(
    method: str,
    path: str,
    body: bytes = b"",
    *,
    version: str = "HTTP/1.1",
    headers: dict[str, str] | None = None,
) -> bytes:
    """A well-formed request (Host and Content-Length filled in unless given)."""
    fields = {"Host": "127.0.0.1"} if version == "HTTP/1.1" else {}
    if body or method == "POST":
        fields["Content-Length"] = str(len(body))
    fields.update(headers or {})
    head = f"{method} {path} {version}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
    return head.encode("latin-1") + b"\r\n" + body


def chat_body(text: str = "What's the weather in Beijing?", **extra: Any) -> bytes:
    payload = {"model": "local-toy", "messages": [{"role": "user", "content": text}], **extra}
    return json.dumps(payload, ensure_ascii=False).encode()
