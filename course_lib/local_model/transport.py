"""An ``httpx2`` transport that answers requests from the local model, in process.

The ``openai`` SDK sends every request through its ``http_client``; giving it an
``httpx2.Client(transport=LocalTransport(...))`` means no socket, no port and no network, while the
SDK itself (request building, response parsing, streaming, errors) runs unchanged.
"""

from __future__ import annotations

import httpx2

from course_lib.local_model.endpoint import LocalEndpoint


class LocalTransport(httpx2.BaseTransport):
    """Routes each ``httpx2.Request`` to a :class:`LocalEndpoint` and wraps its reply."""

    def __init__(self, endpoint: LocalEndpoint) -> None:
        self.endpoint = endpoint

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        reply = self.endpoint.handle(request.method, request.url.path, request.read())
        return httpx2.Response(
            reply.status,
            headers={"content-type": reply.content_type},
            content=reply.body,
            request=request,
        )
