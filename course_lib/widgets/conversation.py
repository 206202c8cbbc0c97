"""ConversationView: a ``messages`` list drawn as the conversation it is.

The API sees a flat list of dicts; the structure that matters lives in ids: each ``role: "tool"``
message answers the assistant's tool call with the same ``tool_call_id``. Here a call and its
answer share a colour, and the two classic mistakes are flagged: a call nobody answered (the API
rejects the next request) and a tool message that answers no earlier call (rejected too).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from course_lib.widgets.base import (
    ERROR_COLOUR,
    MUTED_COLOUR,
    PlainTextWidget,
    colour,
    escape,
    indent,
)

ROLE_COLOURS = {"system": "#6d4c41", "user": "#1565c0", "assistant": "#2e7d32", "tool": "#616161"}


def as_dict(message: Any) -> dict[str, Any]:
    """A message as a plain dict (SDK message objects are pydantic models)."""
    if isinstance(message, dict):
        return message
    if hasattr(message, "model_dump"):
        return message.model_dump(exclude_none=True)
    raise TypeError(f"a message must be a dict or an SDK message object, got {type(message)}")


def content_text(content: Any) -> str:
    """A message's content as text: a string, a list of content parts, or None."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", json.dumps(part, ensure_ascii=False))
            if isinstance(part, dict)
            else str(part)
            for part in content
        )
    return str(content)


def pretty_json(text: Any) -> tuple[str, bool]:
    """``text`` pretty-printed if it is JSON (``ensure_ascii=False``); ``(text, False)`` if not."""
    if not isinstance(text, str):
        return json.dumps(text, indent=2, ensure_ascii=False), True
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text, False
    if isinstance(value, (dict, list)):
        return json.dumps(value, indent=2, ensure_ascii=False), True
    return text, True


@dataclass(frozen=True)
class CallInfo:
    """One tool call found in an assistant message."""

    id: str
    name: str
    arguments: str
    message_index: int
    colour: str


@dataclass(frozen=True)
class Analysis:
    """Calls (in order), which tool message answers which call, and what is wrong."""

    calls: dict[str, CallInfo]
    answers: dict[int, str]  # tool message index -> the call id it answers
    unanswered: list[str]
    orphans: list[int]  # indices of tool messages that answer no earlier call
    answered_twice: list[int]


def analyse(messages: list[dict[str, Any]]) -> Analysis:
    """Pair tool calls with their answers by ``tool_call_id``; colours are given by call order."""
    calls: dict[str, CallInfo] = {}
    answers: dict[int, str] = {}
    orphans: list[int] = []
    twice: list[int] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                call_id = str(call.get("id", ""))
                function = call.get("function") or {}
                name = function.get("name") or call.get("type", "?")
                custom = call.get("custom") or {}
                arguments = function.get("arguments", custom.get("input", ""))
                calls[call_id] = CallInfo(call_id, name, arguments, index, colour(len(calls)))
        elif role == "tool":
            call_id = str(message.get("tool_call_id", ""))
            if call_id not in calls:
                orphans.append(index)
            elif call_id in answers.values():
                twice.append(index)
            else:
                answers[index] = call_id
    answered = set(answers.values())
    unanswered = [call_id for call_id in calls if call_id not in answered]
    return Analysis(calls, answers, unanswered, orphans, twice)


