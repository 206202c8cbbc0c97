"""A conversation drawn as plain text, in any of the course's three APIs (no ipywidgets here).

``ConversationView`` (``conversation.py``) is this text plus live HTML; the grading side draws a
failed scenario's conversation with ``ConversationText`` alone, so a check never imports
ipywidgets. ``transcript.py`` reads the three formats into one shape.
"""

from __future__ import annotations

import json
from typing import Any

from course_lib.i18n import translate
from course_lib.widgets.base import colour, indent
from course_lib.widgets.transcript import (
    ANSWER_ROLES,
    Answer,
    Call,
    Entry,
    Pairing,
    as_dict,
    conversation_format,
    pair,
    read,
)

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


class ConversationText:
    """A transcript as text: roles, text, tool calls and their answers, and what is wrong.

    Give it a Chat Completions ``messages`` list, a list of Responses items, or an Anthropic
    ``messages`` list (dicts or SDK objects), or an ``AgentResult`` from ``run_agent``.
    """

    def __init__(self, messages: Any = ()) -> None:
        self.update(messages)

    def update(self, messages: Any) -> None:
        """Read ``messages`` (a list, or anything with ``.messages`` such as an AgentResult)."""
        self.result = messages if hasattr(messages, "messages") else None
        raw = messages.messages if self.result is not None else messages
        self.messages: list[dict[str, Any]] = [as_dict(m) for m in raw]
        self.format = conversation_format(self.messages)
        self.entries: list[Entry] = read(self.messages)
        self.analysis: Pairing = pair(self.entries, self.format)
        self.colours = {call_id: colour(n) for n, call_id in enumerate(self.analysis.calls)}

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

    def __repr__(self) -> str:
        return self.text()

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
