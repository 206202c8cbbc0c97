"""Exercise 02.4, ``function_to_tool(func, *, description=None) -> dict``: the whole OpenAI tool.

Functions with docstrings are written as source text and built on both sides; the expected tool
comes from each docstring's known summary and descriptions and 02.2's oracle.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from course_lib.checks.cases import Case
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Hint, HintText, Plain, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.function_cases import FunctionCase, after_earlier, py, run_json_cases
from course_lib.checks.learner import Learner
from course_lib.checks.lesson02.docstring import (
    CHINESE_DOC,
    VISIBLE,
    WEATHER,
    WEATHER_DOC,
    random_docstring,
)
from course_lib.checks.lesson02.parameters_schema import raised_hints, random_basic_function
from course_lib.checks.parameter_schemas import expected_parameters_schema
from course_lib.i18n import translate

NOTES_DOC = """Search the notes for a keyword.

    Args:
        keyword: The word to look for, for example 天气.
        query: The old name of keyword.
    """
# What a case label and an expected value say (labels are made at import for the rules' ``case``
# and again at a failure, in the learner's language).
CASE_TEXTS = {
    "docstring": " with docstring {doc}",
    "no_docstring": ", no docstring",
    "defined_inside": ", defined inside {outer}(),",
    "value_error_naming": "a ValueError naming {name}",
}


def case_of(function: FunctionCase, description: str | None) -> str:
    if isinstance(function, InnerFunctionCase):
        where = translate(CASE_TEXTS, "defined_inside", outer=function.outer)
    else:
        where = f", {function.context}," if function.context else ""
    if function.doc is None:
        doc = translate(CASE_TEXTS, "no_docstring")
    else:
        doc = translate(CASE_TEXTS, "docstring", doc=py(function.doc))
    return f"function_to_tool({function.signature}{where}{doc}, description={description!r})"


# A docstring with entries but no summary: the description it gives is empty.
NO_SUMMARY = FunctionCase("h", ("city: str",), doc="Args:\n        city: The city name.\n    ")
# With neither a docstring nor a description argument; with description="" beside a summary.
UNDOCUMENTED = FunctionCase("f", ("x: int",))
EMPTY_GIVEN = FunctionCase("g", ("city: str",), doc="Get the weather for a city.")


@dataclass(frozen=True)
class InnerFunctionCase(FunctionCase):
    """A function defined inside another one, as a factory or a decorator makes it: its
    ``__qualname__`` (``make_tool.<locals>.lookup``) is not its ``__name__``."""

    outer: str = "make_tool"

    @property
    def setup(self) -> str:
        inner = "".join(f"    {line}" for line in super().setup.splitlines(keepends=True))
        made = f"{self.name} = {self.outer}()"
        return f"def {self.outer}():\n{inner}    return {self.name}\n\n\n{made}\n"


# (function, description argument, summary, descriptions by name)
WEATHER_FUNCTION = FunctionCase(
    "weather", ("city: str", "unit: str = 'c'", "days: int = 1"), returns="str", doc=WEATHER_DOC
)
ADD = FunctionCase("add", ("a: float", "b: float"), returns="float")
NOTES = FunctionCase(
    "search_notes", ("keyword: str", "limit: int = 5", "archived: bool = False"), doc=NOTES_DOC
)
INNER = InnerFunctionCase(
    "lookup",
    ("city: str",),
    returns="str",
    doc="Look up a city.",
    context="defined inside make_tool()",
)
VISIBLE_TOOLS = (
    (WEATHER_FUNCTION, None, *WEATHER),
    (FunctionCase("查询天气", ("城市: str", "天数: int = 3"), returns="str", doc=CHINESE_DOC),
     None, *VISIBLE[2][1:]),
    (NOTES, None, "Search the notes for a keyword.",
     {"keyword": "The word to look for, for example 天气.", "query": "The old name of keyword."}),
    (ADD, "把两个数相加。Add two numbers.", "", {}),
    (INNER, None, "Look up a city.", {}),
)  # fmt: skip

RULES = (
    Rule("wrapper", 'the tool is `{"type": "function", "function": {"name": ..., "description": '
         '..., "parameters": ...}}`', case=case_of(WEATHER_FUNCTION, None), hint="wrapper"),
    Rule("name", "`name` is `func.__name__`", case=case_of(WEATHER_FUNCTION, None), hint="name"),
    Rule("summary", "with `description=None`, the description is the docstring's summary, not "
         "the whole docstring", case=case_of(WEATHER_FUNCTION, None), hint="summary_only"),
    Rule("param_descriptions", "`parameters` is `parameters_schema(func)` with each documented "
         "parameter's description added to its property", case=case_of(WEATHER_FUNCTION, None),
         hint="param_descriptions"),
    Rule("override", "a `description` argument that is given is used instead",
         case=case_of(ADD, VISIBLE_TOOLS[3][1]), hint="use_description"),
    Rule("undocumented", 'a parameter the docstring does not document gets no `"description"` key',
         case=case_of(NOTES, None), hint="undocumented"),
    Rule("unknown_names", "a name the docstring documents but the function does not have is "
         "ignored", case=case_of(NOTES, None), hint="unknown_names"),
    Rule("no_description", "with no docstring and no `description` argument, raise `ValueError` "
         "naming the function: the model will not pick a tool without a description",
         case=case_of(UNDOCUMENTED, None), hint="no_description"),
    Rule("no_summary", "so does a docstring without a summary (one that starts at `Args:`): the "
         "description you end up with is empty", case=case_of(NO_SUMMARY, None), hint="no_summary"),
    Rule("empty_given", '`description=""` raises `ValueError` too, even when the docstring has a '
         'summary: only `None` means "not given"', case=case_of(EMPTY_GIVEN, ""),
         hint="empty_description"),
)  # fmt: skip

TEXTS = Catalog() | {"summary": "{visible} visible and {hidden} hidden cases"}

HINTS = Catalog() | {
    "not_a_dict": "Return the tool as a dict.",
    "wrapper": (
        'Wrap it: {{"type": "function", "function": {{"name": ..., "description": ..., '
        '"parameters": ...}}}}.'
    ),
    "name": "The name is func.__name__, exactly.",
    "qualname": (
        "The name is func.__name__ ({name}); __qualname__ also names the function it is "
        "defined in, with dots and <locals>, which is no name a model can call."
    ),
    "description_inside": (
        'The description sits inside "function", next to "name" and "parameters", not beside it.'
    ),
    "summary_only": "The description is the docstring's summary only, not the whole docstring.",
    "use_description": (
        "A description argument was given ({description}): use it. Raise ValueError only when "
        "the description you end up with is empty."
    ),
    "summary": "Without a description argument, the description is the docstring's summary.",
    "param_descriptions": (
        "Put each documented parameter's description into its property: "
        '"properties": {{"city": {{"type": "string", "description": "..."}}}}.'
    ),
    "undocumented": 'A parameter the docstring does not document gets no "description" key.',
    "unknown_names": (
        "Only the function's parameters are properties: a name documented in the docstring but "
        "missing from the signature is ignored."
    ),
    "parameters": "parameters is parameters_schema(func) (02.2), plus the descriptions.",
    "no_description": (
        "With neither a docstring nor a description argument, raise ValueError naming the "
        "function: a tool without a description is one the model will not choose."
    ),
    "empty_description": (
        'description="" is given (it is not None), and it is empty: raise ValueError naming the '
        "function. Only description=None falls back to the docstring's summary."
    ),
    "no_summary": (
        "This docstring has no summary (it starts with Args:) and no description argument was "
        "given: the description you end up with is empty, so raise ValueError naming the "
        "function, as when there is no docstring at all."
    ),
    "extra_keys": (
        'The tool holds exactly "type" and "function", and "function" exactly "name", '
        '"description" and "parameters": leave any other key out (lesson 06 adds "strict").'
    ),
    "value_error_name": "Name the function in the message: it does not mention {name}.",
    "must_not_raise": (
        "This function has a summary or a description argument, and only basic types: "
        "function_to_tool must return its tool, not raise."
    ),
}


hint = HINTS.hint


def expected_tool(func: Any, description: str | None, summary: str, descriptions: dict) -> dict:
    """The oracle: 02.2's parameters with the documented descriptions, and the description."""
    parameters = expected_parameters_schema(func)
    for name, schema in parameters["properties"].items():
        if name in descriptions:
            schema["description"] = descriptions[name]
    description = summary if description is None else description
    function = {"name": func.__name__, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}


