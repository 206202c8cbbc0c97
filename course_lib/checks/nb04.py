"""Checks for notebook 04_registry: the registry, argument validation, dispatch, result text.

Each check builds its expected values from a small oracle written here from the contract stated
in the notebook, so a learner who reads only the notebook can meet it. Dispatch (04.3) fills the
registry's documented ``_tools`` entries directly, so it does not depend on 04.1's ``tool``.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import inspect
import json
from collections.abc import Callable
from typing import Any, Literal

import pydantic

from course_lib.checks.core import (
    Hint,
    as_json,
    call_learner,
    expect_json_equal,
    fail,
    first_difference,
    hidden_rng,
    json_type,
    pick_hint,
)
from course_lib.checks.core import (
    legacy_exercise as exercise,
)
from course_lib.reference import parameters_schema

NOTEBOOK = "04_registry"
ENTRY_KEYS = ("function", "description", "parameters", "tags")


# --- 04.1: ToolRegistry ------------------------------------------------------------------------


def get_weather(city: str, unit: Literal["c", "f"] = "c") -> dict:
    """Current weather for a city, such as 北京 or Paris.

    Args:
        city: The city name.
        unit: c for Celsius, f for Fahrenheit.
    """
    return {"city": city, "temperature": 21, "unit": unit}


def search_notes(keyword: str, limit: int = 5) -> list[str]:
    """Search my notes for a keyword."""
    return [f"note about {keyword}"][:limit]


def find_city(name: str) -> dict:
    return {"name": name}


def now() -> str:
    """The current time as ISO 8601.

    Uses the server clock.
    """
    return "2024-05-01T09:30:00"


def search_web(query: str) -> list[str]:
    """Search the web."""
    return [query]


def expected_description(func: Callable[..., Any], description: str | None) -> str:
    """The contract: the given description, else the docstring's first paragraph, else ""."""
    if description is not None:
        return description
    return (inspect.getdoc(func) or "").split("\n\n")[0].strip()


def expected_schema(name: str, description: str, parameters: dict, format: str) -> dict:
    if format == "openai":
        function = {"name": name, "description": description, "parameters": parameters}
        return {"type": "function", "function": function}
    if format == "responses":
        return {
            "type": "function",
            "name": name,
            "description": description,
            "parameters": parameters,
            "strict": False,
        }
    return {"name": name, "description": description, "input_schema": parameters}


FORMAT_HINTS: dict[str, list[Hint]] = {
    "openai": [
        (lambda g: "function" not in g, 'An OpenAI tool nests name etc. under "function".'),
        (lambda g: g.get("type") != "function", 'An OpenAI tool starts with "type": "function".'),
    ],
    "responses": [
        (lambda g: "function" in g, 'Responses tools are flat: "name" etc. sit next to "type".'),
        (lambda g: g.get("type") != "function", 'A Responses tool keeps "type": "function".'),
        (lambda g: "input_schema" in g, 'Responses calls the schema "parameters".'),
        (
            lambda g: g.get("strict") is not False,
            'The Responses API treats a missing "strict" as true; these tools are not strict: '
            'add "strict": False.',
        ),
    ],
    "anthropic": [
        (lambda g: "function" in g, 'Anthropic tools are flat: no "function" wrapper.'),
        (lambda g: "parameters" in g, 'Anthropic calls the schema "input_schema".'),
        (
            lambda g: "type" in g,
            'Anthropic tools have no "type": keep name, description, input_schema.',
        ),
    ],
}


def _schema_hints(format: str, expected: list[dict]) -> list[Hint]:
    def description_of(tool: dict) -> str:
        return tool.get("function", tool).get("description", "")

    def names_of(tools: list[dict]) -> list[str]:
        return [tool.get("function", tool).get("name") for tool in tools]

    wanted_names = names_of(expected)
    return [
        (lambda g: not isinstance(g, list), "schemas() returns a list with one dict per tool."),
        (
            lambda g: sorted(names_of(g)) == sorted(wanted_names) and names_of(g) != wanted_names,
            "Keep registration order (a dict remembers insertion order); do not sort.",
        ),
        (
            lambda g: len(g) != len(expected),
            "One schema per registered tool: check that every form of tool() registers.",
        ),
        *[
            (lambda g, h=predicate: any(h(tool) for tool in g), text)
            for predicate, text in FORMAT_HINTS[format]
        ],
        (
            lambda g: any(
                "\n\n" in description_of(tool) or "Args:" in description_of(tool) for tool in g
            ),
            "Without a description argument, use only the docstring's first paragraph "
            '(inspect.getdoc(func).split("\\n\\n")[0]).',
        ),
        (
            lambda g: any(description_of(tool) is None for tool in g),
            'A function without a docstring gets the description "", not None.',
        ),
        (
            lambda g: any(
                description_of(a) != description_of(b) for a, b in zip(g, expected, strict=False)
            ),
            "The description is the one given to tool() (a string argument or description=), "
            "else the docstring's first paragraph.",
        ),
    ]


