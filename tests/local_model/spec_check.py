"""Checking replies, stream events and errors against the SDKs' own types (``spec_check``).

Each body is validated from its JSON bytes by the SDK's pydantic type in strict mode
(``model_validate_json(..., strict=True)``: the JSON form of ``model_validate(strict=True)``,
which alone accepts the spec's date-time strings): ``ChatCompletion``/``ChatCompletionChunk``,
``Response``/``ResponseStreamEvent``, ``ErrorObject`` for OpenAI; ``Message``/
``RawMessageStreamEvent``, ``ErrorResponse`` for Anthropic. Strict mode refuses what lax mode
would coerce (``"3"`` for an integer, ``1`` for ``true``).

Those types cannot tell a missing field from a null one (every nullable field defaults to
``None``), so :func:`missing_fields` also walks the validated objects and asks, for each class
in ``spec_fields.REQUIRED``, that every field the specification requires was present, null or
not; a class it meets that the table does not know is reported too, so a new kind of object
cannot slip by unchecked.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import anthropic.types as anthropic_types
import spec_fields
from openai.types import Model
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent
from openai.types.shared import ErrorObject
from pydantic import BaseModel, TypeAdapter
from spec_cases import Exchange

RESPONSE_EVENT = TypeAdapter(ResponseStreamEvent)
ANTHROPIC_EVENT = TypeAdapter(anthropic_types.RawMessageStreamEvent)
REPLY_TYPES = {
    "chat": ChatCompletion,
    "responses": Response,
    "messages": anthropic_types.Message,
}


def sse_events(raw: bytes) -> Iterator[tuple[str | None, bytes]]:
    """(event name or None, data) of each server-sent event; ``[DONE]`` included as data."""
    for block in raw.split(b"\n\n"):
        if not block.strip():
            continue
        name, data = None, None
        for line in block.split(b"\n"):
            if line.startswith(b"event: "):
                name = line[7:].decode()
            elif line.startswith(b"data: "):
                data = line[6:]
        assert data is not None, block
        yield name, data


def validate(exchange: Exchange) -> list[BaseModel]:
    """Every object of one exchange, validated strictly; raises ``ValidationError`` if one
    does not validate, or ``AssertionError`` for framing the types cannot see."""
    if exchange.status != 200:
        return [validate_error(exchange.api, exchange.reply)]
    if not exchange.streamed:
        return [REPLY_TYPES[exchange.api].model_validate_json(exchange.reply, strict=True)]
    events = list(sse_events(exchange.reply))
    if exchange.api == "chat":
        assert events[-1] == (None, b"[DONE]"), events[-1]
        chunks = [ChatCompletionChunk.model_validate_json(d, strict=True) for _, d in events[:-1]]
        _check_chunk_order(chunks)
        return chunks
    out: list[BaseModel] = []
    for name, data in events:
        assert name == json.loads(data)["type"], (name, data[:80])
        if name == "ping":
            assert json.loads(data) == {"type": "ping"}
            continue
        adapter = RESPONSE_EVENT if exchange.api == "responses" else ANTHROPIC_EVENT
        out.append(adapter.validate_json(data, strict=True))
    _check_event_order(exchange.api, out)
    return out


def _check_chunk_order(chunks: list[ChatCompletionChunk]) -> None:
    """Each choice opens with the role and ends with one ``finish_reason``; usage, when it
    comes, comes last, with no choices."""
    finished: Counter[int] = Counter()
    opened: set[int] = set()
    for chunk in chunks:
        for choice in chunk.choices:
            if choice.index not in opened:
                assert choice.delta.role == "assistant", chunk
                opened.add(choice.index)
            assert not finished[choice.index], f"choice {choice.index} after its finish"
            finished[choice.index] += choice.finish_reason is not None
    assert opened and all(finished[index] == 1 for index in opened), finished
    with_usage = [chunk for chunk in chunks if chunk.usage is not None]
    assert not with_usage or (with_usage == chunks[-1:] and not chunks[-1].choices)


def _check_event_order(api: str, events: list[BaseModel]) -> None:
    """Responses: numbered from 0 without gaps, opened by ``response.created`` and closed by
    the event named after the response's final status. Anthropic: ``message_start`` first,
    blocks opened and closed in order, ``message_delta`` then ``message_stop`` last."""
    kinds = [event.type for event in events]
    if api == "responses":
        assert [e.sequence_number for e in events] == list(range(len(events)))
        assert kinds[0] == "response.created"
        assert kinds[-1] == f"response.{events[-1].response.status}", kinds[-1]
        return
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    open_block = None
    for event in events[1:-2]:
        if event.type == "content_block_start":
            assert open_block is None
            open_block = event.index
        else:
            assert event.index == open_block, event
            open_block = None if event.type == "content_block_stop" else open_block
    assert open_block is None


def validate_error(api: str, raw: bytes) -> BaseModel:
    if api == "messages":
        return anthropic_types.ErrorResponse.model_validate_json(raw, strict=True)
    body = json.loads(raw)
    assert list(body) == ["error"], body
    return ErrorObject.model_validate_json(json.dumps(body["error"]), strict=True)


def validate_model_list(raw: bytes, *, anthropic: bool) -> list[BaseModel]:
    body = json.loads(raw)
    card = anthropic_types.ModelInfo if anthropic else Model
    return [card.model_validate_json(json.dumps(item), strict=True) for item in body["data"]]


def _walk(value: Any) -> Iterator[BaseModel]:
    if isinstance(value, BaseModel):
        yield value
        for name in type(value).model_fields:
            yield from _walk(getattr(value, name))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _walk(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)


def qualified(model: BaseModel) -> str:
    """``package:module.Class``: ``openai:chat_completion_chunk.Choice``."""
    kind = type(model)
    package, *_, module = kind.__module__.split(".")
    return f"{package}:{module}.{kind.__qualname__}"


def missing_fields(objects: list[BaseModel]) -> list[str]:
    """``class: field`` for each required field absent, ``class: not in the table`` for each
    class the table does not know."""
    problems: list[str] = []
    for model in (item for obj in objects for item in _walk(obj)):
        name = qualified(model)
        required = spec_fields.REQUIRED.get(name)
        if required is None:
            problems.append(f"{name}: not in spec_fields.REQUIRED")
            continue
        fields = type(model).model_fields
        present = {(fields[f].alias if f in fields else None) or f for f in model.model_fields_set}
        problems.extend(f"{name}: {f}" for f in required if f not in present)
    return sorted(set(problems))
