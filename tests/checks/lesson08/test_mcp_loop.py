"""Exercise 08.3: the solution passes; a wrong run_agent_with_mcp fails on the rule it breaks.

Each run starts the course's notes server over stdio and holds every conversation with a model
session on the check's side, so what is judged is what the loop really sent; the wrong answers
are the solution's cell with one mistake edited in.
"""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import EXERCISES, NotDoneYet, evaluate, learner
from course_lib.checks.compare import hidden_rng
from course_lib.checks.lesson08.mcp_loop.cases import (
    ENDLESS_CAP,
    MAX_TURNS,
    EndlessPolicy,
    expected_answer,
    hidden_conversations,
    visible_conversations,
)
from course_lib.local_model.turns import ChatRequest
from course_lib.mcp_servers.notes_book import NotesBook

from .notebook import edited, namespace, solution

CELL = "w08-ex3"
CREATE = "reply = client.chat.completions.create(model=model, messages=messages, tools=tools)"


def loop_with(*edits):
    return edited("run_agent_with_mcp", *((CELL, old, new) for old, new in edits))


ONCE = (
    "        messages.append(assistant_message(message))\n"
    "        if not message.tool_calls:\n"
    "            return message.content\n"
    "        for tool_call in message.tool_calls:\n",
    "        if not message.tool_calls:\n"
    "            return message.content\n"
    "        for tool_call in message.tool_calls:\n"
    "            messages.append(assistant_message(message))\n",
)
WRONG_BY_RULE = {
    "08.3": {
        "model": loop_with((CREATE, CREATE.replace("model=model", 'model="local-toy"'))),
        "tools": loop_with(
            (CREATE,
             'options = {"tools": tools} if len(messages) == 1 else {}\n'
             "        reply = client.chat.completions.create(model=model, messages=messages, "
             "**options)")
        ),
        "first": loop_with(
            ('messages = [{"role": "user", "content": question}]',
             'messages = [{"role": "system", "content": "Use the tools."},'
             ' {"role": "user", "content": question}]')
        ),
        "answer": loop_with(("return message.content", "return message")),
        "map_back": loop_with(
            ("names.get(tool_call.function.name, tool_call.function.name)",
             "tool_call.function.name")
        ),
        "assistant_once": loop_with(ONCE),
        "every_call": loop_with(
            ("for tool_call in message.tool_calls:", "for tool_call in message.tool_calls[:1]:")
        ),
        "join": loop_with(
            ('text = "\\n".join(block.text for block in result.content if block.type == "text")',
             "text = result.content[0].text")
        ),
        "is_error": loop_with(
            ("content = json.dumps(error, ensure_ascii=False) if result.is_error else text",
             "content = text")
        ),
        "protocol": loop_with(("except MCPError as error:", "except KeyError as error:")),
        "max_turns": loop_with(("for _ in range(max_turns):", "while True:")),
    }
}  # fmt: skip


def test_the_solution_passes_every_conversation():
    assert evaluate("08.3", solution("run_agent_with_mcp")) == (
        "Exercise 08.3 passed: run_agent_with_mcp (11 conversations over stdio)."
    )


