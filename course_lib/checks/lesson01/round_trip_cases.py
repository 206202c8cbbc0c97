"""The world 01.4's check builds for ``ask_with_tools``: its tools, its functions, its questions.

The functions exist twice from one source text (``FUNCTIONS_SOURCE``): beside the learner's code,
where ``ask_with_tools`` calls them, and here, where the check computes what each tool message
should hold. The model is a session on the check's side (``Learner.model``), so the check reads
what the learner's code really sent in ``session.exchanges``.
"""

from __future__ import annotations

from functools import cache
from random import Random
from typing import Any

from course_lib.checks.function_cases import run_source
from course_lib.checks.lesson01._values import chat_tool

CHECK_MODEL = "toy-check-model"  # not MODEL: the learner must pass ``model`` through
TEXT_AND_CALL_QUESTION = "Is it warm in 上海 today?"
TEXT_BESIDE_CALL = "Let me look up the weather in 上海 first."
NULL_ARGUMENT_QUESTION = "我关于北京的笔记, any tag"
SECOND_ROUND_QUESTION = "先查北京的天气, 再查上海的"
SECOND_ROUND_TEXT = "北京: 晴. Now 上海."

FUNCTIONS_SOURCE = """\
SKIES = {"北京": "晴", "上海": "多云", "Paris": "cloudy", "London": "rain", "東京": "小雨"}


def get_weather(city, unit="c"):
    celsius = 10 + sum(map(ord, city)) % 25
    temperature = celsius if unit == "c" else round(celsius * 9 / 5 + 32)
    return {"city": city, "temperature": temperature, "unit": unit, "sky": SKIES.get(city, "晴")}


def search_notes(keyword, limit=5, tags=None):
    notes = [{"title": f"{keyword} 笔记 {n}", "tags": tags or ["旅行"]} for n in range(1, 4)]
    return notes[:limit]


functions = {"get_weather": get_weather, "search_notes": search_notes}
"""

CHECK_TOOLS = [
    chat_tool("get_weather", "Current weather (temperature and sky) in a city.", {
        "city": {"type": "string", "description": "The city, e.g. 北京"},
        "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
    }, ["city"]),
    chat_tool("search_notes", "Search my notes for a keyword.", {
        "keyword": {"type": "string"},
        "limit": {"type": "integer", "default": 5},
        "tags": {"type": "array", "items": {"type": "string"}},
    }, ["keyword"]),
]  # fmt: skip


@cache
def check_functions() -> dict[str, Any]:
    """The check's own copy of the functions the learner's code is given."""
    return run_source(FUNCTIONS_SOURCE, "<01.4 functions>")["functions"]


def tool_result(name: str, arguments: dict) -> Any:
    return check_functions()[name](**arguments)


def conversations(rng: Random) -> list[tuple[str, Any]]:
    """(question, policy or None for the default toy model), the visible ones first."""
    from course_lib.local_model import HeuristicPolicy, ScriptedPolicy, Turn, call

    two_tools = [
        call("get_weather", city="北京"),
        call("search_notes", keyword="上海", tags=["旅行"]),
    ]
    # A reply with text beside its call: tool_calls, not content, says whether to answer.
    text_and_call = Turn(TEXT_BESIDE_CALL, (call("get_weather", city="上海"),))
    # Arguments with a JSON null, which only json.loads reads (eval, for one, does not).
    null_argument = [call("search_notes", keyword="北京", tags=None)]
    # A second reply that asks for another call: one round trip still ends there.
    second_round = [
        [call("get_weather", city="北京")],
        Turn(SECOND_ROUND_TEXT, (call("get_weather", city="上海"),)),
    ]
    cases: list[tuple[str, Any]] = [
        ("What's the weather in 北京?", None),
        ("北京的天气和我关于上海的笔记", ScriptedPolicy([two_tools], then=HeuristicPolicy())),
        ("What's the weather in Paris and London?", None),
        ("Hello!", None),
        (TEXT_AND_CALL_QUESTION, ScriptedPolicy([text_and_call], then=HeuristicPolicy())),
        (NULL_ARGUMENT_QUESTION, ScriptedPolicy([null_argument], then=HeuristicPolicy())),
        (SECOND_ROUND_QUESTION, ScriptedPolicy(second_round, then=HeuristicPolicy())),
    ]
    places = ["北京", "上海", "Paris", "London", "Tokyo", "Berlin"]
    for _ in range(3):
        first, second = rng.sample(places, 2)
        template = rng.choice(
            [
                "Weather in {a} and {b}, please.",
                "{a}和{b}的天气怎么样?",
                "What's the weather in {a}?",
            ]
        )
        cases.append((template.format(a=first, b=second), None))
    cities = rng.sample(places, 3)
    scripted = [call("get_weather", city=city, unit=rng.choice("cf")) for city in cities]
    cases.append(("Compare three cities", ScriptedPolicy([scripted], then=HeuristicPolicy())))
    return cases