def hidden_tools(count: int = 20) -> list[tuple[FunctionCase, str | None, str, dict]]:
    rng = hidden_rng("02.4")
    cases = []
    for index in range(count):
        function = random_basic_function(rng, index, future=index % 4 == 3)
        names = [part.split(":")[0] for part in function.parts if part != "*"]
        documented = [name for name in names if rng.random() < 0.7]
        if rng.random() < 0.3:
            documented.append("not_a_parameter")
        doc, summary, descriptions = random_docstring(rng, documented)
        description = rng.choice([None, None, "Use this tool for 天气 questions."])
        function = replace(function, doc=doc)
        cases.append((function, description, summary, descriptions))
    return cases


def hints(expected: dict, description: str | None) -> list[Hint]:
    """Likely mistakes in a tool, most specific first (on the returned JSON)."""
    function = expected["function"]
    props = function["parameters"]["properties"]

    def got_props(g: dict) -> dict:
        return g["function"]["parameters"]["properties"]

    return [
        (lambda g: not isinstance(g, dict), hint("not_a_dict")),
        (lambda g: g.get("type") != "function" or not isinstance(g.get("function"), dict),
         hint("wrapper")),
        (lambda g: "<locals>" in str(g["function"].get("name")),
         hint("qualname", name=repr(function["name"]))),
        (lambda g: g["function"].get("name") != function["name"], hint("name")),
        (lambda g: "description" in g and "description" not in g["function"],
         hint("description_inside")),
        (lambda g: set(g) - {"type", "function"}
         or set(g["function"]) - {"name", "description", "parameters"}, hint("extra_keys")),
        (lambda g: g["function"].get("description") != function["description"]
         and "Args:" in str(g["function"].get("description")), hint("summary_only")),
        (lambda g: g["function"].get("description") != function["description"]
         and description is not None,
         hint("use_description", description=repr(description))),
        (lambda g: g["function"].get("description") != function["description"], hint("summary")),
        (lambda g: set(got_props(g)) - set(props), hint("unknown_names")),
        (lambda g: any("description" in s and "description" not in got_props(g).get(n, {})
                       for n, s in props.items()), hint("param_descriptions")),
        (lambda g: any("description" not in s and "description" in got_props(g).get(n, {})
                       for n, s in props.items()), hint("undocumented")),
        (lambda g: True, hint("parameters")),
    ]  # fmt: skip


