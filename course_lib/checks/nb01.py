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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.exceptions import SchemaError

from course_lib.checks.core import (
    CheckFailed,
    as_json,
    call_learner,
    expect_json_equal,
    fail,
    first_difference,
    hidden_rng,
    learner_raised,
    pick_hint,
    show,
)
from course_lib.checks.core import (
    legacy_exercise as exercise,
)
from course_lib.checks.recording import recording_client

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
    from jsonschema import Draft202012Validator, SchemaError  # slow to import: load on use

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
    from jsonschema import Draft202012Validator

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
    """A "default" is optional; if given, it equals the function's and fits its own schema."""
    prop = properties.get(name)
    if not isinstance(prop, dict) or "default" not in prop:
        return
    if prop["default"] != value:
        fail(
            f'the "default" of {name}',
            value,
            prop["default"],
            f"The function's default is {value!r}; the schema must say the same (or leave "
            '"default" out).',
        )
    from jsonschema import Draft202012Validator

    if not Draft202012Validator(prop).is_valid(value):
        hint = (
            f'A default must fit its own schema, and null does not fit "type": '
            f'{json.dumps(prop.get("type"))}. Allow null too ("type": '
            f'[{json.dumps(prop.get("type"))}, "null"]) or leave "default" out.'
            if value is None and isinstance(prop.get("type"), str)
            else "A default must fit its own schema: fix the schema of "
            f'{name} or leave "default" out.'
        )
        fail(
            f'the "default" of {name} against the schema of {name}',
            "a default your schema accepts",
            prop,
            hint,
            detail=f"$.function.parameters.properties.{name}",
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
        if "id" in got:
            return 'The key is "tool_call_id", not "id": rename it (and keep no "id" key).'
        return 'Add "tool_call_id" (the id of the call you answer): it pairs reply and call.'
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
    if not callable(tool_message):  # call_learner says so, with what it is instead
        call_learner(tool_message, case="tool_message(tool_call, result)")
    for call_id, call, result, form in cases:
        case = f"tool_message(<{form} with id {call_id!r}>, {show(result, limit=120)})"
        expected = _expected_tool_message(call_id, result)
        try:
            got = tool_message(call, result)
        except (NotImplementedError, CheckFailed):
            raise
        except Exception as exc:  # the learner's bug, reported as data
            if form != "a dict":
                raise learner_raised(case, exc) from None
            fail(
                case,
                expected,
                f"your code raised {type(exc).__name__}: {exc}",
                'tool_call may also be a dict: read its id as tool_call["id"] then.',
            )
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
            got = as_json(call_learner(convert, given, case=case), f"The result of {case}")
            _expect_same_tool(case, expected_of(tool), got, tool, pick_hint(got, hints))
            _expect_same_tool(
                f"the input of {case} after the call",
                tool,
                as_json(given, "the tool you were given"),
                tool,
                "Build a new dict; do not change the tool you were given (pop and del do).",
            )
    return f"{2 * len(tools)} conversions"


SCHEMA_PLACEHOLDER = "<the tool's parameters schema, unchanged>"


def _expect_same_tool(case: str, expected: Any, got: Any, tool: dict, hint: str) -> None:
    """Fail unless ``got`` equals ``expected``, showing the (long) parameters schema, wherever
    either holds it unchanged, as one placeholder line: the difference is elsewhere."""
    difference = first_difference(expected, got)
    if difference is None:
        return
    schema = tool["function"]["parameters"]
    detail = None if difference.startswith("expected ") else difference
    fail(case, _abbreviated(expected, schema), _abbreviated(got, schema), hint, detail=detail)


def _abbreviated(value: Any, schema: dict) -> Any:
    if isinstance(value, dict) and first_difference(schema, value) is None:
        return SCHEMA_PLACEHOLDER
    if isinstance(value, dict):
        return {key: _abbreviated(item, schema) for key, item in value.items()}
    if isinstance(value, list):
        return [_abbreviated(item, schema) for item in value]
    return value


# --- 01.4: one complete round trip against the local model -------------------------------------
#
# The learner's function talks to a client whose transport keeps every request and reply, so the
# check sees exactly what was sent: the user message, the assistant message appended once, one
# tool message per call with its own id, the model name and the tools passed through.

CHECK_MODEL = "toy-check-model"  # not MODEL: the learner must pass ``model`` through


_SKIES = {"北京": "晴", "上海": "多云", "Paris": "cloudy", "London": "rain", "東京": "小雨"}


def _check_get_weather(city: str, unit: str = "c") -> dict:
    celsius = 10 + sum(map(ord, city)) % 25
    temperature = celsius if unit == "c" else round(celsius * 9 / 5 + 32)
    return {"city": city, "temperature": temperature, "unit": unit, "sky": _SKIES.get(city, "晴")}


def _check_search_notes(keyword: str, limit: int = 5, tags: list[str] | None = None) -> list:
    notes = [{"title": f"{keyword} 笔记 {n}", "tags": tags or ["旅行"]} for n in range(1, 4)]
    return notes[:limit]


CHECK_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather (temperature and sky) in a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city, e.g. 北京"},
                    "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
                },
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_notes",
            "description": "Search my notes for a keyword.",
            "parameters": {
                "type": "object",
                "properties": {
                    "keyword": {"type": "string"},
                    "limit": {"type": "integer", "default": 5},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["keyword"],
                "additionalProperties": False,
            },
        },
    },
]


