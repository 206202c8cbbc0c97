"""Exercise 02.2, ``parameters_schema(func) -> dict``: the JSON Schema object of the parameters.

The functions are written as source text and built on both sides (``function_cases.FunctionCase``):
beside the learner's code for the call, here for the oracle. Some keep their annotations as text
(quoted, or under ``from __future__ import annotations``), which only ``get_type_hints`` reads.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``
(02.2's contract, which 02.4, 02.5 and 03.6 reuse, is ``parameter_schemas``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from course_lib.checks import parameter_schemas as schemas
from course_lib.checks.cases import Case
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Hint, HintText, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.function_cases import (
    FunctionCase,
    after_earlier,
    expect_schema,
    run_json_cases,
    string_annotations,
)
from course_lib.checks.learner import Learner, Reply, raised_with
from course_lib.checks.parameter_schemas import (
    basic_default,
    expected_parameters_schema,
    parameters_hints,
    random_parts,
)

WEATHER = "parameters_schema(def get_weather(city: str, unit: str = 'c', days: int = 1) -> str)"

RULES = (
    Rule("object", '`"type"` is `"object"`', case=WEATHER, hint="object"),
    Rule("properties", "`\"properties\"` maps each parameter's name to `json_type` of its type "
         "(your 02.1)", case=WEATHER, hint="properties_dict"),
    Rule("properties_order", "the properties come in signature order (JSON does not care; people "
         "reading the schema do)", case=WEATHER, hint="properties_order"),
    Rule("no_return", "the return annotation is not a parameter", case=WEATHER, hint="no_return"),
    Rule("defaults", 'a parameter with a default gets `"default": <its value>` in its property',
         case=WEATHER, hint="defaults"),
    Rule("required", '`"required"` lists exactly the parameters without a default', case=WEATHER,
         hint="default_is_optional"),
    Rule("none_default", "`None` is a default like any other: `tag: str = None` is optional and "
         'gets `"default": None`', case="parameters_schema(def search_notes(keyword: str, tag: "
         "str = None, limit: int = 5) -> list)", hint="none_default"),
    Rule("closed", '`"additionalProperties"` is `false`', case=WEATHER, hint="closed"),
    Rule("hints", "the types come from `typing.get_type_hints(func)`, the names and defaults "
         "from `inspect.signature(func)`: some of the check's functions store their annotations "
         'as text (`city: "str"`, or a module that starts with `from __future__ import '
         "annotations`), some through an alias (`City = str`)",
         case="parameters_schema(def get_population(city: 'str', year: int = 2024) -> int)",
         hint="string_annotation"),
    Rule("keyword_only", "keyword-only parameters (after the `*`) are parameters too",
         case="parameters_schema(def 查询天气(城市: str, 天数: int = 3, *, 详细: bool = False) "
         "-> str)", hint="every_parameter"),
    Rule("required_empty", "and is there even when it is empty (`[]`)",
         case="parameters_schema(def no_parameters() -> str)", hint="required_always"),
    Rule("required_order", "in signature order", case="parameters_schema(def set_alarm(hour: "
         "int, minute: int, *, label: str, loud: bool = True, volume: float = 0.8))",
         hint="required_order"),
)  # fmt: skip

TEXTS = Catalog() | {"summary": "{visible} visible and {hidden} hidden functions"}

HINTS = Catalog(also=(schemas.HINTS,)) | {
    "property": "Compare each property with json_type of the parameter's type (02.1's table).",
    "string_annotation": (
        "Your code met an annotation that is still text (such as 'str'), not a type: this "
        "function's annotations are stored as strings (quoted, or in a module that starts with "
        "`from __future__ import annotations`). Read the types with typing.get_type_hints(func), "
        "not from __annotations__ or parameter.annotation."
    ),
    "must_not_raise": (
        "Every parameter of this function is positional-or-keyword or keyword-only, with one of "
        "the basic types: parameters_schema must return its schema, not raise."
    ),
}


hint = HINTS.hint


# --- cases ---------------------------------------------------------------------------------

VISIBLE = (
    FunctionCase("get_weather", ("city: str", "unit: str = 'c'", "days: int = 1"), returns="str"),
    FunctionCase("get_population", ("city: 'str'", "year: int = 2024"), returns="int"),
    FunctionCase(
        "查询天气", ("城市: str", "天数: int = 3", "*", "详细: bool = False"), returns="str"
    ),
    FunctionCase("no_parameters", (), returns="str"),
    FunctionCase(
        "search_notes", ("keyword: str", "tag: str = None", "limit: int = 5"), returns="list"
    ),
    FunctionCase(
        "set_alarm",
        ("hour: int", "minute: int", "*", "label: str", "loud: bool = True", "volume: float = 0.8"),
    ),
    # Aliases under the future import: text that names no basic type, so only get_type_hints
    # turns it into str and int.
    FunctionCase(
        "find_hotel",
        ("city: City", "nights: Nights = 1"),
        returns="str",
        future=True,
        before="City = str\nNights = int\n\n\n",
        context="where City = str and Nights = int",
    ),
)


def random_basic_function(rng: random.Random, index: int, future: bool = False) -> FunctionCase:
    """A function whose parameters use only the basic types (list and dict without defaults)."""
    parts = random_parts(
        rng, lambda r: r.choice(["str", "int", "float", "bool", "list", "dict"]), basic_default
    )
    return FunctionCase(f"tool_{index}", parts, returns=rng.choice([None, "str"]), future=future)


# --- hints ---------------------------------------------------------------------------------


def raised_hints(
    func: Callable[..., Any], must_not_raise: HintText | None = None
) -> list[tuple[Callable[[Any], bool], HintText]]:
    """The hint for an exception: annotations read as stored, where they are text; else
    ``must_not_raise`` (02.4 and 02.5 say it their way), else 02.2's."""
    texts = string_annotations(func)
    return [
        (lambda r: any(text in r.message for text in texts), hint("string_annotation")),
        (raised_with("KeyError", "'return'"), hint("no_return")),
        (lambda r: True, must_not_raise or hint("must_not_raise")),
    ]


