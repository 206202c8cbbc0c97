"""Validating an Anthropic Messages API request and bringing it to the policy's shape.

Anthropic's API differs from OpenAI's in the places a learner trips over: ``max_tokens`` is
required; ``system`` is a top-level field, not a message; tools carry ``input_schema``; the
assistant asks for a call with a ``tool_use`` content block (``id``, ``name``, ``input`` as an
object) and the **next user message** answers it with a ``tool_result`` block (``tool_use_id``,
``content``, ``is_error``), before any text of that message. Roles take turns: consecutive
messages of one role are combined into one turn, as the real API documents (so results sent one
user message each still arrive, merged), and the pairing rules apply to the combined turns.
Mistakes get Anthropic's own 400s, worded ``field.path: what is wrong`` (their catalog and the
one-field checks: ``anthropic_errors.py``), in Anthropic's error shape (``messages_reply.py``).

The conversation becomes Chat Completions messages (``tool_use`` -> ``tool_calls``,
``tool_result`` -> tool messages; a result with ``is_error`` reads as ``{"error": ...}``), so
the same policy answers all three APIs alike.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from course_lib.local_model import anthropic_options
from course_lib.local_model.anthropic_errors import checked, fail
from course_lib.local_model.limits import tools_tokens
from course_lib.local_model.memo import Memo, exact_key
from course_lib.local_model.tool_schemas import check_keywords
from course_lib.local_model.turns import ChatRequest

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
USER_BLOCKS = ("text", "image", "document", "tool_result")
ASSISTANT_BLOCKS = ("text", "tool_use", "thinking", "redacted_thinking")
CHOICES = ("auto", "any", "tool", "none")
MAX_TOOLS = 128
# Tools lists that passed the checks, by their exact text: their token count. A tool loop sends
# the same tools with every request.
# Tools lists that passed: their token count, and a name no other list gets (a plan's key).
TOOLS_PASSED: Memo[tuple[int, str]] = Memo(256)
_TOOLS_SEEN = itertools.count(1)


@dataclass
class MessagesCall:
    """A validated Messages request: what the policy sees, and what the reply needs."""

    request: ChatRequest
    model: str
    max_tokens: int
    stop_sequences: tuple[str, ...] = ()
    tools: list[dict[str, Any]] = field(default_factory=list)  # as sent, for the token count
    inference_geo: str = "global"  # where the reply says it was made
    tools_counted: int | None = None  # limits.tools_tokens(tools), when counted already


def check_version(versioned: bool) -> None:
    """The real API refuses a request without ``anthropic-version`` (the SDK always sends it)."""
    if not versioned:
        raise fail("version")


def validate(body: dict[str, Any]) -> MessagesCall:
    """Check a Messages request body; raise ProtocolError as Anthropic's API would."""
    model = checked(body, "model", "string", null_is_missing=True)
    max_tokens = checked(body, "max_tokens", "integer", null_is_missing=True)
    if max_tokens < 1:
        raise fail("positive", field="max_tokens")
    anthropic_options.check_max_tokens(max_tokens, model)
    messages = checked(body, "messages", "list", null_is_missing=True)
    if not messages:
        raise fail("no_messages")
    for index, message in enumerate(messages):
        _check_message(index, message, last=index == len(messages) - 1)
    _check_final_whitespace(messages[-1])
    messages = combine_turns(messages)
    _check_pairing(messages)
    system = _system_text(body.get("system"))
    tools, counted, tools_key = _check_tools(body.get("tools"))
    tool_choice, parallel = _check_tool_choice(body.get("tool_choice"), tools)
    stop_sequences = anthropic_options.check_options(body)
    anthropic_options.check_known(body)  # reported after every other problem, as measured
    chat = ([{"role": "system", "content": system}] if system else []) + to_messages(messages)
    request = ChatRequest(model, chat, tools, tool_choice, parallel)
    if tools_key is not None:  # the policy keys its plans by it instead of tools' repr again
        request = replace(request, tools_key=(id(tools), tools_key))
    geo = body.get("inference_geo") or "global"
    sent = body.get("tools") or []
    return MessagesCall(request, model, max_tokens, stop_sequences, sent, geo, counted)


# -- messages -------------------------------------------------------------------------------------


