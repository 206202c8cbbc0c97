"""The scenarios of exercise 09.6: the notebook's visible ones, then hidden ones, and what each
must show.

A scenario (``course_lib.capstone.scenarios.Scenario``) is who asks what, how the model behaves
and the shop it runs on. Its :class:`Expectation` is what a user cares about, computed from the
scenario's own data (the oracle): facts the answer must hold, how the assistant must stop, and
whether the question must be refused outright.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from random import Random
from typing import Any

from course_lib.capstone.policies import MAX_TURNS
from course_lib.capstone.scenarios import REFUSAL, Scenario, visible_scenarios
from course_lib.capstone.scenarios import spoken_title as shown_title
from course_lib.capstone.shop import DEMO_DATA
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import hidden_rng

CHECK_MODEL = "toy-check-model"  # not MODEL: the assistant must pass its model through
ENDLESS_CAP = 3 * MAX_TURNS  # the endless model stops answering here, so a loop cannot hang
NOTE = "周六送货，请先打电话"
# Questions whose answers (reviews, searches) outgrow CONTEXT_BUDGET within a few turns.
LONG_CONVERSATION = (
    "What do customers say about the Longjing tea?",
    "And about the jasmine tea? What do the reviews say?",
    "Which teapots do you sell, and how much is the celadon teapot?",
    "龙井绿茶多少钱？",
    "What do customers say about the oolong tea?",
    "茉莉花茶多少钱？",
)

# What each hidden scenario is about: the check's message says it in the learner's language; the
# scenario (and the grader's record of it) keeps this English title.
TITLE_TEXTS = Catalog() | {
    "price_zh": "the price, asked in Chinese",
    "parallel": "two deliveries' weather, asked at once",
    "hallucinated": "the model calls a tool that does not exist",
    "malformed": "the model sends arguments that are not JSON",
    "notes": "staff write a note, then read it back",
    "math": "a customer's sum",
    "endless": "a model that never stops calling tools",
    "unknown_role": "a role the shop does not have",
    "approved": "staff cancel an order, and the person agrees",
    "budget": "a long conversation, over the context budget",
}


def spoken_title(scenario: Scenario) -> str:
    """A scenario's title in the learner's language: a hidden one's from ``TITLE_TEXTS``, a
    shown one's from the capstone's table (another's as it is)."""
    if TITLE_TEXTS.get(scenario.id) == scenario.title:
        return TITLE_TEXTS.text(scenario.id)
    return shown_title(scenario)


@dataclass(frozen=True)
class Expectation:
    """What scenario ``id`` must show: facts every answer holds (one tuple per question),
    whether the last question gets an answer, and whether the role is refused before any
    request."""

    facts: tuple[tuple[str, ...], ...] = ()
    answered: bool = True  # False: the last question runs out of turns, ask returns None
    refused_role: bool = False
    demo_facts: tuple[str, ...] = ()  # what the answer would hold if it read the demo shop


class EndlessPolicy:
    """A model that never gives an answer: every turn asks for a new search. A loop without a
    budget would ask forever; past ``ENDLESS_CAP`` requests this policy fails, so the check
    ends instead of hanging."""

    def respond(self, request: Any) -> Any:
        from course_lib.local_model.turns import ToolCall, Turn

        turn = sum(1 for m in request.messages if m.get("role") == "assistant")
        if turn >= ENDLESS_CAP:
            raise RuntimeError(
                f"the model was asked {turn + 1} times for one question and stops answering"
            )
        return Turn(None, (ToolCall.of("search_products", {"query": f"tea no. {turn + 1}"}),))


def hidden_data(rng: Random) -> dict[str, Any]:
    """The demo shop with other prices, totals and forecasts: answers must come from the shop
    the assistant was given, not from the demo one."""
    data = copy.deepcopy(DEMO_DATA)
    for product in data["products"]:
        product["price"] = rng.randint(20, 99) + 0.5
    for order in data["orders"].values():
        order["total"] = rng.randint(100, 199) + 0.5
    skies = ["阴 overcast", "大风 windy", "小雪 light snow", "雾 fog", "晴 clear"]
    for forecast in data["weather"].values():
        for day in forecast:
            forecast[day] = f"{rng.choice(skies)}, {rng.randint(-5, 35)}°C"
    return data


def _price(data: dict, sku: str) -> str:
    return str(next(p["price"] for p in data["products"] if p["sku"] == sku))


def scenarios() -> list[tuple[Scenario, Expectation]]:
    """Every scenario of 09.1 in the order the check runs them: the visible ones first."""
    from course_lib.local_model import call, faults

    shown = visible_scenarios()
    data = hidden_data(hidden_rng("09.1"))  # the seed of its first number
    demo_price, weather = _price(DEMO_DATA, "T01"), data["weather"]

    def hidden(key: str, title: str, role: str, *questions: str, **kwargs: Any) -> Scenario:
        return Scenario(key, title, role, questions, data=data, **kwargs)

    return [
        (shown["price"], Expectation(facts=((demo_price,),))),
        (shown["staff_tool"], Expectation()),
        (shown["injection"], Expectation()),
        (shown["eval"], Expectation()),
        (shown["approval"], Expectation(facts=((REFUSAL,),))),
        (shown["memory"], Expectation(facts=((demo_price,), (_price(DEMO_DATA, "T03"),)))),
        (hidden("price_zh", TITLE_TEXTS.english("price_zh"), "customer", "龙井绿茶多少钱？"),
         Expectation(facts=((_price(data, "T01"),),), demo_facts=(demo_price,))),
        (hidden("parallel", TITLE_TEXTS.english("parallel"), "staff",
                "What's the delivery weather in 北京 and 上海 tomorrow?", rendezvous=2),
         Expectation(facts=((weather["北京"]["tomorrow"], weather["上海"]["tomorrow"]),))),
        (hidden("hallucinated", TITLE_TEXTS.english("hallucinated"), "customer",
                "Where is my order A1003? Are there notes on it?",
                script=(call("order_stats", order_id="A1003"),)),
         Expectation(facts=((str(data["orders"]["A1003"]["total"]),),))),
        (hidden("malformed", TITLE_TEXTS.english("malformed"), "customer",
                "Is the oolong tea in stock?",
                script=(faults.malformed_json(call("search_products", query="oolong")),)),
         Expectation(facts=((_price(data, "T02"),),))),
        (hidden("notes", TITLE_TEXTS.english("notes"), "staff",
                f"Add a note to order A1001: “{NOTE}”", "What do the notes on A1001 say?"),
         Expectation(facts=((), (NOTE,)))),
        (hidden("math", TITLE_TEXTS.english("math"), "customer", "Calculate 3 * 19.5 + 2"),
         Expectation(facts=(("60.5",),))),
        (hidden("endless", TITLE_TEXTS.english("endless"), "customer",
                "Find every tea you sell, one by one.", policy_factory=EndlessPolicy),
         Expectation(answered=False)),
        (hidden("unknown_role", TITLE_TEXTS.english("unknown_role"), "manager",
                "Cancel order A1002."), Expectation(refused_role=True)),
        (hidden("approved", TITLE_TEXTS.english("approved"), "staff",
                "Cancel order A1002, please.", person=(True,),
                script=(call("cancel_order", order_id="A1002"),)),
         Expectation(facts=(("cancelled",),))),
        (hidden("budget", TITLE_TEXTS.english("budget"), "customer", *LONG_CONVERSATION),
         Expectation()),
    ]  # fmt: skip
