"""ConversationView: a conversation drawn as what it is, in any of the course's three APIs.

The API sees a flat list; the structure that matters lives in ids. A Chat Completions tool
message answers the assistant's call with the same ``tool_call_id``; a Responses
``function_call_output`` answers the ``function_call`` with the same ``call_id``; an Anthropic
``tool_result`` block answers the ``tool_use`` block with the same id, in the next user message.
Here a call and its answer share a colour, and the mistakes the APIs refuse are flagged: a call
nobody answered, an answer to no earlier call, an answer given twice, and for Anthropic a result
sent too late or as a ``tool`` role. ``transcript.py`` reads the three formats into one shape.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from course_lib.i18n import translate
from course_lib.widgets.base import (
    ERROR_COLOUR,
    MUTED_COLOUR,
    PlainTextWidget,
    colour,
    escape,
    indent,
)
from course_lib.widgets.transcript import (
    ANSWER_ROLES,
    Answer,
    Call,
    Entry,
    Pairing,
    as_dict,
    content_text,
    conversation_format,
    pair,
    read,
)

__all__ = ["ConversationView", "as_dict", "content_text", "pretty_json"]

ROLE_COLOURS = {
    "system": "#6d4c41",
    "developer": "#6d4c41",
    "user": "#1565c0",
    "assistant": "#2e7d32",
    "tool": "#616161",
    "function_call": "#2e7d32",
    "function_call_output": "#616161",
    "reasoning": MUTED_COLOUR,
}
# What a call and an answer are called in each API.
CALL_LABELS = {"chat": "call", "responses": "function_call", "anthropic": "tool_use"}
ANSWER_LABELS = {"chat": "tool", "responses": "function_call_output", "anthropic": "tool_result"}

# Every sentence the view says, whole, with named placeholders (a translation replaces these).
TEXT = {
    "stopped": "(stopped: {stopped} after {steps} tool call(s))",
    "empty": "(no messages)",
    "unanswered_chat": "! unanswered call {id}: no tool message answers it",
    "unanswered_responses": "! unanswered call {id}: no function_call_output answers it",
    "unanswered_anthropic": "! unanswered call {id}: no tool_result answers it",
    "orphan": "  ! orphan: no earlier assistant call has the id {id}",
    "twice": "  ! call {id} was already answered",
    "late": "  ! {id} is answered, but not in the message right after its tool_use",
    "tool_role": "  ! the Messages API has no tool role: send results as tool_result blocks in "
    "a user message",
    "not_json": "    ! the arguments are not valid JSON",
    "is_error": " (is_error)",
}
HTML_TEXT = {
    "unanswered_chat": "Call {id} was never answered: add a tool message with this id.",
    "unanswered_responses": (
        "Call {id} was never answered: add a function_call_output with this call_id."
    ),
    "unanswered_anthropic": (
        "Call {id} was never answered: add a tool_result with this tool_use_id to the next user "
        "message."
    ),
    "orphan": "Orphan: no earlier assistant call has the id {id}.",
    "twice": "Call {id} was already answered.",
    "late": (
        "{id} is answered, but not in the message right after its tool_use: the Messages API "
        "wants every tool_result in that next user message."
    ),
    "tool_role": (
        "The Messages API has no tool role: send results as tool_result blocks in a user message."
    ),
    "not_json": "The arguments are not valid JSON.",
    "stopped": "stopped: {stopped}",
    "empty": "(no messages)",
}


def pretty_json(text: Any) -> tuple[str, bool]:
    """``text`` pretty-printed if it is JSON (``ensure_ascii=False``); ``(text, False)`` if not."""
    import json

    if not isinstance(text, str):
        return json.dumps(text, indent=2, ensure_ascii=False), True
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text, False
    if isinstance(value, (dict, list)):
        return json.dumps(value, indent=2, ensure_ascii=False), True
    return text, True


class ConversationView(PlainTextWidget, widgets.VBox):
    """A transcript: roles, text, tool calls and their answers paired by colour.

    Give it a Chat Completions ``messages`` list, a list of Responses items, or an Anthropic
    ``messages`` list (dicts or SDK objects), or an ``AgentResult`` from ``run_agent``;
    ``update(...)`` redraws it (for example after each loop turn).
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
        self.format = conversation_format(self.messages)
        self.entries: list[Entry] = read(self.messages)
        self.analysis: Pairing = pair(self.entries, self.format)
        self.colours = {call_id: colour(n) for n, call_id in enumerate(self.analysis.calls)}
        self.html.value = self._html()

    @property
    def unanswered(self) -> list[str]:
        """Ids of tool calls that no later answer carries."""
        return self.analysis.unanswered

    @property
    def orphans(self) -> list[int]:
        """Indices of messages or items answering a call no earlier one made."""
        return self.analysis.orphans

    def colour_of(self, call_id: str) -> str:
        """The colour a call and its answer are drawn in."""
        return self.colours[call_id]

    def _name_of(self, call_id: str) -> str:
        found = self.analysis.calls.get(call_id)
        return found[0].name if found else ""

    def _flags(self, entry: Entry) -> list[tuple[str, str]]:
        """(kind of problem, the call id it names) for each problem of ``entry``."""
        found = [
            (self.analysis.problems[(entry.index, answer.call_id)], answer.call_id)
            for answer in entry.answers
            if (entry.index, answer.call_id) in self.analysis.problems
        ]
        if entry.index in self.analysis.tool_role:
            found.append(("tool_role", ""))
        return list(dict.fromkeys(found))

    # -- plain text --------------------------------------------------------------------------

    def text(self) -> str:
        lines = []
        if self.result is not None:
            stopped = getattr(self.result, "stopped", None)
            steps = len(getattr(self.result, "steps", []))
            lines.append(translate(TEXT, "stopped", stopped=stopped, steps=steps))
        for entry in self.entries:
            lines.extend(self._entry_text(entry))
        for call_id in self.unanswered:
            lines.append(translate(TEXT, f"unanswered_{self.format}", id=call_id))
        return "\n".join(lines) if lines else translate(TEXT, "empty")

    def _entry_text(self, entry: Entry) -> list[str]:
        if entry.role in ANSWER_ROLES and len(entry.answers) == 1 and not entry.text:
            answer = entry.answers[0]
            lines = [self._answer_head(entry.role, answer) + ":"]
            lines.append(indent(pretty_json(answer.content)[0], "    "))
        else:
            lines = [f"{entry.role}: {entry.text}" if entry.text else f"{entry.role}:"]
            if entry.role == "function_call":
                lines = []
            for call in entry.calls:
                lines.extend(self._call_text(call, nested=entry.role != "function_call"))
            for answer in entry.answers:
                lines.append("  " + self._answer_head(ANSWER_LABELS[self.format], answer) + ":")
                lines.append(indent(pretty_json(answer.content)[0], "    "))
        lines += [translate(TEXT, key, id=call_id) for key, call_id in self._flags(entry)]
        return lines

    def _answer_head(self, label: str, answer: Answer) -> str:
        head = f"{label} [{answer.call_id}]"
        name = self._name_of(answer.call_id)
        head += f" {name}" if name else ""
        return head + (translate(TEXT, "is_error") if answer.is_error else "")

    def _call_text(self, call: Call, *, nested: bool) -> list[str]:
        pretty, valid = pretty_json(call.arguments)
        label = CALL_LABELS[self.format]
        lines = [f"{'  ' if nested else ''}{label} [{call.id}] {call.name}", indent(pretty, "    ")]
        return lines + ([] if valid else [translate(TEXT, "not_json")])

    # -- HTML --------------------------------------------------------------------------------

    def _html(self) -> str:
        blocks = [self._entry_html(entry) for entry in self.entries]
        for call_id in self.unanswered:
            blocks.append(_flag(translate(HTML_TEXT, f"unanswered_{self.format}", id=call_id)))
        if self.result is not None:
            stopped = translate(HTML_TEXT, "stopped", stopped=getattr(self.result, "stopped", ""))
            blocks.insert(0, f'<div style="color:{MUTED_COLOUR}">{escape(stopped)}</div>')
        empty = f'<i style="color:{MUTED_COLOUR}">{escape(translate(HTML_TEXT, "empty"))}</i>'
        body = "".join(blocks) or empty
        return f'<div class="course-transcript" style="font-size:13px">{body}</div>'

    def _entry_html(self, entry: Entry) -> str:
        flags = "".join(
            _flag(translate(HTML_TEXT, key, id=call_id)) for key, call_id in self._flags(entry)
        )
        if entry.role in ANSWER_ROLES and len(entry.answers) == 1 and not entry.text:
            # a tool message or function_call_output item *is* its answer: one box, its colour
            answer = entry.answers[0]
            return self._answer_html(entry.role, answer, entry.index, extra=flags)
        if entry.role == "function_call" and len(entry.calls) == 1:
            return self._call_html(entry.calls[0], role="function_call", extra=flags)
        role_colour = ROLE_COLOURS.get(entry.role, MUTED_COLOUR)
        parts = [f'<b style="color:{role_colour}">{escape(entry.role)}</b>']
        if entry.text:
            parts.append(f'<div style="white-space:pre-wrap">{escape(entry.text)}</div>')
        parts += [self._call_html(call, role="call") for call in entry.calls]
        label = ANSWER_LABELS[self.format]
        parts += [self._answer_html(label, answer, entry.index) for answer in entry.answers]
        return _box(role_colour, "".join(parts) + flags, role=entry.role)

    def _call_html(self, call: Call, *, role: str, extra: str = "") -> str:
        pretty, valid = pretty_json(call.arguments)
        warn = "" if valid else _flag(translate(HTML_TEXT, "not_json"))
        edge = self.colours[call.id]
        label = escape(CALL_LABELS[self.format])
        inner = (
            f'<span style="color:{MUTED_COLOUR}">{label}</span> {_badge(call.id, edge)} '
            f"<code>{escape(call.name)}</code>{_pre(pretty)}{warn}{extra}"
        )
        return _box(edge, inner, call_id=call.id, role=role)

    def _answer_html(self, label: str, answer: Answer, index: int, *, extra: str = "") -> str:
        problem = self.analysis.problems.get((index, answer.call_id))
        paired = answer.call_id in self.colours and problem != "orphan"
        edge = self.colours[answer.call_id] if paired else ERROR_COLOUR
        name = self._name_of(answer.call_id)
        error = escape(translate(TEXT, "is_error")) if answer.is_error else ""
        inner = (
            f'<b style="color:{ROLE_COLOURS.get(label, MUTED_COLOUR)}">{escape(label)}</b> '
            f"{_badge(answer.call_id, edge)}{' ' + escape(name) if name else ''}{error}"
            f"{_pre(pretty_json(answer.content)[0])}{extra}"
        )
        return _box(edge, inner, call_id=answer.call_id, role=label)


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
