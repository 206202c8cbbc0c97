"""Turning a :class:`Turn` into an Anthropic ``message``, its stream of events, or an error.

A turn's text becomes a ``text`` content block and each call a ``tool_use`` block (``id``
``toolu_...``, ``name``, ``input`` as an object); ``stop_reason`` is ``tool_use`` when there are
calls, ``max_tokens`` when the text had to be cut to ``max_tokens``, else ``end_turn``.

A stream sends, as named server-sent events: ``message_start`` (the message with no content),
``ping``, then per block ``content_block_start``, ``content_block_delta`` (``text_delta`` pieces,
or ``input_json_delta`` pieces of the input's JSON) and ``content_block_stop``; then
``message_delta`` (``stop_reason`` and the output token count) and ``message_stop``.

Errors have Anthropic's shape: ``{"type": "error", "error": {"type", "message"}}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from course_lib.local_model.messages_request import MessagesCall
from course_lib.local_model.protocol import ProtocolError
from course_lib.local_model.turns import Turn
from course_lib.local_model.wire import (
    IdSource,
    argument_pieces,
    count_tokens,
    json_tokens,
    sse_named,
    text_pieces,
)

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
MODEL_CREATED = "2026-01-01T00:00:00Z"
DISPLAY_NAMES = {
    "local-toy": "Local toy model (course_lib)",
    "local-toy-reasoning": "Local toy reasoning model (course_lib)",
}
MESSAGES = {
    "not_object": (
        "A scripted call to {name} has arguments that are not a JSON object ({arguments!r}). "
        "Anthropic's tool_use input is always an object, so this fault cannot be sent over the "
        "Messages API: script it for the OpenAI APIs only."
    ),
    "unknown_model": "model: {model}",
}


def render(call: MessagesCall, turn: Turn, ids: IdSource) -> dict[str, Any]:
    """The complete ``message`` object for one turn."""
    message_id, _, [tool_ids] = ids.reserve("anthropic_msg", [("toolu", len(turn.tool_calls))])
    content: list[dict[str, Any]] = []
    stop_reason = "tool_use" if turn.tool_calls else "end_turn"
    text = turn.content
    if text is not None and not turn.tool_calls:
        text, cut = _fit(text, call.max_tokens)
        stop_reason = "max_tokens" if cut else stop_reason
    if text:
        content.append({"type": "text", "text": text})
    for tool_call, tool_id in zip(turn.tool_calls, tool_ids, strict=True):
        arguments = tool_call.parsed()
        if arguments is None:
            raise ProtocolError(
                MESSAGES["not_object"].format(name=tool_call.name, arguments=tool_call.arguments),
                status=500,
                type="api_error",
            )
        content.append(
            {"type": "tool_use", "id": tool_id, "name": tool_call.name, "input": arguments}
        )
    input_tokens = sum(4 + json_tokens(m) for m in call.request.messages) + (
        json_tokens(call.request.tools) if call.request.tools else 0
    )
    output_tokens = sum(
        count_tokens(b["text"]) if b["type"] == "text" else 3 + json_tokens(b["input"])
        for b in content
    )
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": call.model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": "standard",
        },
    }


def _fit(text: str, max_tokens: int) -> tuple[str, bool]:
    """The text cut (between streaming pieces) to at most ``max_tokens``; whether it was cut."""
    if count_tokens(text) <= max_tokens:
        return text, False
    kept = ""
    for piece in text_pieces(text):
        if count_tokens(kept + piece) > max_tokens:
            break
        kept += piece
    return kept, True


def events(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The stream events of a finished message, in wire order."""
    opening = {  # a new head on shared parts: every event is encoded as it is, never changed
        **message,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**message["usage"], "output_tokens": 1},
    }
    yield {"type": "message_start", "message": opening}
    yield {"type": "ping"}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": piece} for piece in text_pieces(block["text"])]
        elif block["type"] == "thinking":  # the text, then the signature just before the stop
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": piece}
                for piece in text_pieces(block["thinking"])
            ] + [{"type": "signature_delta", "signature": block["signature"]}]
        elif block["type"] == "redacted_thinking":  # whole at the start, no deltas
            start, deltas = block, []
        else:
            start = {**block, "input": {}}
            arguments = json.dumps(block["input"], ensure_ascii=False)
            deltas = [{"type": "input_json_delta", "partial_json": ""}] + [
                {"type": "input_json_delta", "partial_json": piece}
                for piece in argument_pieces(arguments)
            ]
        yield {"type": "content_block_start", "index": index, "content_block": start}
        for delta in deltas:
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": message["usage"]["output_tokens"]},
    }
    yield {"type": "message_stop"}


def stream(message: dict[str, Any]) -> Iterator[bytes]:
    return sse_named(events(message))


def error_body(error: ProtocolError) -> dict[str, Any]:
    """A :class:`ProtocolError` in Anthropic's shape."""
    kind = ERROR_TYPES.get(error.status, "api_error" if error.status >= 500 else error.type)
    body: dict[str, Any] = {"type": kind, "message": error.message}
    if getattr(error, "details", None):  # error.details.error_code: the SDK branches on it
        body["details"] = error.details
    return {"type": "error", "error": body}


def model_card(model: str) -> dict[str, Any]:
    return {
        "type": "model",
        "id": model,
        "display_name": DISPLAY_NAMES.get(model, DISPLAY_NAMES["local-toy"]),
        "created_at": MODEL_CREATED,
    }


def model_list(*models: str) -> dict[str, Any]:
    cards = [model_card(model) for model in models]
    return {"data": cards, "has_more": False, "first_id": models[0], "last_id": models[-1]}


def model_not_found(model: str) -> ProtocolError:
    return ProtocolError(
        MESSAGES["unknown_model"].format(model=model[:200]), status=404, type="not_found_error"
    )