def _registered(tool_method: Callable[..., Any], func: Callable[..., Any], case: str, **kwargs):
    """Register ``func`` through one form of ``tool`` and insist it comes back unchanged."""
    form = kwargs.pop("form")
    if form == "plain":
        got = call_learner(tool_method, func, case=case)
    else:
        args = (kwargs.pop("description"),) if form == "string" else ()
        hint = (
            'With a string (@registry.tool("...")) the string is the description and tool() '
            "returns a decorator: a function that takes the function to register."
            if form == "string"
            else "With only keywords (@registry.tool(name=...)), tool() returns a decorator."
        )
        try:
            decorator = tool_method(*args, **kwargs)
        except NotImplementedError:
            raise
        except Exception as exc:
            fail(case, "a decorator (a callable)", f"raised {type(exc).__name__}: {exc}", hint)
        if not callable(decorator):
            fail(case, "a decorator (a callable)", repr(decorator), hint)
        got = call_learner(decorator, func, case=case)
    if got is not func:
        fail(
            case,
            f"the function {func.__name__} itself",
            repr(got),
            "tool must return the function unchanged (not None, not a wrapper), so the name in "
            "the module still refers to the plain function.",
        )


def _expect_duplicate_refused(registry: Any, case: str) -> None:
    try:
        registry.tool(search_web, name="search_notes")
    except NotImplementedError:
        raise
    except ValueError as exc:
        message = str(exc)
        if "search_notes" not in message or "replace=True" not in message:
            fail(
                case,
                "a ValueError naming 'search_notes' and mentioning replace=True",
                f"ValueError: {message}",
                "Say which name is taken and how to resolve it (another name, or replace=True).",
            )
        return
    except Exception as exc:  # the wrong kind of error
        fail(
            case, "ValueError", f"{type(exc).__name__}: {exc}", "Raise ValueError for a taken name."
        )
    fail(
        case,
        "ValueError: a tool named 'search_notes' is already registered ...",
        "no error: the second registration went through",
        "This is the silent overwrite: registering a second tool named 'search_notes' replaced "
        "the first without a word. Raise ValueError unless replace=True.",
    )


def _entries(registry: Any, case: str) -> dict:
    tools = getattr(registry, "_tools", None)
    if not isinstance(tools, dict):
        fail(
            case,
            "registry._tools, a dict from tool name to its entry",
            repr(tools),
            "Keep self._tools = {} from __init__ and store one entry per tool there.",
        )
    return tools


def _expect_entry(registry: Any, name: str, func: Callable, tags: list[str], case: str) -> None:
    entry = _entries(registry, case).get(name)
    if not isinstance(entry, dict) or any(key not in entry for key in ENTRY_KEYS):
        fail(
            case,
            {key: "..." for key in ENTRY_KEYS},
            entry if not isinstance(entry, dict) else {key: "..." for key in entry},
            "Each self._tools[name] is a dict with the keys function, description, parameters "
            "and tags (04.3 reads them).",
        )
    if entry["function"] is not func:
        fail(
            case, f"function {func.__name__}", repr(entry["function"]), "Store the function itself."
        )
    if not isinstance(entry["tags"], list) or not all(isinstance(t, str) for t in entry["tags"]):
        fail(
            f"{case}: its tags",
            tags,
            f"a {type(entry['tags']).__name__}: {entry['tags']!r}",
            "Store tags as a new list of str, in the order given ([] when there are none): "
            "list(tags), since the default tags=() is a tuple.",
        )
    expect_json_equal(
        f"{case}: its tags",
        tags,
        entry["tags"],
        "Store tags as a list, in the order given ([] when there are none).",
    )
    expect_json_equal(
        f"{case}: its parameters",
        parameters_schema(func),
        entry["parameters"],
        "parameters is parameters_schema(function), computed once when the tool is registered.",
    )


_SYLLABLES = ("get", "find", "list", "send", "book", "note", "city", "rate", "user", "order")
_DESCRIPTIONS = (
    "Look something up.",
    "查询天气",
    "Send a message to 张伟.",
    "Book a train to 上海.",
)


def _hidden_registrations(count: int = 8) -> list[dict]:
    rng = hidden_rng("04.1")
    funcs = (get_weather, search_notes, find_city, now, search_web)
    registrations, used = [], set()
    while len(registrations) < count:
        name = "_".join(rng.sample(_SYLLABLES, 2)) + f"_{rng.randint(1, 99)}"
        if name in used:
            continue
        used.add(name)
        tags = rng.sample(["weather", "notes", "读", "write", "geo"], rng.randint(0, 3))
        description = rng.choice((None, *_DESCRIPTIONS))
        registrations.append(
            {"name": name, "func": rng.choice(funcs), "description": description, "tags": tags}
        )
    return registrations


