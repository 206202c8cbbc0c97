"""The local model as an HTTP endpoint, independent of how bytes travel.

:class:`LocalEndpoint` maps (method, path, body, headers) to a :class:`Reply`. The in-process
transports (``transport.py``) and the HTTP server (``server.py``) are thin adapters around it,
so both speak exactly the same protocols:

* ``POST /v1/chat/completions``: OpenAI Chat Completions;
* ``POST /v1/responses`` and ``GET /v1/responses/{id}``: the OpenAI Responses API;
* ``POST /v1/messages``: the Anthropic Messages API;
* ``GET /v1/models`` and ``GET /v1/models/{id}`` (in Anthropic's shape when the request carries
  an ``anthropic-version`` header, as the ``anthropic`` SDK's requests do).

Whatever the body, :meth:`LocalEndpoint.handle` returns a well-formed JSON reply with the right
status and never raises: a client's mistake is a 4xx in the called API's error shape, and a bug
of ours is a 500 that says so. Streams are built completely before the reply is returned, so no
error can surface halfway through one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from course_lib.local_model import (
    anthropic_structured,
    anthropic_threads,
    chat_reply,
    limits,
    messages_reply,
    messages_request,
    reasoning,
    reasoning_items,
    responses_reply,
    responses_request,
    thinking_blocks,
)
from course_lib.local_model.chat_request import validate_chat_request
from course_lib.local_model.protocol import ProtocolError, parse_body
from course_lib.local_model.response_store import ResponseStore
from course_lib.local_model.turns import ChatRequest, Policy, Turn
from course_lib.local_model.wire import EPOCH, IdSource, request_id, sse_data, to_json

MODEL_LIST_CREATED = EPOCH
SSE = "text/event-stream; charset=utf-8"
MESSAGES = {
    "unknown_path": (
        "Invalid URL ({method} {path}): the local model serves POST /v1/chat/completions, "
        "POST /v1/responses, POST /v1/messages, GET /v1/models and GET /v1/models/{{id}}."
    ),
    "unknown_model": "The model '{model}' does not exist or you do not have access to it.",
    "policy_failed": "The local model's policy failed: {kind}: {error}",
    "internal": (
        "The local model hit an internal error ({kind}: {error}). This is a bug in course_lib, "
        "not in your request: please report it with the request that caused it."
    ),
}


@dataclass
class Reply:
    """An HTTP answer: status, content type, and either bytes or an iterator of byte chunks."""

    status: int
    content_type: str
    body: bytes | Iterator[bytes]

    @classmethod
    def json(cls, status: int, payload: dict[str, Any]) -> Reply:
        text = to_json(payload)
        return cls(status, "application/json", text.encode("utf-8", "replace"))

    @classmethod
    def stream(cls, pieces: Iterator[bytes]) -> Reply:
        return cls(200, SSE, iter(list(pieces)))  # built now: nothing can fail mid-stream


def _has_header(headers: Mapping[str, str], name: str) -> bool:
    """Whether ``headers`` holds ``name`` (lower case), in any case. A case-insensitive
    mapping (``httpx2.Headers``) or lower-case names (ASGI's) answer the first test at once;
    the SDK's other headers are never decoded or copied."""
    return name in headers or any(key.lower() == name for key in headers)


class LocalEndpoint:
    """Answers the OpenAI and Anthropic endpoints above from one policy.

    ``model_name`` is what ``GET /v1/models`` lists; requests may name any model and get that
    name echoed back, as a real provider would. ``stored_responses`` bounds how many Responses
    API replies are kept for ``previous_response_id`` (the oldest are forgotten first).
    """

    def __init__(
        self,
        policy: Policy,
        *,
        seed: int = 0,
        model_name: str = "local-toy",
        stored_responses: int = 1000,
    ) -> None:
        self.policy = policy
        self.model_name = model_name
        self.ids = IdSource(seed)
        self.store = ResponseStore(stored_responses)

    def handle(
        self, method: str, path: str, body: bytes, headers: Mapping[str, str] | None = None
    ) -> Reply:
        """One request. ``headers`` is optional: when given, an Anthropic request must carry
        ``anthropic-version`` (as the real API insists), and ``GET /v1/models`` answers in
        Anthropic's shape if it does."""
        path = path.split("?", 1)[0].rstrip("/")
        versioned = headers is not None and _has_header(headers, "anthropic-version")
        anthropic = path.endswith("/messages") or ("/models" in path and versioned)
        try:
            return self._route(method, path, body, versioned, headers is not None)
        except ProtocolError as error:
            return self._error(error, anthropic, body)
        except Exception as error:  # a bug of ours: say so, never drop the request
            message = MESSAGES["internal"].format(kind=type(error).__name__, error=error)
            failure = ProtocolError(message, status=500, type="server_error")
            return self._error(failure, anthropic, body)

    def _route(self, method: str, path: str, raw: bytes, anthropic: bool, checked: bool) -> Reply:
        if method == "POST" and path.endswith("/chat/completions"):
            return self.chat_completions(raw)
        if method == "POST" and path.endswith("/responses"):
            return self.responses(raw)
        if method == "POST" and path.endswith("/messages"):
            if checked:
                messages_request.check_version(anthropic)
            return self.messages(raw)
        if method == "GET" and "/responses/" in path:
            return Reply.json(200, self.store.retrieve(path.rsplit("/responses/", 1)[1]))
        if method == "GET" and path.endswith("/models"):
            return Reply.json(200, self.models(anthropic=anthropic))
        if method == "GET" and "/models/" in path:
            return Reply.json(200, self.model(path.split("/models/", 1)[1], anthropic=anthropic))
        raise ProtocolError(
            MESSAGES["unknown_path"].format(method=method, path=path[:200]), status=404
        )

    def _error(self, error: ProtocolError, anthropic: bool, raw: bytes) -> Reply:
        if anthropic:
            return Reply.json(
                error.status, messages_reply.error_body(error, request_id(raw, error.message))
            )
        return Reply.json(error.status, error.body())

    # -- models ---------------------------------------------------------------------------------

    def models(self, *, anthropic: bool = False) -> dict[str, Any]:
        if anthropic:
            return messages_reply.model_list(*self.model_names())
        return {"object": "list", "data": [self._model_card(n) for n in self.model_names()]}

    def model_names(self) -> list[str]:
        """The models listed: this endpoint's own name, then the reasoning model."""
        names = [self.model_name, reasoning.REASONING_MODEL]
        return names[:1] if names[0] == names[1] else names

    def model(self, model_id: str, *, anthropic: bool = False) -> dict[str, Any]:
        if model_id not in self.model_names():
            if anthropic:
                raise messages_reply.model_not_found(model_id)
            raise ProtocolError(
                MESSAGES["unknown_model"].format(model=model_id[:200]),
                param="model",
                code="model_not_found",
                status=404,
            )
        return messages_reply.model_card(model_id) if anthropic else self._model_card(model_id)

    def _model_card(self, model_id: str) -> dict[str, Any]:
        return {
            "id": model_id,
            "object": "model",
            "created": MODEL_LIST_CREATED,
            "owned_by": "course_lib",
        }

    # -- the three APIs -------------------------------------------------------------------------

    def decide(self, request: ChatRequest) -> Turn:
        """The policy's turn; a policy that raises is a 500 naming what went wrong."""
        try:
            return self.policy.respond(request)
        except ProtocolError:
            raise
        except Exception as error:  # a policy bug or an exhausted script: say so, as a 500
            raise ProtocolError(
                MESSAGES["policy_failed"].format(kind=type(error).__name__, error=error),
                status=500,
                type="server_error",
            ) from error

    def chat_completions(self, raw: bytes) -> Reply:
        body = parse_body(raw)
        call = validate_chat_request(body)
        effort = reasoning.check_chat(body, call.request)
        ending = limits.end(self.decide(call.request), call.limits)
        turn = ending.turn
        completion_id, created, call_ids = self.ids.reply(len(turn.tool_calls) * call.n)
        stream = bool(body.get("stream"))
        include_usage = stream and bool((body.get("stream_options") or {}).get("include_usage"))
        usage = chat_reply.usage(call.request.messages, body.get("tools") or [], turn, call.n)
        usage = reasoning.chat_usage(usage, call.request, turn, effort, call.n)
        meta = dict(
            model=call.request.model,
            completion_id=completion_id,
            created=created,
            call_ids=call_ids,
            choices=call.n,
            service_tier=call.service_tier,
        )
        if not stream:
            return Reply.json(200, chat_reply.completion(ending, usage_counts=usage, **meta))
        chunks = chat_reply.chunks(ending, usage_counts=usage if include_usage else None, **meta)
        return Reply.stream(sse_data(chunks))

    def responses(self, raw: bytes) -> Reply:
        body = parse_body(raw)
        call = responses_request.validate(body, self.store)
        reasoning_items.check_items(call.items)
        options = reasoning_items.read_options(body, call.request.model)
        turn = self.decide(call.request)
        response = responses_reply.render(call, turn, self.ids)
        response = reasoning_items.add_reasoning(response, call.request, turn, options)
        self.store.keep(call.items, response)
        if not body.get("stream"):
            return Reply.json(200, response)
        return Reply.stream(responses_reply.stream(response))

    def messages(self, raw: bytes) -> Reply:
        body = parse_body(raw)
        anthropic_threads.refuse_threads(body)  # a beta parameter: declined before the check
        call = messages_request.validate(body)  # of the parameters the Messages API has
        call = anthropic_structured.apply(body, call)
        thinking = thinking_blocks.read_options(body, call)
        thinking_blocks.check_history(body["messages"], thinking)
        turn = anthropic_structured.conform_turn(self.decide(call.request), call.request)
        message = messages_reply.render(call, turn, self.ids)
        message = thinking_blocks.add_thinking(message, call, turn, thinking)
        if not body.get("stream"):
            return Reply.json(200, message)
        return Reply.stream(messages_reply.stream(message))
