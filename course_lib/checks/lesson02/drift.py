"""Exercise 02.5, ``find_drift(func, tool) -> list[str]``: a function against its hand-written tool.

The function is source text built on both sides; the tool is plain JSON. The check compares the
sorted ``kind: name`` start of each line (and the two type names of a ``type`` line).
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.

One module because it is one exercise's check: most of its lines are the contract, the hint
table and the visible tools with their expected lines and case labels; the hidden tools are
edits of the same functions, and the expectation reads those tables and nothing else.
"""

from __future__ import annotations

import copy
import json
import random
import re
from functools import partial
from typing import Any

from course_lib.checks.cases import Case, run_cases
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.function_cases import FunctionCase, after_earlier, py, returned_json
from course_lib.checks.learner import Learner, Reply, raised_with
from course_lib.checks.lesson02.parameters_schema import raised_hints, random_basic_function
from course_lib.checks.parameter_schemas import expected_parameters_schema
from course_lib.i18n import spoken_label

SEARCH_NOTES = FunctionCase(
    "search_notes", ("keyword: str", "limit: int = 5", "archived: bool = False"), returns="list"
)
GET_WEATHER = FunctionCase(
    "get_weather", ("city: str", "unit: str = 'c'", "days: int = 1"), returns="str"
)
CHINESE = FunctionCase("查询天气", ("城市: str", "天数: int = 3", "*", "详细: bool = False"))
NOTES_TOOL = {
    "type": "function",
    "function": {
        "name": "search_notes",
        "description": "Search the notes.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "string"}},
            "required": ["query", "limit"],
        },
    },
}


def tool_of(function: FunctionCase) -> dict:
    """The tool 02.2's oracle derives for ``function``: a hand-written copy that has not drifted."""
    parameters = expected_parameters_schema(function.value())
    tool = {"name": function.name, "description": "A tool.", "parameters": parameters}
    return {"type": "function", "function": tool}


def edited(function: FunctionCase, required: Any = "kept", **properties: dict | None) -> dict:
    """The tool of ``function`` with each of ``properties`` replaced (``None``: left out), and
    ``"required"`` replaced by ``required`` (``None``: left out) unless it is ``"kept"``."""
    tool = tool_of(function)
    parameters = tool["function"]["parameters"]
    parameters["properties"].update(properties)
    for name in [name for name, prop in properties.items() if prop is None]:
        del parameters["properties"][name]
    if required is None:
        del parameters["required"]
    elif required != "kept":
        parameters["required"] = required
    return tool


def untyped_days(function: FunctionCase) -> dict:
    """The tool of ``function`` where days has a description but no type."""
    return edited(function, days={"description": "How many days."})


# What a visible case calls its tool, in the learner's language (``case_of``); NOTES_TOOL is
# the notebook's name for it.
CASE_TEXTS = {
    "derived": "its own derived tool",
    "untyped": "its tool where days has no type",
    "drifted": "a drifted tool",
    "no_required": 'its tool without "required"',
    "described": "its tool with descriptions, an enum and another default",
    "number": "its tool where days is a number",
    "nullable": 'its tool where days is ["integer", "null"]',
}


def case_of(function: FunctionCase, what: str) -> str:
    return f"find_drift({function.signature}, {spoken_label(CASE_TEXTS, what)})"


# (function, what the case calls the tool: a key of CASE_TEXTS or a name, tool, expected
# "kind: name" lines)
VISIBLE = (
    (SEARCH_NOTES, "NOTES_TOOL", NOTES_TOOL,
     ["extra: query", "missing: archived", "missing: keyword", "required: limit", "type: limit"]),
    (GET_WEATHER, "derived", tool_of(GET_WEATHER), []),
    (GET_WEATHER, "untyped", untyped_days(GET_WEATHER), ["type: days"]),
    (CHINESE, "drifted", edited(CHINESE, ["城市", "天数"], 天数={"type": "string", "default": 3},
                                详细=None), ["missing: 详细", "required: 天数", "type: 天数"]),
    (GET_WEATHER, "no_required", edited(GET_WEATHER, None), ["required: city"]),
    (GET_WEATHER, "described", edited(
        GET_WEATHER, city={"type": "string", "description": "城市名称，例如 北京。"},
        unit={"type": "string", "enum": ["c", "f"], "default": "f"}), []),
    (GET_WEATHER, "number", edited(GET_WEATHER, days={"type": "number", "default": 1}),
     ["type: days"]),
    (GET_WEATHER, "nullable", edited(GET_WEATHER, days={"type": ["integer", "null"], "default": 1}),
     ["type: days"]),
)  # fmt: skip
FIRST = case_of(SEARCH_NOTES, "NOTES_TOOL")

