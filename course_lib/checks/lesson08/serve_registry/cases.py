"""The registries and calls 08.1's check sends to ``serve_registry``.

Each case is the source text of a registry (built beside the learner's code, and built again
here from the same text to know the answers) and the ``[name, arguments]`` calls a real client
makes on the server. The visible case is lesson 04's kind of registry; hidden cases draw tools
from ``TOOL_SOURCES`` under random names and descriptions, in random order.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from random import Random
from typing import Any

from course_lib.checks.function_cases import run_source

HEADER = """\
from typing import Literal

from course_lib.reference import ToolRegistry

WEATHER = {"北京": 31, "上海": 27, "Paris": 18, "東京": 22}
NOTES = ["北京 trip: book the train", "Shopping: milk, 豆腐, rice", "上海: call Zhang San",
         "Tea from 上海"]
STAFF = {"Zhang San": "Engineering, 上海 office", "李四": "Sales, 北京 office"}
REASONS = {404: "Not Found", 500: "Internal Server Error", 418: "I'm a teapot"}

registry = ToolRegistry()
"""

# key -> a function's source; "{decorator}" is filled per case.
TOOL_SOURCES = {
    "weather": '''
{decorator}
def get_weather(city: str, unit: Literal["c", "f"] = "c") -> dict:
    """Current weather for a city, e.g. 北京 or Paris."""
    if city not in WEATHER:
        raise ValueError(f"no weather for {{city}}")
    celsius = WEATHER[city]
    return {{"city": city, "temperature": celsius if unit == "c" else celsius * 9 // 5 + 32}}
''',
    "search": '''
{decorator}
def search(keyword: str, limit: int = 5) -> list[str]:
    """Search my notes for a keyword, e.g. 豆腐."""
    return [note for note in NOTES if keyword.lower() in note.lower()][:limit]
''',
    "explain": '''
{decorator}
def explain_error(code: int) -> str:
    """Explain an HTTP status code, e.g. 404."""
    return f"Error {{code}} means: {{REASONS.get(code, 'unknown')}}"
''',
    "colleague": '''
{decorator}
def find_colleague(name: str) -> str:
    """Find a colleague by name, e.g. 李四, and tell where they work."""
    if name not in STAFF:
        raise LookupError(f"nobody called {{name}} works here")
    return STAFF[name]
''',
    "report": '''
{decorator}
def error_report(day: str) -> dict:
    """How many errors the logs show for a day, e.g. 2024-05-01."""
    return {{"day": day, "error_count": 0, "errors": []}}
''',
    "cities": '''
{decorator}
def list_cities() -> list[str]:
    """The cities get_weather knows, e.g. 北京."""
    return list(WEATHER)
''',
    "count": '''
{decorator}
def count_characters(text: str) -> int:
    """Count the characters of a text, e.g. 你好."""
    return len(text)
''',
    "forecast": '''
{decorator}
def forecast(city: str) -> str:
    """Tomorrow's weather in a city, morning and evening, one line each."""
    return f"{{city}} morning: sun\\n{{city}} evening: rain"
''',
    "levels": '''
{decorator}
def log_levels() -> list[str]:
    """The log levels a search can filter on, mildest first."""
    return ["debug", "info", "warning", "error"]
''',
    "health": '''
{decorator}
def check_service(service: str) -> dict:
    """Whether a service is up, e.g. mail; says what failed when it knows."""
    cause = {{"mail": "timed out after 5 s"}}.get(service)
    return {{"service": service, "up": False, "error": cause}}