@exercise("04.1", notebook=NOTEBOOK, title="ToolRegistry", points=3, targets=("ToolRegistry",))
def check_tool_registry(ToolRegistry: Any) -> str:
    registry = call_learner(ToolRegistry, case="ToolRegistry()")
    visible = [
        ("@registry.tool on get_weather", get_weather, {"form": "plain"}),
        (
            '@registry.tool("Search my notes, e.g. for 北京.") on search_notes',
            search_notes,
            {"form": "string", "description": "Search my notes, e.g. for 北京."},
        ),
        (
            '@registry.tool(name="lookup_city", description="Find a city.", tags=["geo", "读"])',
            find_city,
            {
                "form": "keywords",
                "name": "lookup_city",
                "description": "Find a city.",
                "tags": ["geo", "读"],
            },
        ),
        ("@registry.tool on now (a multi-paragraph docstring)", now, {"form": "plain"}),
    ]
    expected_entries = []
    for case, func, kwargs in visible:
        name, description = kwargs.get("name", func.__name__), kwargs.get("description")
        tags = kwargs.get("tags", [])
        _registered(registry.tool, func, case, **kwargs)
        _expect_entry(registry, name, func, tags, case)
        expected_entries.append((name, expected_description(func, description), func))
    _expect_names(registry, [name for name, _, _ in expected_entries], "registry.names()")
    _expect_schemas(registry, expected_entries, "the four visible tools")

    case = "registering a second tool under the taken name 'search_notes'"
    _expect_duplicate_refused(registry, case)
    _expect_entry(registry, "search_notes", search_notes, [], f"{case}: the first one stays")
    case = '@registry.tool(name="search_notes", replace=True) on search_web'
    call_learner(registry.tool(name="search_notes", replace=True), search_web, case=case)
    _expect_entry(registry, "search_notes", search_web, [], case)
    _expect_names(
        registry,
        [name for name, _, _ in expected_entries],
        f"names() after {case}",
        order_hint="With replace=True the new entry takes the old one's place in the order: "
        "assign self._tools[name] = entry; do not delete the old entry and add the new one.",
    )
    _expect_unknown_format_refused(registry)

    hidden = call_learner(ToolRegistry, case="ToolRegistry() for the hidden cases")
    entries = []
    for item in _hidden_registrations():
        kwargs: dict[str, Any] = {"name": item["name"], "tags": item["tags"]}
        if item["description"] is not None:
            kwargs["description"] = item["description"]
        case = f"@registry.tool({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"
        _registered(hidden.tool, item["func"], case, form="keywords", **kwargs)
        _expect_entry(hidden, item["name"], item["func"], item["tags"], case)
        description = expected_description(item["func"], item["description"])
        entries.append((item["name"], description, item["func"]))
    _expect_names(hidden, [name for name, _, _ in entries], "names() in the hidden cases")
    _expect_schemas(hidden, entries, "the hidden registrations")
    return f"3 forms, 3 formats, duplicates refused, {len(entries)} hidden registrations"


def _expect_names(
    registry: Any,
    expected: list[str],
    case: str,
    *,
    order_hint: str = "Keep registration order; do not sort.",
) -> None:
    got = call_learner(registry.names, case=case)
    expect_json_equal(
        case,
        expected,
        got,
        hints=[
            (lambda g: not isinstance(g, list), "names() returns a list of str."),
            (lambda g: sorted(g) == sorted(expected), order_hint),
        ],
    )


def _expect_schemas(registry: Any, entries: list[tuple[str, str, Callable]], what: str) -> None:
    for format in ("openai", "responses", "anthropic"):
        expected = [
            expected_schema(name, description, parameters_schema(func), format)
            for name, description, func in entries
        ]
        case = f'registry.schemas(format="{format}") for {what}'
        got = call_learner(registry.schemas, format=format, case=case)
        expect_json_equal(case, expected, got, hints=_schema_hints(format, expected))
    default = call_learner(registry.schemas, case=f"registry.schemas() for {what}")
    expect_json_equal(
        f"registry.schemas() for {what}",
        [expected_schema(n, d, parameters_schema(f), "openai") for n, d, f in entries],
        default,
        'The default format is "openai".',
    )


def _expect_unknown_format_refused(registry: Any) -> None:
    case = 'registry.schemas(format="xml")'
    try:
        got = registry.schemas(format="xml")
    except NotImplementedError:
        raise
    except ValueError as exc:
        missing = [name for name in FORMAT_HINTS if name not in str(exc)]
        if missing:
            fail(
                case,
                "a ValueError naming the formats openai, responses, anthropic",
                f"ValueError: {exc}",
                "Name the three supported formats in the message, so the caller sees what to "
                "use instead.",
                detail=f"the message does not mention {missing[0]!r}",
            )
        return
    except Exception as exc:
        fail(
            case,
            "ValueError",
            f"{type(exc).__name__}: {exc}",
            "Raise ValueError naming the formats.",
        )
    fail(
        case,
        "ValueError naming the supported formats",
        got,
        "An unknown format is a mistake the caller should hear about: raise ValueError.",
    )


# --- 04.2: validate_arguments ------------------------------------------------------------------

# An expected problem: the path it names and the words its message must contain.
Problem = tuple[str, tuple[str, ...]]

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "unit": {"type": "string", "enum": ["c", "f"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}
NOTES = {
    "type": "object",
    "properties": {
        "keyword": {"type": "string"},
        "score": {"type": "number"},
        "archived": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "owner": {"type": ["string", "null"]},
    },
    "required": ["keyword"],
    "additionalProperties": False,
}
TRIP = {
    "type": "object",
    "properties": {
        "traveller": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name"],
            "additionalProperties": False,
        },
        "stops": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "nights": {"type": "integer"}},
                "required": ["city", "nights"],
            },
        },
    },
    "required": ["traveller", "stops"],
    "additionalProperties": False,
}

TYPE_OF = {"string": ("string",), "integer": ("integer",), "number": ("number",)}

