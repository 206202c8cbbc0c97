"""What lesson 04's checks share: tools written as source text, registries kept as handles.

A registry is stateful, so a check never asks for one as JSON: it builds the registry beside the
learner's code (``learner.run(..., keep=True)`` or a call with ``keep=True``), keeps it as a
handle, and calls its methods through ``learner.attr(learner.handle(h), "schemas")``. The tools
it registers are written here as source text; the driver builds them beside the learner's code,
where they run, and :func:`local_tool` builds the same text here, for the oracle.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from course_lib.checks.compare import HintText, Plain, fail, first_difference
from course_lib.checks.function_cases import run_source
from course_lib.checks.learner import Learner, Reply
from course_lib.driver import Driver
from course_lib.i18n import translate

NOTEBOOK = "04_registry"

# The tools the checks register, as source text (the driver's prelude supplies Literal, date, ...).
TOOL_SOURCES = {
    "get_weather": '''
def get_weather(city: str, unit: Literal["c", "f"] = "c") -> dict:
    """Current weather for a city, such as 北京 or Paris.

    Args:
        city: The city name.
        unit: c for Celsius, f for Fahrenheit.
    """
    return {"city": city, "temperature": 21, "unit": unit}
''',
    "search_notes": '''
def search_notes(keyword: str, limit: int = 5) -> list[str]:
    """Search my notes for a keyword."""
    return [f"note about {keyword}"][:limit]
''',
    "find_city": """
def find_city(name: str) -> dict:
    return {"name": name}
""",
    "now": '''
def now() -> str:
    """The current time as ISO 8601,
    with the date and the time of day.

    Uses the server clock.
    """
    return "2024-05-01T09:30:00"
''',
    "search_web": '''
def search_web(query: str) -> list[str]:
    """Search the web."""
    return [query]
''',
    "add": '''
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
''',
    "greet": '''
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"你好, {name}!"
''',
    "read_sensor": '''
def read_sensor(room: str) -> dict:
    """Read a room sensor."""
    raise ConnectionError(f"sensor in {room} is offline")
''',
    "next_holiday": '''
def next_holiday(country: str) -> date:
    """The next public holiday in a country (a date: json.dumps cannot encode it)."""
    return date(2024, 10, 1)
''',
}

# What a failure shows as Expected, Got or Where when it is a description, not a value.
PHRASES = {
    "a_str": "a str",
    "a_kind": "a {kind}",
    "a_kind_value": "a {kind}: {value}",
    "itself": "the function {name} itself",
    "another_object": "another object",
    "a_decorator": "a decorator: a function that takes the function to register",
    "tools_dict": "registry._tools, a dict from tool name to its entry",
    "an_entry": "an entry under {name!r}",
    "format_error": "a ValueError naming the formats openai, responses, anthropic",
    "duplicate_error": "ValueError: a tool named 'search_notes' is already registered ... "
    "replace=True",
    "went_through": "no error: the second registration went through",
    "no_error": "no error: it returned a {kind}",
    "dispatch_registry": "a registry whose _tools is a dict",
    "error_mentioning": '{{"error": "..."}} mentioning {words}',
    "not_mentioned": "the message does not mention {word!r}",
    "type_error_naming": "a TypeError naming {name}",
    "cut_shape": (
        "the text itself if len(text) <= {limit}, else text[:k] (k <= {limit}) plus a marker: "
        "a newline, then at most {marker} characters saying how many were cut"
    ),
    "unchanged_text": "the text unchanged, all {count} characters",
    "characters": "{count} characters",
    "no_marker": "{count} characters, no marker",
    "kept": "{count} characters of the text kept",
    "marker_mentioning": "a marker mentioning {count} (characters cut)",
    "raised_kind": "a raised {kind}",
}


def phrase(key: str, **fields: object) -> Plain:
    """A description shown as Expected, Got or Where (bare text, not a quoted value)."""
    return Plain(translate(PHRASES, key, **fields))


@cache
def local_tool(name: str) -> Any:
    """The tool ``name`` built here, in the check's process, from the same source text the
    driver builds beside the learner's code: the oracle's copy."""
    return run_source(TOOL_SOURCES[name], "<check case>", namespace=Driver.case_namespace())[name]


def keep_tool(learner: Learner, name: str) -> str:
    """Build tool ``name`` beside the learner's code and keep it: its handle (the same object can
    then be registered and compared by identity)."""
    reply = learner.run(TOOL_SOURCES[name], result=name, keep=True)
    if reply.handle is None:  # the check's own source failed: the author's bug, not the learner's
        raise RuntimeError(f"building the tool {name!r} failed: {reply.raised_text}")
    return reply.handle


def method(learner: Learner, handle: str, name: str) -> dict[str, Any]:
    """A value spec: method ``name`` of the object kept as ``handle``."""
    return learner.attr(learner.handle(handle), name)


def shown(reply: Reply) -> Any:
    """What a reply holds, for Got: the exception, the repr of a non-JSON value, or the JSON."""
    if reply.raised:
        return Plain(reply.raised_text)
    if "unjson" in reply.data:
        return Plain(reply.data.get("repr", ""))
    return reply.value


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def expect_json_text(
    case: str,
    expected: Any,
    got: Any,
    *,
    not_text: HintText,
    not_json: HintText,
    wrong: HintText,
    escaped: HintText,
) -> None:
    """Fail unless ``got`` is readable JSON text (``ensure_ascii=False``) of ``expected``: what
    both ``call`` and ``to_text`` return for a value that is not a str.

    The hints say what is wrong: ``got`` is not a str, not JSON, JSON of another value, or JSON
    with ``\\u`` escapes.
    """
    __tracebackhide__ = True
    shown = Plain(json_text(expected))
    if not isinstance(got, str):
        fail(case, shown, got, not_text)
    try:
        value = json.loads(got)
    except ValueError:
        fail(case, shown, got, not_json)
    difference = first_difference(expected, value)
    if difference is not None:
        fail(case, shown, got, wrong, where=difference)
    if "\\u" in got and "\\u" not in json_text(expected):
        fail(case, shown, got, escaped)
