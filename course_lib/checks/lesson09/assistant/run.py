"""Running one scenario of 09.6 against the learner's assistant, and collecting the evidence.

The shop is built in the learner's kernel from the scenario's data; the assistant is built there
too, with a client wired to a model session on the check's side. So most of what the judge reads
was recorded here, not reported by the kernel: every request the assistant sent (the tools it
offered, the tool messages it wrote) and every reply. From the kernel come only what lives there:
the shape of ``ask``'s result, the assistant's trace and memory, the questions the person was
asked, and the shop's record of its changes. Requests sent over the Responses API are read as
the Chat exchanges that carry the same conversation (``_exchanges.as_chat``), so one judge reads
both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from course_lib.capstone.scenarios import Scenario
from course_lib.checks.learner import Exchange, Learner, Reply
from course_lib.checks.lesson09._exchanges import as_chat
from course_lib.checks.lesson09.assistant.scenarios import CHECK_MODEL

SHOP_CLASS = "from course_lib.capstone.shop import Shop"
PERSON_CLASS = "from course_lib.capstone.scenarios import Person"

# Read beside the learner's code: what ``ask`` returned, as plain data.
READ_RESULT = """
def summary(result):
    plain = result is None or isinstance(result, str)
    return {"type": type(result).__name__, "answer": result if plain else repr(result)[:300]}
"""

# The assistant's trace, each record cut to the keys the contract names.
READ_TRACE = """
import json

KEYS = ("tool", "arguments", "duration_ms", "ok", "error", "result_chars")


def plain(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)[:300]
    return value if isinstance(value, dict) else repr(value)[:300]


def record(item):
    if not isinstance(item, dict):
        return {"not_a_dict": type(item).__name__}
    return {"keys": sorted(map(str, item)), **{key: plain(item.get(key)) for key in KEYS}}


def records(assistant):
    return [record(item) for item in list(assistant.trace)] if hasattr(assistant, "trace") else None
"""


@dataclass
class Asked:
    """One question: the exchanges it cost, and what ``ask`` returned (or raised)."""

    question: str
    exchanges: list[Exchange]
    raised: Reply | None = None
    result: dict[str, Any] | None = None


@dataclass
class Evidence:
    """Everything one scenario showed."""

    scenario: Scenario
    asks: list[Asked] = field(default_factory=list)
    trace: list[dict[str, Any]] | None = None
    trace_reply: Reply | None = None
    shop: dict[str, Any] = field(default_factory=dict)
    person: list[list[Any]] = field(default_factory=list)

    @property
    def exchanges(self) -> list[Exchange]:
        return [exchange for asked in self.asks for exchange in asked.exchanges]


def build(learner: Learner, scenario: Scenario, index: int) -> tuple[Any, str, str, Reply]:
    """The model session, the shop's and the person's handles, and the reply of
    ``ShopAssistant(...)`` (kept as a handle)."""
    session = learner.model(scenario.policy(), model_name=CHECK_MODEL, seed=200 + index)

    def kept(cls: dict, *args: Any, **kwargs: Any) -> str:
        return learner.call(cls, *args, case=scenario.id, keep=True, **kwargs).handle

    shop = kept(
        learner.source("Shop", setup=SHOP_CLASS), scenario.data, rendezvous=scenario.rendezvous
    )
    person = kept(learner.source("Person", setup=PERSON_CLASS), list(scenario.person))
    built = learner.attempt("ShopAssistant", learner.client(session), model=CHECK_MODEL,
                            shop=learner.handle(shop), approve=learner.handle(person), keep=True,
                            foreign_stubs_fail=True)  # fmt: skip
    return session, shop, person, built


def run_scenario(
    learner: Learner, scenario: Scenario, session: Any, handles: tuple[str, str, str]
) -> Evidence:
    """Ask the scenario's questions in turn, then read the trace, the person and the shop."""
    shop, person, assistant = handles
    evidence = Evidence(scenario)
    ask = learner.attr(learner.handle(assistant), "ask")
    for question in scenario.questions:
        start = len(session.exchanges)
        reply = learner.attempt(
            ask, question, role=scenario.role, keep=True, foreign_stubs_fail=True
        )
        result = None
        if not reply.raised:
            bind = {"result": learner.handle(reply.handle)}
            read = learner.run(READ_RESULT, result="summary(result)", bind=bind).value
            result = read if isinstance(read, dict) else {"type": reply.type}
            learner.release(reply.handle)
        exchanges = [as_chat(exchange) for exchange in session.exchanges[start:]]
        evidence.asks.append(Asked(question, exchanges, reply if reply.raised else None, result))
    bind = {"assistant": learner.handle(assistant)}
    trace = evidence.trace_reply = learner.run(READ_TRACE, result="records(assistant)", bind=bind)
    evidence.trace = trace.value if isinstance(trace.value, list) else None
    snapshot = learner.run("", result="shop.snapshot()", bind={"shop": learner.handle(shop)})
    evidence.shop = snapshot.value if isinstance(snapshot.value, dict) else {}
    questions = learner.run("", result="person.asked", bind={"person": learner.handle(person)})
    evidence.person = questions.value if isinstance(questions.value, list) else []
    learner.release(assistant, shop, person)
    return evidence
