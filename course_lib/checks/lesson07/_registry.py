"""What the checks of lesson 07 share: the registry the learner's code is given, and questions.

The registry exists twice from one source text (``REGISTRY_SOURCE``): beside the learner's code,
where their round trip calls ``registry.call``, and here, where the check computes what each
result sent back must be. The model is a session on the check's side (``Learner.model``), so a
check reads what the learner's code really sent in ``session.exchanges``, whatever it returns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from random import Random
from typing import Any

from course_lib.checks.learner import Learner, Reply, raise_endless, raise_learner_error

NOTEBOOK = "07_other_protocols"
CHECK_MODEL = "toy-check-model"  # not MODEL: the learner must pass ``model`` through

REGISTRY_SOURCE = '''\
from typing import Literal

from course_lib.reference import ToolRegistry

SKIES = {"北京": "晴", "上海": "多云", "Paris": "cloudy", "London": "rain", "Berlin": "fog"}
OFFSETS = {"北京": 8, "上海": 8, "Paris": 2, "London": 1, "Berlin": 2}
registry = ToolRegistry()


@registry.tool
def get_weather(city: str, unit: Literal["c", "f"] = "c") -> dict:
    """Current weather (temperature and sky) in a city, such as 北京 or Paris."""
    if city not in SKIES:
        raise KeyError(f"no weather station in {city}")
    celsius = 10 + sum(map(ord, city)) % 25
    temperature = celsius if unit == "c" else round(celsius * 9 / 5 + 32)
    report = {"city": city, "temperature": temperature, "unit": unit, "sky": SKIES[city]}
    if city == "Berlin":  # a success whose text holds the word "error"
        report["error_margin"] = 1
    return report


@registry.tool
def get_time(city: str) -> str:
    """The local time in a city."""
    return f"{(4 + OFFSETS.get(city, 0)) % 24:02d}:00"
'''
# Places the toy model recognises; 东京 and Tokyo have no weather station (an error result).
PLACES = ["北京", "上海", "Paris", "London", "Berlin", "东京", "Tokyo"]


@cache
def _registry() -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(REGISTRY_SOURCE, "<lesson 07 registry>", "exec", dont_inherit=True), namespace)
    return namespace["registry"]


def registry_spec(learner: Learner) -> dict[str, Any]:
    """The registry, built from ``REGISTRY_SOURCE`` beside the learner's code."""
    return learner.source("registry", setup=REGISTRY_SOURCE)


def tools(format: str) -> list[dict[str, Any]]:
    """The registry's tools in ``format``, as the learner's code should send them."""
    return _registry().schemas(format=format)


def tool_result(name: str, arguments: Any) -> str:
    """What ``registry.call(name, arguments)`` returns (the check's own copy of the registry)."""
    return _registry().call(name, arguments)


def is_error_result(result: str) -> bool:
    """Whether a registry result is an error object ``{"error": ...}``."""
    try:
        value = json.loads(result)
    except ValueError:
        return False
    return isinstance(value, dict) and "error" in value


def random_questions(rng: Random, count: int) -> list[str]:
    """Weather and time questions about two places, in English and Chinese."""
    templates = [
        "What's the weather in {a} and {b}?",
        "{a}和{b}的天气怎么样？",
        "Weather in {a}, please.",
        "{a}现在几点？",
    ]
    questions = []
    for _ in range(count):
        first, second = rng.sample(PLACES, 2)
        questions.append(rng.choice(templates).format(a=first, b=second))
    return questions


def text_of_response(response: dict[str, Any]) -> str:
    """A Responses API reply's ``output_text``: its message items' output_text parts, joined."""
    return "".join(
        part.get("text", "")
        for item in response.get("output") or []
        if item.get("type") == "message"
        for part in item.get("content") or []
        if part.get("type") == "output_text"
    )


def text_of_message(message: dict[str, Any]) -> str:
    """An Anthropic reply's text: its text blocks, joined."""
    return "".join(
        block.get("text", "")
        for block in message.get("content") or []
        if block.get("type") == "text"
    )


def replaced(value: Any, names: dict[str, str]) -> Any:
    """``value`` (JSON values) with every string that is a key of ``names`` replaced by its name:
    how the checks show ids and signatures that differ from one process to the next."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [replaced(part, names) for part in value]
    if isinstance(value, dict):
        return {key: replaced(part, names) for key, part in value.items()}
    return value


def run_round_trips(
    learner: Learner,
    target: str,
    table: list[tuple[str, Any, str]],
    *,
    api: str,
    seed: int,
    case_label: Callable[[str, str], str],
    diagnose: Callable[..., None],
    expect_final_text: Callable[[str, list, Reply], None],
    exception_hints: list,
    endless: bool = False,
) -> None:
    """07.1's and 07.3's loop: each (question, policy or None, model) of ``table`` asked of the
    learner's ``target`` on a fresh session of ``api``, then the requests judged by ``diagnose``
    and the answer by ``expect_final_text``. With ``endless``, a function that never returns is
    judged on what it sent, then named as endless."""
    __tracebackhide__ = True
    from course_lib.local_model import HeuristicPolicy

    for index, (question, policy, model) in enumerate(table):
        session = learner.model(
            policy or HeuristicPolicy(), model_name=CHECK_MODEL, seed=seed + index
        )
        case = case_label(question, model)
        options = {"case": case, "endless_returns": True} if endless else {}
        client = learner.client(session, api=api)
        reply = learner.attempt(
            target, client, registry_spec(learner), question, model=model, **options
        )
        if reply.endless:  # the rule its requests break first, then that it never finished
            diagnose(case, question, session.exchanges, finished=False, model=model)
            raise_endless(case, reply.endless)
        if reply.raised:
            diagnose(case, question, session.exchanges, finished=False, model=model)
            raise_learner_error(case, reply, exception_hints)
        diagnose(case, question, session.exchanges, model=model)
        expect_final_text(case, session.exchanges, reply)