RULES = (
    Rule("list", "it returns a list of strings, `[]` when nothing drifted", case=FIRST,
         hint="list_of_str"),
    Rule("format", "each line starts with its kind, a colon, a space and the parameter name; any "
         "explanation may follow", case=FIRST, hint="line_format"),
    Rule("missing_extra", "`missing: archived (in the function, not in the tool)`, and `extra: "
         "query (in the tool, not in the function)` for the reverse", case=FIRST,
         hint="missing_vs_extra"),
    Rule("only_line", "a `missing` or `extra` parameter gets only that line", case=FIRST,
         hint="only_missing"),
    Rule("required", "`required: limit is optional in the function but required in the tool`: "
         "required on one side, optional on the other", case=FIRST, hint="required"),
    Rule("type", '`type: limit is integer in the function but string in the tool`: the `"type"` '
         "values differ", case=FIRST, hint="type"),
    Rule("type_names", "a `type` line names both JSON types", case=FIRST, hint="type_names"),
    Rule("untyped", 'a tool property without `"type"` counts as a different type',
         case=case_of(*VISIBLE[2][:2]), hint="untyped"),
    Rule("no_required", 'a tool without `"required"` requires nothing',
         case=case_of(*VISIBLE[4][:2]), hint="no_required_key"),
    Rule("only_type", 'only `"type"` is compared: descriptions, enums and defaults may differ',
         case=case_of(*VISIBLE[5][:2]), hint="extra_type"),
    Rule("type_list", 'a list of types is compared as it is: `["integer", "null"]` is not '
         "`integer`, since it lets the model send `null`", case=case_of(*VISIBLE[7][:2]),
         hint="nullable_is_not_type"),
)  # fmt: skip

TEXTS = Catalog() | {
    "summary": "{visible} visible and {hidden} hidden cases",
    "parameters_case": "the tool parameters {shown}",
    "type_example": "type: {name} is {mine} in the function but {theirs} in the tool",
    "untyped": "untyped",
}

HINTS = Catalog() | {
    "list_of_str": "Return a list of strings, one line per mismatch.",
    "a_set": (
        "A set holds the same lines, but find_drift returns a list, as its signature says (a "
        "set is not JSON and has no order to read them in): return sorted(...) or list(...)."
    ),
    "a_tuple": (
        "A tuple holds the same lines, but find_drift returns a list, as its signature says: "
        "build a list, or return list(...)."
    ),
    "line_format": (
        "Start every line with its kind, a colon, a space and the parameter name, e.g. "
        "`missing: archived (in the function, not in the tool)`: this line does not: {line}"
    ),
    "type_names": (
        "A type line names both JSON types, the function's and the tool's: expected "
        "something like `{example}`."
    ),
    "only_missing": (
        "A parameter missing from the tool gets only its `missing` line: compare required and "
        "type only for parameters both sides have."
    ),
    "no_extra": (
        "The tool has {names}, which the function does not: give each parameter that is only "
        "in the tool an `extra` line, such as `extra: query (in the tool, not in the function)`."
    ),
    "missing_vs_extra": (
        "`missing` is in the function but not in the tool; `extra` is in the tool but not in "
        "the function."
    ),
    "extra_type": (
        'type: {name} is reported, but {name} has "type": "{type}" on both sides: compare only '
        'the "type" values, not the whole property (descriptions, enums and defaults may '
        "differ)."
    ),
    "no_drift": "A tool that matches its function has no drift: return [].",
    "required": (
        "Compare required on both sides: required in the function means no default; a tool "
        'without "required" requires nothing.'
    ),
    "untyped": (
        'A tool property without "type" counts as a different type: give it a `type` line '
        '(read the tool\'s type with .get("type"), which gives None when it is absent).'
    ),
    "type": 'Compare the "type" of each parameter both sides have.',
    "number_is_not_integer": (
        "{name} is integer in the function but number in the tool: that is drift too (the tool "
        'lets the model send 2.5, which an int parameter cannot take). Compare the "type" '
        "values as they are."
    ),
    "nullable_is_not_type": (
        "{name} is {mine} in the function but {theirs} in the tool: that is drift too (the tool "
        "lets the model send null, which the parameter cannot take). A list of types is not one "
        'of its members: compare the "type" values as they are.'
    ),
    "duplicates": "One line per mismatch: no duplicates.",
    "untyped_key": (
        'A tool property may have no "type" key: read it with .get("type") and count a missing '
        "type as a different type."
    ),
    "no_required_key": (
        'A tool without "required" requires nothing: read it with .get("required", []).'
    ),
    "must_not_raise": (
        "This function has only basic types and the tool is an OpenAI tool: find_drift must "
        "return its lines, not raise."
    ),
}

