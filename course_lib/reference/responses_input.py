"""A Chat Completions conversation as Responses API input items (exercise 07.2).

A conversation kept as Chat messages (the form lessons 05 and 09 keep as the agent's state)
can be sent to the Responses API item by item: a message with text becomes a ``message`` item,
each tool call a ``function_call`` item, each tool message a ``function_call_output`` item, in
the conversation's order. Reasoning items have no Chat form: a reasoning model's calls sent back
this way are refused, so such a model is continued with ``previous_response_id`` instead.
"""

from __future__ import annotations


def chat_to_responses_input(messages: list[dict]) -> list[dict]:
    """The Responses input items of a Chat Completions conversation, as new dicts."""
    items: list[dict] = []
    for message in messages:
        if message["role"] == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message["tool_call_id"],
                    "output": message["content"],
                }
            )
            continue
        if message.get("content"):
            items.append(
                {"type": "message", "role": message["role"], "content": message["content"]}
            )
        for tool_call in message.get("tool_calls") or []:
            function = tool_call["function"]
            items.append(
                {
                    "type": "function_call",
                    "call_id": tool_call["id"],
                    "name": function["name"],
                    "arguments": function["arguments"],
                }
            )
    return items
