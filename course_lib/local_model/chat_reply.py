"""Turning a :class:`Turn` into Chat Completions JSON: one completion, or a stream of chunks.

Ids, timestamps and token counts come from ``wire.py`` (deterministic under a seed); usage adds
4 tokens of overhead per message, and tool definitions count as their JSON text.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from course_lib.local_model.turns import ToolCall, Turn
from course_lib.local_model.wire import argument_pieces, count_tokens, json_tokens, text_pieces

FINGERPRINT = "fp_local_toy"


def usage(messages: list[dict], tools: list[dict], turn: Turn) -> dict[str, Any]:
    """Deterministic approximate token counts for a request and its reply (see module docstring)."""
    prompt = 3 + sum(4 + json_tokens(m) for m in messages)
    if tools:
        prompt += json_tokens(tools)
    completion = count_tokens(turn.content or "") + sum(
        3 + count_tokens(call.name) + count_tokens(call.arguments) for call in turn.tool_calls
    )
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _wire_call(call: ToolCall, call_id: str) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }


def completion(
    turn: Turn,
    *,
    model: str,
    completion_id: str,
    created: int,
    call_ids: list[str],
    usage_counts: dict[str, Any],
) -> dict[str, Any]:
    """The non-streamed ``chat.completion`` object."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": turn.content,
        "refusal": None,
        "annotations": [],
    }
    if turn.tool_calls:
        message["tool_calls"] = [
            _wire_call(c, i) for c, i in zip(turn.tool_calls, call_ids, strict=True)
        ]
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": turn.finish_reason,
            }
        ],
        "usage": usage_counts,
        "service_tier": "default",
        "system_fingerprint": FINGERPRINT,
    }


def chunks(
    turn: Turn,
    *,
    model: str,
    completion_id: str,
    created: int,
    call_ids: list[str],
    usage_counts: dict[str, Any] | None,
) -> Iterator[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects of a streamed reply, in wire order.

    Role first; then the text in small pieces; then each tool call as one fragment carrying its
    ``index``, ``id`` and name, followed by argument fragments, interleaved across parallel calls
    (a client must join by ``index``, not by arrival order); then ``finish_reason``; then, when
    ``usage_counts`` is given (``stream_options.include_usage``), a final chunk with empty
    ``choices`` and the usage.
    """
    with_usage = usage_counts is not None

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "service_tier": "default",
            "system_fingerprint": FINGERPRINT,
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            ],
        }
        if with_usage:
            body["usage"] = None
        return body

    first: dict[str, Any] = {"role": "assistant", "content": "", "refusal": None}
    if turn.content is None:
        first["content"] = None
    yield chunk(first)
    for piece in text_pieces(turn.content or ""):
        yield chunk({"content": piece})
    pairs = enumerate(zip(turn.tool_calls, call_ids, strict=True))
    fragments = [_call_fragments(i, call, call_id) for i, (call, call_id) in pairs]
    for row in _round_robin(fragments):
        yield chunk({"tool_calls": [row]})
    yield chunk({}, turn.finish_reason)
    if with_usage:
        final = chunk({})
        final["choices"] = []
        final["usage"] = usage_counts
        yield final


def _call_fragments(index: int, call: ToolCall, call_id: str) -> list[dict[str, Any]]:
    head = {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": ""},
    }
    tail = [
        {"index": index, "function": {"arguments": piece}}
        for piece in argument_pieces(call.arguments)
    ]
    return [head, *tail]


def _round_robin(lists: list[list[dict]]) -> Iterator[dict]:
    position = 0
    while any(position < len(items) for items in lists):
        for items in lists:
            if position < len(items):
                yield items[position]
        position += 1
