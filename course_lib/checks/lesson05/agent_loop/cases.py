"""The conversations 05.1's check has ``run_agent`` hold: visible ones, one or more per rule of
the contract, then hidden ones drawn from ``hidden_rng("05.1")``.

Each is ``(label, question, policy factory, max_iterations)``. A factory, because the learner's
session and the reference's each need a fresh policy; it imports the local model only when a
check runs. Scripted turns come from ``ScriptedPolicy``; ``Endless`` never stops asking.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

from course_lib.checks.lesson05._agent_tools import CITIES
from course_lib.i18n import translate

# A case's label, said in the learner's language when a check fails (``spoken_label``): the hidden
# cases' and the visible ones the rules of 05.1 name (see ``RULES`` in ``__init__.py``).
CASE_TEXTS = {
    "hidden": "hidden case {number}",
    "parallel": "two parallel calls, then an answer",
    "greeting": "a greeting, answered without tools",
    "three": "three calls in one turn",
    "repeat_next_to_new": "a call repeated in the next turn next to a new call",
    "endless": "a model that never stops calling",
    "last_turn_answer": "an answer on the last allowed turn",
    "limit_two": "two calls, then max_iterations",
    "failing_tool": "a tool that fails, then an answer",
    "reordered_repeat": "a repeat with reordered keys and other spacing",
    "repeat_first": "a repeated call listed before a new call in its turn",
    "same_turn_twice": "the same call twice in one turn is not a repeat",
    "last_turn_calls": "the last allowed turn asks for two calls",
    "not_json": "arguments that are not valid JSON, sent again in the next turn",
    "other_arguments": "the same tool with other arguments is not a repeat",
    "answer_as_sent": "an answer that ends in a newline, kept as sent",
}

Case = tuple[str, str, Callable[[], Any], int]

# A visible case is known by its label's key in CASE_TEXTS; those the rules name, by name too.
PARALLEL = "parallel"
REPEAT_NEXT_TO_NEW = "repeat_next_to_new"
ENDLESS = "endless"
LAST_TURN_ANSWER = "last_turn_answer"
REORDERED_REPEAT = "reordered_repeat"
REPEAT_FIRST = "repeat_first"
SAME_TURN_TWICE = "same_turn_twice"
NOT_JSON = "not_json"


class Endless:
    """A model that asks for one more new call every turn, and gives up after 12 turns."""

    def respond(self, request: Any) -> Any:
        from course_lib.local_model import Turn
        from course_lib.local_model.turns import ToolCall

        turn = sum(1 for m in request.messages if m.get("role") == "assistant")
        if turn >= 12:
            return Turn("I give up.")
        city = CITIES[turn % len(CITIES)] + str(turn)
        return Turn(None, (ToolCall.of("get_time", {"city": city}),))


def heuristic() -> Any:
    from course_lib.local_model import HeuristicPolicy

    return HeuristicPolicy()


def script(*turns: Any) -> Callable[[], Any]:
    """A factory of a ``ScriptedPolicy``; each turn is ``("call", name, arguments)``, a raw
    ``("raw", name, text)`` call, a list of those, or a text."""

    def build() -> Any:
        from course_lib.local_model import ScriptedPolicy
        from course_lib.local_model.turns import ToolCall

        def one(turn: Any) -> Any:
            if isinstance(turn, (list, str)):
                return turn if isinstance(turn, str) else [one(spec) for spec in turn]
            kind, name, arguments = turn
            return ToolCall(name, arguments) if kind == "raw" else ToolCall.of(name, arguments)

        return ScriptedPolicy([one(turn) for turn in turns])

    return build


def call_spec(name: str, city: str, **more: Any) -> tuple:
    """A call of ``name`` for ``city`` (``more``: its other arguments), as ``script`` takes it."""
    return ("call", name, {"city": city, **more})


WEATHER = call_spec("get_weather", "北京")
BROKEN = ("raw", "get_weather", '{"city": "北京"')
TIMES = (call_spec("get_time", "北京"), call_spec("get_time", "上海"), "好")

VISIBLE: list[Case] = [
    (PARALLEL, "北京和上海的天气怎么样？", heuristic, 6),
    ("greeting", "hello", heuristic, 6),
    ("three", "What is the weather in 北京, 上海 and Paris?", heuristic, 6),
    (REPEAT_NEXT_TO_NEW, "北京", script(WEATHER, [call_spec("get_time", "北京"), WEATHER], "done"),
     6),
    (ENDLESS, "go", Endless, 3),
    (LAST_TURN_ANSWER, "time", script(*TIMES), 3),
    ("limit_two", "time", script(*TIMES), 2),
    ("failing_tool", "火星的天气", script(call_spec("get_weather", "火星"), "No station on Mars."),
     6),
    (REORDERED_REPEAT, "上海", script(("raw", "get_weather", '{"city": "上海", "unit": "f"}'),
                                    ("raw", "get_weather", '{"unit":"f","city":"上海"}'), "x"), 6),
    (REPEAT_FIRST, "北京", script(WEATHER, [WEATHER, call_spec("get_time", "上海")], "done"), 6),
    (SAME_TURN_TWICE, "北京", script([WEATHER, WEATHER], "done"), 6),
    ("last_turn_calls", "time",
     script(call_spec("get_time", "北京"),
            [call_spec("get_weather", "上海"), call_spec("get_time", "Paris")], "好"), 2),
    (NOT_JSON, "北京", script(BROKEN, [BROKEN, call_spec("get_time", "Paris")], "x"), 6),
    ("other_arguments", "上海",
     script(call_spec("get_weather", "上海"), call_spec("get_weather", "上海", unit="f"), "x"), 6),
    ("answer_as_sent", "上海", script(call_spec("get_time", "上海"), "上海 12:10。\n"), 6),
]  # fmt: skip


def visible(label: str) -> Case:
    return next(case for case in VISIBLE if case[0] == label)


def loop_cases(rng: Random) -> list[Case]:
    return VISIBLE + hidden_cases(rng)


def hidden_cases(rng: Random, count: int = 8) -> list[Case]:
    cases: list[Case] = []
    for number in range(count):
        turns, made = [], []
        for _ in range(rng.randint(1, 4)):
            turn = []
            for _ in range(rng.randint(1, 3)):
                if made and rng.random() < 0.2:
                    turn.append(rng.choice(made))
                else:
                    name = rng.choice(["get_weather", "get_time"])
                    turn.append(call_spec(name, rng.choice(CITIES)))
            unique = [spec for i, spec in enumerate(turn) if spec not in turn[:i]]
            turns.append(unique)  # one turn never asks the same call twice
            made.extend(unique)
        turns.append(rng.choice(["好的。", "Done.", "北京晴，上海多云。"]))
        question = rng.choice(["天气", "weather and time", "北京 上海"])
        label = translate(CASE_TEXTS, "hidden", number=number + 1)
        cases.append((label, question, script(*turns), rng.randint(1, 5)))
    return cases
