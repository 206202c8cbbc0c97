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
from course_lib.widgets.base import ERROR_COLOUR, MUTED_COLOUR, PlainTextWidget, escape
from course_lib.widgets.conversation_text import (
    ANSWER_LABELS,
    CALL_LABELS,
    TEXT,
    ConversationText,
    pretty_json,
)
from course_lib.widgets.transcript import ANSWER_ROLES, Answer, Call, Entry, as_dict, content_text

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


class ConversationView(ConversationText, PlainTextWidget, widgets.VBox):
    """A transcript: roles, text, tool calls and their answers paired by colour.

    Give it a Chat Completions ``messages`` list, a list of Responses items, or an Anthropic
    ``messages`` list (dicts or SDK objects), or an ``AgentResult`` from ``run_agent``;
    ``update(...)`` redraws it (for example after each loop turn). Its text is
    ``ConversationText``'s.
    """

    def __init__(self, messages: Any = ()) -> None:
        self.html = widgets.HTML()
        self.html.add_class("course-conversation-html")
        widgets.VBox.__init__(self, children=[self.html])
        self.add_class("course-widget")
        self.add_class("course-conversation")
        self.update(messages)

    def update(self, messages: Any) -> None:
        """Show ``messages`` (a list, or anything with ``.messages`` such as an AgentResult)."""
        super().update(messages)
        self.html.value = self._html()

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