# The name is an identifier: what follows it (a space, or Chinese punctuation such as "（" or "："
# with no space before it) is the explanation, in any language.
LINE = re.compile(r"^(missing|extra|required|type): (\w+)")
JSON_TYPE_NAMES = ("string", "integer", "number", "boolean", "array", "object")


hint = HINTS.hint


def hidden_drift(count: int = 25) -> list[tuple[FunctionCase, str, dict, list[str]]]:
    rng = hidden_rng("02.5")
    cases = []
    for index in range(count):
        function = random_basic_function(rng, index, future=index % 3 == 2)
        tool = tool_of(function)
        expected = drift(rng, tool["function"]["parameters"])
        shown = py(tool["function"]["parameters"])
        cases.append((function, TEXTS.text("parameters_case", shown=shown), tool, expected))
    return cases


def drift(rng: random.Random, schema: dict) -> list[str]:
    """Drift ``schema`` at random in place; the lines find_drift must report."""
    props, required = schema["properties"], schema["required"]
    expected: list[str] = []
    for name in list(props):
        roll = rng.random()
        if roll < 0.15:
            del props[name]
            if name in required:
                required.remove(name)
            expected.append(f"missing: {name}")
            continue
        if roll < 0.35:
            if name in required:
                required.remove(name)
            else:
                required.append(name)
            expected.append(f"required: {name}")
        if rng.random() < 0.25:
            if rng.random() < 0.3:
                del props[name]["type"]
            else:
                others = [t for t in JSON_TYPE_NAMES if t != props[name]["type"]]
                props[name]["type"] = rng.choice(others)
            expected.append(f"type: {name}")
    for name in rng.sample(["query", "lang", "语言", "page"], rng.randint(0, 2)):
        if name not in props:
            props[name] = {"type": rng.choice(JSON_TYPE_NAMES)}
            expected.append(f"extra: {name}")
    if not required and rng.random() < 0.5:
        del schema["required"]
    return expected


def names_of(lines: list[str], kind: str) -> set[str]:
    return {line.split(": ", 1)[1] for line in lines if line.startswith(kind + ":")}


