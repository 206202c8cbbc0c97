"""Checks for notebook 01_handwritten_schemas: hand-written tools and the round trip.

The schema exercises (01.1, 01.2) are judged by what a schema *does*: the check validates argument
objects a model might send (good ones must pass, bad ones must be rejected) with ``jsonschema``,
so any correct way of writing the schema passes and each wrong one fails on a concrete case.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from random import Random
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from course_lib.checks.core import (
    CheckFailed,
    as_json,
    call_learner,
    exercise,
    expect_json_equal,
    fail,
    first_difference,
    hidden_rng,
    show,
)

NOTEBOOK = "01_handwritten_schemas"
CITIES = ["北京", "上海", "Paris", "London", "São Paulo", "Zürich", "東京", "New York"]

# --- 01.1 and 01.2: hand-written Chat Completions tools -----------------------------------------


def _tool_parameters(tool: Any, what: str, name: str) -> dict:
    """The ``parameters`` schema of a Chat Completions tool, after checking the outer shape."""
    got = as_json(tool, what)
    case = f"the shape of {what}"
    expected_shape = {
        "type": "function",
        "function": {"name": name, "description": "...", "parameters": {"type": "object"}},
    }
    if not isinstance(got, dict):
        fail(case, expected_shape, got, f"{what} is one dict: the tool, as the API receives it.")
    function = got.get("function")
    if not isinstance(function, dict):
        hint = (
            'That is the flat shape of other APIs. Chat Completions nests "name", "description" '
            'and "parameters" inside a "function" dict.'
            if "name" in got
            else 'A Chat Completions tool is {"type": "function", "function": {...}}.'
        )
        fail(case, expected_shape, got, hint)
    if got.get("type") != "function":
        fail(case, expected_shape, got, 'Put "type": "function" next to "function".')
    if "parameters" in got or "properties" in got:
        fail(case, expected_shape, got, '"parameters" belongs inside "function", not next to it.')
    if function.get("name") != name:
        fail(
            case,
            name,
            function.get("name"),
            f"The name is what the model writes in its call: exactly {name!r}.",
            detail="$.function.name",
        )
    description = function.get("description")
    if not isinstance(description, str) or not description.strip():
        fail(
            case,
            "a sentence saying what the tool does",
            description,
            'Give the function a "description": the model reads it to decide when to call.',
            detail="$.function.description",
        )
    parameters = function.get("parameters")
    if not isinstance(parameters, dict):
        hint = (
            'Wrap "properties" and "required" in a "parameters" schema inside "function".'
            if "properties" in function
            else 'Add "parameters": the JSON Schema of the arguments.'
        )
        fail(case, expected_shape, got, hint, detail="$.function.parameters")
    if parameters.get("type") != "object":
        fail(
            case,
            "object",
            parameters.get("type"),
            'The arguments form one JSON object: the parameters schema needs "type": "object".',
            detail="$.function.parameters.type",
        )
    try:
        Draft202012Validator.check_schema(parameters)
    except SchemaError as exc:
        where = "$.function.parameters." + ".".join(str(part) for part in exc.path)
        fail(case, "a valid JSON Schema", parameters, _schema_error_hint(exc), detail=where)
    return parameters


def _schema_error_hint(exc: SchemaError) -> str:
    if "type" in exc.path or exc.validator in ("anyOf", "enum"):
        return (
            "JSON Schema has its own type names: string, integer, number, boolean, array, "
            "object, null (not Python's str, int, float, list)."
        )
    return f"This is not valid JSON Schema: {exc.message}"


def _expect_properties(parameters: dict, names: list[str], what: str) -> dict:
    properties = parameters.get("properties")
    got_names = sorted(properties) if isinstance(properties, dict) else properties
    if got_names != sorted(names):
        fail(
            f"the parameter names in {what}",
            sorted(names),
            got_names,
            'List every parameter of the function under "properties", with the exact '
            "Python names, and nothing else.",
            detail="$.function.parameters.properties",
        )
    return properties


ArgumentCase = tuple[dict, bool, str]  # (arguments the model sends, should pass?, hint)


def _run_argument_cases(parameters: dict, cases: list[ArgumentCase], what: str) -> None:
    validator = Draft202012Validator(parameters)
    for arguments, should_pass, hint in cases:
        accepted = validator.is_valid(arguments)
        if accepted != should_pass:
            fail(
                f"the model sends the arguments {show(arguments, limit=120)}",
                "accepted by your schema" if should_pass else "rejected by your schema",
                "accepted" if accepted else "rejected",
                hint,
                detail=f"validating against {what}'s parameters",
            )


def _expect_default(properties: dict, name: str, value: Any) -> None:
    prop = properties.get(name)
    if isinstance(prop, dict) and "default" in prop and prop["default"] != value:
        fail(
            f'the "default" of {name}',
            value,
            prop["default"],
            f"The function's default is {value!r}; the schema must say the same (or leave "
            '"default" out).',
        )


def _random_word(rng: Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 8)))


def _other_values(rng: Random) -> list[Any]:
    return [rng.randint(-50, 50), rng.random() * 10, True, None, [_random_word(rng)], {"x": 1}]


@exercise("01.1", notebook=NOTEBOOK, title="WEATHER_TOOL", points=2, targets=("WEATHER_TOOL",))
def check_weather_tool(weather_tool: Any) -> str:
    parameters = _tool_parameters(weather_tool, "WEATHER_TOOL", "get_weather")
    properties = _expect_properties(parameters, ["city", "unit"], "WEATHER_TOOL")
    _expect_default(properties, "unit", "c")
    city_type = "city is a str: give it the JSON Schema type string."
    enum = 'unit takes only "c" or "f": list exactly those in "enum".'
    required = 'Only city is required: unit has a default, so leave it out of "required".'
    closed = 'Say "additionalProperties": false so the model cannot invent parameters.'
    cases: list[ArgumentCase] = [
        ({"city": "北京"}, True, required),
        ({"city": "Paris", "unit": "f"}, True, enum),
        ({"city": "上海", "unit": "c"}, True, enum),
        ({"unit": "c"}, False, 'city has no default, so it must be listed in "required".'),
        ({"city": "上海", "unit": "kelvin"}, False, enum),
        ({"city": 42}, False, city_type),
        ({"city": "北京", "country": "CN"}, False, closed),
        ({"city": "北京", "unit": None}, False, enum),
    ]
    rng = hidden_rng("01.1")
    for _ in range(12):
        city = rng.choice([*CITIES, _random_word(rng)])
        cases.append(({"city": city, "unit": rng.choice("cf")}, True, enum))
        cases.append(
            ({"city": city, "unit": rng.choice(["C", "F", "k", "", "celsius"])}, False, enum)
        )
        cases.append(({"city": rng.choice(_other_values(rng))}, False, city_type))
        cases.append(({"city": city, _random_word(rng): city}, False, closed))
    _run_argument_cases(parameters, cases, "WEATHER_TOOL")
    return f"{len(cases)} argument objects validated"


@exercise("01.2", notebook=NOTEBOOK, title="NOTES_TOOL", points=2, targets=("NOTES_TOOL",))
def check_notes_tool(notes_tool: Any) -> str:
    parameters = _tool_parameters(notes_tool, "NOTES_TOOL", "search_notes")
    properties = _expect_properties(parameters, ["keyword", "limit", "tags"], "NOTES_TOOL")
    _expect_default(properties, "limit", 5)
    _expect_default(properties, "tags", None)
    only_keyword = (
        'Only keyword is required: limit and tags have defaults, so leave them out of "required".'
    )
    integer = 'limit is an int: use "integer" ("number" would also allow 2.5).'
    items = 'tags is a list of str: "type": "array" with "items": {"type": "string"}.'
    closed = 'Say "additionalProperties": false so the model cannot invent parameters.'
    cases: list[ArgumentCase] = [
        ({"keyword": "北京"}, True, only_keyword),
        ({"keyword": "budget", "limit": 3}, True, integer),
        ({"keyword": "旅行", "tags": ["上海", "work"]}, True, items),
        ({"keyword": "budget", "limit": 10, "tags": []}, True, items),
        ({"limit": 5}, False, 'keyword has no default, so it must be listed in "required".'),
        ({"keyword": 7}, False, "keyword is a str: give it the JSON Schema type string."),
        ({"keyword": "budget", "limit": 2.5}, False, integer),
        ({"keyword": "budget", "limit": "5"}, False, integer),
        ({"keyword": "budget", "tags": "work"}, False, items),
        ({"keyword": "budget", "tags": [1, 2]}, False, items),
        ({"keyword": "budget", "folder": "inbox"}, False, closed),
    ]
    rng = hidden_rng("01.2")
    for _ in range(10):
        keyword = rng.choice([*CITIES, _random_word(rng)])
        tags = [_random_word(rng) for _ in range(rng.randint(0, 3))]
        cases.append(({"keyword": keyword, "limit": rng.randint(1, 50), "tags": tags}, True, items))
        cases.append(({"keyword": keyword, "limit": rng.random() + 0.25}, False, integer))
        cases.append(({"keyword": keyword, "tags": [*tags, rng.randint(0, 9)]}, False, items))
        cases.append(({"keyword": keyword, _random_word(rng): 1}, False, closed))
    _run_argument_cases(parameters, cases, "NOTES_TOOL")
    return f"{len(cases)} argument objects validated"


# --- 01.3: the tool message --------------------------------------------------------------------


def _sdk_tool_call(call_id: str, name: str, arguments: dict) -> Any:
    from openai.types.chat import ChatCompletionMessageFunctionToolCall

    return ChatCompletionMessageFunctionToolCall(
        id=call_id,
        type="function",
        function={"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
    )


def _dict_tool_call(call_id: str, name: str, arguments: dict) -> dict:
    return _sdk_tool_call(call_id, name, arguments).model_dump()


def _expected_tool_message(call_id: str, result: Any) -> dict:
    content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _tool_message_problem(got: Any, call_id: str, result: Any) -> str | None:
    """The hint for the first thing wrong with ``got`` (JSON), or ``None`` if it is right.

    The JSON text in "content" may use any whitespace or key order, but no ASCII escapes.
    """
    if not isinstance(got, dict):
        return 'Return a dict: {"role": "tool", "tool_call_id": ..., "content": ...}.'
    if got.get("role") != "tool":
        return 'The reply to a tool call has "role": "tool".'
    if "tool_call_id" not in got:
        return 'Add "tool_call_id": the id of the call you answer pairs reply and call.'
    if got["tool_call_id"] != call_id:
        return 'Copy the id of this tool call into "tool_call_id" (tool_call.id).'
    content = got.get("content")
    if not isinstance(content, str):
        return '"content" must be a string: encode non-string results with json.dumps.'
    if isinstance(result, str):
        if content != result:
            return "A string result is already text: pass it through unchanged (no json.dumps)."
    else:
        try:
            decoded = json.loads(content)
        except ValueError:
            return "Encode with json.dumps, not str(): str() writes Python, not JSON."
        if first_difference(as_json(result, "the result"), decoded) is not None:
            return "The content must decode (json.loads) back to the result you were given."
        if "\\u" in content and "\\u" not in json.dumps(result, ensure_ascii=False):
            return "Pass ensure_ascii=False so 北京 stays 北京 instead of \\u5317\\u4eac."
    extra = sorted(set(got) - {"role", "tool_call_id", "content"})
    if extra:
        return f"Use exactly the keys role, tool_call_id and content (remove {', '.join(extra)})."
    return None


def _tool_message_cases(rng: Random) -> list[tuple[str, Any, Any, str]]:
    """(call id, tool call, result, description of the call's form)."""
    results: list[Any] = [
        "晴, 31°C",
        {"city": "北京", "temperature": 31, "sky": "晴"},
        [{"title": "上海 trip", "tags": ["旅行"]}, {"title": "budget", "tags": []}],
        42,
        21.5,
        True,
        None,
        "",
        {"note": "ASCII only"},
    ]
    for _ in range(8):
        results.append(rng.choice([_random_word(rng), {rng.choice(CITIES): rng.randint(0, 40)}]))
    cases = []
    for index, result in enumerate(results):
        call_id = f"call_{_random_word(rng)}{index}"
        as_dict = index % 3 == 2
        make = _dict_tool_call if as_dict else _sdk_tool_call
        call = make(call_id, "get_weather", {"city": rng.choice(CITIES)})
        cases.append((call_id, call, result, "a dict" if as_dict else "the SDK's tool call"))
    return cases


@exercise("01.3", notebook=NOTEBOOK, title="tool_message", points=2, targets=("tool_message",))
def check_tool_message(tool_message: Callable[..., Any]) -> str:
    cases = _tool_message_cases(hidden_rng("01.3"))
    for call_id, call, result, form in cases:
        case = f"tool_message(<{form} with id {call_id!r}>, {show(result, limit=120)})"
        expected = _expected_tool_message(call_id, result)
        try:
            got = call_learner(tool_message, call, result, case=case)
        except CheckFailed:
            if form == "a dict":
                fail(
                    case,
                    expected,
                    "an exception",
                    'tool_call may also be a dict: read its id as tool_call["id"] then.',
                )
            raise
        plain = as_json(got, f"The result of {case}")
        problem = _tool_message_problem(plain, call_id, result)
        if problem:
            fail(case, expected, plain, problem)
    return f"{len(cases)} cases"


# --- 01.5: provider formats --------------------------------------------------------------------


def _expected_anthropic(tool: dict) -> dict:
    function = tool["function"]
    return {
        "name": function["name"],
        "description": function["description"],
        "input_schema": function["parameters"],
    }


def _expected_responses(tool: dict) -> dict:
    function = tool["function"]
    return {
        "type": "function",
        "name": function["name"],
        "description": function["description"],
        "parameters": function["parameters"],
        "strict": False,
    }


ANTHROPIC_HINTS = [
    (lambda g: "function" in g, 'Anthropic tools are flat: take "name" etc. out of "function".'),
    (lambda g: "parameters" in g, 'Anthropic calls the schema "input_schema", not "parameters".'),
    (lambda g: "type" in g, 'Anthropic tools have no "type": "function"; keep only three keys.'),
    (lambda g: "input_schema" not in g, 'Put the parameters schema under "input_schema".'),
    (lambda g: "description" not in g, 'Keep the "description": the model still needs it.'),
]
RESPONSES_HINTS = [
    (lambda g: "function" in g, 'Responses tools are flat: "name" etc. sit next to "type".'),
    (lambda g: g.get("type") != "function", 'A Responses tool keeps "type": "function".'),
    (
        lambda g: "input_schema" in g,
        'Responses keeps the name "parameters" (input_schema is Anthropic\'s).',
    ),
    (lambda g: "description" not in g, 'Keep the "description": the model still needs it.'),
    (
        lambda g: g.get("strict") is not False,
        'The Responses API requires "strict" (a missing one counts as true); these tools are '
        'not strict: "strict": false.',
    ),
]


def _random_tool(rng: Random) -> dict:
    names = [_random_word(rng) for _ in range(rng.randint(0, 3))]
    types = ["string", "integer", "number", "boolean"]
    properties = {name: {"type": rng.choice(types)} for name in names}
    if names and rng.random() < 0.5:
        properties[names[0]]["description"] = f"{rng.choice(CITIES)} {_random_word(rng)}"
    return {
        "type": "function",
        "function": {
            "name": f"{_random_word(rng)}_{_random_word(rng)}",
            "description": f"{_random_word(rng)} {rng.choice(CITIES)}.",
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": names[: rng.randint(0, len(names))],
                "additionalProperties": False,
            },
        },
    }


