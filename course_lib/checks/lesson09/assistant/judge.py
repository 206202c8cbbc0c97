"""Judging one scenario of 09.6 from its evidence: the first outcome a user would find wrong.

The outcomes, in the order they are looked at (an earlier one explains the later ones):
the protocol (Responses), the history each question is sent with (the system prompt, the
memory, the budget), the iteration budget, the model accepting every request (every call
answered), ``ask`` returning, its result's shape, the tools each request offered (routing and
roles), calls to tools that were not offered (not run), the person's approval, the calculator
(no ``eval``), the calls of a turn running together, the answer and its facts, and the trace.
"""

from __future__ import annotations

from typing import Any

from course_lib.capstone.conversation import message_size
from course_lib.capstone.policies import (
    CONTEXT_BUDGET,
    MAX_TURNS,
    NEEDS_APPROVAL,
    SYSTEM_PROMPT,
    TOOL_TAGS,
)
from course_lib.capstone.shop import RENDEZVOUS_MISSED
from course_lib.checks.compare import Plain
from course_lib.checks.failures import Failure
from course_lib.checks.lesson09._policy_oracles import expected_may_use, expected_route
from course_lib.checks.lesson09.assistant.run import Asked, Evidence
from course_lib.checks.lesson09.assistant.scenarios import Expectation
from course_lib.checks.lesson09.assistant.texts import hint, text
from course_lib.checks.lesson09.assistant.trace import judge_trace
from course_lib.checks.lesson09.assistant.verdict import (
    Verdict,
    calls_in,
    expected_offer,
    is_error,
    offered,
    verdict,
)
from course_lib.checks.lesson09.budget.cases import expected_fit, user
from course_lib.checks.lesson09.memory import reply_message, view, views
from course_lib.reference.tracing import parsed_arguments


def judge(evidence: Evidence, expectation: Expectation) -> Failure | None:
    """``None`` when the scenario went as a user wants, else why not."""
    try:
        if expectation.refused_role:
            for asked in evidence.asks:
                judge_refused_role(evidence, asked)
            return None
        judge_approval(evidence)
        for number, asked in enumerate(evidence.asks):
            judge_history(evidence, number)
            judge_ask(evidence, asked, expectation, number)
        judge_trace(evidence)
    except Verdict as verdict:
        return verdict.failure
    return None


# --- one question -----------------------------------------------------------------------------


def judge_refused_role(evidence: Evidence, asked: Asked) -> None:
    count, raised = len(asked.exchanges), asked.raised
    if raised is not None and raised.raised_a("ValueError") and count == 0:
        return
    got = Plain(text("returned", count=count))
    if raised is not None:
        got = Plain(text("raised_after", error=raised.raised_text, count=count))
    chosen = hint("unknown_role", role=evidence.scenario.role)
    raise verdict(evidence, asked, Plain(text("value_error")), got, chosen)


def judge_ask(evidence: Evidence, asked: Asked, expectation: Expectation, number: int) -> None:
    exchanges = asked.exchanges
    if len(exchanges) > MAX_TURNS:
        got = Plain(text("requests", count=len(exchanges)))
        expected, chosen = Plain(text("at_most", count=MAX_TURNS)), hint("budget", limit=MAX_TURNS)
        raise verdict(evidence, asked, expected, got, chosen)
    for index, exchange in enumerate(exchanges, start=1):
        if exchange.status != 200:
            message = str((exchange.reply.get("error") or {}).get("message", ""))
            unanswered = "did not have response" in message or "No tool output found" in message
            key = "unanswered" if unanswered else "rejected"
            if "empty array" in message:
                key = "empty_tools"
            where = text("request", number=index, count=len(exchanges))
            got = Plain(text("refused_status", status=exchange.status, message=message))
            chosen = hint(key, message=message)
            raise verdict(evidence, asked, Plain(text("accepted")), got, chosen, where=where)
    answer, kind = Plain(text("an_answer")), (asked.result or {}).get("type", "?")
    if asked.raised is not None:
        got = Plain(asked.raised.raised_text)
        raise verdict(evidence, asked, answer, got, raised_hint(asked))
    if kind not in ("str", "NoneType"):
        raise verdict(evidence, asked, answer, Plain(kind), hint("answer", kind=kind))
    judge_offers(evidence, asked)
    judge_strict(evidence, asked)
    judge_nulls(evidence, asked)
    judge_refusals(evidence, asked)
    judge_calculator(evidence, asked)
    judge_concurrency(evidence, asked)
    judge_answer(evidence, asked, expectation, number)


