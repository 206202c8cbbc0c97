"""Reading what the learner's code sent, whichever API it used: Chat Completions or Responses.

Lesson 09 keeps the conversation as Chat messages (the agent's state) and may send it over the
Responses API (``chat_to_responses_input``, 07.2). The judges read one shape: ``as_chat`` turns
a Responses exchange into the Chat exchange that carries the same conversation (input items
back to messages, ``function_call`` items into the assistant message that made them, the
flat tools into Chat tools, the reply's output into one assistant message), so a rule about
"every call answered" or "the tools offered" is judged once, for both.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.learner import Exchange


def is_responses(request: dict) -> bool:
    return "input" in request and "messages" not in request


def chat_call(item: dict) -> dict:
    """A ``function_call`` item as the Chat tool call it stands for."""
    function = {"name": item.get("name"), "arguments": item.get("arguments")}
    return {"id": item.get("call_id"), "type": "function", "function": function}


def input_messages(items: Any) -> list[dict]:
    """Responses input items as the Chat messages they came from."""
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    messages: list[dict] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "function_call":
            call = chat_call(item)
            if messages and messages[-1].get("role") == "assistant":
                messages[-1].setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            answer = {"tool_call_id": item.get("call_id"), "content": item.get("output")}
            messages.append({"role": "tool", **answer})
        elif kind == "message":
            messages.append({"role": item.get("role"), "content": _text(item.get("content"))})
    return messages


def _text(content: Any) -> Any:
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return "".join(parts) or None
    return content


def output_message(reply: dict) -> dict:
    """A Responses reply's output as one Chat assistant message."""
    text, calls = [], []
    for item in reply.get("output") or []:
        if item.get("type") == "message":
            text += [p.get("text", "") for p in item.get("content") or [] if isinstance(p, dict)]
        elif item.get("type") == "function_call":
            calls.append(chat_call(item))
    message: dict = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        message["tool_calls"] = calls
    return message


def chat_tools(tools: Any) -> list[dict]:
    """Flat Responses tools as Chat tools (``{"type": "function", "function": {...}}``)."""
    out = []
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, dict) and "function" not in tool:
            function = {k: v for k, v in tool.items() if k != "type"}  # strict as in Chat
            out.append({"type": "function", "function": function})
        else:
            out.append(tool)
    return out


def as_chat(exchange: Exchange) -> Exchange:
    """``exchange`` as Chat Completions would have carried it (unchanged when it was Chat)."""
    request = exchange.request
    if not is_responses(request):
        return exchange
    chat: dict = {k: v for k, v in request.items() if k not in ("input", "tools")}
    chat["api"] = "responses"  # where it went: the judges read one shape, and this
    chat["messages"] = input_messages(request.get("input"))
    if "tools" in request:
        chat["tools"] = chat_tools(request.get("tools"))
    reply = exchange.reply
    if "output" in reply:
        reply = {"choices": [{"message": output_message(reply)}], "id": reply.get("id")}
    return Exchange(chat, exchange.status, reply)