FORMAT_EXAMPLE = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "查询城市当前天气 (current weather for a city).",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "e.g. 北京"},
                "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
            },
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}


@exercise(
    "01.5",
    notebook=NOTEBOOK,
    title="to_anthropic and to_responses",
    points=2,
    targets=("to_anthropic", "to_responses"),
)
def check_formats(to_anthropic: Callable[..., Any], to_responses: Callable[..., Any]) -> str:
    rng = hidden_rng("01.5")
    tools = [FORMAT_EXAMPLE, *(_random_tool(rng) for _ in range(10))]
    for convert, expected_of, hints in (
        (to_anthropic, _expected_anthropic, ANTHROPIC_HINTS),
        (to_responses, _expected_responses, RESPONSES_HINTS),
    ):
        for tool in tools:
            given = json.loads(json.dumps(tool))
            name = getattr(convert, "__name__", "convert")
            case = f"{name}(<the {tool['function']['name']} tool>)"
            got = call_learner(convert, given, case=case)
            expect_json_equal(case, expected_of(tool), got, hints=hints)
            if first_difference(tool, as_json(given, "the tool you were given")) is not None:
                fail(
                    f"the input of {case} after the call",
                    tool,
                    given,
                    "Build a new dict; do not change the tool you were given (pop and del do).",
                )
    return f"{2 * len(tools)} conversions"
