"""What 09.1's judge reads from the recorded exchanges, and how it reports a wrong outcome: a
``Verdict`` carrying a ``Failure`` whose detail draws the conversation as the model received it
(``ConversationText``, the text ``ConversationView`` shows) and says where to watch it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from course_lib.capstone.policies import TOOL_TAGS
from course_lib.checks.compare import failure
from course_lib.checks.failures import Failure
from course_lib.checks.learner import Exchange
from course_lib.checks.lesson09._policy_oracles import expected_may_use, expected_route
from course_lib.checks.lesson09.assistant.run import Asked, Evidence
from course_lib.checks.lesson09.assistant.texts import text
from course_lib.checks.lesson09.memory import reply_message
from course_lib.local_model.followup import Exchange as ToolExchange
from course_lib.local_model.turns import ToolCall
from course_lib.widgets.conversation_text import ConversationText

MAX_CONVERSATION = 2400  # characters of the conversation shown under a failed scenario
VISIBLE_IDS = ("price", "staff_tool", "injection", "eval")


class Verdict(Exception):
    """The first wrong outcome of a scenario, carried out of the judge as a ``Failure``."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.hint)
        self.failure = failure


# --- reading exchanges ------------------------------------------------------------------------


def offered(exchange: Exchange) -> list[str]:
    return [t.get("function", {}).get("name", "?") for t in exchange.request.get("tools") or []]


def calls_of(exchange: Exchange) -> list[dict[str, Any]]:
    return list(reply_message(exchange).get("tool_calls") or [])


def answers_in(exchanges: list[Exchange]) -> dict[str, str]:
    """Every tool message any request carried: call id -> content."""
    sent = [m for e in exchanges for m in e.request.get("messages") or [] if isinstance(m, dict)]
    found = {str(m.get("tool_call_id")): m.get("content") for m in sent if m.get("role") == "tool"}
    return {
        i: c if isinstance(c, str) else json.dumps(c, ensure_ascii=False) for i, c in found.items()
    }


def calls_in(exchanges: list[Exchange]) -> Iterator[tuple[Exchange, dict, str, str | None, str]]:
    """Every call the replies made: its exchange, the call, its tool's name, its answer, and
    where a failure about it is (the tool message answering it)."""
    answers = answers_in(exchanges)
    for exchange in exchanges:
        for call in calls_of(exchange):
            name, call_id = call.get("function", {}).get("name", ""), call.get("id")
            where = text("tool_message", name=name, call_id=call_id)
            yield exchange, call, name, answers.get(str(call_id)), where


def is_error(content: str) -> bool:
    """An error result, as the model reads one (``{"error": ...}``, or text saying Error)."""
    return ToolExchange(ToolCall("", "{}"), content).error is not None


def expected_offer(question: str, role: str) -> list[str]:
    categories = expected_route(question)
    return [n for n, t in TOOL_TAGS.items() if t[0] in categories and expected_may_use(role, t)]


# --- failures ---------------------------------------------------------------------------------


def conversation(evidence: Evidence, asked: Asked) -> str:
    """The last request of ``asked`` and its reply, drawn as ConversationView's text draws them, and
    where to watch it."""
    lines = []
    if asked.exchanges:
        last = asked.exchanges[-1]
        messages = [m for m in last.request.get("messages") or [] if isinstance(m, dict)]
        messages += [reply_message(last)] if reply_message(last) else []
        drawn = ConversationText(messages).text()
        drawn = drawn if len(drawn) <= MAX_CONVERSATION else drawn[:MAX_CONVERSATION] + "…"
        lines.append(text("conversation", conversation=drawn))
    scenario = evidence.scenario.id
    visible = scenario in VISIBLE_IDS
    lines.append(text("draw_visible", id=scenario) if visible else text("draw_hidden"))
    return "\n".join(lines)


def verdict(
    evidence: Evidence, asked: Asked | None, expected: Any, got: Any, chosen: Any, *, where=None
) -> Verdict:
    asked = asked or evidence.asks[-1]
    case = text("case", question=asked.question, role=evidence.scenario.role)
    detail = conversation(evidence, asked)
    return Verdict(failure(case, expected, got, chosen, where=where, detail=detail))
