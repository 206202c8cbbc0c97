"""Exercise 01.4, ``ask_with_tools(client, question, tools, functions, *, model) -> str``: one
complete tool-calling round trip against the local model.

The learner's function gets a real ``openai.OpenAI`` client whose requests are answered by a
model session on the check's side, which records each one (``session.exchanges``). The check
judges what was really sent: the model name, the tools, the user message, the assistant message
appended once, one tool message per call with its own id, at most two requests. Rules, the case
that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import json

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import (
    Plain,
    expect_equal,
    expect_model_and_tools,
    fail,
    first_difference,
    hidden_rng,
)
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error, raised_with
from course_lib.checks.lesson01._values import NOTEBOOK
from course_lib.checks.lesson01.round_trip_cases import (
    CHECK_MODEL,
    CHECK_TOOLS,
    FUNCTIONS_SOURCE,
    SECOND_ROUND_QUESTION,
    TEXT_AND_CALL_QUESTION,
    check_functions,
    conversations,
    tool_result,
)
from course_lib.checks.lesson01.tool_message import expected_message, message_problem
from course_lib.driver import CASE_MODULE

# Every other phrase this check shows: case labels, what was expected or found, where.
TEXTS = Catalog() | {
    "case": "ask_with_tools(client, {question}, tools, functions, model={model})",
    "a_request": "a request to the model",
    "no_request": "no request",
    "request_number": "request {number} of {count} your function sent",
    "no_tools": "no tools (tools= not passed)",
    "the_tools": "the tools you were given",
    "first_messages": "the first request's messages",
    "first_succeeds": "a successful first request",
    "requests": "{count} request(s)",
    "roles": "the roles of the second request's messages",
    "sent_ids": "the tool_calls ids of the assistant message you sent back",
    "answered_ids": "the tool_call_id of each tool message",
    "answering": "the tool message answering {name}({arguments})",
    "summary": "{count} conversations",
}


text = TEXTS.text


def case_label(question: str) -> str:
    return text("case", question=repr(question), model=repr(CHECK_MODEL))


WEATHER_CASE = case_label("What's the weather in 北京?")
TWO_CALLS_CASE = case_label("北京的天气和我关于上海的笔记")
NO_CALLS_CASE = case_label("Hello!")
TEXT_AND_CALL_CASE = case_label(TEXT_AND_CALL_QUESTION)
SECOND_ROUND_CASE = case_label(SECOND_ROUND_QUESTION)

RULES = (
    Rule("model", "pass `model=model` to every request", case=WEATHER_CASE, hint="model"),
    Rule("first_request", "the first request holds one user message with `question`, nothing else "
         "(no system message)", case=WEATHER_CASE, hint="first_messages"),
    Rule("tools", "pass `tools=tools` to every request", case=WEATHER_CASE, hint="tools"),
    Rule("no_calls", "if the reply has no tool calls (`tool_calls` is `None`), return its "
         "`content` right away", case=NO_CALLS_CASE, hint="none_calls"),
    Rule("calls_decide", "a reply *with* tool calls may hold text too: decide by `tool_calls`, not "
         "by `content`", case=TEXT_AND_CALL_CASE, hint="text_beside_calls"),
    Rule("assistant_once", "otherwise append the assistant message **once**, however many calls it "
         "holds, as the plain dict of section 3 (or the message object itself)",
         case=TWO_CALLS_CASE, hint="assistant_once"),
    Rule("decode", "decode each call's arguments with `json.loads` and call "
         "`functions[name](**arguments)`", case=WEATHER_CASE, hint="decode"),
    Rule("every_call", "run **every** tool call, in order, and append one tool message per call",
         case=TWO_CALLS_CASE, hint="every_call"),
    Rule("own_id", "each tool message carries its own call's id", case=TWO_CALLS_CASE,
         hint="own_id"),
    Rule("tool_messages", "build each tool message with your `tool_message` from 01.3",
         case=WEATHER_CASE, hint="json_not_str"),
    Rule("second_request", "send the conversation once more (same `model` and `tools`)",
         case=WEATHER_CASE, hint="send_again"),
    Rule("returns_text", "return the `content` of that second reply, a `str`", case=WEATHER_CASE,
         hint="return_text"),
    Rule("one_round", "stop there even when that reply asks for more tools: one round trip, at "
         "most two requests (lesson 05 loops)", case=SECOND_ROUND_CASE, hint="second_calls"),
)  # fmt: skip

HINTS = Catalog() | {
    "no_request": "Call client.chat.completions.create.",
    "model": "Pass model=model to every request.",
    "tools": "Pass tools=tools to every request (the model must see the tools both times).",
    "first_messages": "Start the conversation with one user message holding the question.",
    "first_failed": "Fix the first request.",
    "no_calls": "The reply has no tool calls: return its content right away.",
    "send_again": (
        "After answering the calls, send the conversation once more and return that reply's "
        "content."
    ),
    "one_round_trip": "One round trip: at most two requests.",
    "second_calls": (
        "The second reply asked for another tool, and this exercise is one round trip: return "
        "that reply's content (its text) and stop, without a third request. Lesson 05 loops "
        "until the model stops asking."
    ),
    "assistant_missing": (
        "Append the assistant message (the reply with tool_calls) before the tool messages."
    ),
    "assistant_once": (
        "Append the assistant message once, before the loop, not once per tool call."
    ),
    "assistant_unchanged": (
        "Append the reply's message unchanged: its tool_calls are what you answer."
    ),
    "every_call": "Answer every tool call, not only the first: one tool message per call.",
    "order": "Send the user message, the assistant message, then one tool message per call.",
    "own_id": "Each tool message carries its own call's id (tool_call.id), in call order.",
    "no_tool_call_id": 'Each tool message needs "tool_call_id": the id of the call it answers.',
    "return_text": "Return the text: reply.choices[0].message.content of the last reply.",
    "return_str": "Return the text of the last reply, a str.",
    "return_content": "Return the content of the last reply, unchanged.",
    "decode": "The arguments arrive as a JSON string: json.loads them before calling with **.",
    "json_not_python": (
        "The arguments are JSON, not Python: null, true and false exist only in JSON. Decode "
        "them with json.loads, never eval (which would also run whatever code a model wrote)."
    ),
    "text_beside_calls": (
        "This reply holds text and a tool call: decide by tool_calls, not by content. A reply "
        "with calls may carry text too; answer its calls and send the conversation again."
    ),
    "functions_key": (
        "functions maps each tool name to its function: functions[call.function.name]."
    ),
    "function_fields": (
        "A tool call keeps its name and arguments under .function: tool_call.function.name "
        "and tool_call.function.arguments."
    ),
    "none_calls": (
        "A reply without tool calls has tool_calls None: check for it and return the content "
        "right away."
    ),
    "other_stub": (
        "Your ask_with_tools runs, but it calls an exercise that is not done yet (its stub "
        "raised): finish tool_message (exercise 01.3), run its cell, then this check again."
    ),
}


hint = HINTS.hint


JSON_ONLY_NAMES = ("'null'", "'true'", "'false'")  # a NameError on these: eval read JSON
FIELDS = ("attribute 'name'", "attribute 'arguments'")  # an AttributeError on these: no .function
EXCEPTION_HINTS = [
    (lambda r: r.raised_a("NotImplementedError"), hint("other_stub")),
    (raised_with("TypeError", "mapping"), hint("decode")),
    (lambda r: r.raised_a("NameError") and any(w in r.message for w in JSON_ONLY_NAMES),
     hint("json_not_python")),
    (raised_with("TypeError", "NoneType"), hint("none_calls")),
    (lambda r: r.raised_a("KeyError"), hint("functions_key")),
    (lambda r: r.raised_a("AttributeError") and any(f in r.message for f in FIELDS),
     hint("function_fields")),
]  # fmt: skip


def readable(reply: Reply) -> Reply:
    """``reply`` with the check's functions named as the learner's code reaches them."""
    message = reply.message
    for name in ("get_weather", "search_notes"):
        message = message.replace(f"{CASE_MODULE}.{name}", f"functions[{name!r}]")
    return Reply({**reply.data, "raised": {**reply.data["raised"], "message": message}})


@exercise("01.4", notebook=NOTEBOOK, title="ask_with_tools", points=3, rules=RULES)
def check_ask_with_tools(learner: Learner) -> str:
    from course_lib.local_model import HeuristicPolicy

    table = conversations(hidden_rng("01.4"))
    functions = learner.source("functions", setup=FUNCTIONS_SOURCE)
    for index, (question, policy) in enumerate(table):
        policy = policy or HeuristicPolicy()
        session = learner.model(policy, model_name=CHECK_MODEL, seed=100 + index)
        case, client = case_label(question), learner.client(session)
        reply = learner.attempt("ask_with_tools", client, question, CHECK_TOOLS, functions,
                                model=CHECK_MODEL, foreign_stubs_fail=True)  # fmt: skip
        if reply.raised:
            diagnose(case, question, session.exchanges, finished=False)
            raise_learner_error(case, readable(reply), EXCEPTION_HINTS)
        diagnose(case, question, session.exchanges)
        expect_final_answer(case, session.exchanges, reply)
    return text("summary", count=len(table))


def expect_final_answer(case: str, exchanges: list, reply: Reply) -> None:
    __tracebackhide__ = True
    expected = exchanges[-1].reply["choices"][0]["message"]["content"]
    if reply.type != "str":
        shown = Plain(reply.data.get("repr", "")[:200]) if "unjson" in reply.data else reply.value
        chosen = hint("return_str" if reply.type in ("int", "float", "bool") else "return_text")
        fail(case, expected, shown, chosen)
    expect_equal(case, expected, reply.value, hint=hint("return_content"))


def diagnose(case: str, question: str, exchanges: list, *, finished: bool = True) -> None:
    """Fail with a fitting hint on the first thing the recorded requests show to be wrong.

    ``finished`` is False when the learner's code raised: then too few requests is no surprise.
    """
    __tracebackhide__ = True
    hints = (hint("no_request"), hint("model"), hint("tools"))
    expect_model_and_tools(case, exchanges, CHECK_MODEL, CHECK_TOOLS, text=text, hints=hints)
    first = exchanges[0]
    user = [{"role": "user", "content": question}]
    sent = first.request.get("messages")
    if first_difference(user, sent) is not None:
        fail(case, user, sent, hint("first_messages"), where=text("first_messages"))
    if first.status != 200:
        fail(case, Plain(text("first_succeeds")), first.reply, hint("first_failed"))
    calls = first.reply["choices"][0]["message"].get("tool_calls") or []
    wanted = 2 if calls else 1
    if len(exchanges) > wanted or (finished and len(exchanges) < wanted):
        key = "no_calls" if not calls else "send_again" if len(exchanges) < 2 else "one_round_trip"
        if key == "one_round_trip" and _asks_for_tools(exchanges[1]):
            key = "second_calls"
        if key == "send_again" and first.reply["choices"][0]["message"].get("content"):
            key = "text_beside_calls"
        expected, got = text("requests", count=wanted), text("requests", count=len(exchanges))
        fail(case, Plain(expected), Plain(got), hint(key))
    if calls and len(exchanges) > 1:
        diagnose_second_request(case, exchanges[1].request.get("messages") or [], user, calls)


def _asks_for_tools(exchange) -> bool:
    """Whether the model answered this request with tool calls."""
    if exchange.status != 200:
        return False
    return bool(exchange.reply["choices"][0]["message"].get("tool_calls"))


def _roles(messages: list) -> list:
    return [m.get("role") if isinstance(m, dict) else m for m in messages]


def diagnose_second_request(case: str, messages: list, user: list, calls: list) -> None:
    __tracebackhide__ = True
    ids = [c["id"] for c in calls]
    expected_roles = ["user", "assistant", *(["tool"] * len(calls))]
    got_roles = _roles(messages)
    assistants = [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
    roles_where = text("roles")
    if not assistants:
        fail(case, expected_roles, got_roles, hint("assistant_missing"), where=roles_where)
    if len(assistants) > 1:
        fail(case, expected_roles, got_roles, hint("assistant_once"), where=roles_where)
    sent_ids = [c.get("id") for c in assistants[0].get("tool_calls") or []]
    if sent_ids != ids:
        fail(case, ids, sent_ids, hint("assistant_unchanged"), where=text("sent_ids"))
    tool_messages = [m for m in messages if isinstance(m, dict) and m.get("role") == "tool"]
    if len(tool_messages) < len(calls):
        fail(case, expected_roles, got_roles, hint("every_call"), where=roles_where)
    if got_roles != expected_roles or first_difference(user, messages[:1]) is not None:
        fail(case, expected_roles, got_roles, hint("order"), where=roles_where)
    answered = [m.get("tool_call_id") for m in tool_messages]
    if answered != ids:
        key = "no_tool_call_id" if None in answered else "own_id"
        fail(case, ids, answered, hint(key), where=text("answered_ids"))
    for tool_call, message in zip(calls, tool_messages, strict=True):
        function = tool_call["function"]
        result = tool_result(function["name"], json.loads(function["arguments"]))
        problem = message_problem(message, tool_call["id"], result)
        if problem is not None and _called_with_the_text(function, message, tool_call["id"]):
            problem = hint("decode")
        if problem is not None:
            where = text("answering", name=function["name"], arguments=function["arguments"])
            fail(case, expected_message(tool_call["id"], result), message, problem, where=where)


def _called_with_the_text(function: dict, message: dict, call_id: str) -> bool:
    """Whether ``message`` answers the call as if the function had been given the arguments'
    JSON text itself (``functions[name](arguments)``, json.loads forgotten)."""
    try:
        result = check_functions()[function["name"]](function["arguments"])
    except Exception:  # noqa: BLE001 (the function does not take the text: not this mistake)
        return False
    return message_problem(message, call_id, result) is None
