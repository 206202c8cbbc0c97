"""Exercise 01.5, ``to_anthropic(tool)`` and ``to_responses(tool)``: one Chat Completions tool in
the Anthropic Messages and OpenAI Responses formats.

Each converter gets the tool as JSON and returns JSON; a second request runs it again and sends
back the tool it was given, to see that it built a new dict. Rules, the case that breaks each,
and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import json
from functools import partial
from random import Random
from typing import Any

from course_lib.checks.cases import Case, run_cases
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import (
    HintText,
    fail,
    first_difference,
    hidden_rng,
    pick_hint,
    where_they_differ,
)
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson01._values import (
    CITIES,
    NOTEBOOK,
    chat_tool,
    random_word,
    result_json,
)
from course_lib.i18n import ENGLISH, translate

# Every other phrase this check shows: its case labels and its summary.
TEXTS = Catalog() | {
    "case": "{name}(<the {tool} tool>)",
    "case_after": "the input of {name}(<the {tool} tool>) after the call",
    "summary": "{count} conversions",
    "schema_placeholder": "<the tool's parameters schema, unchanged>",
    "title": "to_anthropic and to_responses",
}
# The rules name their cases in English (tests/checks/rules.py matches them); a failure says
# its case in the learner's language.
ANTHROPIC_CASE = translate(TEXTS, "case", ENGLISH, name="to_anthropic", tool="get_weather")
RESPONSES_CASE = translate(TEXTS, "case", ENGLISH, name="to_responses", tool="get_weather")

RULES = (
    Rule("anthropic_keys", '`to_anthropic(tool)` returns exactly `{"name": ..., "description": '
         '..., "input_schema": ...}`, without a `"type"`', case=ANTHROPIC_CASE,
         hint="anthropic_type"),
    Rule("anthropic_input_schema", "the schema is called `input_schema` in that format, not "
         "`parameters`", case=ANTHROPIC_CASE, hint="anthropic_parameters"),
    Rule("responses_flat", '`to_responses(tool)` returns the flat `{"type": "function", "name": '
         '..., "description": ..., "parameters": ..., "strict": False}`, exactly these five keys',
         case=RESPONSES_CASE, hint="responses_flat"),
    Rule("responses_strict", '`"strict"` is `False` (these tools are not strict)',
         case=RESPONSES_CASE, hint="strict"),
    Rule("schema_unchanged", "the parameters schema goes through unchanged, every key of it",
         case=ANTHROPIC_CASE, hint="schema_unchanged"),
    Rule("new_dict", "both return a **new** dict and leave the tool they are given as it was",
         case=translate(TEXTS, "case_after", ENGLISH, name="to_anthropic", tool="get_weather"),
         hint="mutated"),
)  # fmt: skip

HINTS = Catalog() | {
    "anthropic_nested": 'Anthropic tools are flat: take "name" etc. out of "function".',
    "anthropic_parameters": 'Anthropic calls the schema "input_schema", not "parameters".',
    "anthropic_type": 'Anthropic tools have no "type": "function"; keep only three keys.',
    "anthropic_no_schema": 'Put the parameters schema under "input_schema".',
    "description": 'Keep the "description": the model still needs it.',
    "responses_flat": 'Responses tools are flat: "name" etc. sit next to "type".',
    "responses_type": 'A Responses tool keeps "type": "function".',
    "responses_input_schema": (
        'Responses keeps the name "parameters" (input_schema is Anthropic\'s).'
    ),
    "strict": (
        'The Responses API expects "strict", and a missing one counts as true; these tools are '
        'not strict: "strict": false.'
    ),
    "schema_dict": (
        "The schema goes through as the dict it is, not as text: no json.dumps, no str()."
    ),
    "schema_unchanged": (
        "Pass the parameters schema through unchanged, every key of it (required, "
        "additionalProperties, descriptions): the model needs all of it."
    ),
    "mutated": "Build a new dict; do not change the tool you were given (pop and del do).",
    "read_function": (
        'The tool you are given is in the Chat Completions form: "name", "description" and '
        '"parameters" sit inside tool["function"].'
    ),
}


hint = HINTS.hint


FIELDS = ("'name'", "'description'", "'parameters'")
EXCEPTION_HINTS = [
    (lambda r: r.raised_a("KeyError") and r.message in FIELDS, hint("read_function")),
]


def expected_anthropic(tool: dict) -> dict:
    function = tool["function"]
    return {
        "name": function["name"],
        "description": function["description"],
        "input_schema": function["parameters"],
    }


def expected_responses(tool: dict) -> dict:
    # The check's tools hold exactly "name", "description" and "parameters" in "function".
    return {"type": "function", **tool["function"], "strict": False}


def schema_hints(tool: dict, key: str) -> list:
    """The mistakes either format can make with the schema, which it keeps under ``key``."""
    return [
        (lambda g: key in g and not isinstance(g[key], dict), hint("schema_dict")),
        (lambda g: isinstance(g.get(key), dict) and g[key] != tool["function"]["parameters"],
         hint("schema_unchanged")),
    ]  # fmt: skip


def anthropic_hints(tool: dict) -> list:
    return [
        (lambda g: "function" in g, hint("anthropic_nested")),
        (lambda g: "parameters" in g, hint("anthropic_parameters")),
        (lambda g: "type" in g, hint("anthropic_type")),
        (lambda g: "input_schema" not in g, hint("anthropic_no_schema")),
        (lambda g: "description" not in g, hint("description")),
        *schema_hints(tool, "input_schema"),
    ]


def responses_hints(tool: dict) -> list:
    return [
        (lambda g: "function" in g, hint("responses_flat")),
        (lambda g: g.get("type") != "function", hint("responses_type")),
        (lambda g: "input_schema" in g, hint("responses_input_schema")),
        (lambda g: "description" not in g, hint("description")),
        (lambda g: g.get("strict") is not False, hint("strict")),
        *schema_hints(tool, "parameters"),
    ]


def random_tool(rng: Random) -> dict:
    names = [random_word(rng) for _ in range(rng.randint(0, 3))]
    types = ["string", "integer", "number", "boolean"]
    properties = {name: {"type": rng.choice(types)} for name in names}
    if names and rng.random() < 0.5:
        properties[names[0]]["description"] = f"{rng.choice(CITIES)} {random_word(rng)}"
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    # Schemas differ in what they spell out: a converter must keep whatever is there.
    if rng.random() < 0.7:
        parameters["required"] = names[: rng.randint(0, len(names))]
    if rng.random() < 0.6:
        parameters["additionalProperties"] = False
    name = f"{random_word(rng)}_{random_word(rng)}"
    description = f"{random_word(rng)} {rng.choice(CITIES)}."
    function = {"name": name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}


FORMAT_EXAMPLE = chat_tool("get_weather", "查询城市当前天气 (current weather for a city).", {
    "city": {"type": "string", "description": "e.g. 北京"},
    "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
}, ["city"])  # fmt: skip
# A schema that spells out less: no "additionalProperties", and a description of its own.
SPARSE_EXAMPLE = {
    "type": "function",
    "function": {
        "name": "search_notes",
        "description": "搜索笔记 (search my notes).",
        "parameters": {
            "type": "object",
            "description": "What to look for.",
            "properties": {
                "keyword": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["keyword"],
        },
    },
}


def abbreviated(value: Any, schema: dict) -> Any:
    """``value`` with the (long) parameters schema, wherever it is unchanged, as one line: the
    difference is elsewhere. The line is said in the learner's language."""
    if isinstance(value, dict) and first_difference(schema, value) is None:
        return TEXTS.text("schema_placeholder")
    if isinstance(value, dict):
        return {key: abbreviated(item, schema) for key, item in value.items()}
    if isinstance(value, list):
        return [abbreviated(item, schema) for item in value]
    return value


