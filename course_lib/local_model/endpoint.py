"""The local model as an HTTP endpoint, independent of how bytes travel.

:class:`LocalEndpoint` maps (method, path, body) to a :class:`Reply`. The in-process transport
(``transport.py``) and the HTTP server (``server.py``) are thin adapters around it, so both speak
exactly the same protocol.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from course_lib.local_model import responses
from course_lib.local_model.protocol import ProtocolError, parse_body, validate_request
from course_lib.local_model.turns import Policy

MODEL_LIST_CREATED = responses.EPOCH


@dataclass
class Reply:
    """An HTTP answer: status, content type, and either bytes or an iterator of byte chunks."""

    status: int
    content_type: str
    body: bytes | Iterator[bytes]

    @classmethod
    def json(cls, status: int, payload: dict[str, Any]) -> Reply:
        return cls(status, "application/json", json.dumps(payload, ensure_ascii=False).encode())


class LocalEndpoint:
    """Answers ``POST /v1/chat/completions`` and ``GET /v1/models`` from a policy.

    ``model_name`` is what ``GET /v1/models`` lists; chat requests may name any model and get
    that name echoed back, as a real provider would.
    """

    def __init__(self, policy: Policy, *, seed: int = 0, model_name: str = "local-toy") -> None:
        self.policy = policy
        self.model_name = model_name
        self.ids = responses.IdSource(seed)

    def handle(self, method: str, path: str, body: bytes) -> Reply:
        path = path.split("?", 1)[0].rstrip("/")
        try:
            if method == "POST" and path.endswith("/chat/completions"):
                return self.chat_completions(body)
            if method == "GET" and path.endswith("/models"):
                return Reply.json(200, self.models())
            raise ProtocolError(
                f"Invalid URL ({method} {path}): the local model serves POST /v1/chat/completions "
                "and GET /v1/models.",
                status=404,
            )
        except ProtocolError as error:
            return Reply.json(error.status, error.body())

    def models(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [
                {
                    "id": self.model_name,
                    "object": "model",
                    "created": MODEL_LIST_CREATED,
                    "owned_by": "course_lib",
                }
            ],
        }

    def chat_completions(self, raw: bytes) -> Reply:
        body = parse_body(raw)
        request = validate_request(body)
        try:
            turn = self.policy.respond(request)
        except ProtocolError:
            raise
        except Exception as error:  # a policy bug or an exhausted script: say so, as a 500
            raise ProtocolError(
                f"The local model's policy failed: {type(error).__name__}: {error}",
                status=500,
                type="server_error",
            ) from error
        completion_id, created, call_ids = self.ids.reply(len(turn.tool_calls))
        stream = bool(body.get("stream"))
        include_usage = stream and bool((body.get("stream_options") or {}).get("include_usage"))
        usage = responses.usage(request.messages, body.get("tools") or [], turn)
        meta = dict(
            model=request.model, completion_id=completion_id, created=created, call_ids=call_ids
        )
        if not stream:
            return Reply.json(200, responses.completion(turn, usage_counts=usage, **meta))
        chunks = responses.chunks(turn, usage_counts=usage if include_usage else None, **meta)
        return Reply(200, "text/event-stream; charset=utf-8", responses.sse(chunks))
