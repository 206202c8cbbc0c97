"""Reading Anthropic messages as the 07.3 check needs them: the parts of a block that must come
back unchanged, whether a message is just the question, and whether content is a result's text
in blocks."""

from __future__ import annotations

from typing import Any

THINKING = ("thinking", "redacted_thinking")
# The parts of each kind of block that must come back unchanged.
ESSENTIAL = {
    "tool_use": ("type", "id", "name", "input"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
}


def is_the_question(messages: Any, question: str) -> bool:
    if not isinstance(messages, list) or len(messages) != 1 or not isinstance(messages[0], dict):
        return False
    message = messages[0]
    content = message.get("content")
    parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
    texts = [p.get("text") for p in parts if isinstance(p, dict)]
    return message.get("role") == "user" and texts == [question]


def is_text_blocks_of(content: Any, result: str) -> bool:
    """``content`` is ``result`` as a list of text blocks (which the API also accepts)."""
    if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
        return False
    texts = [b.get("text") for b in content if b.get("type") == "text"]
    return len(texts) == len(content) and "".join(map(str, texts)) == result


def essential(block: dict) -> dict:
    """The parts of a reply's content block that must come back (the SDK may add or drop the
    rest, such as ``citations: null``)."""
    keys = ESSENTIAL.get(block.get("type"), ("type", "text"))
    return {key: block.get(key) for key in keys}
