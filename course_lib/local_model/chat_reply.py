"""Turning a :class:`Turn` into Chat Completions JSON: one completion, or a stream of chunks.

Ids and timestamps come from ``wire.py`` (deterministic under a seed); token counts from
``limits.py``, which also says how the turn ended: ``finish_reason`` is ``tool_calls``, ``stop``
(finished, or a ``stop`` sequence was reached) or ``length`` (cut at ``max_tokens``). With
``n`` > 1 every choice carries the same turn (the model is deterministic), each call with its
own id, and usage counts the completion ``n`` times.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from course_lib.local_model.limits import LENGTH, Ending, prompt_tokens, turn_tokens
from course_lib.local_model.turns import ToolCall, Turn
from course_lib.local_model.wire import argument_pieces, text_pieces

FINGERPRINT = "fp_local_toy"


def usage(messages: list[dict], tools: list[dict], turn: Turn, choices: int = 1) -> dict[str, Any]:
    """Token counts for a request and ``choices`` copies of its reply (``limits.py``)."""
    prompt = prompt_tokens(messages, tools)
    completion = turn_tokens(turn) * choices
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


def finish_reason(ending: Ending) -> str:
    """``length`` for a cut turn, else ``tool_calls`` or ``stop`` (a stop sequence too)."""
    return "length" if ending.reason == LENGTH else ending.turn.finish_reason


def choice_call_ids(call_ids: list[str], choices: int) -> list[list[str]]:
    """The call ids reserved for all choices, split into one list per choice."""
    size = len(call_ids) // choices if choices else 0
    return [call_ids[i * size : (i + 1) * size] for i in range(choices)]


def completion(
    ending: Ending,
    *,
    model: str,
    completion_id: str,
    created: int,
    call_ids: list[str],
    usage_counts: dict[str, Any],
    choices: int = 1,
    service_tier: str = "default",
) -> dict[str, Any]:
    """The non-streamed ``chat.completion`` object, with ``choices`` choices."""
    turn = ending.turn
    rows = []
    for index, ids in enumerate(choice_call_ids(call_ids, choices)):
        message: dict[str, Any] = {
            "role": "assistant",
            "content": turn.content,
            "refusal": None,
            "annotations": [],
        }
        if turn.tool_calls:
            message["tool_calls"] = [
                _wire_call(c, i) for c, i in zip(turn.tool_calls, ids, strict=True)
            ]
        rows.append(
            {
                "index": index,
                "message": message,
                "logprobs": None,
                "finish_reason": finish_reason(ending),
            }
        )
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": rows,
        "usage": usage_counts,
        "service_tier": service_tier,
        "system_fingerprint": FINGERPRINT,
    }


def chunks(
    ending: Ending,
    *,
    model: str,
    completion_id: str,
    created: int,
    call_ids: list[str],
    usage_counts: dict[str, Any] | None,
    choices: int = 1,
    service_tier: str = "default",
) -> Iterator[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects of a streamed reply, in wire order.

    For each choice in turn: role first; then the text in small pieces; then each tool call as
    one fragment carrying its ``index``, ``id`` and name, followed by argument fragments,
    interleaved across parallel calls (a client must join by ``index``, not by arrival order);
    then ``finish_reason``. Last, when ``usage_counts`` is given
    (``stream_options.include_usage``), a chunk with empty ``choices`` and the usage.
    """
    with_usage = usage_counts is not None
    turn = ending.turn

    def chunk(index: int, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "service_tier": service_tier,
            "system_fingerprint": FINGERPRINT,
            "choices": [
                {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}
            ],
        }
        if with_usage:
            body["usage"] = None
        return body

    for index, ids in enumerate(choice_call_ids(call_ids, choices)):
        first: dict[str, Any] = {"role": "assistant", "content": "", "refusal": None}
        if turn.content is None:
            first["content"] = None
        yield chunk(index, first)
        for piece in text_pieces(turn.content or ""):
            yield chunk(index, {"content": piece})
        pairs = enumerate(zip(turn.tool_calls, ids, strict=True))
        fragments = [_call_fragments(i, call, call_id) for i, (call, call_id) in pairs]
        for row in _round_robin(fragments):
            yield chunk(index, {"tool_calls": [row]})
        yield chunk(index, {}, finish_reason(ending))
    if with_usage:
        final = chunk(0, {})
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
