"""The conversations 08.3's check holds with ``run_agent_with_mcp``, and what each must send.

The learner's loop talks to two things: a model session on the check's side (so every request
is seen here) and the course's notes server, started over stdio beside the learner's code. To
know what each tool message must hold, the check replays every call the model asked for on a
notes book of its own (``NotesBook``): the server is that book behind MCP, it starts from the
same four notes, and the conversations only read, so the two agree call for call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from random import Random
from typing import Any

import mcp_types as types

from course_lib.local_model import HeuristicPolicy, ScriptedPolicy, call
from course_lib.local_model.turns import ChatRequest, ToolCall, Turn
from course_lib.mcp_servers.notes_book import NotesBook, UnknownTool
from course_lib.reference.mcp_client import mcp_tools_to_openai

MAX_TURNS = 6  # the default of run_agent_with_mcp's max_turns
ENDLESS_CAP = 12  # the endless model gives up here, so a loop without a limit still ends


class EndlessPolicy:
    """A model that always asks for one more search, until ``ENDLESS_CAP`` turns."""

    def respond(self, request: ChatRequest) -> Turn:
        turns = sum(1 for m in request.messages if m.get("role") == "assistant")
        if turns >= ENDLESS_CAP:
            return Turn("I give up.")
        return Turn(None, (ToolCall.of("search_notes", {"keyword": f"北京 {turns + 1}"}),))


@dataclass(frozen=True)
class Conversation:
    question: str
    policy: Any
    endless: bool = False


def visible_conversations() -> list[Conversation]:
    both = [call("search_notes", keyword="豆腐"), call("list_notes")]
    invented = call("search_note", keyword="北京")
    # a name in the question's language: the server's protocol error repeats it, so a loop that
    # lets json.dumps escape it (its default ensure_ascii=True) sends \u641c... to the model
    invented_here = call("搜索笔记", keyword="北京")
    return [
        Conversation("Find my notes about 北京", HeuristicPolicy()),
        Conversation("Which tags do I use?", HeuristicPolicy()),
        Conversation("豆腐, and all my notes", ScriptedPolicy([both], then=HeuristicPolicy())),
        Conversation("Read note 9", HeuristicPolicy()),
        Conversation("北京 notes, please", ScriptedPolicy([invented], then=HeuristicPolicy())),
        Conversation("搜索笔记 北京", ScriptedPolicy([invented_here], then=HeuristicPolicy())),
        Conversation("Hello!", HeuristicPolicy()),
        Conversation("Keep looking for 北京", EndlessPolicy(), endless=True),
    ]


KEYWORDS = ("豆腐", "上海", "train", "tea", "三体", "Palace")
INVENTED = ("find_notes", "notes_search", "tag_list", "read")


def hidden_conversations(rng: Random, count: int = 3) -> list[Conversation]:
    found = []
    for _ in range(count):
        keyword = rng.choice(KEYWORDS)
        turn = [
            call("search_notes", keyword=keyword, limit=rng.randint(1, 3)),
            call("read_note", note_id=rng.randint(1, 6)),
            call(rng.choice(["tags_list", "list_notes"])),
        ]
        rng.shuffle(turn)
        script: list[Any] = [turn[: rng.randint(1, 3)]]
        if rng.random() < 0.5:
            script.insert(0, call(rng.choice(INVENTED), keyword=keyword))
        question = rng.choice(["{k}?", "关于{k}的笔记", "Look up {k}"]).format(k=keyword)
        found.append(Conversation(question, ScriptedPolicy(script, then=HeuristicPolicy())))
    return found


@cache
def notes_listing() -> tuple[types.Tool, ...]:
    return tuple(types.Tool.model_validate(tool) for tool in NotesBook().tools())


@cache
def expected_tools() -> list[dict[str, Any]]:
    """What every request must offer: the notes server's tools as 08.2 converts them."""
    return mcp_tools_to_openai(list(notes_listing()))


def server_name(openai_name: str) -> str:
    """The MCP name behind a Chat Completions name; a name the model invented stays as it is."""
    for tool, mcp in zip(expected_tools(), notes_listing(), strict=True):
        if tool["function"]["name"] == openai_name:
            return mcp.name
    return openai_name


@dataclass(frozen=True)
class ExpectedAnswer:
    """What one call's tool message must hold, and what kind of answer it was."""

    content: str
    kind: str  # "text", "is_error" or "protocol_error"
    blocks: tuple[str, ...] = ()


def expected_answer(book: NotesBook, name: str, arguments_json: str) -> ExpectedAnswer:
    """Replay one call on ``book`` as the server would answer it, then as the loop must pass
    it on: text blocks joined, ``{"error": ...}`` for ``isError`` and for protocol errors."""
    try:
        arguments = json.loads(arguments_json or "{}")
    except ValueError:
        arguments = {}
    try:
        answer = book.call(server_name(name), arguments)
    except UnknownTool as unknown:
        return ExpectedAnswer(json.dumps({"error": str(unknown)}, ensure_ascii=False), "protocol")
    joined = "\n".join(answer.blocks)
    if answer.is_error:
        content = json.dumps({"error": joined}, ensure_ascii=False)
        return ExpectedAnswer(content, "is_error", answer.blocks)
    return ExpectedAnswer(joined, "text", answer.blocks)