# (schema, arguments, expected problems, hint if the learner gets this case wrong)
VALIDATION_CASES: list[tuple[dict, Any, list[Problem], str]] = [
    (WEATHER, {"city": "北京"}, [], "Valid arguments give []: report only real problems."),
    (WEATHER, {"city": "上海", "days": 3, "unit": "f"}, [], "Valid arguments give []."),
    (
        WEATHER,
        {},
        [("city", ("missing",))],
        'A required parameter that is absent gives one message with "missing" and its name.',
    ),
    (
        WEATHER,
        {"city": "北京", "country": "China"},
        [("country", ("unexpected",))],
        'With "additionalProperties": false, every extra key gives an "unexpected" message.',
    ),
    (
        WEATHER,
        {"city": ["Zhang", "San"]},
        [("city", ("string",))],
        "A list is not a string: check the JSON type and name the expected one.",
    ),
    (
        WEATHER,
        {"city": "北京", "days": True},
        [("days", ("integer",))],
        "In Python True is an int (bool is a subclass of int), but in JSON true is not an "
        "integer: reject bool where an integer is expected.",
    ),
    (
        WEATHER,
        {"city": "北京", "days": 2.5},
        [("days", ("integer",))],
        "2.5 is a number but not an integer.",
    ),
    (
        WEATHER,
        {"city": "北京", "unit": "k"},
        [("unit", ('"c"', '"f"'))],
        'A value outside "enum" gives a message listing the allowed values (as JSON: "c", "f").',
    ),
    (
        NOTES,
        {"keyword": "豆腐", "score": 3, "archived": False},
        [],
        "An integer is a number in JSON: 3 is a valid number. And false is a boolean.",
    ),
    (
        NOTES,
        {"keyword": "豆腐", "archived": 1},
        [("archived", ("boolean",))],
        "1 is not a boolean in JSON: accept only True and False.",
    ),
    (
        NOTES,
        {"keyword": "豆腐", "score": True},
        [("score", ("number",))],
        "true is not a number in JSON: reject bool where a number is expected.",
    ),
    (
        NOTES,
        {"keyword": "豆腐", "tags": ["food", 3, "家"]},
        [("tags[1]", ("string",))],
        'Check every item of an array against "items", and name it like tags[1].',
    ),
    (
        NOTES,
        {"keyword": "x", "limit": None, "owner": None},
        [],
        'null is valid when "type" lists "null" or an "anyOf" branch is {"type": "null"}.',
    ),
    (
        NOTES,
        {"keyword": "x", "limit": "ten", "owner": 7},
        [("limit", ("integer", "null")), ("owner", ("string", "null"))],
        'For "anyOf" or a list of types, the value is valid if any option fits; otherwise name '
        "every option in the message.",
    ),
    (
        NOTES,
        {"keyword": 5, "limit": 3, "extra": 1, "archived": "yes"},
        [("keyword", ("string",)), ("extra", ("unexpected",)), ("archived", ("boolean",))],
        "Report every problem at once, one message each, so the model can fix all of them.",
    ),
    (
        TRIP,
        {"traveller": {"name": "张伟", "age": "30"}, "stops": [{"city": "上海", "nights": 2}]},
        [("traveller.age", ("integer",))],
        "Check nested objects too, and name the path with dots: traveller.age.",
    ),
    (
        TRIP,
        {"traveller": {"age": 30}, "stops": [{"city": "上海"}, {"city": "北京", "nights": 1}]},
        [("traveller.name", ("missing",)), ("stops[0].nights", ("missing",))],
        "Nested objects have their own required lists: traveller.name, stops[0].nights.",
    ),
    (
        TRIP,
        {"traveller": {"name": "Ada", "nick": "A"}, "stops": []},
        [("traveller.nick", ("unexpected",))],
        'A nested object with "additionalProperties": false refuses extra keys too.',
    ),
    (
        TRIP,
        {"traveller": "Bob", "stops": [{"city": "上海", "nights": 2}]},
        [("traveller", ("object",))],
        "A value of the wrong type gets that one message and nothing more: do not look inside "
        "it (no missing keys of a string that should have been an object).",
    ),
]

_VALUES: dict[str, list[Any]] = {
    "string": ["北京", "Paris", ""],
    "integer": [0, 7, -3],
    "number": [1.5, 2, -0.25],
    "boolean": [True, False],
}
_ALL_VALUES = [*[v for vs in _VALUES.values() for v in vs], None, ["a"], {"k": 1}]


def _fits(kind: str, value: Any) -> bool:
    found = json_type(value)
    return found == kind or (kind == "number" and found == "integer")


def hidden_validation_cases(count: int = 12) -> list[tuple[dict, dict, list[Problem]]]:
    """Flat schemas with random types and arguments that are partly wrong, with their problems."""
    rng = hidden_rng("04.2")
    cases = []
    for _ in range(count):
        names = rng.sample(["city", "城市", "days", "limit", "query", "score", "flag", "name"], 4)
        kinds = {name: rng.choice(list(_VALUES)) for name in names}
        required = sorted(rng.sample(names, 2), key=names.index)
        schema = {
            "type": "object",
            "properties": {name: {"type": kind} for name, kind in kinds.items()},
            "required": required,
            "additionalProperties": False,
        }
        arguments: dict[str, Any] = {}
        problems: list[Problem] = []
        for name in names:
            roll = rng.random()
            if roll < 0.2 and name not in required:
                continue
            if roll < 0.2:
                problems.append((name, ("missing",)))
                continue
            value = rng.choice(_ALL_VALUES if roll < 0.5 else _VALUES[kinds[name]])
            arguments[name] = value
            if not _fits(kinds[name], value):
                problems.append((name, (kinds[name],)))
        if rng.random() < 0.3:
            arguments["debug"] = True
            problems.append(("debug", ("unexpected",)))
        cases.append((schema, arguments, problems))
    return cases