def function_case(learner: Learner, function: FunctionCase) -> Case:
    """``parameters_schema`` on ``function``, its schema the oracle's."""
    func = function.value()
    expected = expected_parameters_schema(func)
    hints = [*parameters_hints(expected, func), guessed_for_text(expected, func)]
    label = f"parameters_schema({function.label})"
    return Case(label, (function.spec(learner),), expected, hints, raised_hints(func))


def judge(case: Case, got: Any, reply: Reply) -> None:
    __tracebackhide__ = True
    expect_schema(case.label, case.expected, got, case.hints, hint("property"))


def guessed_for_text(expected: dict, func: Callable[..., Any]) -> Hint:
    """A function whose annotations are text, and every property of the wrong type came out as
    "string": the text was taken for the type (or a type was guessed), not read through
    ``get_type_hints``."""
    props = expected["properties"]

    def guessed(got: dict) -> bool:
        wrong = [n for n in props if got["properties"][n].get("type") != props[n].get("type")]
        return bool(wrong) and all(got["properties"][n].get("type") == "string" for n in wrong)

    return (lambda g: bool(string_annotations(func)) and guessed(g), hint("string_annotation"))


def run(learner: Learner) -> str:
    rng = hidden_rng("02.2")
    hidden = [random_basic_function(rng, index, future=index % 3 == 2) for index in range(30)]
    cases = [function_case(learner, function) for function in (*VISIBLE, *hidden)]
    run_json_cases(learner, "parameters_schema", cases, judge)
    return TEXTS.text("summary", visible=len(VISIBLE), hidden=len(hidden))


EARLIER = (("json_type", "02.1"),)


@exercise(
    "02.2", notebook="02_reflection", title="parameters_schema", points=2, rules=RULES, hints=HINTS
)
def check_parameters_schema(learner: Learner) -> str:
    return after_earlier(learner, "parameters_schema", EARLIER, lambda: run(learner))