def _round_trip_cases(rng: Random) -> list[tuple[str, Any]]:
    """(question, policy or None for the default toy model)."""
    from course_lib.local_model import HeuristicPolicy, ScriptedPolicy, call

    two_tools = [
        call("get_weather", city="北京"),
        call("search_notes", keyword="上海", tags=["旅行"]),
    ]
    cases: list[tuple[str, Any]] = [
        ("What's the weather in 北京?", None),
        ("北京的天气和我关于上海的笔记", ScriptedPolicy([two_tools], then=HeuristicPolicy())),
        ("What's the weather in Paris and London?", None),
        ("Hello!", None),
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


@exercise("01.4", notebook=NOTEBOOK, title="ask_with_tools", points=3, targets=("ask_with_tools",))
def check_ask_with_tools(ask_with_tools: Callable[..., Any]) -> str:
    from course_lib.local_model import HeuristicPolicy

    rng = hidden_rng("01.4")
    cases = _round_trip_cases(rng)
    for index, (question, policy) in enumerate(cases):
        client, exchanges = recording_client(
            policy or HeuristicPolicy(), model_name=CHECK_MODEL, seed=100 + index
        )
        functions = {"get_weather": _check_get_weather, "search_notes": _check_search_notes}
        tools = json.loads(json.dumps(CHECK_TOOLS))
        case = f"ask_with_tools(client, {question!r}, tools, functions, model={CHECK_MODEL!r})"
        try:
            answer = ask_with_tools(client, question, tools, functions, model=CHECK_MODEL)
        except NotImplementedError as exc:
            if str(exc).startswith("Exercise ") and not str(exc).startswith("Exercise 01.4"):
                fail(
                    case,
                    "the final answer",
                    f"NotImplementedError: {exc}",
                    "Your ask_with_tools is running, but it calls the stub of another exercise "
                    "(tool_message is exercise 01.3): finish that one and run its cell first.",
                )
            raise
        except Exception as exc:  # the learner's bug: say what the requests show, if anything
            _diagnose_round_trip(case, question, exchanges, finished=False)
            fail(case, "the final answer", _exception_text(exc), _exception_hint(exc))
        _diagnose_round_trip(case, question, exchanges)
        expected = exchanges[-1].reply["choices"][0]["message"]["content"]
        if not isinstance(answer, str):
            hint = (
                "Return the text: reply.choices[0].message.content of the last reply."
                if answer is None or not isinstance(answer, (int, float, bool, list, dict))
                else "Return the text of the last reply, a str."
            )
            fail(case, expected, repr(answer)[:200], hint)
        expect_json_equal(
            case, expected, answer, "Return the content of the last reply, unchanged."
        )
    return f"{len(cases)} conversations"


def _exception_text(exc: Exception) -> str:
    """``Type: message``, naming the check's functions as the learner's code reaches them."""
    text = f"{type(exc).__name__}: {exc}"
    for function in (_check_get_weather, _check_search_notes):
        name = function.__name__.removeprefix("_check_")
        text = text.replace(
            f"{function.__module__}.{function.__qualname__}", f"functions[{name!r}]"
        )
        text = text.replace(function.__qualname__, f"functions[{name!r}]")
    return text


def _exception_hint(exc: Exception) -> str:
    text = str(exc)
    if isinstance(exc, TypeError) and "mapping" in text:
        return "The arguments arrive as a JSON string: json.loads them before calling with **."
    if isinstance(exc, KeyError):
        return "functions maps each tool name to its function: functions[call.function.name]."
    return "Run this case yourself in a new cell to see the full traceback."


def _roles(messages: Any) -> list:
    return [m.get("role") if isinstance(m, dict) else m for m in messages]


def _diagnose_round_trip(
    case: str, question: str, exchanges: list, *, finished: bool = True
) -> None:
    """Fail with a fitting hint on the first thing the recorded requests show to be wrong.

    ``finished`` is False when the learner's code raised: then too few requests is no surprise.
    """
    if not exchanges:
        fail(case, "a request to the model", "no request", "Call client.chat.completions.create.")
    for number, (body, _status, _reply) in enumerate(exchanges, start=1):
        where = f"request {number} of {len(exchanges)} your function sent"
        if body.get("model") != CHECK_MODEL:
            fail(
                case,
                CHECK_MODEL,
                body.get("model"),
                "Pass model=model to every request.",
                detail=where,
            )
        if first_difference(CHECK_TOOLS, body.get("tools")) is not None:
            fail(
                case,
                "the tools you were given",
                body["tools"] if "tools" in body else "no tools (tools= not passed)",
                "Pass tools=tools to every request (the model must see the tools both times).",
                detail=where,
            )
    first, status, reply = exchanges[0]
    user = [{"role": "user", "content": question}]
    if first_difference(user, first.get("messages")) is not None:
        fail(
            case,
            user,
            first.get("messages"),
            "Start the conversation with one user message holding the question.",
            detail="the first request's messages",
        )
    if status != 200:
        fail(case, "a successful first request", reply, "Fix the first request.")
    calls = reply["choices"][0]["message"].get("tool_calls") or []
    wanted_requests = 2 if calls else 1
    if len(exchanges) > wanted_requests or (finished and len(exchanges) < wanted_requests):
        hint = (
            "The reply has no tool calls: return its content right away."
            if not calls
            else "After answering the calls, send the conversation once more and return that "
            "reply's content."
            if len(exchanges) < 2
            else "One round trip: at most two requests."
        )
        fail(case, f"{wanted_requests} request(s)", f"{len(exchanges)} request(s)", hint)
    if calls and len(exchanges) > 1:
        _diagnose_second_request(case, exchanges[1].request.get("messages") or [], user, calls)


def _diagnose_second_request(case: str, messages: list, user: list, calls: list) -> None:
    ids = [c["id"] for c in calls]
    expected_roles = ["user", "assistant", *(["tool"] * len(calls))]
    got_roles = _roles(messages)
    assistants = [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
    detail = "the roles of the second request's messages"
    if not assistants:
        hint = "Append the assistant message (the reply with tool_calls) before the tool messages."
        fail(case, expected_roles, got_roles, hint, detail=detail)
    if len(assistants) > 1:
        hint = "Append the assistant message once, before the loop, not once per tool call."
        fail(case, expected_roles, got_roles, hint, detail=detail)
    sent_ids = [c.get("id") for c in assistants[0].get("tool_calls") or []]
    if sent_ids != ids:
        fail(
            case,
            ids,
            sent_ids,
            "Append the reply's message unchanged: its tool_calls are what you answer.",
            detail="the tool_calls ids of the assistant message you sent back",
        )
    tool_messages = [m for m in messages if isinstance(m, dict) and m.get("role") == "tool"]
    if len(tool_messages) < len(calls):
        hint = "Answer every tool call, not only the first: one tool message per call."
        fail(case, expected_roles, got_roles, hint, detail=detail)
    if got_roles != expected_roles or first_difference(user, messages[:1]) is not None:
        fail(
            case,
            expected_roles,
            got_roles,
            "Send the user message, the assistant message, then one tool message per call.",
            detail=detail,
        )
    answered = [m.get("tool_call_id") for m in tool_messages]
    if answered != ids:
        hint = (
            'Each tool message needs "tool_call_id": the id of the call it answers.'
            if None in answered
            else "Each tool message carries its own call's id (tool_call.id), in call order."
        )
        fail(case, ids, answered, hint, detail="the tool_call_id of each tool message")
    functions = {"get_weather": _check_get_weather, "search_notes": _check_search_notes}
    for tool_call, message in zip(calls, tool_messages, strict=True):
        function = tool_call["function"]
        result = functions[function["name"]](**json.loads(function["arguments"]))
        problem = _tool_message_problem(message, tool_call["id"], result)
        if problem:
            where = f"the tool message answering {function['name']}({function['arguments']})"
            fail(
                case,
                _expected_tool_message(tool_call["id"], result),
                message,
                problem,
                detail=where,
            )


# --- 01.6: the description is a prompt -----------------------------------------------------------
#
# The learner's description goes into ORDER_TOOL next to the decoy SEARCH_WEB_TOOL; the default
# toy model must then call track_order (with the order number) for every order question and still
# call search_web for every web question. The notebook shows the same tools and visible questions;
# a test keeps the two copies equal.

VAGUE_DESCRIPTION = "Gets info."
MAX_DESCRIPTION_CHARS = 300
SEARCH_WEB_TOOL = {
    "type": "function",
    "function": {
        "name": "search_web",
        "description": "Search the web for anything: news, facts, prices, shipping times, "
        "opening hours.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "What to search for"}},
            "required": ["query"],
            "additionalProperties": False,
        },
    },
}
ORDER_QUESTIONS = [
    "Where is my order 51234?",
    "Track my parcel 88812, please.",
    "What is the delivery status of order 40017?",
    "When will package 77001 arrive?",
    "我的订单 51234 到哪里了?",
    "快递 88812 的物流状态是什么?",
]
WEB_QUESTIONS = [
    "Search the web for news about 上海",
    "What are the opening hours of the 北京 zoo?",
    "Find facts about the Great Wall",
]
_HIDDEN_ORDER_TEMPLATES = [
    "Where is order {n} now?",
    "Please track package {n} for me.",
    "Delivery status of my parcel {n}?",
    "When does my order {n} arrive?",
    "订单 {n} 到哪里了?",
    "包裹 {n} 的物流状态",
]
_HIDDEN_WEB_QUESTIONS = [
    "Search the web for facts about 上海",
    "Find news about the 北京 marathon",
    "What are the opening hours of the Louvre?",
]


def order_tool(description: str) -> dict:
    """The Chat Completions tool for ``track_order(order_number: int)`` with ``description``."""
    return {
        "type": "function",
        "function": {
            "name": "track_order",
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {
                    "order_number": {
                        "type": "integer",
                        "description": "The order number, e.g. 51234",
                    }
                },
                "required": ["order_number"],
                "additionalProperties": False,
            },
        },
    }