def _unmatched(expected: list[Problem], got: list[str]) -> Problem | None:
    """The first expected problem that no message covers (longest paths claim messages first)."""
    free = list(got)
    for path, words in sorted(expected, key=lambda problem: -len(problem[0])):
        found = next(
            (m for m in free if path in m and all(word.lower() in m.lower() for word in words)),
            None,
        )
        if found is None:
            return (path, words)
        free.remove(found)
    return None


def _describe_problems(problems: list[Problem]) -> list[str]:
    return [f"a message naming {path} and saying {' / '.join(words)}" for path, words in problems]


@exercise(
    "04.2",
    notebook=NOTEBOOK,
    title="validate_arguments",
    points=3,
    targets=("validate_arguments",),
)
def check_validate_arguments(validate_arguments: Callable[..., Any]) -> str:
    visible = [(s, a, p, h) for s, a, p, h in VALIDATION_CASES]
    hidden = [(s, a, p, None) for s, a, p in hidden_validation_cases()]
    for schema, arguments, problems, hint in [*visible, *hidden]:
        case = f"validate_arguments(schema, {json.dumps(arguments, ensure_ascii=False)})"
        if hint is None:
            case += f" with properties {json.dumps(schema['properties'], ensure_ascii=False)}"
        got = as_json(call_learner(validate_arguments, schema, arguments, case=case), case)
        expected = _describe_problems(problems)
        if not isinstance(got, list) or not all(isinstance(m, str) for m in got):
            fail(case, expected, got, "Return a list of str: one message per problem, [] if none.")
        missing = _unmatched(problems, got)
        if missing is not None or len(got) != len(problems):
            detail = (
                f"no message names {missing[0]} with {' / '.join(missing[1])}"
                if missing
                else f"expected {len(problems)} messages, got {len(got)}"
            )
            fail(
                case, expected, got, hint or _generic_validation_hint(problems, got), detail=detail
            )
    return f"{len(visible)} visible and {len(hidden)} hidden cases"


def _generic_validation_hint(problems: list[Problem], got: list[str]) -> str:
    if len(got) > len(problems):
        return (
            "A message too many: bool is not an integer or a number, but an integer is a number; "
            "and report each problem once."
        )
    return (
        "One message per problem: missing required names, unexpected keys, wrong JSON types; "
        "each names the parameter and the expected type (true is not an integer)."
    )


# --- 04.3: DispatchRegistry.call ---------------------------------------------------------------


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def greet(name: str) -> str:
    """Greet someone by name."""
    return f"你好, {name}!"


def read_sensor(room: str) -> dict:
    """Read a room sensor."""
    raise ConnectionError(f"sensor in {room} is offline")


def next_holiday(country: str) -> datetime.date:
    """The next public holiday in a country (a date: json.dumps cannot encode it)."""
    return datetime.date(2024, 10, 1)


DISPATCH_TOOLS = {
    "get_weather": get_weather,
    "add": add,
    "greet": greet,
    "read_sensor": read_sensor,
    "now": now,
    "next_holiday": next_holiday,
}


def _dispatch_registry(cls: Any) -> Any:
    registry = call_learner(cls, case="DispatchRegistry()")
    tools = _entries(registry, "DispatchRegistry()")
    for name, func in DISPATCH_TOOLS.items():
        tools[name] = {
            "function": func,
            "description": expected_description(func, None),
            "parameters": parameters_schema(func),
            "tags": [],
        }
    return registry


CALL_RAISED_HINTS = {
    "unknown": "call must never raise: look the name up first and answer an unknown tool with an "
    "error object that lists the available tools.",
    "json": "call must never raise: wrap json.loads in try/except json.JSONDecodeError and "
    "answer with an error object.",
    "invalid": "call must never raise: validate the arguments first and answer problems with an "
    "error object.",
    "raises": "call must never raise: run the tool inside try/except Exception and report the "
    "exception as an error object.",
    "unencodable": "call must never raise: json.dumps raises TypeError for a result it cannot "
    "encode (here a date); catch it and answer with an error object naming the exception.",
    "empty": 'call must never raise: an empty string means "no arguments"; treat "" like {} '
    "(json.loads('') raises).",
    "ok": "A valid call should simply run the tool and return its result as text.",
}


def _learner_call(registry: Any, name: str, arguments: Any, case: str, kind: str) -> Any:
    try:
        return registry.call(name, arguments)
    except NotImplementedError:
        raise
    except Exception as exc:
        fail(case, "a string", f"raised {type(exc).__name__}: {exc}", CALL_RAISED_HINTS[kind])


def _learner_validator(cls: Any) -> Callable[..., Any] | None:
    """The ``validate_arguments`` the learner's ``call`` uses: a global of the notebook."""
    call = getattr(cls, "call", None)
    found = getattr(call, "__globals__", {}).get("validate_arguments")
    return found if callable(found) else None


def _accepts(validator: Callable[..., Any] | None, name: str, arguments: Any) -> bool:
    """True when ``validator`` runs and reports no problem for ``arguments`` of tool ``name``."""
    if validator is None:
        return False
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
        return validator(parameters_schema(DISPATCH_TOOLS[name]), parsed) == []
    except Exception:
        return False


