"""One reading of three wire formats: a conversation as entries, calls and answers, paired.

The three APIs of the course keep a tool call and its answer in different places:

- **Chat Completions**: an assistant message's ``tool_calls`` (each with an ``id``), answered by
  ``role: "tool"`` messages carrying that ``tool_call_id``;
- **Responses**: a flat list of items, ``function_call`` items (``call_id``) answered by
  ``function_call_output`` items with the same ``call_id``;
- **Anthropic Messages**: ``tool_use`` blocks (``id``) inside an assistant message, answered by
  ``tool_result`` blocks (``tool_use_id``, maybe ``is_error``) inside the **next user message**.

``read`` turns any of them (dicts or SDK objects) into :class:`Entry` objects with the same
:class:`Call` and :class:`Answer` parts, and ``pair`` finds what is wrong: calls nobody
answered, answers to no earlier call, answers given twice, and (Anthropic only) results sent
too late or as a role of their own. ``conversation.py`` draws the result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

ITEM_TYPES = ("message", "function_call", "function_call_output", "reasoning")
ANTHROPIC_BLOCKS = ("tool_use", "tool_result")
ANSWER_ROLES = ("tool", "function_call_output")


def plain(value: Any) -> Any:
    """``value`` as plain JSON-like data: SDK objects (pydantic models) become dicts."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(exclude_none=True))
    return value


def as_dict(message: Any) -> dict[str, Any]:
    """A message or item as a plain dict (SDK objects and their content blocks included)."""
    if isinstance(message, dict) or hasattr(message, "model_dump"):
        return plain(message)
    from course_lib.widgets.texts import say

    raise TypeError(say("not_a_message", kind=type(message)))


def content_text(content: Any) -> str:
    """A message's text: a string, or the text of its text parts (other parts as JSON)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_part_text(part) for part in content if not _is_block(part))
    return str(content)


def _part_text(part: Any) -> str:
    if isinstance(part, dict):
        if "text" in part:
            return str(part["text"])
        return json.dumps(part, ensure_ascii=False)
    return str(part)


def _is_block(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in ANTHROPIC_BLOCKS


@dataclass(frozen=True)
class Call:
    """A tool call: its id (``id``, ``call_id`` or a ``tool_use`` id), name, arguments as text."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Answer:
    """A tool's answer: the id of the call it answers, its text, and Anthropic's ``is_error``."""

    call_id: str
    content: str
    is_error: bool = False


@dataclass
class Entry:
    """One message or item of the conversation, at ``index`` in the list given."""

    index: int
    role: str  # user, assistant, system, developer, tool, function_call, ... reasoning
    text: str = ""
    calls: list[Call] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)


def conversation_format(messages: list[dict[str, Any]]) -> str:
    """``"anthropic"``, ``"responses"`` or ``"chat"``: which API the conversation is written for."""
    if any(_is_block(part) for m in messages for part in _parts(m.get("content"))):
        return "anthropic"
    if any(m.get("type") in ITEM_TYPES and "tool_calls" not in m for m in messages):
        return "responses"
    return "chat"


def _parts(content: Any) -> list[Any]:
    return content if isinstance(content, list) else []


def read(messages: list[dict[str, Any]]) -> list[Entry]:
    """Every message or item as an :class:`Entry`."""
    return [_entry(index, message) for index, message in enumerate(messages)]


def _entry(index: int, message: dict[str, Any]) -> Entry:
    kind = message.get("type")
    if kind == "function_call":
        call = Call(
            str(message.get("call_id", "")),
            str(message.get("name", "?")),
            _arguments(message.get("arguments", "")),
        )
        return Entry(index, "function_call", calls=[call])
    if kind == "function_call_output":
        output = message.get("output", "")
        answer = Answer(str(message.get("call_id", "")), _result_text(output))
        return Entry(index, "function_call_output", answers=[answer])
    if kind == "reasoning":
        summary = " ".join(_part_text(p) for p in _parts(message.get("summary")))
        return Entry(index, "reasoning", text=summary)
    role = str(message.get("role", "?"))
    if role == "tool":
        answer = Answer(str(message.get("tool_call_id", "")), content_text(message.get("content")))
        return Entry(index, "tool", answers=[answer])
    entry = Entry(index, role, text=content_text(message.get("content")))
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        custom = call.get("custom") or {}
        name = function.get("name") or call.get("type", "?")
        arguments = function.get("arguments", custom.get("input", ""))
        entry.calls.append(Call(str(call.get("id", "")), str(name), _arguments(arguments)))
    for block in _parts(message.get("content")):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use":
            name, arguments = str(block.get("name", "?")), _arguments(block.get("input", {}))
            entry.calls.append(Call(str(block.get("id", "")), name, arguments))
        elif block.get("type") == "tool_result":
            entry.answers.append(
                Answer(
                    str(block.get("tool_use_id", "")),
                    _result_text(block.get("content", "")),
                    block.get("is_error") is True,
                )
            )
    return entry


def _arguments(value: Any) -> str:
    """Arguments as the text a reader checks: a JSON string as sent, an object (Anthropic's
    ``input``) as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _result_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_part_text(part) for part in value)
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Pairing:
    """Which entry answers which call, and what is wrong (indices are positions in the list)."""

    calls: dict[str, tuple[Call, int]]  # call id -> (the call, the index of its entry)
    answered_by: dict[str, int]  # call id -> the index of the entry that answers it
    problems: dict[tuple[int, str], str]  # (entry index, call id) -> "orphan", "twice", "late"
    unanswered: list[str]
    tool_role: list[int]  # Anthropic: entries that send a result as a role of their own

    @property
    def orphans(self) -> list[int]:
        return sorted({index for (index, _), kind in self.problems.items() if kind == "orphan"})

    @property
    def answered_twice(self) -> list[int]:
        return sorted({index for (index, _), kind in self.problems.items() if kind == "twice"})


def pair(entries: list[Entry], format: str) -> Pairing:
    """Pair answers with calls by id, in order; an answer before its call is an orphan."""
    calls: dict[str, tuple[Call, int]] = {}
    answered_by: dict[str, int] = {}
    problems: dict[tuple[int, str], str] = {}
    for entry in entries:
        for call in entry.calls:
            calls.setdefault(call.id, (call, entry.index))
        for answer in entry.answers:
            where = (entry.index, answer.call_id)
            if answer.call_id not in calls:
                problems[where] = "orphan"
            elif answer.call_id in answered_by:
                problems[where] = "twice"
            else:
                answered_by[answer.call_id] = entry.index
                if format == "anthropic" and entry.index != calls[answer.call_id][1] + 1:
                    problems[where] = "late"
    unanswered = [call_id for call_id in calls if call_id not in answered_by]
    tool_role = [e.index for e in entries if format == "anthropic" and e.role == "tool"]
    return Pairing(calls, answered_by, problems, unanswered, tool_role)
