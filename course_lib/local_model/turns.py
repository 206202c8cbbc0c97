"""What a policy sees and what it says: the request it answers and the assistant turn it returns.

The local model separates *deciding* (a policy) from *speaking the wire protocol* (the endpoint).
A policy receives a validated :class:`ChatRequest` and returns a :class:`Turn`: some text, some
tool calls, or both. Everything about ids, JSON, streaming and usage happens elsewhere, so a
policy is a small, readable piece of logic.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol, Union

ToolChoice = Union[str, dict]  # "auto" | "none" | "required" | {"name": ...}


@dataclass(frozen=True)
class ToolCall:
    """One call the assistant asks for. ``arguments`` is the exact JSON *string* sent on the wire.

    Build one with :meth:`of` from Python values; use the constructor directly only when the
    string itself matters (for example malformed JSON injected as a fault).
    """

    name: str
    arguments: str

    @classmethod
    def of(cls, name: str, arguments: dict[str, Any] | None = None) -> ToolCall:
        return cls(name, json.dumps(arguments or {}, ensure_ascii=False))

    def parsed(self) -> dict[str, Any] | None:
        """The arguments as a dict, or None when they are not a JSON object."""
        try:
            value = json.loads(self.arguments)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def key(self) -> tuple[str, str]:
        """Identity for "the same call": name plus canonical JSON of the arguments."""
        value = self.parsed()
        if value is None:
            return (self.name, self.arguments)
        return (self.name, json.dumps(value, sort_keys=True, ensure_ascii=False))


@dataclass(frozen=True)
class Turn:
    """One assistant reply: ``content`` (text or None) and ``tool_calls`` (possibly empty).

    ``parts`` says where the text breaks into blocks: the Anthropic Messages API may answer in
    several ``text`` blocks (the real API splits its text around citations and server tool
    calls), and code that reads only the first one loses the rest. Build such a turn with
    :meth:`in_blocks`; the OpenAI APIs, whose text is one string, send the parts joined.
    """

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    parts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.content is None and not self.tool_calls:
            raise ValueError("a Turn needs text, tool calls, or both; got neither")
        if self.parts and ("".join(self.parts) != self.content or not all(self.parts)):
            raise ValueError("a Turn's parts are non-empty texts that join to its content")

    @classmethod
    def in_blocks(cls, *parts: str, tool_calls: tuple[ToolCall, ...] = ()) -> Turn:
        """A turn whose text comes back as one Anthropic ``text`` block per part, e.g.
        ``Turn.in_blocks("Paris is cloudy.", " London has rain.")``."""
        return cls("".join(parts), tuple(tool_calls), tuple(parts))

    def text_blocks(self, text: str | None) -> list[str]:
        """``text`` (this turn's text, or the start of it when a limit cut it) split where
        :attr:`parts` break it: whole parts, then what is left of the next one."""
        if not text:
            return []
        if len(self.parts) < 2 or not (self.content or "").startswith(text):
            return [text]
        blocks, start = [], 0
        for part in self.parts:
            if start >= len(text):
                break
            blocks.append(text[start : start + len(part)])
            start += len(part)
        return blocks

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.tool_calls else "stop"


@dataclass(frozen=True)
class OutputFormat:
    """Structured output asked for: ``kind`` is ``"json_schema"`` or ``"json_object"``.

    Chat Completions' ``response_format`` and Responses' ``text.format`` both become one of
    these; ``schema`` is ``None`` for ``json_object`` (any JSON object will do).
    """

    kind: str
    name: str = "response"
    schema: dict[str, Any] | None = None
    strict: bool = False


@dataclass(frozen=True)
class ChatRequest:
    """The parts of a validated request a policy may look at, whichever API it came through.

    Chat Completions, Responses and Anthropic Messages requests are all brought to this one
    shape (Chat Completions messages), so one policy answers all three the same way.
    ``tools`` holds the ``function`` objects (``name``, ``description``, ``parameters``,
    ``strict``) of the request's tools; ``tool_choice`` is ``"auto"``, ``"none"``,
    ``"required"`` or ``{"name": <tool>}``; ``output_format`` is the structured output asked
    for, if any.
    """

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: ToolChoice = "auto"
    parallel_tool_calls: bool = True
    output_format: OutputFormat | None = None
    # (id of ``tools``, a name for what they were made from that no other tools get): lets a
    # policy key its plans without writing the tools out again. Only good while ``tools`` is
    # that list.
    tools_key: tuple[int, str] | None = field(default=None, compare=False, repr=False)

    def tools_identity(self) -> Any:
        """What tells this request's tools from others': the key they came with, or the
        tools themselves (a request whose ``tools`` were replaced since)."""
        known = self.tools_key
        if known is not None and known[0] == id(self.tools):
            return ("tools made from", known[1])
        return self.tools

    def tool(self, name: str) -> dict[str, Any] | None:
        return next((tool for tool in self.tools if tool.get("name") == name), None)


class Policy(Protocol):
    """Anything that can answer a request with a turn: HeuristicPolicy, ScriptedPolicy, yours."""

    def respond(self, request: ChatRequest) -> Turn: ...