def _check_message(index: int, message: Any, *, last: bool) -> None:
    where = f"messages.{index}"
    if not isinstance(message, dict):
        raise fail("dict", field=where)
    role = checked(message, "role", None, where, null_is_missing=True)
    if role not in ("user", "assistant"):
        raise fail("role", field=f"{where}.role")
    content = checked(message, "content", None, where)
    if isinstance(content, str):
        if not content and not (last and role == "assistant"):
            raise fail("empty", index=index)
        return
    if not isinstance(content, list):
        raise fail("list", field=f"{where}.content")
    if not content and not (last and role == "assistant"):
        raise fail("empty", index=index)
    allowed = USER_BLOCKS if role == "user" else ASSISTANT_BLOCKS
    for position, block in enumerate(content):
        _check_block(f"{where}.content.{position}", block, allowed)


def _check_block(where: str, block: Any, allowed: tuple[str, ...]) -> None:
    if not isinstance(block, dict):
        raise fail("dict", field=where)
    tag = checked(block, "type", None, where, null_is_missing=True)
    if tag not in allowed:
        tags = ", ".join(f"'{t}'" for t in allowed)
        raise fail("block_tag", field=where, tag=str(tag)[:80], tags=tags)
    check = _BLOCK_CHECKS.get(tag)
    if check is not None:
        check(where, block)


def _check_text(where: str, block: dict) -> None:
    text = checked(block, "text", "string", where)
    if not text.strip():
        part = where.split(".", 1)[0]  # "messages" (measured), or "system" by analogy
        raise fail("empty_text" if not text else "blank_text", part=part)


def _check_tool_use(where: str, block: dict) -> None:
    for key, kind in (("id", "string"), ("name", "string"), ("input", "dict")):
        checked(block, key, kind, where)


def _check_tool_result(where: str, block: dict) -> None:
    checked(block, "tool_use_id", "string", where)
    content = block.get("content", "")
    if not isinstance(content, (str, list)):
        raise fail("list", field=f"{where}.content")
    if isinstance(content, list):
        for position, part in enumerate(content):
            _check_block(f"{where}.content.{position}", part, ("text", "image", "document"))
    if "is_error" in block:
        checked(block, "is_error", "boolean", where)


_BLOCK_CHECKS = {
    "text": _check_text,
    "tool_use": _check_tool_use,
    "tool_result": _check_tool_result,
}


def _check_final_whitespace(message: dict) -> None:
    """A final assistant message (a prefill the reply continues) may not end in whitespace."""
    if message["role"] != "assistant":
        return
    content = message["content"]
    last = content if isinstance(content, str) else (content[-1] if content else None)
    if isinstance(last, dict):
        last = last.get("text") if last.get("type") == "text" else None
    if isinstance(last, str) and last != last.rstrip():
        raise fail("trailing_whitespace")


def _blocks(message: dict, tag: str) -> list[dict]:
    content = message["content"]
    return [b for b in content if b["type"] == tag] if isinstance(content, list) else []


def _as_blocks(content: Any) -> list[dict]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def combine_turns(messages: list[dict]) -> list[dict]:
    """Consecutive messages of one role as one turn, their content blocks in order."""
    turns: list[dict] = []
    for message in messages:
        if turns and turns[-1]["role"] == message["role"]:
            previous = turns[-1]
            content = [*_as_blocks(previous["content"]), *_as_blocks(message["content"])]
            turns[-1] = {**previous, "content": content}
        else:
            turns.append(message)
    return turns


def _check_pairing(messages: list[dict]) -> None:
    """Each ``tool_use`` is answered at the very start of the next turn, and each
    ``tool_result`` answers a ``tool_use`` of the turn right before it."""
    for index, message in enumerate(messages):
        asked = [b["id"] for b in _blocks(messages[index - 1], "tool_use")] if index else []
        if message["role"] == "user":
            content = message["content"] if isinstance(message["content"], list) else []
            for position, block in enumerate(content):
                if block["type"] == "tool_result" and block["tool_use_id"] not in asked:
                    raise fail(
                        "unknown_result", index=index, position=position, id=block["tool_use_id"]
                    )
        if message["role"] == "assistant":
            ids = [b["id"] for b in _blocks(message, "tool_use")]
            following = messages[index + 1] if index + 1 < len(messages) else None
            answered = (
                {b["tool_use_id"] for b in _blocks(following, "tool_result")}
                if following
                else set()
            )
            open_ids = [i for i in ids if i not in answered]
            if open_ids:
                raise fail("unanswered", index=index, ids=", ".join(open_ids))
            leading = _as_blocks(following["content"])[: len(ids)] if following and ids else []
            if any(block["type"] != "tool_result" for block in leading):
                raise fail("results_first", index=index + 1, count=len(ids))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")