def _error_of(got: Any, case: str, expected: str, hint: str) -> str:
    """The error message in ``got``, failing unless it is a JSON object with an "error" string.

    ``hint`` is for a result that is no error at all (the tool ran when it should not have).
    """
    if not isinstance(got, str):
        fail(case, expected, as_json(got, case), "call always returns a str (use error_text).")
    try:
        value = json.loads(got)
    except json.JSONDecodeError:
        value = None
    if isinstance(value, dict) and isinstance(value.get("error"), str) and value["error"]:
        return value["error"]
    if isinstance(value, dict) and "error" in value:
        fail(case, expected, got, 'The object needs an "error" key holding a non-empty message.')
    if got.lower().startswith(("error", "exception")):
        fail(
            case,
            expected,
            got,
            'Errors are JSON objects {"error": "..."}, not plain text: a plain "Error: ..." string '
            "looks like any other result. Use error_text(message).",
        )
    fail(case, expected, got, hint)


def _expect_mentions(message: str, words: list[str], case: str, expected: str, hint: str) -> None:
    missing = [word for word in words if word not in message]
    if missing:
        fail(case, expected, message, hint, detail=f"the message does not mention {missing[0]!r}")


def _expect_result(
    got: Any,
    result: Any,
    case: str,
    error_hint: str = "A valid call must run the tool, not report an error.",
) -> None:
    if isinstance(result, str):
        expect_json_equal(
            case,
            result,
            got,
            hints=[
                (lambda g: not isinstance(g, str), "call always returns a str."),
                (
                    lambda g: g == json.dumps(result, ensure_ascii=False),
                    "A str result passes "
                    "through unchanged: do not json.dumps a string (that adds quotes).",
                ),
                (lambda g: "error" in g, error_hint),
            ],
        )
        return
    _expect_json_text(
        case,
        result,
        got,
        not_text="call always returns a str: json.dumps(result, ensure_ascii=False).",
        not_json="Turn a non-string result into JSON with json.dumps, not str().",
        wrong=lambda _text, value: pick_hint(
            value,
            [
                (
                    lambda v: isinstance(v, dict) and "error" in v,
                    "A valid call must run the tool; check your validation with these arguments.",
                )
            ],
        ),
        escaped="Use json.dumps(result, ensure_ascii=False) so 北京 stays readable.",
    )


def _expect_json_text(
    case: str,
    expected: Any,
    got: Any,
    *,
    not_text: str,
    not_json: str,
    wrong: Callable[[str, Any], str],
    escaped: str,
) -> None:
    """Fail unless ``got`` is readable JSON text (``ensure_ascii=False``) of ``expected``: what
    both ``call`` (04.3) and ``to_text`` (04.4) return for a value that is not a str.

    The hints say what is wrong: ``got`` is not a str, not JSON, JSON of another value
    (``wrong(got, parsed)`` picks the hint), or JSON with ``\\u`` escapes.
    """
    shown = json.dumps(expected, ensure_ascii=False)
    if not isinstance(got, str):
        fail(case, shown, as_json(got, case), not_text)
    try:
        value = json.loads(got)
    except json.JSONDecodeError:
        fail(case, shown, got, not_json)
    difference = first_difference(as_json(expected, "the expected value"), value)
    if difference is not None:
        fail(case, shown, got, wrong(got, value), detail=difference)
    if "\\u" in got:
        fail(case, shown, got, escaped)