def test_the_reference_loop_passes_too():
    from course_lib.reference.mcp_client import run_agent_with_mcp

    assert evaluate("08.3", run_agent_with_mcp).startswith("Exercise 08.3 passed")


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["08.3"]
    assert (spec.notebook, spec.points, spec.targets) == ("08_mcp", 3, ("run_agent_with_mcp",))


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["08.3"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("08.3", rule, WRONG_BY_RULE["08.3"][rule])


@pytest.mark.filterwarnings("ignore:coroutine .* was never awaited:RuntimeWarning")
@pytest.mark.parametrize(
    "edit, says",
    [
        (("names.get(tool_call.function.name, tool_call.function.name)",
          "names[tool_call.function.name]"), "not in your list: send the name to the server"),
        (('"tool_call_id": tool_call.id', '"tool_call_id": message.tool_calls[0].id'),
         "carries its own call's id"),
        (('text = "\\n".join(block.text for block in result.content if block.type == "text")',
          "text = str(result.content)"), "not the result or its content list"),
        (("json.dumps(error, ensure_ascii=False)", "json.dumps(error)"),
         "pass ensure_ascii=False"),
        (('text = "\\n".join(', 'text = " ".join('), 'with "\\n", a newline'),
        (("result = await session.call_tool(", "result = session.call_tool("), "await them"),
        (("json.loads(tool_call.function.arguments)", "tool_call.function.arguments"),
         "takes the arguments as a dict"),
        (("            name = names.get(tool_call.function.name, tool_call.function.name)\n",
          "            name = names.get(tool_call.function.name)\n"
          "            if name is None:\n"
          '                unknown = json.dumps({"error": "no such tool"})\n'
          '                messages.append({"role": "tool", "tool_call_id": tool_call.id, '
          '"content": unknown})\n'
          "                continue\n"),
         "send every call to the server, one whose name no tool has too"),
        (("content = json.dumps(error, ensure_ascii=False) if result.is_error else text",
          "content = f'Error: {text}' if result.is_error else text"),
         "The server flagged this result isError"),
        (('text = "\\n".join(block.text for block in result.content if block.type == "text")',
          "text = json.dumps([b.model_dump() for b in result.content], ensure_ascii=False)"),
         "not the result or its content list"),
    ],
)  # fmt: skip
def test_other_mistakes_get_the_hint_that_names_them(edit, says):
    assert says in rejected("08.3", loop_with(edit))


def test_a_plain_def_that_cannot_await_the_session_is_told_so_not_that_it_sent_nothing():
    source = solution_source().replace("async def run_agent_with_mcp", "def run_agent_with_mcp")
    cells = namespace()
    exec(compile(source.replace("await ", ""), "<w08-ex3>", "exec", dont_inherit=True), cells)  # noqa: S102
    message = rejected("08.3", cells["run_agent_with_mcp"])
    assert "coroutines: await them, inside an async def" in message
    assert "saw no request" not in message


def test_a_loop_calling_an_unfinished_08_2_is_told_to_finish_it():
    cells = namespace()

    def mcp_tools_to_openai(tools, *, prefix=None):
        raise NotImplementedError("Exercise 08.2: one tool per MCP tool")

    cells["mcp_tools_to_openai"] = mcp_tools_to_openai
    exec(compile(solution_source(), "<w08-ex3>", "exec", dont_inherit=True), cells)  # noqa: S102
    assert "finish it, run its cell" in rejected("08.3", cells["run_agent_with_mcp"])


def solution_source() -> str:
    from solution_cells import cell_sources

    return cell_sources("08_mcp")[CELL]


def test_the_stub_is_not_done_yet():
    async def run_agent_with_mcp(client, session, question, *, model, max_turns=6):
        raise NotImplementedError("Exercise 08.3: list, convert, then loop")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("08.3", run_agent_with_mcp)


def test_the_endless_model_gives_up_only_well_after_the_loop_should_have():
    policy = EndlessPolicy()
    history = [{"role": "user", "content": "go"}]
    for _ in range(ENDLESS_CAP):
        turn = policy.respond(ChatRequest(model="m", messages=history))
        assert turn.tool_calls
        history.append({"role": "assistant", "content": None})
    assert policy.respond(ChatRequest(model="m", messages=history)).content == "I give up."
    assert ENDLESS_CAP > MAX_TURNS


def test_the_replay_owes_joined_blocks_error_objects_and_protocol_errors():
    book = NotesBook()
    listed = expected_answer(book, "list_notes", "{}")
    assert (listed.kind, listed.content.count("\n")) == ("text", 3)
    missing = expected_answer(book, "read_note", '{"note_id": 9}')
    assert missing.kind == "is_error" and missing.content.startswith('{"error": "There is no note')
    assert "北京" in missing.content  # ensure_ascii=False
    invented = expected_answer(book, "search_note", '{"keyword": "北京"}')
    assert invented.content == '{"error": "Unknown tool: search_note. The tools are: ' + (
        'search_notes, read_note, list_notes, tags.list, add_note, delete_note."}'
    )
    assert expected_answer(book, "tags_list", "{}").kind == "text"  # mapped back to tags.list


def test_hidden_conversations_are_fixed_and_differ_from_the_visible_ones():
    questions = [c.question for c in hidden_conversations(hidden_rng("08.3"))]
    assert questions == [c.question for c in hidden_conversations(hidden_rng("08.3"))]
    assert not set(questions) & {c.question for c in visible_conversations()}


WHILE_LOOP = """
async def run_agent_with_mcp(client, session, question, *, model, max_turns=6):
    listing = await session.list_tools()
    offered = mcp_tools_to_openai(listing.tools)
    server_name = {o["function"]["name"]: t.name for o, t in zip(offered, listing.tools)}
    messages = [{"role": "user", "content": question}]
    asked = 0
    while asked < max_turns:
        asked += 1
        answer = client.chat.completions.create(model=model, messages=messages, tools=offered)
        message = answer.choices[0].message
        messages.append(assistant_message(message))
        if not message.tool_calls:
            return message.content
        for call in message.tool_calls:
            name = server_name.get(call.function.name, call.function.name)
            try:
                result = await session.call_tool(name, json.loads(call.function.arguments))
            except MCPError as error:
                content = json.dumps({"error": str(error)}, ensure_ascii=False)
            else:
                texts = [b.text for b in result.content if isinstance(b, types.TextContent)]
                content = "\\n".join(texts)
                if result.is_error:
                    content = json.dumps({"error": content}, ensure_ascii=False)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    raise RuntimeError("the model did not answer in time")
"""


def test_a_loop_written_differently_passes_too():
    scope = namespace()
    exec(WHILE_LOOP, scope)  # noqa: S102 (the test's own source text)
    assert evaluate("08.3", scope["run_agent_with_mcp"]).startswith("Exercise 08.3 passed")


def test_a_loop_whose_end_test_never_holds_is_stopped_by_its_request_budget(monkeypatch):
    # An answer that is never taken for one (finish_reason compared with Anthropic's "end_turn")
    # and no limit: the loop asks forever. It runs in a thread of the check's snippet, so it is
    # the requests that are counted (course_lib.case_budget), not CPU time; a small budget only
    # saves time.
    monkeypatch.setitem(learner.BUDGET, "requests", 20)
    endless = (
        WHILE_LOOP.replace("while asked < max_turns:", "while True:")
        .replace("if not message.tool_calls:", 'if answer.choices[0].finish_reason == "end_turn":')
        .replace("for call in message.tool_calls:", "for call in message.tool_calls or []:")
    )
    scope = namespace()
    exec(endless, scope)  # noqa: S102 (the test's own source text)
    message = rejected("08.3", scope["run_agent_with_mcp"])
    assert "sent the model more than 20 requests in this one case without finishing" in message
    assert "Your loop never ends: stop when a reply has no tool calls" in message


PROTOCOL_DUMPS = 'content = json.dumps({"error": str(error)}, ensure_ascii=False)'


def test_a_protocol_error_dumped_with_ascii_escapes_is_told_to_keep_its_characters():
    # json.dumps escapes every non-ASCII character by default: the tool the model invented,
    # 搜索笔记, would reach it as \u641c\u7d22\u7b14\u8bb0 inside the server's message.
    wrong = loop_with((PROTOCOL_DUMPS, 'content = json.dumps({"error": str(error)})'))
    message = rejected("08.3", wrong)
    assert "Case: run_agent_with_mcp(client, session, '搜索笔记 北京'" in message
    assert (
        "json.dumps escaped every character outside ASCII (its default, ensure_ascii=True), so "
        "the model reads \\u641c\\u7d22\\u7b14\\u8bb0 where the server wrote 搜索笔记: pass "
        "ensure_ascii=False"
    ) in message


@pytest.mark.parametrize(
    "written",
    [
        'content = json.JSONEncoder(ensure_ascii=False).encode({"error": str(error)})',
        'content = json.dumps({"error": error.message}, ensure_ascii=False)',
    ],
)
def test_a_protocol_error_kept_readable_written_differently_passes(written):
    assert evaluate("08.3", loop_with((PROTOCOL_DUMPS, written))).startswith("Exercise 08.3 passed")
