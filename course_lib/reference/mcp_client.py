"""An MCP server's tools in the agent loop: listed, converted to OpenAI tools, called, answered.

The other direction of lesson 08: a program that *uses* MCP servers is a client. It lists a
server's tools (``session.list_tools()``), offers them to the model as Chat Completions tools,
and routes every call the model makes back to the server (``session.call_tool``), whose result
becomes the ``role: "tool"`` message.

Three things need care on the way:

- **names**: MCP allows up to 128 characters and dots (``tags.list``), Chat Completions
  accepts ``^[a-zA-Z0-9_-]{1,64}$``, and two servers may both offer ``search_notes``. Names are
  made valid, prefixed per server when asked, and made unique; the tools keep the order of the
  listing, so the name the model uses maps back to the server's by position.
- **results**: a result is a list of content blocks; the model reads their text, joined. A
  result may also carry ``structuredContent`` (data that fits the tool's ``outputSchema``),
  which servers are asked to repeat as a text block; when a result has no text at all, the
  model reads that data as JSON instead of an empty string.
- **errors** come two ways: a result with ``isError: true`` (the tool failed and says why) and
  a protocol error the SDK raises as ``mcp.MCPError`` (an unknown tool, a timeout). Both go
  back to the model as ``{"error": ...}``, the convention of lesson 04, and the loop goes on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from .loop import tool_call_to_dict

__all__ = [
    "MAX_NAME_LENGTH",
    "MultiServerSession",
    "mcp_tools_to_openai",
    "openai_names",
    "result_text",
    "run_agent_with_mcp",
    "tool_content",
]

MAX_NAME_LENGTH = 64
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")
MESSAGES = {
    "no_answer": "run_agent_with_mcp: no answer after {turns} model turns; the model kept "
    "calling tools. Raise max_turns, or look at the tool results it got.",
    "not_json": "The arguments are not valid JSON ({error}); send one JSON object.",
    "unknown_prefix": "{name!r} belongs to no server of this session; the tools are {names}.",
}


def openai_names(names: Iterable[str], *, prefix: str | None = None) -> list[str]:
    """``names`` made valid for Chat Completions and unique, in the same order.

    Each name gets ``prefix_`` in front when a prefix is given; every character outside
    ``[A-Za-z0-9_-]`` becomes ``_`` (``tags.list`` -> ``tags_list``, ``笔记`` -> ``__``); the
    result is cut to 64 characters; a name already taken gets ``_2``, ``_3``, ... (the first one
    free), cut first so that it still fits.
    """
    taken: set[str] = set()
    result = []
    for name in names:
        full = f"{prefix}_{name}" if prefix is not None else name
        base = _NOT_ALLOWED.sub("_", full)[:MAX_NAME_LENGTH]
        candidate, number = base, 2
        while candidate in taken:
            suffix = f"_{number}"
            candidate = base[: MAX_NAME_LENGTH - len(suffix)] + suffix
            number += 1
        taken.add(candidate)
        result.append(candidate)
    return result


def mcp_tools_to_openai(
    tools: Sequence[types.Tool], *, prefix: str | None = None
) -> list[dict[str, Any]]:
    """Chat Completions tools for MCP ``tools`` (as ``list_tools()`` returns them), in order.

    ``parameters`` is the tool's ``inputSchema`` as the server sent it, and ``description`` its
    description (``""`` when it has none). See ``openai_names`` for the names.
    """
    names = openai_names([tool.name for tool in tools], prefix=prefix)
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": tool.description or "",
                "parameters": tool.input_schema,
            },
        }
        for name, tool in zip(names, tools, strict=True)
    ]


def result_text(result: types.CallToolResult) -> str:
    """The text of a result's text blocks, joined by newlines (other blocks carry no text); the
    JSON of its ``structuredContent`` when it has no text block but has that."""
    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    if not texts and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return "\n".join(texts)


def tool_content(result: types.CallToolResult) -> str:
    """What the model reads for ``result``: its text, or ``{"error": text}`` when ``isError``."""
    text = result_text(result)
    return json.dumps({"error": text}, ensure_ascii=False) if result.is_error else text


def protocol_error_content(error: MCPError) -> str:
    """What the model reads for a protocol error: ``{"error": <its message>}``."""
    return json.dumps({"error": str(error)}, ensure_ascii=False)


async def call_for_model(session: Any, name: str, arguments: Any) -> str:
    """Call ``name`` on ``session`` and return the tool message's content; never raises for
    what the server answers (an ``isError`` result or a protocol error)."""
    try:
        result = await session.call_tool(name, arguments)
    except MCPError as error:
        return protocol_error_content(error)
    return tool_content(result)


async def run_agent_with_mcp(
    client: Any, session: Any, question: str, *, model: str, max_turns: int = 6
) -> str:
    """Answer ``question`` with the model, running the tools of the MCP ``session``.

    ``client`` is a Chat Completions client (``make_client()``); its calls block the event loop
    while the model answers, which is fine for the local model (an ``AsyncOpenAI`` client would
    ``await`` them instead). Raises ``RuntimeError`` after ``max_turns`` turns without an answer.
    """
    listing = (await session.list_tools()).tools
    tools = mcp_tools_to_openai(listing)
    server_names = {
        tool["function"]["name"]: mcp.name for tool, mcp in zip(tools, listing, strict=True)
    }
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for _ in range(max_turns):
        reply = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = reply.choices[0].message
        calls = [tool_call_to_dict(call) for call in message.tool_calls or []]
        assistant: dict[str, Any] = {"role": "assistant", "content": message.content}
        if calls:
            assistant["tool_calls"] = calls
        messages.append(assistant)
        if not calls:
            return message.content or ""
        for call in calls:
            function = call["function"]
            name = server_names.get(function["name"], function["name"])
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except ValueError as error:
                message = MESSAGES["not_json"].format(error=error)
                content = json.dumps({"error": message}, ensure_ascii=False)
            else:
                content = await call_for_model(session, name, arguments)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    raise RuntimeError(MESSAGES["no_answer"].format(turns=max_turns))


class MultiServerSession:
    """Several MCP sessions behind one ``list_tools`` / ``call_tool``, each under a prefix.

    ``MultiServerSession({"notes": notes, "course": course})`` lists ``notes_search_notes`` and
    ``course_search_notes`` where both servers offer ``search_notes``, and sends each call to the
    server it came from under that server's own name. It quacks like a ``ClientSession`` as far
    as ``run_agent_with_mcp`` is concerned.
    """

    def __init__(self, sessions: Mapping[str, Any]) -> None:
        self.sessions = dict(sessions)
        self.routes: dict[str, tuple[Any, str]] = {}

    async def list_tools(self) -> types.ListToolsResult:
        listed: list[types.Tool] = []
        self.routes = {}
        for prefix, session in self.sessions.items():
            tools = (await session.list_tools()).tools
            names = openai_names([tool.name for tool in tools], prefix=prefix)
            for name, tool in zip(names, tools, strict=True):
                if name in self.routes:  # two prefixes that sanitise alike: keep the first
                    continue
                self.routes[name] = (session, tool.name)
                listed.append(tool.model_copy(update={"name": name}))
        return types.ListToolsResult(tools=listed)

    async def call_tool(self, name: str, arguments: Any = None, **options: Any) -> Any:
        if name not in self.routes:
            message = MESSAGES["unknown_prefix"].format(name=name, names=", ".join(self.routes))
            raise MCPError(code=types.INVALID_PARAMS, message=message)
        session, server_name = self.routes[name]
        return await session.call_tool(server_name, arguments, **options)