@exercise(
    "04.3",
    notebook=NOTEBOOK,
    title="DispatchRegistry.call",
    points=3,
    targets=("DispatchRegistry",),
)
def check_dispatch(DispatchRegistry: Any) -> str:
    registry = _dispatch_registry(DispatchRegistry)
    names = list(DISPATCH_TOOLS)
    ok_cases = [
        ("get_weather", {"city": "北京"}, get_weather("北京")),
        ("get_weather", '{"city": "上海", "unit": "f"}', get_weather("上海", "f")),
        ("add", {"a": 2, "b": 40}, 42),
        ("greet", '{"name": "张三"}', greet("张三")),
    ]
    for name, arguments, result in ok_cases:
        case = f"registry.call({name!r}, {arguments!r})"
        _expect_result(_learner_call(registry, name, arguments, case, "ok"), result, case)
    case = "registry.call('now', '') (a tool without parameters, arguments an empty string)"
    _expect_result(
        _learner_call(registry, "now", "", case, "empty"),
        now(),
        case,
        'An empty string means "no arguments" (models send it for tools without parameters): '
        'treat "" like {}.',
    )
    ok_cases.append(("now", "", now()))

    # (name, arguments, kind, words the error must mention, hint when it does not)
    error_cases: list[tuple[str, Any, str, list[str], str]] = [
        (
            "get_wether",
            {"city": "北京"},
            "unknown",
            names,
            "For an unknown tool, list every available tool name so the model can pick a real one.",
        ),
        ("search", {}, "unknown", names, "List every available tool name."),
        (
            "get_weather",
            '{"city": "北京"',
            "json",
            ["JSON"],
            "Say that the arguments are not valid JSON (use the word JSON).",
        ),
        (
            "add",
            '["北京"]',
            "json",
            ["object"],
            "Arguments that parse but are not a JSON object: say they must be an object.",
        ),
        (
            "greet",
            {"name": ["Zhang", "San"]},
            "invalid",
            ["name", "string"],
            "Validate with validate_arguments before calling and put its messages into the error.",
        ),
        (
            "add",
            {"a": True, "b": 2},
            "invalid",
            ["a", "integer"],
            "Validate before calling: true is not an integer, so add must not run.",
        ),
        (
            "add",
            {"a": 1},
            "invalid",
            ["b", "missing"],
            "Validate before calling: a missing argument is reported with its name.",
        ),
        (
            "get_weather",
            {"city": "北京", "unit": "kelvin"},
            "invalid",
            ["unit"],
            "Validate before calling: report values outside the enum.",
        ),
        (
            "next_holiday",
            {"country": "中国"},
            "unencodable",
            ["TypeError", "date"],
            "A result json.dumps cannot encode (here a date) is an error: catch the TypeError of "
            'json.dumps and report it like an exception: f"{type(exc).__name__}: {exc}".',
        ),
        (
            "read_sensor",
            {"room": "厨房"},
            "raises",
            ["ConnectionError", "sensor in 厨房 is offline"],
            "Report an exception inside the tool with its type and message: "
            'f"{type(exc).__name__}: {exc}".',
        ),
    ]
    rng = hidden_rng("04.3")
    for _ in range(6):
        a, b = rng.randint(-50, 50), rng.choice([rng.randint(-50, 50), "3", 2.5, None, True])
        if isinstance(b, int) and not isinstance(b, bool):
            ok_cases.append(("add", {"a": a, "b": b}, a + b))
            case = f"registry.call('add', {{'a': {a}, 'b': {b}}})"
            _expect_result(
                _learner_call(registry, "add", {"a": a, "b": b}, case, "ok"), a + b, case
            )
        else:
            error_cases.append(
                (
                    "add",
                    json.dumps({"a": a, "b": b}),
                    "invalid",
                    ["b"],
                    "Validate before calling and name the parameter in the error.",
                )
            )
        bogus = rng.choice(["weather", "get_weather_now", "addition", "问候"])
        error_cases.append((bogus, "{}", "unknown", names, "List every available tool name."))

    validator = _learner_validator(DispatchRegistry)
    for name, arguments, kind, words, hint in error_cases:
        case = f"registry.call({name!r}, {arguments!r})"
        expected = '{"error": "..."} mentioning ' + ", ".join(words)
        got = _learner_call(registry, name, arguments, case, kind)
        if kind == "invalid" and _accepts(validator, name, arguments):
            hint = (
                f"Your validate_arguments finds no problem in these arguments for {name!r}, so "
                "the tool ran: fix 04.2 first, or use the reference validator for now (see above "
                "04.3)."
            )
        message = _error_of(got, case, expected, hint)
        if "\\u" in got:
            fail(
                case,
                expected,
                got,
                "Use ensure_ascii=False so 北京 stays readable (error_text does).",
            )
        _expect_mentions(message, words, case, expected, hint)
    return f"{len(ok_cases)} results and {len(error_cases)} errors"


# --- 04.4: to_text -----------------------------------------------------------------------------


@dataclasses.dataclass
class Order:
    id: int
    city: str
    placed: datetime.date
    items: tuple[str, ...]
    total: decimal.Decimal


class Forecast(pydantic.BaseModel):
    city: str
    high: float
    issued: datetime.datetime


MARKER_MAX = 100


def _text_cases() -> list[tuple[str, Any, dict, Any]]:
    """(case, value, kwargs, expected): expected is the text for strings, else the JSON value."""
    order = Order(7, "上海", datetime.date(2024, 5, 1), ("茶", "tea"), decimal.Decimal("19.90"))
    forecast = Forecast(city="北京", high=31.5, issued=datetime.datetime(2024, 7, 1, 6, 0))
    return [
        ("to_text('北京 is sunny')", "北京 is sunny", {}, "北京 is sunny"),
        (
            "to_text({'city': '北京', 'temp': 21})",
            {"city": "北京", "temp": 21},
            {},
            {"city": "北京", "temp": 21},
        ),
        (
            "to_text(datetime(2024, 5, 1, 9, 30))",
            datetime.datetime(2024, 5, 1, 9, 30),
            {},
            "2024-05-01T09:30:00",
        ),
        (
            "to_text({'day': date(2024, 2, 29)})",
            {"day": datetime.date(2024, 2, 29)},
            {},
            {"day": "2024-02-29"},
        ),
        ("to_text(Decimal('19.90'))", decimal.Decimal("19.90"), {}, "19.90"),
        ("to_text({3, 1, 2})", {3, 1, 2}, {}, [1, 2, 3]),
        ("to_text((1, '二'))", (1, "二"), {}, [1, "二"]),
        (
            "to_text(Order(...)) (a dataclass)",
            order,
            {},
            {
                "id": 7,
                "city": "上海",
                "placed": "2024-05-01",
                "items": ["茶", "tea"],
                "total": "19.90",
            },
        ),
        (
            "to_text(Forecast(...)) (a pydantic model)",
            forecast,
            {},
            {"city": "北京", "high": 31.5, "issued": "2024-07-01T06:00:00"},
        ),
        ("to_text([None, True, 1.5])", [None, True, 1.5], {}, [None, True, 1.5]),
    ]