def raised_hint(asked: Asked) -> Any:
    reply = asked.raised
    stub = reply.message.split(":", 1)[0] if reply.raised_a("NotImplementedError") else ""
    if stub:
        return hint("other_stub", stub=stub)
    if reply.raised_a("JSONDecodeError") or reply.raised_a("ValidationError"):
        return hint("errors_as_data")
    return hint("raised")


def judge_offers(evidence: Evidence, asked: Asked) -> None:
    role = evidence.scenario.role
    wanted = expected_offer(asked.question, role)
    categories = ", ".join(expected_route(asked.question))
    for index, exchange in enumerate(asked.exchanges, start=1):
        names = offered(exchange)
        if sorted(names) == sorted(wanted):
            continue
        where = text("request", number=index, count=len(asked.exchanges))
        extra = [n for n in names if n not in wanted]
        forbidden = [
            n for n in extra if n in TOOL_TAGS and not expected_may_use(role, TOOL_TAGS[n])
        ]
        missing = [n for n in wanted if n not in names]
        if forbidden:
            chosen = hint("roles", role=role, extra=", ".join(forbidden))
        elif extra:
            chosen = hint("routing", categories=categories, extra=", ".join(extra))
        else:
            chosen = hint("missing_tools", categories=categories, missing=", ".join(missing))
        raise verdict(evidence, asked, sorted(wanted), sorted(names), chosen, where=where)


def judge_strict(evidence: Evidence, asked: Asked) -> None:
    """Every tool offered goes in strict mode (06): ``"strict": true`` on it. That its schema is
    one strict mode accepts, the model itself says: it refuses the request otherwise."""
    for index, exchange in enumerate(asked.exchanges, start=1):
        tools = [tool.get("function", {}) for tool in exchange.request.get("tools") or []]
        loose = [tool.get("name", "?") for tool in tools if tool.get("strict") is not True]
        if loose:
            where = text("request", number=index, count=len(asked.exchanges))
            got = Plain(", ".join(loose))
            chosen = hint("strict", loose=", ".join(loose))
            raise verdict(evidence, asked, Plain(text("strict_tools")), got, chosen, where=where)


def judge_nulls(evidence: Evidence, asked: Asked) -> None:
    """In strict mode the model sends ``null`` for an optional parameter it leaves out; a
    registry that validates the function's own schema refuses it unless the null is dropped
    first. Such a refusal names the parameter and the null."""
    for _, call, name, content, where in calls_in(asked.exchanges):
        arguments = parsed_arguments(call.get("function", {}).get("arguments") or "{}")
        if not isinstance(arguments, dict):
            continue
        content = content or ""
        named = [k for k, v in arguments.items() if v is None and k in content]
        if named and "null" in content and is_error(content):
            chosen = hint("strict_null", name=name, parameter=named[0])
            expected = Plain(text("null_default", parameter=named[0]))
            raise verdict(evidence, asked, expected, content, chosen, where=where)


def judge_refusals(evidence: Evidence, asked: Asked) -> None:
    """A call to a tool the request did not offer must not have run, and is answered with an
    error result naming the tool. It surely ran when the shop recorded its action; it surely
    did not when the tool does not exist or writes without a record; else a result says it ran.
    """
    error = Plain(text("an_error"))
    for exchange, _, name, content, where in calls_in(asked.exchanges):
        if name in offered(exchange):
            continue
        did = shop_did(evidence, name)
        if did is not None:
            chosen = hint("guard", name=name, evidence=did)
            raise verdict(evidence, asked, error, Plain(did), chosen, where=where)
        if content is None:  # unanswered: the model's refusal of the next request says so
            continue
        if not is_error(content):
            tags = TOOL_TAGS.get(name)
            if tags is None or "write" in tags:
                chosen = hint("refusal_not_error", name=name)
            else:
                chosen = hint("guard", name=name, evidence=text("it_ran"))
            raise verdict(evidence, asked, error, content, chosen, where=where)
        if name not in content:
            expected = Plain(text("an_error_naming", name=name))
            chosen = hint("refusal_unnamed", name=name)
            raise verdict(evidence, asked, expected, content, chosen, where=where)


def shop_did(evidence: Evidence, name: str, more_than: int = 0) -> str | None:
    """What the shop recorded of tool ``name`` when it ran more than ``more_than`` times."""
    ran = [a for a in evidence.shop.get("actions") or [] if a.get("action") == name]
    if len(ran) > more_than:
        return text("shop_did", action=name, order_id=ran[0].get("order_id"))
    return None


def judge_calculator(evidence: Evidence, asked: Asked) -> None:
    for _, call, name, content, where in calls_in(asked.exchanges):
        if name != "calculate" or content is None or is_error(content):
            continue
        if "__" in call.get("function", {}).get("arguments", ""):
            error, chosen = Plain(text("an_error")), hint("eval")
            raise verdict(evidence, asked, error, content, chosen, where=where)