def _routing_cases(rng: Random) -> list[tuple[str, str, dict | None]]:
    """(question, expected tool, expected arguments or None when any arguments will do)."""
    cases: list[tuple[str, str, dict | None]] = []
    for question in ORDER_QUESTIONS:
        number = int("".join(ch for ch in question if ch.isdigit()))
        cases.append((question, "track_order", {"order_number": number}))
    cases += [(question, "search_web", None) for question in WEB_QUESTIONS]
    for template in _HIDDEN_ORDER_TEMPLATES:
        number = rng.randint(10000, 99999)
        cases.append((template.format(n=number), "track_order", {"order_number": number}))
    cases += [(question, "search_web", None) for question in _HIDDEN_WEB_QUESTIONS]
    return cases


@exercise(
    "01.6",
    notebook=NOTEBOOK,
    title="BETTER_DESCRIPTION",
    points=2,
    targets=("BETTER_DESCRIPTION",),
)
def check_better_description(description: Any) -> str:
    from course_lib.local_model import explain_choice, make_client

    case = "BETTER_DESCRIPTION"
    if not isinstance(description, str) or not description.strip():
        fail(case, "a non-empty str", show(description, limit=120), "Assign a string.")
    if description.strip() == VAGUE_DESCRIPTION:
        fail(case, "a better description", description, "Rewrite the vague description.")
    if len(description) > MAX_DESCRIPTION_CHARS:
        fail(
            case,
            f"at most {MAX_DESCRIPTION_CHARS} characters",
            f"{len(description)} characters",
            "Keep it short: say what the tool does and when to use it, in a sentence or two.",
        )
    tools = [order_tool(description), SEARCH_WEB_TOOL]
    client = make_client()
    cases = _routing_cases(hidden_rng("01.6"))
    for question, wanted, arguments in cases:
        reply = client.chat.completions.create(
            model="toy-check-model", messages=[{"role": "user", "content": question}], tools=tools
        )
        message = reply.choices[0].message
        calls = [
            (c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []
        ]
        if calls and calls[0][0] == wanted and (arguments is None or calls[0][1] == arguments):
            continue
        expected = f"a call to {wanted}" + (f" with {json.dumps(arguments)}" if arguments else "")
        got = f"a call to {calls[0][0]}" if calls else f"no call, the text {message.content!r}"
        scores = explain_choice(question, tools).scores
        where = "explain_choice scores: " + ", ".join(f"{n} {s:.2f}" for n, s in scores.items())
        if wanted == "track_order":
            hint = (
                "Describe what track_order is for in the words people use in such questions "
                "(order, package, parcel, delivery status, where, arrive; 订单, 快递, 物流). "
                "Try explain_choice(question, [order_tool(BETTER_DESCRIPTION), SEARCH_WEB_TOOL])."
            )
        else:
            hint = (
                "Your description now claims web questions too: describe only what track_order "
                "does, so search_web keeps the questions it is for."
            )
        fail(f"the question {question!r}", expected, got, hint, detail=where)
    return f"{len(cases)} questions routed"
