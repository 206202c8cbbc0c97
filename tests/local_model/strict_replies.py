"""SDK clients that keep every reply they get, and the SDKs' own types to judge them in strict mode.

A :class:`Recorder` is an ``httpx2`` transport wrapped around another (the in-process
``LocalTransport``, or a real ``HTTPTransport`` to ``serve()``), so the real ``openai`` and
``anthropic`` SDKs run unchanged while every reply's bytes are kept. :func:`check_strictly`
validates each one with ``model_validate(..., strict=True)`` on the SDK type of its API: the
reply object, every stream event, or the error body. Used as a fixture's teardown, it makes
every SDK test also a conformance test of what the SDK saw.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field

import anthropic
import httpx2
import openai
from anthropic.types import Message, RawMessageStreamEvent
from anthropic.types.beta import BetaMessage, BetaRawMessageStreamEvent
from anthropic.types.shared import ErrorResponse
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent
from openai.types.shared import ErrorObject
from pydantic import TypeAdapter

from course_lib.local_model.client import local_endpoint
from course_lib.local_model.transport import AsyncLocalTransport, LocalTransport

ADAPTERS = {
    "responses event": TypeAdapter(ResponseStreamEvent),
    "messages event": TypeAdapter(RawMessageStreamEvent),
    "beta messages event": TypeAdapter(BetaRawMessageStreamEvent),
}


@dataclass
class Record:
    method: str
    path: str
    status: int
    content_type: str
    body: bytes
    sent: bytes = b""  # the request's body


@dataclass
class Recorder(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """Passes each request to ``inner`` (sync) or ``inner_async`` and keeps the reply."""

    inner: httpx2.BaseTransport | None = None
    inner_async: httpx2.AsyncBaseTransport | None = None
    records: list[Record] = field(default_factory=list)

    def _keep(self, request: httpx2.Request, response: httpx2.Response, body: bytes) -> None:
        kind = response.headers.get("content-type", "")
        path = request.url.path + ("?" + request.url.query.decode() if request.url.query else "")
        record = Record(request.method, path, response.status_code, kind, body, request.content)
        self.records.append(record)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        assert self.inner is not None
        response = self.inner.handle_request(request)
        body = response.read()
        self._keep(request, response, body)
        return httpx2.Response(
            response.status_code, headers=response.headers, content=body, request=request
        )

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        assert self.inner_async is not None
        response = await self.inner_async.handle_async_request(request)
        body = await response.aread()
        self._keep(request, response, body)
        return httpx2.Response(
            response.status_code, headers=response.headers, content=body, request=request
        )


def recording_clients(
    base_url: str | None = None,
) -> tuple[openai.OpenAI, anthropic.Anthropic, Recorder]:
    """An OpenAI and an Anthropic client sharing one recorder: in process on a fresh endpoint
    (``base_url`` None), or over HTTP to ``base_url`` (``.../v1``)."""
    if base_url is None:
        recorder = Recorder(LocalTransport(local_endpoint()))
        root = "http://local-model.invalid/v1"
    else:
        recorder = Recorder(httpx2.HTTPTransport())
        root = base_url
    http = httpx2.Client(transport=recorder)
    client = openai.OpenAI(api_key="unused", base_url=root, http_client=http, max_retries=0)
    claude = anthropic.Anthropic(
        api_key="unused", base_url=root.removesuffix("/v1"), http_client=http, max_retries=0
    )
    return client, claude, recorder


@contextlib.contextmanager
def checked_clients(
    base_url: str | None = None,
) -> Iterator[tuple[openai.OpenAI, anthropic.Anthropic]]:
    """:func:`recording_clients`, and every reply they got validated strictly at the end."""
    client, claude, recorder = recording_clients(base_url)
    yield client, claude
    check_all(recorder)


def recording_async_client(base_url: str | None = None) -> tuple[openai.AsyncOpenAI, Recorder]:
    """An ``AsyncOpenAI`` (for the Agents SDK) recording like :func:`recording_clients`."""
    client, _, recorder = recording_async_clients(base_url)
    return client, recorder


def recording_async_clients(
    base_url: str | None = None,
) -> tuple[openai.AsyncOpenAI, anthropic.AsyncAnthropic, Recorder]:
    """:func:`recording_clients`' async twins (for agent frameworks), sharing one recorder."""
    if base_url is None:
        recorder = Recorder(inner_async=AsyncLocalTransport(local_endpoint()))
        base_url = "http://local-model.invalid/v1"
    else:
        recorder = Recorder(inner_async=httpx2.AsyncHTTPTransport())
    http = httpx2.AsyncClient(transport=recorder)
    client = openai.AsyncOpenAI(
        api_key="unused", base_url=base_url, http_client=http, max_retries=0
    )
    claude = anthropic.AsyncAnthropic(
        api_key="unused", base_url=base_url.removesuffix("/v1"), http_client=http, max_retries=0
    )
    return client, claude, recorder


def check_all(recorder: Recorder) -> int:
    """Every recorded reply validated strictly; how many objects were (at least one)."""
    checked = sum(check_strictly(record) for record in recorder.records)
    assert checked > 0, "no reply was recorded"
    return checked


def sse_events(body: bytes) -> list[tuple[str | None, dict]]:
    """``(event name, data)`` for each server-sent event (``[DONE]`` left out)."""
    events = []
    for chunk in body.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines() if ": " in line)
        if "data" in lines and lines["data"] != "[DONE]":
            events.append((lines.get("event"), json.loads(lines["data"])))
    return events


def check_strictly(record: Record) -> int:
    """Validate one reply with the SDK types of its API in strict mode; the number of objects
    validated (a reply, or its events)."""
    beta = "beta=true" in record.path
    if record.status >= 400:
        data = json.loads(record.body)
        if "/messages" in record.path or data.get("type") == "error":
            ErrorResponse.model_validate(data, strict=True)
        else:
            ErrorObject.model_validate(data["error"], strict=True)
        return 1
    if record.method != "POST":
        return 0  # model cards are left to the spec-conformance test (issue 23, item 5)
    if record.content_type.startswith("text/event-stream"):
        events = sse_events(record.body)
        for name, data in events:
            _check_event(record.path, name, data, beta)
        return len(events)
    data = json.loads(record.body)
    if record.path.startswith("/v1/chat/completions"):
        ChatCompletion.model_validate(data, strict=True)
    elif record.path.startswith("/v1/responses"):
        Response.model_validate(data, strict=True)
    else:
        (BetaMessage if beta else Message).model_validate(data, strict=True)
    return 1


def _check_event(path: str, name: str | None, data: dict, beta: bool) -> None:
    if path.startswith("/v1/chat/completions"):
        ChatCompletionChunk.model_validate(data, strict=True)
    elif path.startswith("/v1/responses"):
        assert name == data["type"]
        ADAPTERS["responses event"].validate_python(data, strict=True)
    elif name != "ping":  # the SDK skips pings: they are not among its event types
        assert name == data["type"]
        kind = "beta messages event" if beta else "messages event"
        ADAPTERS[kind].validate_python(data, strict=True)
