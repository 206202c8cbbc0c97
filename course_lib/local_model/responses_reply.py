"""Turning a :class:`Turn` into a Responses API ``response`` object, or its stream of events.

A turn's text becomes one ``message`` output item (``output_text`` content) and each tool call
one ``function_call`` item with its own ``id`` (``fc_...``) and the ``call_id`` (``call_...``)
that the next request's ``function_call_output`` must answer. Usage uses the same approximate
counts as Chat Completions, named ``input_tokens``/``output_tokens``.

A stream replays the same response as the real API's events, each with a ``sequence_number``:
``response.created``, ``response.in_progress``, then per output item
``response.output_item.added``, its content (``response.content_part.added``,
``response.output_text.delta``..., ``response.output_text.done``, ``response.content_part.done``
for text; ``response.function_call_arguments.delta``..., ``.done`` for a call),
``response.output_item.done``; finally ``response.completed`` with the whole response.

A reply cut at ``max_output_tokens`` (``limits.py``) is ``incomplete``, with
``incomplete_details.reason`` ``max_output_tokens``, its cut item ``incomplete`` too, and its
stream ends with ``response.incomplete`` instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from course_lib.local_model import chat_reply, limits, reasoning_items
from course_lib.local_model.responses_request import ResponsesCall
from course_lib.local_model.turns import Turn
from course_lib.local_model.wire import IdSource, argument_pieces, sse_named, text_pieces


def render(call: ResponsesCall, turn: Turn, ids: IdSource) -> dict[str, Any]:
    """The complete ``response`` object for one turn (cut at ``max_output_tokens``)."""
    ending = limits.end(turn, call.limits)
    turn = ending.turn
    cut = ending.reason == limits.LENGTH
    calls = len(turn.tool_calls)
    has_text = turn.content is not None
    response_id, created, (message_ids, item_ids, call_ids) = ids.reserve(
        "resp", [("msg", int(has_text)), ("fc", calls), ("call", calls)]
    )
    output: list[dict[str, Any]] = []
    if has_text:
        text_cut = cut and not turn.tool_calls
        status = "incomplete" if text_cut else "completed"
        output.append(_message_item(message_ids[0], turn.content or "", status))
    for number, (tool_call, item_id, call_id) in enumerate(
        zip(turn.tool_calls, item_ids, call_ids, strict=True)
    ):
        call_cut = ending.cut_call and number == calls - 1
        output.append(
            {
                "id": item_id,
                "type": "function_call",
                "status": "incomplete" if call_cut else "completed",
                "arguments": tool_call.arguments,
                "call_id": call_id,
                "name": tool_call.name,
            }
        )
    counts = chat_reply.usage(call.request.messages, call.tools, turn)
    echo = call.echo
    return {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "status": "incomplete" if cut else "completed",
        "background": False,
        "completed_at": None if cut else created,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "instructions": echo["instructions"],
        "max_output_tokens": echo["max_output_tokens"],
        "max_tool_calls": None,
        "metadata": echo["metadata"],
        "model": echo["model"],
        "output": output,
        "parallel_tool_calls": echo["parallel_tool_calls"],
        "previous_response_id": echo["previous_response_id"],
        "reasoning": {"effort": None, "summary": None},
        "service_tier": echo["service_tier"],
        "store": echo["store"],
        "temperature": echo["temperature"],
        "text": echo["text"],
        "tool_choice": echo["tool_choice"],
        "tools": call.tools,
        "top_p": echo["top_p"],
        "truncation": echo["truncation"],
        "usage": {
            "input_tokens": counts["prompt_tokens"],
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": counts["completion_tokens"],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": counts["total_tokens"],
        },
        "user": echo["user"],
    }


def _message_item(item_id: str, text: str, status: str) -> dict[str, Any]:
    content = [] if status == "in_progress" else [_text_part(text)]
    return {
        "id": item_id,
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": content,
    }


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def events(response: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The stream events of a finished response, in wire order (without sequence numbers)."""
    # A new head on shared parts: every event is encoded as it is, never changed.
    opening = {
        **response,
        "status": "in_progress",
        "output": [],
        "usage": None,
        "completed_at": None,
    }
    yield {"type": "response.created", "response": opening}
    yield {"type": "response.in_progress", "response": opening}
    for index, item in enumerate(response["output"]):
        if item["type"] == "message":
            yield from _message_events(index, item)
        elif item["type"] == "reasoning":
            yield from reasoning_items.events(index, item)
        else:
            yield from _call_events(index, item)
    yield {"type": f"response.{response['status']}", "response": response}


def _message_events(index: int, item: dict[str, Any]) -> Iterator[dict[str, Any]]:
    text = item["content"][0]["text"]
    where = {"item_id": item["id"], "output_index": index}
    yield {
        "type": "response.output_item.added",
        "output_index": index,
        "item": _message_item(item["id"], "", "in_progress"),
    }
    yield {
        "type": "response.content_part.added",
        **where,
        "content_index": 0,
        "part": _text_part(""),
    }
    for piece in text_pieces(text):
        yield {
            "type": "response.output_text.delta",
            **where,
            "content_index": 0,
            "delta": piece,
            "logprobs": [],
        }
    yield {
        "type": "response.output_text.done",
        **where,
        "content_index": 0,
        "text": text,
        "logprobs": [],
    }
    yield {
        "type": "response.content_part.done",
        **where,
        "content_index": 0,
        "part": _text_part(text),
    }
    yield {"type": "response.output_item.done", "output_index": index, "item": item}


def _call_events(index: int, item: dict[str, Any]) -> Iterator[dict[str, Any]]:
    where = {"item_id": item["id"], "output_index": index}
    opening = {**item, "status": "in_progress", "arguments": ""}
    yield {"type": "response.output_item.added", "output_index": index, "item": opening}
    for piece in argument_pieces(item["arguments"]):
        yield {"type": "response.function_call_arguments.delta", **where, "delta": piece}
    yield {
        "type": "response.function_call_arguments.done",
        **where,
        "arguments": item["arguments"],
        "name": item["name"],
    }
    yield {"type": "response.output_item.done", "output_index": index, "item": item}


def stream(response: dict[str, Any]) -> Iterator[bytes]:
    """The server-sent events of a response, numbered from 0."""
    numbered = (
        {"type": event["type"], "sequence_number": number, **event}
        for number, event in enumerate(events(response))
    )
    return sse_named(numbered)
