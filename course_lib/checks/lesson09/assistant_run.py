"""Running one scenario of 09.1 against the learner's assistant, and collecting the evidence.

The shop is built in the learner's kernel from the scenario's data; the assistant is built there
too, with a client wired to a model session on the check's side. So most of what the judge reads
was recorded here, not reported by the kernel: every request the assistant sent (the tools it
offered, the tool messages it wrote) and every reply. From the kernel come only what lives there:
the shape of ``ask``'s result, the assistant's trace and the shop's record of its changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from course_lib.capstone.scenarios import Scenario
from course_lib.checks.learner import Exchange, Learner, Reply
from course_lib.checks.lesson09.assistant_scenarios import CHECK_MODEL

SHOP_CLASS = "from course_lib.capstone.shop import Shop"

# Read beside the learner's code: what ``ask`` returned, as plain data.
READ_RESULT = """
def summary(result):
    data = {"type": type(result).__name__}
    for name in ("answer", "stopped"):
        if hasattr(result, name):
            value = getattr(result, name)
            plain = value is None or isinstance(value, str)
            data[name] = value if plain else repr(value)[:300]
            data[name + "_type"] = type(value).__name__
    return data
"""

# The assistant's trace, each record cut to the keys the contract names.
READ_TRACE = """
KEYS = ("call_id", "tool", "arguments", "role", "ok")


def plain(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)[:300]


def records(assistant):
    if not hasattr(assistant, "trace"):
        return None
    out = []
    for record in list(assistant.trace):
        if isinstance(record, dict):
            out.append({"keys": sorted(map(str, record)),
                        **{key: plain(record.get(key)) for key in KEYS}})
        else:
            out.append({"not_a_dict": type(record).__name__})
    return out
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

    @property
    def exchanges(self) -> list[Exchange]:
        return [exchange for asked in self.asks for exchange in asked.exchanges]


def build(learner: Learner, scenario: Scenario, index: int) -> tuple[Any, str, Reply]:
    """The model session, the shop's handle and ``build_assistant``'s reply (kept as a handle)."""
    session = learner.model(scenario.policy(), model_name=CHECK_MODEL, seed=200 + index)
    shop = learner.call(
        learner.source("Shop", setup=SHOP_CLASS),
        scenario.data,
        rendezvous=scenario.rendezvous,
        case=scenario.id,
        keep=True,
    )
    built = learner.attempt(
        "build_assistant",
        learner.client(session),
        model=CHECK_MODEL,
        shop=learner.handle(shop.handle),
        keep=True,
        foreign_stubs_fail=True,
    )
    return session, shop.handle, built


def run_scenario(learner: Learner, scenario: Scenario, session: Any, shop: str, assistant: str):
    """Ask the scenario's questions in turn, then read the trace and the shop."""
    evidence = Evidence(scenario)
    ask = learner.attr(learner.handle(assistant), "ask")
    for question in scenario.questions:
        start = len(session.exchanges)
        reply = learner.attempt(
            ask, question, role=scenario.role, keep=True, foreign_stubs_fail=True
        )
        asked = Asked(question, [])
        if reply.raised:
            asked.raised = reply
        else:
            read = learner.run(
                READ_RESULT, result="summary(result)", bind={"result": learner.handle(reply.handle)}
            )
            asked.result = read.value if isinstance(read.value, dict) else {"type": reply.type}
            learner.release(reply.handle)
        asked.exchanges = list(session.exchanges[start:])
        evidence.asks.append(asked)
    trace = learner.run(
        READ_TRACE, result="records(assistant)", bind={"assistant": learner.handle(assistant)}
    )
    evidence.trace_reply = trace
    evidence.trace = trace.value if isinstance(trace.value, list) else None
    snapshot = learner.run("", result="shop.snapshot()", bind={"shop": learner.handle(shop)})
    evidence.shop = snapshot.value if isinstance(snapshot.value, dict) else {}
    learner.release(assistant, shop)
    return evidence