''',
}

VISIBLE_DECORATORS = {
    "weather": '@registry.tool("Current weather for a city, e.g. 北京 or Paris.")',
    "search": '@registry.tool(name="search_notes", tags=["notes"])',
    "explain": "@registry.tool",
    "colleague": "@registry.tool",
    "cities": "@registry.tool",
    # answers that a shortcut for one block or for is_error gets wrong: two lines of text, a
    # list holding the word "error", an object whose "error" key is not the first
    "forecast": "@registry.tool",
    "levels": "@registry.tool",
    "health": "@registry.tool",
}
VISIBLE_CALLS = [
    ["get_weather", {"city": "北京"}],
    ["search_notes", {"keyword": "上海"}],
    ["explain_error", {"code": 404}],
    ["find_colleague", {"name": "王五"}],
    ["get_wether", {"city": "上海"}],
    ["list_cities", None],
    ["forecast", {"city": "上海"}],
    ["log_levels", {}],
    ["check_service", {"service": "mail"}],
]

NAMES = ("lookup", "weather_now", "notes_find", "ask_staff", "log_errors", "char_count")
DESCRIPTIONS = (
    "Use this for questions about {topic}.",
    "回答关于{topic}的问题。",
    "{topic}: one call answers it.",
)
TOPICS = ("天气", "notes", "同事", "errors", "text", "上海")
# key -> two calls' arguments; the second makes some tools fail (check_service's with a null
# "error": still an error object, which a truth test of the value misses). (None of them breaks
# the schema: explaining that takes jsonschema, whose import costs seconds, and the registry's
# answer is text like any other.)
HIDDEN_ARGUMENTS = {
    "weather": ({"city": "東京", "unit": "f"}, {"city": "Atlantis"}),
    "search": ({"keyword": "上海", "limit": 1}, {"keyword": "nothing"}),
    "explain": ({"code": 418}, {"code": 999}),
    "colleague": ({"name": "李四"}, {"name": "王五"}),
    "report": ({"day": "2024-05-01"}, {"day": "昨天"}),
    "cities": ({}, None),
    "count": ({"text": "你好, world"}, {"text": ""}),
    "forecast": ({"city": "Paris"}, {"city": "北京"}),
    "levels": ({}, None),
    "health": ({"service": "mail"}, {"service": "数据库"}),
}


@dataclass(frozen=True)
class RegistryCase:
    """One registry (its source text) and the calls made on the server that serves it."""

    setup: str
    calls: list[list[Any]]
    function_names: dict[str, str]  # registered name -> the function's own name


def function_of(key: str) -> str:
    """The name of the function ``TOOL_SOURCES[key]`` defines."""
    return re.search(r"^def (\w+)", TOOL_SOURCES[key], flags=re.M)[1]


def registry_source(decorators: dict[str, str]) -> str:
    parts = [HEADER]
    for key, decorator in decorators.items():
        parts.append(TOOL_SOURCES[key].format(decorator=decorator))
    return "".join(parts)


def visible_case() -> RegistryCase:
    registered = {"search": "search_notes"}  # the one tool not registered as its function
    names = {registered.get(key, function_of(key)): function_of(key) for key in VISIBLE_DECORATORS}
    return RegistryCase(registry_source(VISIBLE_DECORATORS), VISIBLE_CALLS, names)


def hidden_cases(rng: Random, count: int = 3) -> list[RegistryCase]:
    cases = []
    for _ in range(count):
        keys = rng.sample(sorted(TOOL_SOURCES), rng.randint(3, 5))
        decorators, names, calls = {}, {}, []
        for key in keys:
            function_name = function_of(key)
            description = rng.choice(DESCRIPTIONS).format(topic=rng.choice(TOPICS))
            name = rng.choice([function_name, *NAMES])
            if name in names:
                name = function_name
            quoted = json.dumps(description, ensure_ascii=False)
            decorators[key] = (
                rng.choice(["@registry.tool", f"@registry.tool({quoted})"])
                if name == function_name
                else f"@registry.tool(name={name!r}, description={quoted})"
            )
            names[name] = function_name
            first, second = HIDDEN_ARGUMENTS[key]
            calls += [[name, first], [name, second]]
        rng.shuffle(calls)
        calls.append([rng.choice(sorted(names)) + "_v2", {}])
        cases.append(RegistryCase(registry_source(decorators), calls, names))
    return cases


@cache
def built_registry(setup: str) -> Any:
    """The check's own copy of a case's registry, from the same source text."""
    return run_source(setup, "<08.1 registry>", "check_case")["registry"]


def expected_listing(setup: str) -> list[dict[str, Any]]:
    """What ``tools/list`` must show: name, description and ``inputSchema`` of every tool."""
    return [
        {
            "name": tool["function"]["name"],
            "description": tool["function"]["description"],
            "inputSchema": tool["function"]["parameters"],
        }
        for tool in built_registry(setup).schemas()
    ]


def expected_text(setup: str, name: str, arguments: Any) -> str:
    return built_registry(setup).call(name, arguments)
