"""Turning a :class:`Turn` into an Anthropic ``message``, its stream of events, or an error.

A turn's text becomes a ``text`` content block (one per part of a turn given in parts,
:meth:`Turn.in_blocks`, as the real API may split its text) and each call a ``tool_use``
block (``id`` ``toolu_...``, ``name``, ``input`` as an object, ``caller`` direct);
``stop_reason`` is ``tool_use`` when there are calls, ``max_tokens`` when the reply was cut at
``max_tokens``, ``stop_sequence`` (with ``stop_sequence`` naming it) when one of
``stop_sequences`` ended the text, else ``end_turn``. Every field the specification requires is
there, ``null`` where it is nullable and the local model has nothing to say (``stop_details``,
``container``, ``citations``, the cache and server-tool usage).

A stream sends, as named server-sent events: ``message_start`` (the message with no content),
``ping``, then per block ``content_block_start``, ``content_block_delta`` (``text_delta`` pieces,
or ``input_json_delta`` pieces of the input's JSON) and ``content_block_stop``; then
``message_delta`` (``stop_reason``, ``stop_sequence`` and the usage) and ``message_stop``.

Errors have Anthropic's shape: ``{"type": "error", "error": {"type", "message"},
"request_id"}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from course_lib.local_model import limits
from course_lib.local_model.limits import Ending, Limits, prompt_tokens, turn_tokens
from course_lib.local_model.messages_request import MessagesCall
from course_lib.local_model.openai_options import MODEL_MAX_OUTPUT
from course_lib.local_model.protocol import ProtocolError
from course_lib.local_model.turns import ToolCall, Turn
from course_lib.local_model.wire import (
    IdSource,
    argument_pieces,
    sse_named,
    sse_named_run,
    text_pieces,
    to_json,
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
PARTIAL_TRIES = 64  # places a cut object's value may have ended, tried from the last
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
    """The complete ``message`` object for one turn, ended by ``max_tokens`` or a stop
    sequence where they end it (``limits.py``)."""
    ending = limits.end(turn, Limits(call.max_tokens, call.stop_sequences))
    texts = turn.text_blocks(ending.turn.content)  # where the whole turn's parts break it
    turn = _whole_inputs(ending)
    message_id, _, [tool_ids] = ids.reserve("anthropic_msg", [("toolu", len(turn.tool_calls))])
    content = [{"type": "text", "text": text, "citations": None} for text in texts]
    for tool_call, tool_id in zip(turn.tool_calls, tool_ids, strict=True):
        arguments = tool_call.parsed()
        if arguments is None:
            raise ProtocolError(
                MESSAGES["not_object"].format(name=tool_call.name, arguments=tool_call.arguments),
                status=500,
                type="api_error",
            )
        content.append(
            {
                "type": "tool_use",
                "id": tool_id,
                "name": tool_call.name,
                "input": arguments,
                "caller": {"type": "direct"},
            }
        )
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": call.model,
        "content": content,
        "stop_reason": _stop_reason(ending, turn),
        "stop_sequence": ending.stop_sequence,
        "stop_details": None,
        "container": None,
        "usage": {
            "input_tokens": prompt_tokens(call.request.messages, call.tools, call.tools_counted),
            "output_tokens": turn_tokens(turn) if ending.cut_call else ending.tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens_details": None,
            "server_tool_use": None,
            "service_tier": "standard",
            "inference_geo": call.inference_geo,
        },
    }


def _stop_reason(ending: Ending, turn: Turn) -> str:
    if ending.reason == limits.LENGTH:
        return "max_tokens"
    if ending.reason == limits.STOP_SEQUENCE:
        return "stop_sequence"
    return "tool_use" if turn.tool_calls else "end_turn"


def _whole_inputs(ending: Ending) -> Turn:
    """The turn with a cut call's arguments as the object they had begun (its complete
    members), since a ``tool_use`` input is always an object."""
    turn = ending.turn
    if not ending.cut_call:
        return turn
    *whole, cut = turn.tool_calls
    begun = ToolCall.of(cut.name, partial_object(cut.arguments))
    return Turn(turn.content, (*whole, begun))


def partial_object(text: str) -> dict[str, Any]:
    """The members of a JSON object cut short that were complete: ``{"a": 1, "b": "x`` ->
    ``{"a": 1}``. Closes the open brackets after each place a value ended, from the last."""
    for end, closers in reversed(_value_ends(text)[-PARTIAL_TRIES:]):
        try:
            value = json.loads(text[:end] + closers)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


def _value_ends(text: str) -> list[tuple[int, str]]:
    """Each place in ``text`` where a JSON value may end, with the brackets open there closed
    (innermost first)."""
    ends: list[tuple[int, str]] = []
    stack: list[str] = []
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                ends.append((index + 1, "".join(reversed(stack))))
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            if stack:
                stack.pop()
            ends.append((index + 1, "".join(reversed(stack))))
        elif char.isalnum() or char in ".-+":
            ends.append((index + 1, "".join(reversed(stack))))
    return ends


def events(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The stream events of a finished message, in wire order."""
    for part in _parts(message):
        if isinstance(part, Run):
            yield from (part.event(value) for value in part.values)
        else:
            yield part


def stream(message: dict[str, Any]) -> Iterator[bytes]:
    """``sse_named(events(message))``: the same bytes, each run of deltas written from one
    template (``wire.sse_named_run``; a reply streams one delta per word)."""
    for part in _parts(message):
        if isinstance(part, Run):
            yield from sse_named_run(part.event, part.values)
        else:
            yield from sse_named((part,))


@dataclass(frozen=True)
class Run:
    """Consecutive ``content_block_delta`` events of one block that differ only in the value
    of ``field``: ``{"type": "content_block_delta", "index": index, "delta": {"type": kind,
    field: value}}`` for each of ``values``."""

    index: int
    kind: str
    field: str
    values: list[str]

    def event(self, value: str) -> dict[str, Any]:
        delta = {"type": self.kind, self.field: value}
        return {"type": "content_block_delta", "index": self.index, "delta": delta}


def _parts(message: dict[str, Any]) -> Iterator[dict[str, Any] | Run]:
    """The stream events of a finished message in wire order, each block's deltas as runs."""
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
        start, runs = _block_deltas(block)
        yield {"type": "content_block_start", "index": index, "content_block": start}
        for kind, field, values in runs:
            yield Run(index, kind, field, values)
        yield {"type": "content_block_stop", "index": index}
    usage = message["usage"]
    yield {
        "type": "message_delta",
        "delta": {
            "stop_reason": message["stop_reason"],
            "stop_sequence": message["stop_sequence"],
            "stop_details": None,
            "container": None,
        },
        "usage": {
            "input_tokens": usage["input_tokens"],
            "output_tokens": usage["output_tokens"],
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens_details": usage["output_tokens_details"],
            "server_tool_use": None,
        },
    }
    yield {"type": "message_stop"}


def _block_deltas(block: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str, list]]]:
    """A block's ``content_block_start`` payload, and its deltas as (delta type, field, values):
    text in words; thinking in words, then its signature just before the stop; a tool's input
    JSON in pieces after an empty one; a redacted block whole at the start, with no deltas."""
    if block["type"] == "text":
        start = {"type": "text", "text": "", "citations": None}
        return start, [("text_delta", "text", text_pieces(block["text"]))]
    if block["type"] == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        return start, [
            ("thinking_delta", "thinking", text_pieces(block["thinking"])),
            ("signature_delta", "signature", [block["signature"]]),
        ]
    if block["type"] == "redacted_thinking":
        return block, []
    arguments = to_json(block["input"])
    return {**block, "input": {}}, [
        ("input_json_delta", "partial_json", ["", *argument_pieces(arguments)])
    ]


def error_body(error: ProtocolError, request_id: str) -> dict[str, Any]:
    """A :class:`ProtocolError` in Anthropic's shape, with the request's id."""
    kind = ERROR_TYPES.get(error.status, "api_error" if error.status >= 500 else error.type)
    body: dict[str, Any] = {"type": kind, "message": error.message}
    if getattr(error, "details", None):  # error.details.error_code: the SDK branches on it
        body["details"] = error.details
    return {"type": "error", "error": body, "request_id": request_id}


def model_card(model: str) -> dict[str, Any]:
    return {
        "type": "model",
        "id": model,
        "display_name": DISPLAY_NAMES.get(model, DISPLAY_NAMES["local-toy"]),
        "created_at": MODEL_CREATED,
        "lifecycle": "active",
        "capabilities": None,
        "max_input_tokens": None,
        "max_tokens": MODEL_MAX_OUTPUT,
    }


def model_list(*models: str) -> dict[str, Any]:
    cards = [model_card(model) for model in models]
    return {"data": cards, "has_more": False, "first_id": models[0], "last_id": models[-1]}


def model_not_found(model: str) -> ProtocolError:
    return ProtocolError(
        MESSAGES["unknown_model"].format(model=model[:200]), status=404, type="not_found_error"
    )
