"""Exercise 09.4, ``converse(client, registry, messages, *, model, max_turns=6)``: the loop of
lesson 05 over a conversation that goes on, sent over the Responses API. The list of Chat
messages is the memory: every request sends all of it (``chat_to_responses_input``, 07.2), and
everything the turn adds is appended to the caller's list itself.

The history is kept beside the learner's code as a list, the model is a session on the check's
side (what each request really sent is in ``session.exchanges``, read back as Chat messages by
``_exchanges``), and the list is read back afterwards. Messages are compared by what the API
reads (role, content, call ids, names and arguments, ``tool_call_id``), so an assistant message
built another way passes too.
"""

from __future__ import annotations

from itertools import groupby
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, expect_equal, fail
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Exchange, Learner, raise_learner_error
from course_lib.checks.lesson09._exchanges import input_messages, is_responses, output_message
from course_lib.checks.lesson09._policy_oracles import NOTEBOOK
from course_lib.checks.lesson09.memory.cases import (
    CHECK_MODEL,
    REGISTRY_SOURCE,
    Case,
    check_registry,
    hidden_cases,
    visible_cases,
)

TEXTS = Catalog() | {
    "requests": "{count} request(s)",
    "at_most": "at most {count} requests",
    "request": "request {number}",
    "chat_sent": "this request went to Chat Completions (messages=...), not to Responses",
    "chat_tools": "its tools are in the Chat format; Responses wants the flat one",
    "previous": "it also sent previous_response_id, but the input already holds everything",
    "a_responses_request": "a Responses request with the registry's tools in its format",
    "summary": "{visible} visible and {hidden} hidden conversations",
    "no_tools": "no tools",
}
CASES = [case.label for case in visible_cases()]
RULES = (
    Rule("model", "Pass `model=model` to every request", case=CASES[0], hint="model"),
    Rule("responses", 'send each with '
         '`client.responses.create(input=chat_to_responses_input(messages), '
         'tools=registry.schemas(format="responses"), ...)`', case=CASES[0], hint="responses"),
    Rule("whole_history", "the whole list, every earlier exchange included", case=CASES[0],
         hint="whole_history"),
    Rule("in_place", "Append to the list you were given, never to a copy", case=CASES[0],
         hint="in_place"),
    Rule("answer", "and return its `output_text`", case=CASES[0], hint="answer"),
    Rule("assistant_once", 'Each turn appends one assistant message, '
         '`{"role": "assistant", "content": reply.output_text or None}`', case=CASES[1],
         hint="assistant_once"),
    Rule("call_id", "with one `\"tool_calls\"` entry per `function_call` item, whose `\"id\"` is "
         "the item's `call_id` (not its `id`)", case=CASES[0], hint="call_id"),
    Rule("answer_appended", "A reply without `function_call` items is the answer: append it too",
         case=CASES[0], hint="answer_appended"),
    Rule("tool_messages", "then one tool message per call, in call order (`run_tool_calls`, 05.3)",
         case=CASES[1], hint="tool_messages"),
    Rule("max_turns", "At most `max_turns` requests, then return `None`", case=CASES[2],
         hint="max_turns"),
    Rule("answered_on_stop", "the last turn's calls answered first (the list stays one you can "
         "send)", case=CASES[2], hint="answered_on_stop"),
    Rule("no_tools", "no tools: leave `tools` out", case=CASES[3], hint="no_tools"),
)  # fmt: skip