TEXT_HINTS: list[Hint] = [
    (lambda g: not isinstance(g, str), "to_text always returns a str."),
    (lambda g: "\\u" in g, "Use ensure_ascii=False so 北京 stays 北京, not \\u5317\\u4eac."),
    (
        lambda g: " 09:30" in g or "2024-05-01 " in g,
        "Dates use ISO 8601: value.isoformat() (a T between date and time), not str(value).",
    ),
    (
        lambda g: "Decimal(" in g or "datetime." in g or "Order(" in g or "Forecast(" in g,
        "Do not fall back to repr(): convert each kind of value to JSON in `jsonable`.",
    ),
    (
        lambda g: g.startswith("{") and "}" in g and ", " in g and ":" not in g,
        "A set becomes a sorted JSON array, not its Python repr.",
    ),
]


def _cut_cases() -> list[tuple[str, str, int]]:
    rng = hidden_rng("04.4")
    texts = [
        ("a 50,000 character string", ("北京天气晴. " * 7143)[:50_000], 20_000),
        ("a string exactly max_chars long", "上海" * 150, 300),
        ("a string one character too long", "x" * 301, 300),
    ]
    for index in range(5):
        length = rng.randint(150, 2_000)
        text = "".join(rng.choice("abc 北京上海 xyz") for _ in range(length))
        texts.append((f"hidden text {index} ({length} characters)", text, rng.randint(120, 1_500)))
    return [(name, text, limit) for name, text, limit in texts]


def _check_cut(got: Any, text: str, limit: int, case: str) -> None:
    shape = (
        f"the text itself if len(text) <= {limit}, else text[:k] (k <= {limit}) plus a marker: "
        f"a newline, then at most {MARKER_MAX} characters saying how many were cut"
    )
    if not isinstance(got, str):
        fail(case, shape, as_json(got, case), "to_text always returns a str.")
    if len(text) <= limit:
        if got != text:
            fail(
                case,
                f"the text unchanged, all {len(text)} characters",
                f"{len(got)} characters",
                "A text that fits (len(text) <= max_chars) passes through unchanged"
                + (": compare with <=, not <." if len(text) == limit else "."),
                detail=first_difference(text, got),
            )
        return
    kept = next((i for i, (a, b) in enumerate(zip(text, got, strict=False)) if a != b), len(got))
    marker = got[kept:]
    if not marker:
        fail(
            case,
            shape,
            f"{len(got)} characters, no marker",
            "The cut must never be silent: append a marker saying how many characters were cut.",
        )
    if kept > limit:
        fail(
            case,
            shape,
            f"{kept} characters of the text kept",
            f"Keep at most max_chars={limit} characters of the text.",
        )
    if not marker.startswith("\n") or len(marker) > MARKER_MAX + 1:
        fail(
            case,
            shape,
            marker[:200],
            f"The marker starts with a newline and stays short (at most {MARKER_MAX} characters).",
        )
    if str(len(text) - kept) not in marker:
        fail(
            case,
            f"a marker mentioning {len(text) - kept} (characters cut)",
            marker,
            "Say how much was cut: the number of characters removed, len(text) - kept.",
        )


@exercise("04.4", notebook=NOTEBOOK, title="to_text", points=2, targets=("to_text",))
def check_to_text(to_text: Callable[..., Any]) -> str:
    cases = _text_cases()
    for case, value, kwargs, expected in cases:
        got = call_learner(to_text, value, case=case, **kwargs)
        if isinstance(value, str):
            expect_json_equal(
                case,
                expected,
                got,
                hints=[
                    (
                        lambda g, v=value: g == json.dumps(v, ensure_ascii=False),
                        "A string passes through unchanged: do not json.dumps it (it adds quotes).",
                    ),
                    *TEXT_HINTS,
                ],
            )
            continue
        _expect_json_text(
            case,
            expected,
            got,
            not_text="to_text always returns a str.",
            not_json=pick_hint(
                got,
                TEXT_HINTS,
                "Everything but a str becomes JSON text: json.dumps(..., default=jsonable).",
            ),
            wrong=lambda text, _value, v=value: pick_hint(text, TEXT_HINTS, _value_hint(v)),
            escaped=TEXT_HINTS[1][1],
        )
    cuts = _cut_cases()
    for name, text, limit in cuts:
        case = f"to_text({name})" if limit == 20_000 else f"to_text({name}, max_chars={limit})"
        kwargs = {} if limit == 20_000 else {"max_chars": limit}
        _check_cut(call_learner(to_text, text, case=case, **kwargs), text, limit, case)
    big = [{"城市": "北京", "n": n} for n in range(2_000)]
    text = json.dumps(big, ensure_ascii=False)
    case = "to_text(a list of 2,000 dicts, max_chars=5_000)"
    _check_cut(call_learner(to_text, big, max_chars=5_000, case=case), text, 5_000, case)
    return f"{len(cases)} values and {len(cuts) + 1} long results"


def _value_hint(value: Any) -> str:
    if isinstance(value, decimal.Decimal):
        return "A Decimal becomes its exact digits as a string: str(value) gives '19.90'."
    if isinstance(value, (set, frozenset)):
        return "A set becomes a sorted list."
    if isinstance(value, pydantic.BaseModel):
        return "A pydantic model becomes its fields: value.model_dump(mode='json')."
    if dataclasses.is_dataclass(value):
        return "A dataclass becomes its fields: dataclasses.asdict(value)."
    return "Compare your JSON with the expected value, key by key."
