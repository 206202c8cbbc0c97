"""What lesson 09's conversation code is given: an error result, the assistant message as a
plain dict, and the size of a message, which the context budget counts.

The size is characters of the message's JSON (``ensure_ascii=False``, so 龙井 counts two, not
twelve): a stand-in for tokens that needs no tokenizer and means the same for every model. A
real assistant counts tokens with its provider's tokenizer; the rules of what to drop stay the
same.
"""

from __future__ import annotations

import json
from typing import Any


def assistant_message(message: Any) -> dict:
    """The SDK's reply message as the plain dict appended to the conversation (lesson 05)."""
    entry: dict = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        entry["tool_calls"] = [
            {
                "id": tool_call.id,
                "type": "function",
                "function": {
                    "name": tool_call.function.name,
                    "arguments": tool_call.function.arguments,
                },
            }
            for tool_call in message.tool_calls
        ]
    return entry


def message_size(message: dict) -> int:
    """How much of the context budget ``message`` takes: the characters of its JSON."""
    return len(json.dumps(message, ensure_ascii=False))


def error_text(message: str, **details: Any) -> str:
    """An error result as the model reads it: a JSON object whose "error" says what happened."""
    return json.dumps({"error": message, **details}, ensure_ascii=False)
