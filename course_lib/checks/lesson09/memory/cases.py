"""The conversations of exercise 09.4: a history, the model's next turns, and the registry.

The model plays a script (``ScriptedPolicy``): turn *k* answers a conversation that already
holds *k* assistant messages, so a script starts with one placeholder per assistant message
the history holds (the earlier answers, never asked for again). The registry's tools exist
beside the learner's code and here, from one source text, so the check knows each result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from course_lib.checks.compare import hidden_rng
from course_lib.checks.function_cases import run_source
from course_lib.checks.lesson09.budget.cases import SYSTEM, plain, user, with_tools
from course_lib.i18n import translate

CHECK_MODEL = "toy-check-model-09"
REGISTRY_SOURCE = '''\
from course_lib.reference import ToolRegistry

SKIES = {"北京": "晴", "上海": "多云", "深圳": "小雨", "Paris": "cloudy", "London": "rain"}


def make_registry(empty=False):
    registry = ToolRegistry()
    if empty:
        return registry

    @registry.tool
    def get_weather(city: str) -> dict:
        """Current weather in a city, such as 北京 or Paris."""
        if city not in SKIES:
            raise KeyError(f"no weather station in {city}")
        return {"city": city, "sky": SKIES[city]}

    @registry.tool
    def order_status(order_id: str) -> dict:
        """Where an order is."""
        return {"order_id": order_id, "status": "shipped"}

    return registry
'''
# What each conversation is about: the comment of its case label (``Case.about`` is the key).
ABOUT_TEXTS = {
    "one_call": "one call, then the answer",
    "two_calls": "two calls in one turn",
    "never_stops": "a model that never stops",
    "no_tools": "no tools at all",
    "hidden": "hidden",
}
CITIES = ("北京", "上海", "深圳", "Paris", "London", "東京")


def check_registry(*, empty: bool = False) -> Any:
    namespace = run_source(REGISTRY_SOURCE, "<09.4 registry>", "lesson09_memory", postponed=True)
    return namespace["make_registry"](empty)


@dataclass(frozen=True)
class Case:
    """A history (ending in the new question), the model's turns after it, and max_turns."""

    history: list[dict]
    turns: tuple[Any, ...]  # each: text, or a list of (tool, arguments) calls
    max_turns: int = 6
    empty: bool = False
    about: str = "hidden"

    @property
    def label(self) -> str:
        limit = f", max_turns={self.max_turns}" if self.max_turns != 6 else ""
        about = translate(ABOUT_TEXTS, self.about)
        return f"converse(client, registry, messages, model={CHECK_MODEL!r}{limit})  # {about}"

    def policy(self) -> Any:
        from course_lib.local_model import ScriptedPolicy, call

        earlier = sum(1 for m in self.history if m.get("role") == "assistant")
        script: list[Any] = ["(an earlier answer)"] * earlier
        for turn in self.turns:
            script.append(turn if isinstance(turn, str) else [call(n, **a) for n, a in turn])
        return ScriptedPolicy(script)


def weather(city: str) -> tuple[str, dict]:
    return ("get_weather", {"city": city})


EARLIER = [
    SYSTEM,
    *plain("Hello!", "你好！How can I help?"),
    *with_tools("Where is my order A1001?", "call_old", ['{"status": "shipped"}'], "Shipped."),
]


def visible_cases() -> list[Case]:
    return [
        Case([*EARLIER, user("北京明天会下雨吗？")], ([weather("北京")], "北京晴。"),
             about="one_call"),
        Case([*EARLIER, user("北京和上海呢？")],
             ([weather("北京"), weather("上海")], "北京晴，上海多云。"), about="two_calls"),
        Case([SYSTEM, user("Weather everywhere, one city at a time.")],
             tuple([weather(c)] for c in CITIES[:4]), max_turns=3, about="never_stops"),
        Case([*EARLIER, user("Thanks!")], ("不客气。",), empty=True, about="no_tools"),
    ]  # fmt: skip


def hidden_cases(count: int = 6) -> list[Case]:
    rng = hidden_rng("09.4")
    cases = []
    for _ in range(count):
        history = list(EARLIER[: rng.choice([1, 3, len(EARLIER)])])
        history.append(user(rng.choice(["天气？", "And Paris?", "再查一次"])))
        turns: list[Any] = [[weather(c) for c in rng.sample(CITIES, rng.randint(1, 3))]
                            for _ in range(rng.randint(0, 2))]  # fmt: skip
        limit = rng.choice([6, len(turns) + 1, max(len(turns), 1)])
        turns.append(rng.choice(["好的。", "Here you are.", "明天有小雨。"]))
        cases.append(Case(history, tuple(turns), max_turns=limit, about="hidden"))
    return cases
