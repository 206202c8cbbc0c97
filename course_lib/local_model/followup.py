"""What the toy model does once tool results are in: retry a fixable error once, or answer.

After the assistant asked for calls and the tool messages came back, the model looks at every
call made since the latest user message:

* an **error result** that names something fixable is retried once with the fix: an unknown tool
  becomes the tool the error suggests (or the closest existing name), an argument the error names
  is converted to the type the error expects (``"5"`` -> ``5``), a missing one is looked for again
  in the request, an unexpected one is dropped, malformed JSON is rewritten;
* a call already answered is never asked for again;
* otherwise it writes the final answer, quoting each result (and explaining each failure).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

from course_lib.local_model.arguments import fill_arguments
from course_lib.local_model.schema_values import has_type
from course_lib.local_model.turns import ChatRequest, ToolCall

TYPE_WORDS = ("integer", "number", "string", "boolean", "array", "object")


@dataclass(frozen=True)
class Exchange:
    """One call made since the latest user message and what its tool message said."""

    call: ToolCall
    result: str

    @property
    def error(self) -> str | None:
        """The error text when the result is an error (``{"error": ...}`` or ``Error: ...``)."""
        text = self.result.strip()
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict) and "error" in value:
            error = value["error"]
            return error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)
        if re.match(r"(error|exception|traceback)\b", text, flags=re.IGNORECASE):
            return text
        return None


def message_text(content: Any) -> str:
    """The text of a message's content (a string, or a list of text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def exchanges_since(messages: list[dict], start: int) -> list[Exchange]:
    """Calls asked for after ``messages[start]`` paired with their results, in call order."""
    results = {
        m["tool_call_id"]: message_text(m.get("content"))
        for m in messages[start:]
        if m.get("role") == "tool"
    }
    found: list[Exchange] = []
    for message in messages[start:]:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            if call.get("id") in results:
                tool_call = ToolCall(function.get("name", ""), function.get("arguments", ""))
                found.append(Exchange(tool_call, results[call["id"]]))
    return found


def correct(exchange: Exchange, request: ChatRequest, user_text: str) -> ToolCall | None:
    """The call fixed according to its error, or None when the error names nothing fixable."""
    error = exchange.error or ""
    call = exchange.call
    names = [tool["name"] for tool in request.tools]
    unknown = re.search(r"unknown|not found|no (such )?tool|does not exist|not exist", error, re.I)
    if request.tool(call.name) is None or (unknown and re.search(r"\btool\b", error, re.I)):
        others = [n for n in names if n != call.name]
        suggested = [n for n in others if re.search(rf"\b{re.escape(n)}\b", error)]
        close = difflib.get_close_matches(call.name, others, n=1, cutoff=0.6)
        new_name = (suggested or close or [None])[0]
        return ToolCall(new_name, call.arguments) if new_name else None
    tool = request.tool(call.name) or {}
    properties: dict[str, dict] = (tool.get("parameters") or {}).get("properties") or {}
    arguments = call.parsed()
    if arguments is None:  # malformed JSON: write the call again from the request
        filled = fill_arguments(tool, user_text)
        return None if filled.missing else ToolCall.of(call.name, filled.calls[0])
    fixed = dict(arguments)
    for name in sorted(set(properties) | set(arguments)):
        mention = re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", error)
        if mention is None:
            continue
        after = error[mention.end() : mention.end() + 80]
        if re.search(r"unexpected|unknown param|not allowed|not accepted", after, re.I):
            fixed.pop(name, None)
            continue
        if name not in fixed:
            filled = fill_arguments(tool, user_text).calls[0]
            if name in filled:
                fixed[name] = filled[name]
            continue
        schema = properties.get(name, {})
        expected = re.search(rf"expected (?:an? )?({'|'.join(TYPE_WORDS)})", after)
        if "enum" in schema and fixed[name] not in schema["enum"]:
            options = [str(o) for o in schema["enum"]]
            match = difflib.get_close_matches(str(fixed[name]), options, n=1, cutoff=0.0)
            fixed[name] = schema["enum"][options.index(match[0])] if match else fixed[name]
        elif expected or "type" in schema:
            target = expected.group(1) if expected else schema["type"]
            converted = convert(fixed[name], target)
            if not has_type(converted, target):  # no honest conversion: read the request again
                converted = fill_arguments(tool, user_text).calls[0].get(name, converted)
            fixed[name] = converted
    return ToolCall.of(call.name, fixed) if fixed != arguments else None


def convert(value: Any, target: str) -> Any:
    """Convert a JSON value to the JSON type an error asked for, when that is unambiguous."""
    try:
        if target == "integer" and not isinstance(value, bool):
            number = float(value)
            return int(number) if number.is_integer() else value
        if target == "number" and not isinstance(value, bool):
            number = float(value)
            return int(number) if number.is_integer() else number
    except (TypeError, ValueError):
        return value
    if target == "string" and not isinstance(value, str):
        if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
            return " ".join(str(v) for v in value)  # ["Zhang", "San"] was one name in parts
        if isinstance(value, (dict, list)):
            return json.dumps(value, ensure_ascii=False)
        return str(value)
    if target == "boolean" and isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "yes", "1"):
            return True
        if lowered in ("false", "no", "0"):
            return False
    if target == "array" and isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value
