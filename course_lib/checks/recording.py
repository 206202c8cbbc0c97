"""A local-model client that records every request the learner's code sends, and its reply.

Checks of code that talks to a model (01.4, the loops of notebook 05) give the learner's code
this client instead of ``make_client()``'s: it is built the same way, but its transport keeps
each exchange, so the check can say exactly what was sent (the model name, the messages in
order) and why the model refused a conversation.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import httpx2


class Exchange(NamedTuple):
    """One request and its reply as JSON bodies (a streamed reply is kept as ``{}``)."""

    request: dict
    status: int
    reply: dict


class RecordingTransport(httpx2.BaseTransport):
    """Forwards to ``inner`` (the local model) and appends an ``Exchange`` per request."""

    def __init__(self, inner: httpx2.BaseTransport) -> None:
        self.inner = inner
        self.exchanges: list[Exchange] = []

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = self.inner.handle_request(request)
        content = response.read()
        try:
            reply = json.loads(content)
        except ValueError:  # a stream: no check needs its chunks
            reply = {}
        body = json.loads(request.read() or b"{}")
        self.exchanges.append(Exchange(body, response.status_code, reply))
        return httpx2.Response(
            response.status_code, headers=response.headers, content=content, request=request
        )


def recording_client(policy: Any, *, model_name: str, seed: int = 0) -> tuple[Any, list[Exchange]]:
    """An ``openai.OpenAI`` on the local model (built as ``make_client`` builds it) and the list
    its transport appends each exchange to, as the calls happen.

    ``model_name`` is the name the local model answers to: a check passes its own (not
    ``MODEL``), so it can see that the learner passed ``model`` through.
    """
    import openai

    from course_lib.local_model.client import LOCAL_API_KEY, LOCAL_BASE_URL
    from course_lib.local_model.endpoint import LocalEndpoint
    from course_lib.local_model.transport import LocalTransport

    endpoint = LocalEndpoint(policy, seed=seed, model_name=model_name)
    transport = RecordingTransport(LocalTransport(endpoint))
    client = openai.OpenAI(
        api_key=LOCAL_API_KEY,
        base_url=LOCAL_BASE_URL,
        http_client=httpx2.Client(transport=transport),
        max_retries=0,
    )
    return client, transport.exchanges
