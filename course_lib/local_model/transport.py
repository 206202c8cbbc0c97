"""``httpx2`` transports that answer requests from the local model, in process.

The ``openai`` and ``anthropic`` SDKs send every request through their ``http_client``; giving
one an ``httpx2.Client(transport=LocalTransport(...))`` (or an ``httpx2.AsyncClient`` with
:class:`AsyncLocalTransport`, for ``AsyncOpenAI``, the Agents SDK and other async clients) means
no socket, no port and no network, while the SDK itself (request building, response parsing,
streaming, errors) runs unchanged.
"""

from __future__ import annotations

import httpx2

from course_lib.local_model.endpoint import LocalEndpoint, Reply


def _response(reply: Reply, request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(
        reply.status,
        headers={"content-type": reply.content_type},
        content=reply.body if isinstance(reply.body, bytes) else b"".join(reply.body),
        request=request,
    )


class LocalTransport(httpx2.BaseTransport):
    """Routes each ``httpx2.Request`` to a :class:`LocalEndpoint` and wraps its reply."""

    def __init__(self, endpoint: LocalEndpoint) -> None:
        self.endpoint = endpoint

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        body = request.read()
        reply = self.endpoint.handle(request.method, request.url.path, body, request.headers)
        return _response(reply, request)


class AsyncLocalTransport(httpx2.AsyncBaseTransport):
    """The same for ``httpx2.AsyncClient``: the model answers at once, so nothing is awaited."""

    def __init__(self, endpoint: LocalEndpoint) -> None:
        self.endpoint = endpoint

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        reply = self.endpoint.handle(request.method, request.url.path, body, request.headers)
        return _response(reply, request)
