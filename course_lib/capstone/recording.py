"""A local-model client that keeps what each request offered and what the model asked for.

The visible scenarios of lesson 09 show, request by request, which tools the learner's assistant
sent and which ones the model called. The learner's code talks to an ordinary ``openai.OpenAI``;
only its transport is this one, which answers from the local model and keeps each exchange.
(The check of 09.1 does the same on the grader's side, where the kernel cannot reach it.)
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import httpx2

from course_lib.local_model.endpoint import LocalEndpoint
from course_lib.local_model.transport import LocalTransport


class Exchange(NamedTuple):
    """One request and its reply as JSON bodies (a reply that is not JSON is kept as ``{}``)."""

    request: dict
    reply: dict


def _json_object(content: bytes) -> dict:
    try:
        value = json.loads(content or b"{}")
    except ValueError:  # a stream: the scenarios never ask for one
        return {}
    return value if isinstance(value, dict) else {}


class RecordingTransport(LocalTransport):
    """The local model's transport, appending an :class:`Exchange` per request it answers."""

    def __init__(self, endpoint: LocalEndpoint) -> None:
        super().__init__(endpoint)
        self.exchanges: list[Exchange] = []

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle_request(request)
        self.exchanges.append(Exchange(_json_object(request.read()), _json_object(response.read())))
        return response


def recording_client(policy: Any, *, model_name: str) -> tuple[Any, list[Exchange]]:
    """An ``openai.OpenAI`` on the local model answering to ``model_name``, and the list its
    transport appends each exchange to as the calls happen."""
    import openai

    from course_lib.local_model.client import LOCAL_API_KEY, LOCAL_BASE_URL

    transport = RecordingTransport(LocalEndpoint(policy, seed=0, model_name=model_name))
    client = openai.OpenAI(
        api_key=LOCAL_API_KEY,
        base_url=LOCAL_BASE_URL,
        http_client=httpx2.Client(transport=transport),
        max_retries=0,
    )
    return client, transport.exchanges