def to_messages(messages: list[dict]) -> list[dict[str, Any]]:
    """The conversation as Chat Completions messages (see the module docstring)."""
    chat: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "assistant":
            calls = [
                {
                    "id": block["id"],
                    "type": "function",
                    "function": {
                        "name": block["name"],
                        "arguments": json.dumps(block["input"], ensure_ascii=False),
                    },
                }
                for block in _blocks(message, "tool_use")
            ]
            text = _text(message["content"])
            turn: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                turn["tool_calls"] = calls
            elif not text:
                turn["content"] = ""
            chat.append(turn)
            continue
        results = _blocks(message, "tool_result")
        if not results:
            chat.append({"role": "user", "content": _text(message["content"])})
        for block in results:  # text beside tool results is not a new question
            chat.append(
                {"role": "tool", "tool_call_id": block["tool_use_id"], "content": _result(block)}
            )
    return chat


def _result(block: dict) -> str:
    """The result as a tool message reads: an ``is_error`` result becomes ``{"error": ...}``,
    unless its text already is such an object (a registry's error result, sent as it is)."""
    text = _text(block.get("content", ""))
    if not block.get("is_error") or _is_error_object(text):
        return text
    return json.dumps({"error": text}, ensure_ascii=False)


def _is_error_object(text: str) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and "error" in value


def _system_text(system: Any) -> str:
    if system is None:
        return ""
    if isinstance(system, str):
        return system
    if not isinstance(system, list):
        raise fail("string", field="system")
    for position, block in enumerate(system):
        _check_block(f"system.{position}", block, ("text",))
    return _text(system)


# -- tools, tool_choice, options ------------------------------------------------------------------


def _check_tools(tools: Any) -> tuple[list[dict[str, Any]], int, str | None]:
    """The tools as functions for the policy, the token count of their JSON, and a name for the
    tools as sent that no other list gets (the functions follow from them, so the policy may
    key its plans by it). A list that passed before (the same text) is not checked again."""
    if tools is None:
        return [], 0, None
    counted, name = TOOLS_PASSED.get_or_make(
        exact_key(tools), lambda: (_checked_count(tools), f"anthropic tools #{next(_TOOLS_SEEN)}")
    )
    functions = [
        {
            "name": t["name"],
            "description": t.get("description") or "",
            "parameters": t["input_schema"],
        }
        for t in tools
    ]
    return functions, counted, name


def _checked_count(tools: Any) -> int:
    """Raise for the first thing wrong with ``tools`` as the real API does; else count them."""
    if not isinstance(tools, list):
        raise fail("list", field="tools")
    if len(tools) > MAX_TOOLS:
        raise fail("too_many_tools", limit=MAX_TOOLS, n=len(tools))
    names: set[str] = set()
    for index, tool in enumerate(tools):
        where = f"tools.{index}"
        if not isinstance(tool, dict):
            raise fail("dict", field=where)
        tag = tool.get("type", "custom")
        if tag != "custom":
            raise fail("server_tool", field=where, tag=str(tag)[:80])
        where = f"{where}.custom"
        name = checked(tool, "name", None, where, null_is_missing=True)
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            raise fail("tool_name", field=f"{where}.name")
        if "description" in tool:
            checked(tool, "description", "string", where)
        schema = checked(tool, "input_schema", "dict", where, null_is_missing=True)
        if schema.get("type") != "object":
            raise fail("schema_object", field=f"{where}.input_schema.type")
        check_keywords(f"tool '{name}'", schema, param=f"{where}.input_schema", code=None)
        if name in names:
            raise fail("duplicate_tool", name=name)
        names.add(name)
    return tools_tokens(tools)


def _check_tool_choice(choice: Any, tools: list[dict]) -> tuple[Any, bool]:
    """(tool_choice for the policy, whether parallel calls are allowed)."""
    if choice is None:
        return "auto", True
    if not isinstance(choice, dict):
        raise fail("dict", field="tool_choice")
    tag = checked(choice, "type", None, "tool_choice", null_is_missing=True)
    if tag not in CHOICES:
        raise fail("choice_tag", tag=str(tag)[:80])
    disable = False
    if "disable_parallel_tool_use" in choice:
        disable = checked(choice, "disable_parallel_tool_use", "boolean", "tool_choice")
    if tag in ("any", "tool") and not tools:
        raise fail("choice_without_tools")
    if tag == "tool":
        name = checked(choice, "name", None, "tool_choice", null_is_missing=True)
        names = [tool["name"] for tool in tools]
        if name not in names:
            raise fail("choice_unknown", name=str(name)[:80], names=", ".join(names))
        return {"name": name}, not disable
    return {"auto": "auto", "any": "required", "none": "none"}[tag], not disable
