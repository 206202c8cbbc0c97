"""Turning a :class:`Turn` into Chat Completions JSON: one completion, or a stream of chunks.

Determinism: ids and ``created`` come from an :class:`IdSource` seeded per client (or per
server), so the same conversation run twice prints the same ids, and notebooks stay stable.

Usage counts are **approximate** (there is no tokenizer here) but deterministic:
one token per 4 ASCII characters (rounded up) plus one per non-ASCII character, plus 4 tokens of
overhead per message; tool definitions count as their JSON text. Real providers count differently;
only the shape and the arithmetic (``total = prompt + completion``) match.
"""

from __future__ import annotations

import json
import random
import re
import string
import threading
from collections.abc import Iterator
from typing import Any

from course_lib.local_model.turns import ToolCall, Turn

EPOCH = 1_767_225_600  # 2026-01-01T00:00:00Z: ``created`` counts up from here, one per reply
FINGERPRINT = "fp_local_toy"
ALPHABET = string.ascii_letters + string.digits
PIECE = re.compile(r"\s*[\u3400-\u9fff\uf900-\ufaff]{1,2}|\s*[^\s\u3400-\u9fff\uf900-\ufaff]+|\s+")
ARGUMENT_PIECE = 8  # characters of arguments per streamed fragment


class IdSource:
    """Deterministic ``chatcmpl-...``/``call_...`` ids and timestamps under a seed; thread-safe."""

    def __init__(self, seed: int = 0) -> None:
        self._random = random.Random(seed)
        self._replies = 0
        self._lock = threading.Lock()

    def reply(self, calls: int) -> tuple[str, int, list[str]]:
        """Reserve ids for one reply: (completion id, created, one id per tool call)."""
        with self._lock:
            self._replies += 1
            completion_id = "chatcmpl-" + self._token(29)
            call_ids = ["call_" + self._token(24) for _ in range(calls)]
            return completion_id, EPOCH + self._replies, call_ids

    def _token(self, length: int) -> str:
        return "".join(self._random.choice(ALPHABET) for _ in range(length))


def count_tokens(text: str) -> int:
    """Approximate tokens: ceil(ASCII chars / 4) + one per other character."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return -(-ascii_chars // 4) + (len(text) - ascii_chars)


def usage(messages: list[dict], tools: list[dict], turn: Turn) -> dict[str, Any]:
    """Deterministic approximate token counts for a request and its reply (see module docstring)."""
    prompt = 3 + sum(4 + count_tokens(json.dumps(m, ensure_ascii=False)) for m in messages)
    if tools:
        prompt += count_tokens(json.dumps(tools, ensure_ascii=False))
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


def text_pieces(text: str) -> list[str]:
    """Split text into small streaming pieces: a word (with its leading space) or two CJK chars."""
    pieces = PIECE.findall(text)
    assert "".join(pieces) == text, "text pieces must join back to the text"
    return pieces


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
    args = call.arguments
    tail = [
        {"index": index, "function": {"arguments": args[start : start + ARGUMENT_PIECE]}}
        for start in range(0, len(args), ARGUMENT_PIECE)
    ]
    return [head, *tail]


def _round_robin(lists: list[list[dict]]) -> Iterator[dict]:
    position = 0
    while any(position < len(items) for items in lists):
        for items in lists:
            if position < len(items):
                yield items[position]
        position += 1


def sse(events: Iterator[dict[str, Any]]) -> Iterator[bytes]:
    """Server-sent events framing: ``data: <json>`` blank line, ending with ``data: [DONE]``."""
    for event in events:
        yield b"data: " + json.dumps(event, ensure_ascii=False).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"