HINTS = Catalog() | {
    "model": "Pass model=model to every request (this one asked for {got!r}).",
    "responses": (
        "Send each request with client.responses.create(model=model, "
        'input=chat_to_responses_input(messages), tools=registry.schemas(format="responses")): '
        "{problem}."
    ),
    "whole_history": (
        "Request {number} did not send the whole conversation: send messages itself, the "
        "system prompt and every earlier exchange included; that is the assistant's memory."
    ),
    "in_place": (
        "The list you were given did not grow: append to messages itself (no copy, no "
        "messages + [...]), so the caller's history holds this exchange next time."
    ),
    "answer": "Return the content of the reply without calls, a str (got {got}).",
    "assistant_once": (
        "Append each reply's assistant message once, with all its calls (this turn added {count})."
    ),
    "call_id": (
        'The "id" of a tool_calls entry is the function_call item\'s call_id ({wanted}), not '
        "its own id ({got}): the call's tool message and every later request answer it by "
        "call_id."
    ),
    "answer_appended": (
        "The final answer is missing from the list: append it as an assistant message too, "
        "before returning its output_text, so the next question goes with it."
    ),
    "tool_messages": (
        "After the assistant message come its tool messages: one per call, in call order, "
        "each with its call's tool_call_id and registry.call's result (run_tool_calls does)."
    ),
    "max_turns": (
        "Send at most max_turns ({limit}) requests, then return None (this conversation sent "
        "{count})."
    ),
    "answered_on_stop": (
        "When the turns run out, answer the last turn's calls before returning None: a call "
        "without its result makes the whole history one the API refuses."
    ),
    "no_tools": (
        "The registry has no tools: leave tools out of the request (the API refuses an empty "
        "tools list)."
    ),
    "rejected": "The model refused request {number}: {message}",
}
hint = HINTS.hint


def view(message: Any) -> Any:
    """A message as the API reads it: who, what, which calls, which call it answers."""
    if not isinstance(message, dict):
        return message
    functions = [(c.get("id"), c.get("function", {})) for c in message.get("tool_calls") or []]
    calls = [[call_id, f.get("name"), f.get("arguments")] for call_id, f in functions]
    shown = {"role": message.get("role"), "content": message.get("content") or None}
    if calls:
        shown["tool_calls"] = calls
    if message.get("role") == "tool":
        shown["tool_call_id"] = message.get("tool_call_id")
    return shown


def views(messages: Any) -> Any:
    return [view(m) for m in messages] if isinstance(messages, list) else messages


def reply_message(exchange: Exchange) -> dict:
    if "output" in exchange.reply:
        return output_message(exchange.reply)
    return ((exchange.reply.get("choices") or [{}])[0]).get("message") or {}


def responses_problem(request: dict) -> str | None:
    """What is not a Responses request with the registry's tools in its format, or None."""
    if not is_responses(request):
        return TEXTS.text("chat_sent")
    tools = request.get("tools") or []
    if any(not isinstance(t, dict) or "function" in t or "name" not in t for t in tools):
        return TEXTS.text("chat_tools")
    if request.get("previous_response_id") is not None:
        return TEXTS.text("previous")
    return None


def expected_conversation(case: Case, exchanges: list[Exchange]) -> tuple[list, list, Any]:
    """What each request should have sent, the list afterwards, and the return value, built
    from the replies the model really gave."""
    registry = check_registry(empty=case.empty)
    messages = [view(m) for m in case.history]
    sent = []
    for exchange in exchanges[: case.max_turns]:
        sent.append(list(messages))
        reply = reply_message(exchange)
        messages.append(view({"role": "assistant", **reply}))
        calls = reply.get("tool_calls") or []
        if not calls:
            return sent, messages, reply.get("content")
        for c in calls:
            result = registry.call(c["function"]["name"], c["function"]["arguments"])
            messages.append(view({"role": "tool", "tool_call_id": c["id"], "content": result}))
    return sent, messages, None


def judge_requests(case: Case, exchanges: list[Exchange], sent: list[list]) -> None:
    __tracebackhide__ = True
    if len(exchanges) > case.max_turns:
        fail(case.label, Plain(TEXTS.text("at_most", count=case.max_turns)),
             Plain(TEXTS.text("requests", count=len(exchanges))),
             hint("max_turns", limit=case.max_turns, count=len(exchanges)))  # fmt: skip
    for number, (exchange, wanted) in enumerate(zip(exchanges, sent, strict=False), start=1):
        where = TEXTS.text("request", number=number)
        request = exchange.request
        if request.get("model") != CHECK_MODEL:
            fail(case.label, CHECK_MODEL, request.get("model"), hint("model",
                 got=request.get("model")))  # fmt: skip
        problem = responses_problem(request)
        if problem is not None:
            fail(case.label, Plain(TEXTS.text("a_responses_request")), Plain(problem),
                 hint("responses", problem=problem), where=where)  # fmt: skip
        if case.empty and "tools" in request:
            fail(case.label, Plain(TEXTS.text("no_tools")), request.get("tools"), hint("no_tools"))
        got = views(input_messages(request.get("input")))
        if got != wanted:
            expect_equal(case.label, wanted, got, hint=request_hint(case, number, got, wanted))
        if exchange.status != 200:
            message = str((exchange.reply.get("error") or {}).get("message", ""))
            fail(case.label, Plain("200"), Plain(str(exchange.status)),
                 hint("rejected", number=number, message=message), where=where)  # fmt: skip