def expect_same(case: str, expected: Any, got: Any, tool: dict, chosen: str) -> None:
    __tracebackhide__ = True
    if first_difference(expected, got) is None:
        return
    schema = tool["function"]["parameters"]
    where = where_they_differ(expected, got)
    fail(case, abbreviated(expected, schema), abbreviated(got, schema), chosen, where=where)


def judge_converter(learner: Learner, name: str, case: Case, got: Any, reply: Reply) -> None:
    """The result, then the tool the converter was given, after the call."""
    __tracebackhide__ = True
    tool = case.args[0]
    expect_same(case.label, case.expected, got, tool, pick_hint(got, case.hints))
    given = learner.run(
        "convert(tool)", result="tool", bind={"convert": learner.target(name), "tool": tool}
    )
    after = translate(TEXTS, "case_after", name=name, tool=tool["function"]["name"])
    if given.raised:
        raise_learner_error(after, given)
    expect_same(after, tool, given.value, tool, hint("mutated"))


CONVERTERS = {
    "to_anthropic": (expected_anthropic, anthropic_hints),
    "to_responses": (expected_responses, responses_hints),
}


def converter_case(name: str, tool: dict) -> Case:
    expected_of, hints_of = CONVERTERS[name]
    label = translate(TEXTS, "case", name=name, tool=tool["function"]["name"])
    return Case(label, (tool,), expected_of(tool), hints_of(tool), EXCEPTION_HINTS)


@exercise("01.5", notebook=NOTEBOOK, title=HintText.of(TEXTS, "title"), points=2,
          targets=("to_anthropic", "to_responses"), rules=RULES)  # fmt: skip
def check_formats(learner: Learner) -> str:
    rng = hidden_rng("01.5")
    tools = [FORMAT_EXAMPLE, SPARSE_EXAMPLE, *(random_tool(rng) for _ in range(10))]
    count = 0
    for name in CONVERTERS:
        cases = [converter_case(name, tool) for tool in json.loads(json.dumps(tools))]
        judge = partial(judge_converter, learner, name)
        count += run_cases(learner, name, cases, partial(result_json, name), judge)
    return translate(TEXTS, "summary", count=count)