def tool_case(
    learner: Learner,
    function: FunctionCase,
    description: str | None,
    summary: str,
    descriptions: dict,
) -> Case:
    func = function.value()
    expected = expected_tool(func, description, summary, descriptions)
    props = expected["function"]["parameters"]["properties"]
    unknown = {repr(name) for name in descriptions if name not in props}
    raised = [
        (lambda r: r.raised_a("ValueError") and bool(description),
         hint("use_description", description=repr(description))),
        (lambda r: r.raised_a("KeyError") and r.message in unknown, hint("unknown_names")),
        *raised_hints(func, hint("must_not_raise")),
    ]  # fmt: skip
    label, args = case_of(function, description), (function.spec(learner),)
    kwargs = {"description": description}
    return Case(label, args, expected, hints(expected, description), raised, kwargs=kwargs)


def expect_value_error(
    learner: Learner, function: FunctionCase, description: str | None, no_raise: HintText
) -> None:
    __tracebackhide__ = True
    case = case_of(function, description)
    name = function.name
    wanted = Plain(translate(CASE_TEXTS, "value_error_naming", name=name))
    reply = learner.attempt("function_to_tool", function.spec(learner), description=description)
    if reply.raised_a("ValueError"):
        if name not in reply.message:
            fail(case, wanted, Plain(reply.raised_text), hint("value_error_name", name=name))
        return
    got = Plain(reply.raised_text) if reply.raised else reply.value
    fail(case, wanted, got, no_raise)


def run(learner: Learner) -> str:
    run_json_cases(learner, "function_to_tool", [tool_case(learner, *r) for r in VISIBLE_TOOLS])
    expect_value_error(learner, UNDOCUMENTED, None, hint("no_description"))
    expect_value_error(learner, NO_SUMMARY, None, hint("no_summary"))
    expect_value_error(learner, EMPTY_GIVEN, "", hint("empty_description"))
    hidden = hidden_tools()
    run_json_cases(learner, "function_to_tool", [tool_case(learner, *r) for r in hidden])
    return TEXTS.text("summary", visible=len(VISIBLE_TOOLS) + 3, hidden=len(hidden))


EARLIER = (("parameters_schema", "02.2"), ("parse_google_docstring", "02.3"))


@exercise("02.4", notebook="02_reflection", title="function_to_tool", points=2, rules=RULES)
def check_function_to_tool(learner: Learner) -> str:
    return after_earlier(learner, "function_to_tool", EARLIER, lambda: run(learner))