def request_hint(case: Case, number: int, got: list, wanted: list) -> HintText:
    history = len(case.history)
    if got[:history] != wanted[:history]:
        return hint("whole_history", number=number)
    added, expected_added = got[history:], wanted[history:]
    turns = sum(1 for m in expected_added if m["role"] == "assistant")
    ids, count = call_ids(added), sum(1 for m in added if m["role"] == "assistant")
    if count > turns or len(ids) != len(set(ids)):  # Responses sends a repeated message's calls
        return hint("assistant_once", count=max(count, len(ids) - len(set(ids)) + 1))
    return ids_hint(added, expected_added) or hint("tool_messages")


def call_ids(messages: list) -> list:
    return [c[0] for m in messages if m.get("role") == "assistant" for c in m.get("tool_calls", [])]


def ids_hint(added: list, expected_added: list) -> HintText | None:
    """The call_id hint when the calls are the right ones under other ids, else None."""
    got, wanted = call_ids(added), call_ids(expected_added)
    if got and len(got) == len(wanted) and got != wanted:
        first = next(pair for pair in zip(wanted, got, strict=True) if pair[0] != pair[1])
        return hint("call_id", wanted=first[0], got=first[1])
    return None


def list_hint(case: Case, after: Any, wanted: list) -> HintText:
    if after == views(case.history):
        return hint("in_place")
    if not isinstance(after, list):
        return hint("tool_messages")
    if after == wanted[: len(after)] and after:
        rest = wanted[len(after) :]
        if all(m["role"] == "tool" for m in rest):
            return hint("answered_on_stop")
        if len(rest) == 1 and rest[0]["role"] == "assistant" and not rest[0].get("tool_calls"):
            return hint("answer_appended")
    if after[: len(case.history)] != views(case.history):
        return hint("whole_history", number=1)
    # The most assistant messages in a row: more than one is a turn split into several.
    runs = groupby(message.get("role") == "assistant" for message in after)
    longest = max((len(list(run)) for assistant, run in runs if assistant), default=0)
    if longest > 1:
        return hint("assistant_once", count=longest)
    return ids_hint(after, wanted) or hint("tool_messages")


def run_case(learner: Learner, case: Case) -> None:
    __tracebackhide__ = True
    session = learner.model(case.policy(), model_name=CHECK_MODEL)
    kept = learner.run("", result="list(history)", bind={"history": case.history}, keep=True)
    history = learner.handle(kept.handle)
    limit = {} if case.max_turns == 6 else {"max_turns": case.max_turns}
    reply = learner.attempt(
        "converse", learner.client(session), learner.source(
            "make_registry(empty)", setup=REGISTRY_SOURCE + f"\nempty = {case.empty!r}\n"),
        history, model=CHECK_MODEL, **limit,
    )  # fmt: skip
    after = learner.run("", result="messages", bind={"messages": history}).value
    learner.release(kept.handle)
    exchanges = list(session.exchanges)
    sent, wanted, answer = expected_conversation(case, exchanges)
    judge_requests(case, exchanges, sent)
    if reply.raised:
        raise_learner_error(case.label, reply)
    if views(after) != wanted:
        expect_equal(case.label, wanted, views(after), hint=list_hint(case, views(after), wanted))
    if reply.value != answer or reply.type not in ("str", "NoneType"):
        got = reply.value if reply.type in ("str", "NoneType") else Plain(reply.type)
        key = "max_turns" if answer is None else "answer"
        fail(case.label, answer, got, hint(key, got=reply.type, limit=case.max_turns,
             count=len(exchanges)))  # fmt: skip


@exercise("09.4", notebook=NOTEBOOK, title="converse", points=2, rules=RULES, hints=HINTS)
def check_converse(learner: Learner) -> str:
    visible, hidden = visible_cases(), hidden_cases()
    for case in [*visible, *hidden]:
        run_case(learner, case)
    return TEXTS.text("summary", visible=len(visible), hidden=len(hidden))