def judge_concurrency(evidence: Evidence, asked: Asked) -> None:
    if evidence.scenario.rendezvous < 2:
        return
    for _, _, name, content, where in calls_in(asked.exchanges):
        if RENDEZVOUS_MISSED in (content or ""):
            expected, chosen = Plain(text("together")), hint("concurrent", name=name)
            raise verdict(evidence, asked, expected, content, chosen, where=where)


def judge_answer(evidence: Evidence, asked: Asked, expectation: Expectation, number: int) -> None:
    got = (asked.result or {}).get("answer")
    last = reply_message(asked.exchanges[-1]) if asked.exchanges else {}
    answered = bool(asked.exchanges) and not last.get("tool_calls")
    if answered and got != last.get("content"):
        chosen = hint("no_answer") if got is None else hint("answer_text")
        raise verdict(evidence, asked, last.get("content"), got, chosen)
    facts = expectation.facts[number] if number < len(expectation.facts) else ()
    answer = got or ""
    missing = [fact for fact in facts if fact not in answer]
    if missing:
        demo = [fact for fact in expectation.demo_facts if fact in answer]
        listed = ", ".join(missing)
        chosen = hint("wrong_shop", demo=demo[0]) if demo else hint("facts", facts=listed)
        expected = Plain(text("answer_holding", facts=listed))
        raise verdict(evidence, asked, expected, answer, chosen)
    if number == len(evidence.asks) - 1 and not expectation.answered and got is not None:
        raise verdict(evidence, asked, None, got, hint("stopped", expected="None", got=repr(got)))


# --- across questions: the history, the approval ------------------------------------------------


def sent_history(evidence: Evidence, number: int) -> list | None:
    """What question ``number``'s first request should carry: the conversation so far (the
    previous question's last request and its reply), the question, fitted to the budget."""
    question = user(evidence.asks[number].question)
    if number == 0:
        return views([{"role": "system", "content": SYSTEM_PROMPT}, question])
    before = evidence.asks[number - 1]
    if before.raised is not None or not before.exchanges:
        return None
    last = before.exchanges[-1]
    so_far = [*(last.request.get("messages") or []), {"role": "assistant", **reply_message(last)}]
    return views(expected_fit([*so_far, question], CONTEXT_BUDGET))


def judge_history(evidence: Evidence, number: int) -> None:
    """Question ``number`` goes over Responses, with the system prompt first, the conversation
    before it (memory) and no more than the budget keeps."""
    asked = evidence.asks[number]
    if not asked.exchanges:
        return
    first = asked.exchanges[0]
    if first.request.get("api") != "responses":
        raise verdict(evidence, asked, Plain("Responses"), Plain("Chat Completions"),
                      hint("responses"), where=text("request", number=1, count=1))  # fmt: skip
    wanted = sent_history(evidence, number)
    got = views(first.request.get("messages") or [])
    size = sum(message_size(m) for m in first.request.get("messages") or [] if isinstance(m, dict))
    if wanted is None or got == wanted:
        return
    where = text("request", number=1, count=len(asked.exchanges))
    if not got or got[0] != view({"role": "system", "content": SYSTEM_PROMPT}):
        chosen = hint("system_prompt")
    elif size > CONTEXT_BUDGET and len(got) > len(wanted):
        chosen = hint("context_budget", number=number + 1, size=size, budget=CONTEXT_BUDGET)
    elif len(got) < len(wanted):
        chosen = hint("memory", number=number + 1)
    else:
        chosen = hint("history", number=number + 1)
    raise verdict(evidence, asked, wanted, got, chosen, where=where)


def judge_approval(evidence: Evidence) -> None:
    """A call to a tool that needs approval ran only if the person was asked and said True."""
    asked_names = [question[0] for question in evidence.person if question]
    for asked in evidence.asks:
        for exchange, _, name, _, where in calls_in(asked.exchanges):
            if name not in NEEDS_APPROVAL:
                continue
            chosen = hint("approval_unoffered", name=name)
            person_asked = Plain(text("person_asked", name=name))
            not_asked = Plain(text("person_not_asked"))
            if name not in offered(exchange):
                if name in asked_names:
                    raise verdict(evidence, asked, not_asked, person_asked, chosen, where=where)
                continue
            did = shop_did(evidence, name, more_than=evidence.scenario.person.count(True))
            if did is not None:
                error, chosen = Plain(text("an_error")), hint("approval", name=name, evidence=did)
                raise verdict(evidence, asked, error, Plain(did), chosen, where=where)
            if name not in asked_names:
                chosen = hint("approval_unasked", name=name)
                raise verdict(evidence, asked, person_asked, not_asked, chosen, where=where)