class ConversationView(PlainTextWidget, widgets.VBox):
    """A chat transcript: roles, text, tool calls and their results paired by colour.

    Give it a ``messages`` list (dicts or SDK message objects) or an ``AgentResult`` from
    ``run_agent``; ``update(messages)`` redraws it (for example after each loop turn).
    """

    def __init__(self, messages: Any = ()) -> None:
        self.html = widgets.HTML()
        self.html.add_class("course-conversation-html")
        super().__init__(children=[self.html])
        self.add_class("course-widget")
        self.add_class("course-conversation")
        self.update(messages)

    def update(self, messages: Any) -> None:
        """Show ``messages`` (a list, or anything with ``.messages`` such as an AgentResult)."""
        self.result = messages if hasattr(messages, "messages") else None
        raw = messages.messages if self.result is not None else messages
        self.messages: list[dict[str, Any]] = [as_dict(m) for m in raw]
        self.analysis = analyse(self.messages)
        self.html.value = self._html()

    @property
    def unanswered(self) -> list[str]:
        """Ids of tool calls that no later tool message answers."""
        return self.analysis.unanswered

    @property
    def orphans(self) -> list[int]:
        """Indices of tool messages whose ``tool_call_id`` matches no earlier call."""
        return self.analysis.orphans

    def colour_of(self, call_id: str) -> str:
        """The colour a call and its answer are drawn in."""
        return self.analysis.calls[call_id].colour

    # -- plain text --------------------------------------------------------------------------

    def text(self) -> str:
        lines = []
        if self.result is not None:
            stopped = getattr(self.result, "stopped", None)
            steps = len(getattr(self.result, "steps", []))
            lines.append(f"(stopped: {stopped} after {steps} tool call(s))")
        for index, message in enumerate(self.messages):
            lines.extend(self._message_text(index, message))
        for call_id in self.unanswered:
            lines.append(f"! unanswered call {call_id}: no tool message answers it")
        return "\n".join(lines) if lines else "(no messages)"

    def _message_text(self, index: int, message: dict[str, Any]) -> list[str]:
        role = message.get("role", "?")
        text = content_text(message.get("content"))
        if role == "tool":
            call_id = str(message.get("tool_call_id", ""))
            head = f"tool [{call_id}]"
            call = self.analysis.calls.get(call_id)
            if call is not None:
                head += f" {call.name}"
            lines = [head + ":"]
            lines.append(indent(pretty_json(text)[0], "    "))
            if index in self.analysis.orphans:
                lines.append(f"  ! orphan: no earlier assistant call has the id {call_id}")
            if index in self.analysis.answered_twice:
                lines.append(f"  ! call {call_id} was already answered")
            return lines
        lines = [f"{role}: {text}" if text else f"{role}:"]
        for call in message.get("tool_calls") or []:
            info = self.analysis.calls[str(call.get("id", ""))]
            pretty, valid = pretty_json(info.arguments)
            lines.append(f"  call [{info.id}] {info.name}")
            lines.append(indent(pretty, "    "))
            if not valid:
                lines.append("    ! the arguments are not valid JSON")
        return lines

    # -- HTML --------------------------------------------------------------------------------

    def _html(self) -> str:
        blocks = [self._message_html(i, m) for i, m in enumerate(self.messages)]
        for call_id in self.unanswered:
            blocks.append(
                _flag(f"Call {call_id} was never answered: add a tool message with this id.")
            )
        if self.result is not None:
            stopped = escape(getattr(self.result, "stopped", ""))
            blocks.insert(0, f'<div style="color:{MUTED_COLOUR}">stopped: {stopped}</div>')
        body = "".join(blocks) or f'<i style="color:{MUTED_COLOUR}">(no messages)</i>'
        return f'<div class="course-transcript" style="font-size:13px">{body}</div>'

    def _message_html(self, index: int, message: dict[str, Any]) -> str:
        role = str(message.get("role", "?"))
        role_colour = ROLE_COLOURS.get(role, MUTED_COLOUR)
        text = content_text(message.get("content"))
        parts = [f'<b style="color:{role_colour}">{escape(role)}</b>']
        flags = []
        if role == "tool":
            call_id = str(message.get("tool_call_id", ""))
            call = self.analysis.calls.get(call_id)
            edge = call.colour if call and index not in self.analysis.orphans else ERROR_COLOUR
            name = f" {escape(call.name)}" if call else ""
            parts.append(_badge(call_id, edge) + name)
            parts.append(_pre(pretty_json(text)[0]))
            if index in self.analysis.orphans:
                flags.append(_flag(f"Orphan: no earlier assistant call has the id {call_id}."))
            if index in self.analysis.answered_twice:
                flags.append(_flag(f"Call {call_id} was already answered."))
            return _box(edge, "".join(parts) + "".join(flags), call_id=call_id, role=role)
        if text:
            parts.append(f'<div style="white-space:pre-wrap">{escape(text)}</div>')
        for call in message.get("tool_calls") or []:
            info = self.analysis.calls[str(call.get("id", ""))]
            pretty, valid = pretty_json(info.arguments)
            warn = "" if valid else _flag("The arguments are not valid JSON.")
            parts.append(
                _box(
                    info.colour,
                    f"{_badge(info.id, info.colour)} <code>{escape(info.name)}</code>"
                    f"{_pre(pretty)}{warn}",
                    call_id=info.id,
                    role="call",
                )
            )
        return _box(role_colour, "".join(parts), role=role)


def _box(edge: str, inner: str, *, role: str, call_id: str | None = None) -> str:
    data = f' data-call-id="{escape(call_id)}"' if call_id is not None else ""
    return (
        f'<div class="course-msg course-{escape(role)}"{data} style="border-left:4px solid '
        f'{edge};padding:2px 8px;margin:4px 0">{inner}</div>'
    )


def _badge(call_id: str, background: str) -> str:
    return (
        f'<span class="course-call-badge" style="background:{background};color:white;'
        f'border-radius:3px;padding:0 4px;font-family:monospace">{escape(call_id)}</span>'
    )


def _pre(text: str) -> str:
    return f'<pre style="margin:2px 0;white-space:pre-wrap">{escape(text)}</pre>'


def _flag(message: str) -> str:
    return f'<div class="course-flag" style="color:{ERROR_COLOUR}">⚠ {escape(message)}</div>'
