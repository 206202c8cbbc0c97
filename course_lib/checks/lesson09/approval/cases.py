"""The world of exercise 09.3: a small registry whose tools log when they run, a person who
logs what they were asked and answers from a list, and the calls made through the learner's
``ApprovalRegistry``.

``WORLD_SOURCE`` runs beside the learner's code (a fresh world per case, kept as a handle) and
here (``check_world``), so the expected results come from the same tools. One log holds both
what ran and what the person was asked, in order, so "asked before it ran" is read off it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from course_lib.checks.compare import hidden_rng
from course_lib.checks.function_cases import run_source

NEEDS_APPROVAL = ("cancel_order", "wipe_notes")
RAISES = "raise"  # the person's answer that makes ``approve`` raise (the window was closed)

WORLD_SOURCE = '''\
from course_lib.reference import ToolRegistry


class World:
    """A registry whose tools log each run, and a person who logs each question."""

    def __init__(self, answers):
        self.log = []
        self.answers = list(answers)
        self.registry = ToolRegistry()
        log = self.log

        @self.registry.tool
        def order_status(order_id: str) -> dict:
            """Where an order is."""
            log.append(["ran", "order_status", {"order_id": order_id}])
            return {"order_id": order_id, "status": "shipped", "city": "北京"}

        @self.registry.tool
        def cancel_order(order_id: str, reason: str = "") -> dict:
            """Cancel an order that has not shipped."""
            log.append(["ran", "cancel_order", {"order_id": order_id, "reason": reason}])
            if order_id == "A1001":
                raise RuntimeError("order A1001 has shipped and cannot be cancelled")
            return {"order_id": order_id, "status": "cancelled"}

        @self.registry.tool
        def wipe_notes() -> str:
            """Delete every internal note."""
            log.append(["ran", "wipe_notes", {}])
            return "all notes deleted"

    def person(self, name, arguments):
        self.log.append(["asked", name, arguments])
        answer = self.answers.pop(0) if self.answers else False
        if answer == "raise":
            raise RuntimeError("the approval window was closed")
        return answer
'''


def check_world(answers: list[Any]) -> Any:
    """The check's own copy of the world the learner's wrapper receives."""
    namespace = run_source(WORLD_SOURCE, "<09.3 world>", "lesson09_approval", postponed=True)
    return namespace["World"](answers)


@dataclass(frozen=True)
class Case:
    """One call through the wrapper, and what the person answers if asked."""

    name: str
    arguments: Any
    answer: Any = None  # True, False, a reason (str), or RAISES; None: must not be asked

    @property
    def label(self) -> str:
        return f"approvals.call({self.name!r}, {self.arguments!r})"

    @property
    def needs_approval(self) -> bool:
        return self.name in NEEDS_APPROVAL


VISIBLE = (
    Case("order_status", {"order_id": "A1001"}),
    Case("cancel_order", '{"order_id": "A1002"}', True),
    Case("cancel_order", {"order_id": "A1003"}, False),
    Case("cancel_order", {"order_id": "A1002", "reason": "顾客要求"}, "客户改主意了，先别取消"),
    Case("cancel_order", '{"order_id": "A10', True),
    Case("wipe_notes", "", True),
    Case("cancel_order", {"order_id": "A1004"}, RAISES),
)
REASONS = (
    "the customer called back",
    "不行，这个订单已经打包了",
    "no",
    "wait for the manager",
    "请先确认付款",
)


def hidden_cases(count: int = 10) -> list[Case]:
    """More calls: every kind of answer, other orders, Chinese reasons, a failing approved
    call, an unknown tool passed through, arguments that are JSON but not an object."""
    rng = hidden_rng("09.3")
    cases = [
        Case("get_wether", {"city": "北京"}),
        Case("cancel_order", "[1, 2]", True),
        Case("cancel_order", {"order_id": "A1001"}, True),
    ]
    for _ in range(count):
        order = {"order_id": f"A{rng.randint(1002, 1999)}"}
        answer = rng.choice([True, False, rng.choice(REASONS), RAISES])
        arguments = rng.choice([order, f'{{"order_id": "{order["order_id"]}"}}'])
        cases.append(rng.choice([Case("cancel_order", arguments, answer),
                                 Case("order_status", order)]))  # fmt: skip
    return cases
