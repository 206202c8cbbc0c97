"""Joining a streamed chat completion back into one message.

With ``stream=True`` the model's reply arrives as many small chunks. Text arrives as pieces of
``delta.content``; each tool call arrives as a first fragment carrying its ``id`` and function
``name``, followed by fragments of its ``arguments`` string. Fragments of different calls can
interleave, so they must be joined by their ``index``, never by arrival order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def _get(obj: Any, key: str) -> Any:
    """Read ``key`` from an SDK object or from a plain dict (chunks can be either)."""
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def collect_stream(chunks: Iterable[Any]) -> dict:
    """Join streamed chunks into ``{"content", "tool_calls", "finish_reason", "usage"}``.

    ``tool_calls`` is a list of ``{"id", "name", "arguments"}`` in ``index`` order, with every
    argument fragment concatenated. ``content`` is ``None`` when no text arrived, as in a
    non-streamed reply.
    """
    text: list[str] = []
    calls: dict[int, dict[str, str]] = {}
    finish_reason = None
    usage = None
    for chunk in chunks:
        if _get(chunk, "usage") is not None:
            usage = _get(chunk, "usage")
        for choice in _get(chunk, "choices") or []:
            delta = _get(choice, "delta") or {}
            if _get(delta, "content"):
                text.append(_get(delta, "content"))
            for fragment in _get(delta, "tool_calls") or []:
                empty = {"id": "", "name": "", "arguments": ""}
                call = calls.setdefault(_get(fragment, "index"), empty)
                if _get(fragment, "id"):
                    call["id"] = _get(fragment, "id")
                function = _get(fragment, "function")
                if function is not None:
                    call["name"] += _get(function, "name") or ""
                    call["arguments"] += _get(function, "arguments") or ""
            if _get(choice, "finish_reason"):
                finish_reason = _get(choice, "finish_reason")
    return {
        "content": "".join(text) if text else None,
        "tool_calls": [calls[index] for index in sorted(calls)],
        "finish_reason": finish_reason,
        "usage": usage,
    }
