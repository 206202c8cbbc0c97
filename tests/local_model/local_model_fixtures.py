"""Tools and helpers shared by the local model's tests (imported as ``local_model_fixtures``)."""

from __future__ import annotations

import json
from collections.abc import Callable


def tool(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


WEATHER = tool(
    "get_weather",
    "Get the current weather for a city.",
    {
        "city": {"type": "string", "description": "City name, e.g. Beijing or 北京"},
        "unit": {"type": "string", "enum": ["c", "f"], "description": "Temperature unit"},
    },
    ["city"],
)
NOTES = tool(
    "search_notes",
    "Search the user's notes by keyword.",
    {
        "keyword": {"type": "string", "description": "Word or phrase to look for"},
        "limit": {"type": "integer", "description": "How many notes to return at most"},
        "tags": {"type": "array", "items": {"type": "string"}, "description": "Only these tags"},
    },
    ["keyword"],
)
WEB = tool(
    "search_web",
    "Search the web for pages.",
    {"query": {"type": "string", "description": "What to search for"}},
    ["query"],
)
CALC = tool(
    "calculate",
    "Evaluate an arithmetic expression and return the number.",
    {"expression": {"type": "string", "description": "Arithmetic expression, e.g. 2 * (3 + 4)"}},
    ["expression"],
)
TIME = tool(
    "get_time",
    "Get the current local time in a city.",
    {"city": {"type": "string", "description": "City name"}},
    ["city"],
)
CONVERT = tool(
    "convert_currency",
    "Convert an amount of money from one currency to another using today's exchange rate.",
    {
        "amount": {"type": "number", "description": "Amount of money"},
        "from_currency": {"type": "string", "description": "Currency code to convert from"},
        "to_currency": {"type": "string", "description": "Currency code to convert to"},
    },
    ["amount", "from_currency", "to_currency"],
)
EMAIL = tool(
    "send_email",
    "Send an email to a contact.",
    {
        "recipient": {"type": "string", "description": "Name of the person to write to"},
        "subject": {"type": "string", "description": "Subject line"},
    },
    ["recipient", "subject"],
)
VAGUE = tool(
    "lookup",
    "Does stuff.",
    {"city": {"type": "string", "description": "The city"}},
    ["city"],
)


def user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def answer_calls(
    messages: list[dict], message, results: Callable[[str, dict], object]
) -> list[dict]:
    """Append the assistant message once, then one tool message per call (the correct way)."""
    messages.append(message.model_dump(exclude_none=True))
    for call in message.tool_calls:
        result = results(call.function.name, json.loads(call.function.arguments))
        content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return messages


def flat(chat_tool: dict, *, strict: bool | None = None) -> dict:
    """A Chat Completions tool in the Responses API's flat form."""
    function = chat_tool["function"]
    out = {"type": "function", **function}
    if strict is not None:
        out["strict"] = strict
    return out


def for_anthropic(chat_tool: dict) -> dict:
    """A Chat Completions tool in the Anthropic Messages form."""
    function = chat_tool["function"]
    return {
        "name": function["name"],
        "description": function["description"],
        "input_schema": function["parameters"],
    }


def strict_parameters(schema: dict) -> dict:
    """Make an object schema strict: every property required, the object closed."""
    return {**schema, "required": list(schema["properties"]), "additionalProperties": False}


STRICT_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Beijing or 北京"},
                "unit": {"type": ["string", "null"], "enum": ["c", "f", None]},
            },
            "required": ["city", "unit"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}
