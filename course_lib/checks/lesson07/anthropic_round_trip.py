"""Exercise 07.3, ``anthropic_round_trip(client, registry, question, *, model) -> str``: one tool
round trip over the Anthropic Messages API.

The learner's function gets a real ``anthropic.Anthropic`` client whose requests a model session
on the check's side answers and records; the registry is built beside the learner's code from
``_shared.REGISTRY_SOURCE``. The check judges what was really sent: model, ``max_tokens``, the
Anthropic tools, the question, the assistant's content sent back unchanged, then **one** user
message holding one ``tool_result`` per ``tool_use`` (its id as ``tool_use_id``, the registry's
result as content, ``is_error`` exactly on error results). Rules, the case that breaks each, and
the hint that names it: see ``RULES``.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.compare import HintText, Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson07._shared import (
    CHECK_MODEL,
    NOTEBOOK,
    is_error_result,
    random_questions,
    registry_spec,
    text_of_message,
    tool_result,
    tools,
)

MAX_TOKENS = 1024
TEXTS = {
    "case": "anthropic_round_trip(client, registry, {question}, model={model})",
    "a_request": "a request to the model",
    "no_request": "no request",
    "request_number": "request {number} of {count} your function sent",
    "no_tools": "no tools (tools= not passed)",
    "the_tools": 'registry.schemas(format="anthropic")',
    "first_messages": "the first request's messages",
    "first_succeeds": "a successful first request",
    "requests": "{count} request(s)",
    "roles": "the roles of the second request's messages",
    "assistant_content": "the assistant message you sent back",
    "the_reply_content": "the reply's content blocks, unchanged",
    "results_for": "one tool_result for each tool_use id: {ids}",
    "result_of": "the tool_result answering {name}({arguments})",
    "summary": "{count} conversations",
}


def text(key: str, **fields: object) -> str:
    return TEXTS[key].format(**fields)


def case_label(question: str) -> str:
    return text("case", question=repr(question), model=repr(CHECK_MODEL))


WEATHER_QUESTION = "北京和上海的天气怎么样？"
WEATHER_CASE = case_label(WEATHER_QUESTION)
HELLO_CASE = case_label("Hello!")
ERROR_QUESTION = "What's the weather in 北京 and Tokyo?"
ERROR_CASE = case_label(ERROR_QUESTION)

RULES = (
    Rule("model", "Pass model=model to every request.", case=WEATHER_CASE, hint="model"),
    Rule(
        "max_tokens", "Pass max_tokens=1024 to every request.", case=WEATHER_CASE, hint="max_tokens"
    ),
    Rule(
        "tools",
        'Pass tools=registry.schemas(format="anthropic") to every request.',
        case=WEATHER_CASE,
        hint="tools",
    ),
    Rule(
        "first_messages",
        "The first request holds one user message with the question.",
        case=WEATHER_CASE,
        hint="first_messages",
    ),
    Rule(
        "no_tool_use",
        'A reply whose stop_reason is not "tool_use": return its text.',
        case=HELLO_CASE,
        hint="no_tool_use",
    ),
    Rule(
        "assistant",
        "Send the reply's content back unchanged as the assistant message.",
        case=WEATHER_CASE,
        hint="assistant_missing",
    ),
    Rule(
        "one_user_message",
        "Then one user message holding every tool_result, not a tool role.",
        case=WEATHER_CASE,
        hint="tool_role",
    ),
    Rule(
        "tool_use_id",
        "Each tool_result carries its tool_use block's id as tool_use_id.",
        case=WEATHER_CASE,
        hint="tool_use_id",
    ),
    Rule(
        "content",
        "Its content is registry.call(block.name, block.input), unchanged.",
        case=WEATHER_CASE,
        hint="content",
    ),
    Rule(
        "is_error",
        'An error result gets "is_error": True; other results do not.',
        case=ERROR_CASE,
        hint="is_error",
    ),
    Rule(
        "second_request",
        "Send the second request and return its text; at most two requests.",
        case=WEATHER_CASE,
        hint="send_again",
    ),
    Rule("returns_text", "Return the text, a str.", case=WEATHER_CASE, hint="return_text"),
)

HINTS = {
    "no_request": "Call client.messages.create.",
    "model": "Pass model=model to every request.",
    "max_tokens": "Pass max_tokens=1024 to every request (Anthropic requires max_tokens).",
    "tools": 'Pass tools=registry.schemas(format="anthropic") to every request.',
    "tools_openai": (
        'These are OpenAI tools; Anthropic\'s are {{"name", "description", "input_schema"}}: '
        'registry.schemas(format="anthropic").'
    ),
    "first_messages": "Start with one user message holding the question.",
    "first_failed": "Fix the first request.",
    "no_tool_use": (
        'The reply\'s stop_reason is not "tool_use": it holds no call, return its text right away.'
    ),
    "send_again": (
        "After running the tools, send the conversation once more and return that reply's text."
    ),
    "one_round_trip": "One round trip: at most two requests.",
    "assistant_missing": (
        'Send the reply back as the assistant message, {{"role": "assistant", "content": '
        "reply.content}}, before the results."
    ),
    "assistant_changed": (
        "Send the reply's content back unchanged: its tool_use blocks are what the results answer."
    ),
    "tool_role": (
        "Anthropic has no tool role: the results go in the next user message, as tool_result "
        "blocks."
    ),
    "one_user_message": (
        "Put every tool_result in one user message, right after the assistant message: not one "
        "message per result."
    ),
    "every_call": "Answer every tool_use block, not only the first: one tool_result each.",
    "tool_use_id": (
        'Each tool_result names the call it answers with "tool_use_id": the tool_use block\'s id.'
    ),
    "content": (
        "The content is the text registry.call(block.name, block.input) returns, sent unchanged."
    ),
    "is_error": (
        'When registry.call returns an error object ({{"error": ...}}), add "is_error": True to '
        "that tool_result."
    ),
    "is_error_only": '"is_error": True belongs only on results that are errors.',
    "input_is_dict": (
        "block.input is already a dict (Anthropic decodes the arguments for you): pass it to "
        "registry.call as it is."
    ),
    "return_text": "Return the text of the last reply (its text blocks), a str.",
    "return_content": "Return the text of the last reply, unchanged.",
    "not_openai": "client.messages.create returns a Message: read .content and .stop_reason.",
    "max_tokens_missing": (
        "The SDK refuses a request without max_tokens: pass max_tokens=1024 to every request."
    ),
}


def hint(key: str, **fields: object) -> HintText:
    return HintText.of(HINTS, key, **fields)


EXCEPTION_HINTS = [
    (lambda r: r.raised_a("TypeError") and "max_tokens" in r.message, hint("max_tokens_missing")),
    (
        lambda r: r.raised_a("TypeError") and "must be str, bytes or bytearray" in r.message,
        hint("input_is_dict"),
    ),
    (lambda r: r.raised_a("AttributeError") and "'choices'" in r.message, hint("not_openai")),
]


def conversations() -> list[tuple[str, Any]]:
    """(question, policy or None for the default toy model), the visible ones first."""
    from course_lib.local_model import HeuristicPolicy, ScriptedPolicy, call

    failing = [call("get_weather", city="Berlin"), call("get_weather", city="东京")]
    cases: list[tuple[str, Any]] = [
        (WEATHER_QUESTION, None),
        ("Hello!", None),
        (ERROR_QUESTION, None),
        ("Berlin and 东京", ScriptedPolicy([failing], then=HeuristicPolicy())),
    ]
    return cases + [(q, None) for q in random_questions(hidden_rng("07.3"), 3)]


@exercise(
    "07.3",
    notebook=NOTEBOOK,
    title="anthropic_round_trip",
    points=3,
    targets=("anthropic_round_trip",),
    rules=RULES,
)
def check_anthropic_round_trip(learner: Learner) -> str:
    from course_lib.local_model import HeuristicPolicy

    table = conversations()
    for index, (question, policy) in enumerate(table):
        session = learner.model(
            policy or HeuristicPolicy(), model_name=CHECK_MODEL, seed=730 + index
        )
        case = case_label(question)
        reply = learner.attempt(
            "anthropic_round_trip",
            learner.client(session, api="anthropic"),
            registry_spec(learner),
            question,
            model=CHECK_MODEL,
        )
        if reply.raised:
            diagnose(case, question, session.exchanges, finished=False)
            raise_learner_error(case, reply, EXCEPTION_HINTS)
        diagnose(case, question, session.exchanges)
        expect_final_text(case, session.exchanges, reply)
    return text("summary", count=len(table))


def expect_final_text(case: str, exchanges: list, reply: Reply) -> None:
    __tracebackhide__ = True
    expected = text_of_message(exchanges[-1].reply)
    if reply.type != "str":
        shown = Plain(reply.data.get("repr", "")[:200]) if "unjson" in reply.data else reply.value
        fail(case, expected, shown, hint("return_text"))
    expect_equal(case, expected, reply.value, hint=hint("return_content"))


def diagnose(case: str, question: str, exchanges: list, *, finished: bool = True) -> None:
    """Fail with a fitting hint on the first thing the recorded requests show to be wrong."""
    __tracebackhide__ = True
    if not exchanges and not finished:
        return  # it raised before sending anything: the exception says what went wrong
    if not exchanges:
        fail(case, Plain(text("a_request")), Plain(text("no_request")), hint("no_request"))
    expected_tools = tools("anthropic")
    for number, exchange in enumerate(exchanges, start=1):
        where = text("request_number", number=number, count=len(exchanges))
        body = exchange.request
        if body.get("model") != CHECK_MODEL:
            fail(case, CHECK_MODEL, body.get("model"), hint("model"), where=where)
        if body.get("max_tokens") != MAX_TOKENS:
            fail(case, MAX_TOKENS, body.get("max_tokens"), hint("max_tokens"), where=where)
        if body.get("tools") != expected_tools:
            sent = body.get("tools")
            openai_form = isinstance(sent, list) and any(
                isinstance(t, dict) and t.get("type") == "function" for t in sent
            )
            got = sent if "tools" in body else Plain(text("no_tools"))
            key = "tools_openai" if openai_form else "tools"
            fail(case, Plain(text("the_tools")), got, hint(key), where=where)
    first = exchanges[0]
    messages = first.request.get("messages")
    if not is_the_question(messages, question):
        where = text("first_messages")
        fail(
            case,
            [{"role": "user", "content": question}],
            messages,
            hint("first_messages"),
            where=where,
        )
    if first.status != 200:
        fail(case, Plain(text("first_succeeds")), first.reply, hint("first_failed"))
    uses = [b for b in first.reply.get("content") or [] if b.get("type") == "tool_use"]
    wanted = 2 if first.reply.get("stop_reason") == "tool_use" else 1
    if len(exchanges) > wanted or (finished and len(exchanges) < wanted):
        key = (
            "no_tool_use"
            if wanted == 1
            else "send_again"
            if len(exchanges) < 2
            else "one_round_trip"
        )
        expected, got = text("requests", count=wanted), text("requests", count=len(exchanges))
        fail(case, Plain(expected), Plain(got), hint(key))
    if uses and len(exchanges) > 1:
        diagnose_second_request(case, first.reply, exchanges[1].request.get("messages") or [])


def is_the_question(messages: Any, question: str) -> bool:
    if not isinstance(messages, list) or len(messages) != 1 or not isinstance(messages[0], dict):
        return False
    message = messages[0]
    content = message.get("content")
    parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
    texts = [p.get("text") for p in parts if isinstance(p, dict)]
    return message.get("role") == "user" and texts == [question]


def _roles(messages: list) -> list:
    return [m.get("role") if isinstance(m, dict) else m for m in messages]


def _blocks(message: Any, kind: str) -> list[dict]:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind]


def _essential(block: dict) -> dict:
    """The parts of a reply's content block that must come back (the SDK may add or drop the
    rest, such as ``citations: null``)."""
    keys = ("type", "id", "name", "input") if block.get("type") == "tool_use" else ("type", "text")
    return {key: block.get(key) for key in keys}


def diagnose_second_request(case: str, first: dict, messages: list) -> None:
    __tracebackhide__ = True
    uses = [b for b in first.get("content") or [] if b.get("type") == "tool_use"]
    ids = [b["id"] for b in uses]
    roles = _roles(messages)
    expected_roles = ["user", "assistant", "user"]
    where = text("roles")
    if "assistant" not in roles:
        fail(case, expected_roles, roles, hint("assistant_missing"), where=where)
    if any(role not in ("user", "assistant") for role in roles):
        fail(case, expected_roles, roles, hint("tool_role"), where=where)
    if roles != expected_roles:
        fail(case, expected_roles, roles, hint("one_user_message"), where=where)
    sent = messages[1].get("content")
    reply_blocks = [_essential(b) for b in first.get("content") or []]
    if (
        not isinstance(sent, list)
        or [_essential(b) for b in sent if isinstance(b, dict)] != reply_blocks
    ):
        where = text("assistant_content")
        fail(case, Plain(text("the_reply_content")), sent, hint("assistant_changed"), where=where)
    results = _blocks(messages[2], "tool_result")
    answered = [r.get("tool_use_id") for r in results]
    expected = Plain(text("results_for", ids=", ".join(ids)))
    if len(results) < len(uses):
        fail(case, expected, answered, hint("every_call"), where=where)
    if sorted(map(str, answered)) != sorted(ids):
        fail(case, expected, answered, hint("tool_use_id"), where=where)
    by_id = {r["tool_use_id"]: r for r in results}
    for use in uses:
        result = tool_result(use["name"], use["input"])
        sent_result = by_id[use["id"]]
        here = text("result_of", name=use["name"], arguments=use["input"])
        if sent_result.get("content") != result:
            fail(case, result, sent_result.get("content"), hint("content"), where=here)
        flagged = sent_result.get("is_error") is True
        if flagged != is_error_result(result):
            key = "is_error" if not flagged else "is_error_only"
            wanted = (
                {**sent_result, "is_error": True}
                if not flagged
                else {k: v for k, v in sent_result.items() if k != "is_error"}
            )
            fail(case, wanted, sent_result, hint(key), where=here)
