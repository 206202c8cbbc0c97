"""The cases of ``DispatchRegistry.call`` (04.4) and their hints.

Valid calls must run the tool and return its result as text; every other call must come back as
an error object whose message mentions the words listed with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from random import Random
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.lesson04._tool_sources import TOOL_SOURCES, local_tool
from course_lib.checks.lesson04.registry.cases import METADATA_KEYS, expected_description
from course_lib.reference import parameters_schema

TOOLS = ("get_weather", "add", "greet", "read_sensor", "now", "next_holiday")

HINTS = Catalog() | {
    "no_tools": (
        "The check stores its tools in registry._tools: keep self._tools = {{}} from "
        "ToolRegistry's __init__."
    ),
    "not_constructed": (
        "DispatchRegistry() raised: the check creates your registry with no arguments, "
        "as ToolRegistry() is created. Keep ToolRegistry's __init__ (or call super().__init__())."
    ),
    "raised_unknown": (
        "call must never raise: look the name up first and answer an unknown tool with an "
        "error object that lists the available tools."
    ),
    "raised_json": (
        "call must never raise: wrap json.loads in try/except json.JSONDecodeError and answer "
        "with an error object."
    ),
    "raised_not_object": (
        "call must never raise: JSON that parses may still not be an object (a list, a number, "
        "null): check isinstance(arguments, dict) and answer with an error object."
    ),
    "raised_invalid": (
        "call must never raise: validate the arguments first and answer problems with an error "
        "object."
    ),
    "raised_raises": (
        "call must never raise: run the tool inside try/except Exception and report the "
        "exception as an error object."
    ),
    "raised_unencodable": (
        "call must never raise: json.dumps raises TypeError for a result it cannot encode (here "
        "a date); catch it and answer with an error object naming the exception."
    ),
    "raised_empty": (
        'call must never raise: an empty string means "no arguments"; treat "" like {{}} '
        "(json.loads('') raises)."
    ),
    "raised_ok": "A valid call should simply run the tool and return its result as text.",
    "not_str": "call always returns a str: error_text(...) for a problem, the result as text.",
    "error_key": 'The object needs an "error" key holding a non-empty message.',
    "error_object": (
        'Errors are JSON objects {{"error": "..."}}, not plain text: a plain "Error: ..." '
        "string looks like any other result. Use error_text(message)."
    ),
    "name_unknown": (
        "Name the tool the model asked for ({name}) in the message, so that it sees which call "
        "was wrong, then list the real ones."
    ),
    "list_tools": (
        "For an unknown tool, list every available tool name so the model can pick a real one."
    ),
    "bad_json": (
        "Say that the arguments are not valid JSON: the message must name the problem (JSON, "
        "or 解析 in Chinese)."
    ),
    "not_object": (
        "Arguments that parse but are not a JSON object: say they must be an object (object, or "
        "对象 in Chinese)."
    ),
    "only_empty": (
        'Only "" means no arguments. {arguments} is JSON that is not an object, so it gets the '
        '"object" error: test arguments == "", not a falsy value (`not arguments`, `or {{}}`).'
    ),
    "validate_first": (
        "Validate with validate_arguments before calling and put its messages into the error."
    ),
    "bool_call": "Validate before calling: true is not an integer, so add must not run.",
    "missing_call": (
        "Validate before calling: a missing argument is reported with its name and the word "
        "missing (缺少 in Chinese)."
    ),
    "enum_call": "Validate before calling: report values outside the enum.",
    "every_problem": (
        "Put every message validate_arguments returns into the error (join them), not only the "
        "first: the model fixes what it is told about."
    ),
    "name_parameter": "Validate before calling and name the parameter in the error.",
    "unencodable": (
        "A result json.dumps cannot encode (here a date) is an error: catch the TypeError of "
        'json.dumps and report it like an exception: f"{{type(exc).__name__}}: {{exc}}".'
    ),
    "tool_raised": (
        "Report an exception inside the tool with its type and message: "
        'f"{{type(exc).__name__}}: {{exc}}".'
    ),
    "ensure_ascii_error": "Use ensure_ascii=False so 北京 stays readable (error_text does).",
    "validator_misses": (
        "Your validate_arguments finds no problem in these arguments for {name!r}, so the tool "
        "ran: fix 04.3 first, or use the reference validator for now (see above 04.4)."
    ),
    "str_unchanged": (
        "A str result passes through unchanged: do not json.dumps a string (that adds quotes)."
    ),
    "must_run": "A valid call must run the tool, not report an error.",
    "parse_json": (
        "arguments may be JSON text: json.loads a string before calling the tool with it."
    ),
    "empty": (
        'An empty string means "no arguments" (models send it for tools without parameters): '
        'treat "" like {{}}.'
    ),
    "json_not_str": "Turn a result that is not a str into JSON with json.dumps, not str().",
    "ensure_ascii": "Use json.dumps(result, ensure_ascii=False) so 北京 stays readable.",
}


# What a case's label says besides its call, in the language in force when the check runs.
CASE_TEXTS = Catalog() | {
    "empty": "{call} (a tool without parameters, arguments an empty string)",
    "registry": "DispatchRegistry() with the check's tools in registry._tools",
}


def label(name: str, arguments: Any) -> str:
    return f"registry.call({name!r}, {arguments!r})"


def registry_case() -> str:
    """The label of building the registry the cases call."""
    return CASE_TEXTS.text("registry")


@dataclass(frozen=True)
class OkCase:
    """A valid call: the tool runs and its result comes back as text."""

    name: str
    arguments: Any
    key: str = ""
    raised_key: str = "raised_ok"
    error_hint: str = "must_run"
    note: str = ""  # a key of CASE_TEXTS: what the label says besides the call

    @property
    def label(self) -> str:
        call = label(self.name, self.arguments)
        return CASE_TEXTS.text(self.note, call=call) if self.note else call

    @property
    def parsed(self) -> dict:
        if self.arguments == "":
            return {}
        return json.loads(self.arguments) if isinstance(self.arguments, str) else self.arguments


@dataclass(frozen=True)
class ErrorCase:
    """A call that must come back as an error object whose message mentions ``words``."""

    name: str
    arguments: Any
    kind: str  # unknown, json, not_object, invalid, raises, unencodable
    words: tuple[str, ...]
    hint: str
    key: str = ""

    @property
    def label(self) -> str:
        return label(self.name, self.arguments)

    @property
    def raised_key(self) -> str:
        return f"raised_{self.kind}"

    @property
    def schema(self) -> dict:
        return parameters_schema(local_tool(self.name))


OK_CASES = (
    OkCase("get_weather", {"city": "北京"}, key="json_result"),
    OkCase("get_weather", '{"city": "上海", "unit": "f"}', key="json_arguments",
           error_hint="parse_json"),
    OkCase("add", {"a": 2, "b": 40}),
    OkCase("greet", '{"name": "张三"}', key="str_result"),
    OkCase("now", "", key="empty", raised_key="raised_empty", error_hint="empty",
           note="empty"),
)  # fmt: skip

ERROR_CASES = (
    ErrorCase("get_wether", {"city": "北京"}, "unknown", TOOLS, "list_tools", key="unknown"),
    ErrorCase("search", {}, "unknown", TOOLS, "list_tools"),
    ErrorCase("get_weather", '{"city": "北京"', "json", ("JSON",), "bad_json", key="bad_json"),
    ErrorCase("add", '["北京"]', "not_object", ("object",), "not_object", key="not_object"),
    ErrorCase("now", "null", "not_object", ("object",), "only_empty", key="only_empty"),
    ErrorCase("now", "[]", "not_object", ("object",), "only_empty"),
    ErrorCase("now", "0", "not_object", ("object",), "only_empty"),
    ErrorCase("greet", {"name": ["Zhang", "San"]}, "invalid", ("name", "string"),
              "validate_first", key="validate"),
    ErrorCase("add", {"a": True, "b": 2}, "invalid", ("a", "integer"), "bool_call"),
    ErrorCase("add", {"a": 1}, "invalid", ("b", "missing"), "missing_call"),
    ErrorCase("get_weather", {"city": "北京", "unit": "kelvin"}, "invalid", ("unit",),
              "enum_call"),
    ErrorCase("get_weather", {"unit": "kelvin"}, "invalid", ("city", "missing", "unit"),
              "every_problem", key="every_problem"),
    ErrorCase("next_holiday", {"country": "中国"}, "unencodable", ("TypeError", "date"),
              "unencodable", key="unencodable"),
    ErrorCase("read_sensor", {"room": "厨房"}, "raises",
              ("ConnectionError", "sensor in 厨房 is offline"), "tool_raised", key="tool_raises"),
)  # fmt: skip


def case_of(key: str) -> str:
    """The label of the visible case (valid or not) that is the first to catch rule ``key``."""
    return next(item.label for item in (*OK_CASES, *ERROR_CASES) if item.key == key)


def entries() -> dict[str, dict]:
    """The entries the check stores in the learner's registry, as JSON (the snippet adds the
    functions it builds from source)."""
    return {
        name: {
            "description": expected_description(local_tool(name), None),
            "parameters": parameters_schema(local_tool(name)),
            "tags": [],
            **{key: None for key in METADATA_KEYS},
        }
        for name in TOOLS
    }


def build_snippet() -> str:
    sources = "".join(TOOL_SOURCES[name] for name in TOOLS)
    return (
        sources
        + """
for name, entry in entries.items():
    registry._tools[name] = {"function": globals()[name], **entry}
"""
    )


def hidden_cases(rng: Random) -> tuple[list[OkCase], list[ErrorCase]]:
    """Sums with a valid or an invalid second number, and tool names that do not exist."""
    ok: list[OkCase] = []
    errors: list[ErrorCase] = []
    for _ in range(6):
        a, b = rng.randint(-50, 50), rng.choice([rng.randint(-50, 50), "3", 2.5, None, True])
        if isinstance(b, int) and not isinstance(b, bool):
            ok.append(OkCase("add", {"a": a, "b": b}))
        else:
            arguments = json.dumps({"a": a, "b": b})
            errors.append(ErrorCase("add", arguments, "invalid", ("b",), "name_parameter"))
        bogus = rng.choice(["weather", "get_weather_now", "addition", "问候"])
        errors.append(ErrorCase(bogus, "{}", "unknown", TOOLS, "list_tools"))
    return ok, errors
