"""Exercise 08.3, ``run_agent_with_mcp(client, session, question, *, model) -> str``: the agent
loop with every tool call routed to an MCP session.

Beside the learner's code, a snippet starts the course's notes server over stdio, opens a real
``ClientSession`` on it and runs the learner's loop once per conversation, each with a client
wired to a model session on the check's side (``kernel_side.NotesConnection``). The check
reads what the loop really sent the model (``session.exchanges``) and replays the model's calls
on its own notes book to know what each tool message must say. Rules, the case that breaks
each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, raise_learner_error, raised_with
from course_lib.checks.lesson08._kernel_bridge import (
    CHECK_MODEL,
    NOTEBOOK,
    kernel_helper,
    raised_reply,
    stub_of,
)
from course_lib.checks.lesson08.mcp_loop.cases import (
    Conversation,
    hidden_conversations,
    visible_conversations,
)
from course_lib.checks.lesson08.mcp_loop.judge import HINTS as JUDGE_HINTS
from course_lib.checks.lesson08.mcp_loop.judge import judge_conversation

TEXTS = Catalog() | {
    "case": "run_agent_with_mcp(client, session, {question}, model={model})",
    "summary": "{count} conversations over stdio",
    "an_answer": "an answer",
    "no_answer": "no answer within {seconds:g} seconds",
}


def case_label(question: str) -> str:
    return TEXTS.text("case", question=repr(question), model=repr(CHECK_MODEL))


FIND = case_label("Find my notes about 北京")
TAGS = case_label("Which tags do I use?")
BOTH = case_label("豆腐, and all my notes")
MISSING = case_label("Read note 9")
INVENTED = case_label("北京 notes, please")
ENDLESS = case_label("Keep looking for 北京")

RULES = (
    Rule("model", "pass `model=model` to every request", case=FIND, hint="model"),
    Rule("tools", "list the tools (`await session.list_tools()`) and offer "
         "`mcp_tools_to_openai(listing.tools)` (your 08.2) as `tools=` on every request", case=FIND,
         hint="tools"),
    Rule("first", "the first request holds one user message with the question", case=FIND,
         hint="first_messages"),
    Rule("answer", "a reply without tool calls is the answer: return its content, a `str`",
         case=FIND, hint="return_str"),
    Rule("map_back", "call each tool under its name on the server (the converted names map back "
         "by position)", case=TAGS, hint="map_back"),
    Rule("assistant_once", "each turn appends the reply's assistant message once "
         "(`assistant_message(message)`)", case=BOTH, hint="assistant_once"),
    Rule("every_call", 'one `role: "tool"` message per call, in order, with '
         '`tool_call_id=call.id`, after `await session.call_tool(name, json.loads(arguments))`',
         case=BOTH, hint="every_call"),
    Rule("join", "its content is the text of the result's text blocks, joined with `\"\\n\"`",
         case=BOTH, hint="join_blocks"),
    Rule("is_error", 'when `result.is_error`, the content is '
         '`json.dumps({"error": text}, ensure_ascii=False)`', case=MISSING, hint="is_error"),
    Rule("protocol", 'when `call_tool` raises `MCPError` (a protocol error), the content is '
         '`json.dumps({"error": str(error)}, ensure_ascii=False)`; a name the model invented goes '
         'to the server unchanged and gets one', case=INVENTED, hint="catch_protocol"),
    Rule("max_turns", "at most `max_turns` requests; then raise `RuntimeError`", case=ENDLESS,
         hint="max_turns"),
)  # fmt: skip

HINTS = Catalog(also=(JUDGE_HINTS,)) | {
    "finish_08_2": (
        "Your loop runs, but mcp_tools_to_openai (exercise 08.2) is not done yet: finish it, run "
        "its cell, then this check again."
    ),
    "catch_protocol": (
        "session.call_tool raised mcp.MCPError, a protocol error (here: a tool the server does "
        'not know). Catch it and answer the call with {{"error": str(error)}}: the model can '
        "correct itself."
    ),
    "unknown_name": (
        "The model asked for a tool that is not in your list: send the name to the server "
        "unchanged; its protocol error becomes the tool message."
    ),
    "await": (
        "session.list_tools() and session.call_tool() are coroutines: await them, inside an "
        "async def."
    ),
    "arguments_dict": (
        "session.call_tool takes the arguments as a dict: json.loads(tool_call.function."
        "arguments) turns the model's JSON text into one."
    ),
    "none_calls": (
        "A reply without tool calls has tool_calls None: return its content right away."
    ),
    "timeout": (
        "The loop did not finish within {seconds:g} seconds: does it stop when a reply has no "
        "tool calls?"
    ),
    "no_server": (
        "The check could not start the course's notes server: run "
        "`python -m course_lib.mcp_servers.notes --help` in a terminal to see why."
    ),
}


hint = HINTS.hint


OPEN_HINTS = [(lambda r: True, hint("no_server"))]
EXCEPTION_HINTS = [
    (lambda r: r.raised_a("MCPError"), hint("catch_protocol")),
    (lambda r: r.raised_a("KeyError"), hint("unknown_name")),
    (lambda r: "coroutine" in r.message, hint("await")),
    (
        lambda r: (
            r.raised_a("ValidationError")
            and "CallToolRequestParams" in r.message
            and "dict" in r.message
        ),
        hint("arguments_dict"),
    ),
    (raised_with("TypeError", "NoneType"), hint("none_calls")),
]
OPEN = "connection = NotesConnection()"
CONVERSE = "outcome = connection.converse(agent, client, question, model=model)"
CLOSE = "connection.close()"


@exercise("08.3", notebook=NOTEBOOK, title="run_agent_with_mcp", points=3, rules=RULES, hints=HINTS)
def check_run_agent_with_mcp(learner: Learner) -> str:
    from course_lib.mcp_servers.notes_book import NotesBook

    conversations = [*visible_conversations(), *hidden_conversations(hidden_rng("08.3"))]
    opened = learner.run(
        OPEN,
        result="connection",
        keep=True,
        bind={"NotesConnection": kernel_helper("NotesConnection")},
    )
    if opened.raised:
        raise_learner_error(case_label(conversations[0].question), opened, OPEN_HINTS)
    connection = learner.handle(opened.handle)
    try:
        book = NotesBook()
        for number, conversation in enumerate(conversations):
            session = learner.model(conversation.policy, model_name=CHECK_MODEL, seed=200 + number)
            got = learner.run(
                CONVERSE,
                result="outcome",
                bind={
                    "connection": connection,
                    "agent": learner.target("run_agent_with_mcp"),
                    "client": learner.client(session),
                    "question": conversation.question,
                    "model": CHECK_MODEL,
                },
            )
            if got.raised:
                raise_learner_error(case_label(conversation.question), got, EXCEPTION_HINTS)
            judge(conversation, session.exchanges, got.value, book)
    finally:
        learner.run(CLOSE, result="None", bind={"connection": connection})
        learner.release(opened.handle)
    return TEXTS.text("summary", count=len(conversations))


def judge(conversation: Conversation, exchanges: list, got: dict[str, Any], book: Any) -> None:
    __tracebackhide__ = True
    label = case_label(conversation.question)
    if stub_of(got, "08.3"):
        raise_learner_error(label, raised_reply(got), [(lambda r: True, hint("finish_08_2"))])
    if "raised" in got and not exchanges:  # it failed before its first request: say why
        raise_learner_error(label, raised_reply(got), EXCEPTION_HINTS)
    judge_conversation(label, conversation, exchanges, got, book, finished="type" in got)
    if "timeout" in got:
        seconds = float(got["timeout"])
        shown = Plain(TEXTS.text("no_answer", seconds=seconds))
        fail(label, Plain(TEXTS.text("an_answer")), shown, hint("timeout", seconds=seconds))
    if "raised" in got and not conversation.endless:
        raise_learner_error(label, raised_reply(got), EXCEPTION_HINTS)