def choose_hint(got: list[str], expected: list[str], tool: dict, mine: dict) -> HintText | None:
    """The likely mistake behind the sorted ``kind: name`` keys ``got``, most specific first."""
    props = tool["function"]["parameters"].get("properties", {})
    mine_props = mine["properties"]
    untyped = {n for n in mine_props if n in props and "type" not in props[n]}
    same = {n for n in mine_props if n in props and props[n].get("type") == mine_props[n]["type"]}
    missing, typed = names_of(got, "missing"), names_of(got, "type")
    if missing & (names_of(got, "required") | typed):
        return hint("only_missing")
    if missing == names_of(expected, "extra") and missing != names_of(expected, "missing"):
        return hint("missing_vs_extra")
    absent_extra = names_of(expected, "extra") - names_of(got, "extra") - missing
    if absent_extra:
        return hint("no_extra", names=", ".join(sorted(absent_extra)))
    if typed & same:
        name = sorted(typed & same)[0]
        return hint("extra_type", name=name, type=mine_props[name]["type"])
    if not expected and got:
        return hint("no_drift")
    if names_of(got, "required") != names_of(expected, "required"):
        return hint("required")
    if untyped - typed:
        return hint("untyped")
    untold = sorted(names_of(expected, "type") - typed)  # the type lines it left out
    pairs = {n: [mine_props[n]["type"], props.get(n, {}).get("type")] for n in untold}
    numbers = [n for n in untold if pairs[n] in (["integer", "number"], ["number", "integer"])]
    if numbers:
        return hint("number_is_not_integer", name=numbers[0])
    listed = [n for n in untold if isinstance(pairs[n][1], list) and pairs[n][0] in pairs[n][1]]
    if listed:
        name, (mine_type, their_type) = listed[0], pairs[listed[0]]
        theirs = json.dumps(their_type)
        return hint("nullable_is_not_type", name=name, mine=mine_type, theirs=theirs)
    if typed != names_of(expected, "type"):
        return hint("type")
    if len(got) != len(set(got)):
        return hint("duplicates")
    return None


def line_keys(case: str, lines: Any, expected: list[str], mine: dict, tool: dict) -> list[str]:
    """The sorted ``kind: name`` of each line, after checking the lines' form."""
    __tracebackhide__ = True
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        fail(case, expected, lines, hint("list_of_str"))
    theirs = tool["function"]["parameters"].get("properties", {})
    keys = []
    for line in lines:
        match = LINE.match(line)
        if not match:
            fail(case, expected, lines, hint("line_format", line=repr(line)))
        kind, name = match.groups()
        if kind == "type" and name in mine["properties"] and name in theirs:
            my_type = mine["properties"][name]["type"]
            their_type = theirs[name].get("type", my_type)
            their_names = their_type if isinstance(their_type, list) else [their_type]
            if my_type not in line or not all(str(t) in line for t in their_names):
                their_text = theirs[name].get("type") or TEXTS.text("untyped")
                example = TEXTS.text("type_example", name=name, mine=my_type, theirs=their_text)
                fail(case, example, line, hint("type_names", example=example))
        keys.append(f"{kind}: {name}")
    return sorted(keys)


def drift_case(learner: Learner, row: tuple[FunctionCase, str, dict, list[str]]) -> Case:
    function, what, tool, expected = row
    func = function.value()
    raised = [
        (raised_with("KeyError", "'type'"), hint("untyped_key")),
        (raised_with("KeyError", "'required'"), hint("no_required_key")),
        *raised_hints(func, hint("must_not_raise")),
    ]
    args = (function.spec(learner), copy.deepcopy(tool))
    return Case(case_of(function, what), args, sorted(expected), raised=raised, extra=func)


NOT_A_LIST = [
    (lambda problem: problem.startswith("at $: a set"), hint("a_set")),
    (lambda problem: True, hint("list_of_str")),
]


def judge(case: Case, got: Any, reply: Reply) -> None:
    """The lines as sorted ``kind: name`` keys (``case.extra``: the function)."""
    __tracebackhide__ = True
    expected, tool, mine = case.expected, case.args[1], expected_parameters_schema(case.extra)
    keys = line_keys(case.label, got, expected, mine, tool)
    if keys != expected:
        expect_equal(case.label, expected, keys, hint=choose_hint(keys, expected, tool, mine))
    if reply.type == "tuple":  # the right lines, in the wrong container
        fail(case.label, expected, Plain(repr(tuple(got))), hint("a_tuple"))


def run(learner: Learner) -> str:
    hidden = hidden_drift()
    cases = [drift_case(learner, row) for row in (*VISIBLE, *hidden)]
    run_cases(learner, "find_drift", cases, partial(returned_json, hints=NOT_A_LIST), judge)
    return TEXTS.text("summary", visible=len(VISIBLE), hidden=len(hidden))


@exercise("02.5", notebook="02_reflection", title="find_drift", points=2, rules=RULES)
def check_find_drift(learner: Learner) -> str:
    return after_earlier(
        learner, "find_drift", (("parameters_schema", "02.2"),), lambda: run(learner)
    )
