"""Exercise 03.6, ``parameters_schema(func) -> dict``, second version: right where 02.2 was naive.

Each function is checked twice: written in an ordinary module, then in one that starts with
``from __future__ import annotations`` (where every annotation is a string). Then functions no
schema can describe (``*args``, ``**kwargs``, no annotation) must raise, naming what is wrong.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

import enum
import inspect
import random
from typing import Any

from course_lib.checks.cases import Case, run_cases
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.function_cases import (
    FunctionCase,
    Refusal,
    after_earlier,
    expect_refusals,
    expect_schema,
    parameter_text,
    returned_json,
    string_annotations,
)
from course_lib.checks.learner import Learner, Reply
from course_lib.checks.lesson03._annotation_cases import function_with_classes as function
from course_lib.checks.lesson03._annotation_cases import spoken_label
from course_lib.checks.lesson03.json_type import evaluate, expected_schema, random_annotation
from course_lib.checks.lesson03.schema_hints import schema_hint
from course_lib.checks.parameter_schemas import (
    NAMES,
    basic_default,
    expected_parameters_schema,
    parameters_hints,
    random_parts,
)

FIND_HOTELS = (
    "find_hotels",
    ("city: str", "max_price: int | None", "stars: int = 3", "早餐: bool = False"),
)
SET_UNITS = ("set_units", ("unit: Unit = Unit.CELSIUS", "*", "priority: Priority = Priority.HIGH"))
PLAN_ROUTE = (
    "plan_route",
    (
        "stops: list[tuple[float, float]]",
        "avoid: set[str] | None = None",
        "*",
        "城市: City = City.BEIJING",
        "options: dict[str, bool | int] | None = None",
    ),
)
BOOK_ROOM = (  # required not sorted by name; a tuple default is a JSON array
    "book_room",
    ("rooms: int", "city: str", "nights: int = 1", "dates: tuple[str, str] = ('5-1', '5-3')"),
)
VISIBLE = (FIND_HOTELS, SET_UNITS, PLAN_ROUTE, BOOK_ROOM)
# (function, the parameter the TypeError must name, the hint key when nothing is raised)
TOTAL_PRICE = function("total_price", ("*prices: float", "currency: str = 'CNY'"))
SEARCH = function("search", ("query: str", "**filters: str"))
GREET = function("greet", ("name", "polite: bool = True"))
TOP = function("top", ("limit=3",))
REFUSED = (
    (TOTAL_PRICE, "prices", "loud"),
    (SEARCH, "filters", "loud"),
    (GREET, "name", "loud"),
    (TOP, "limit", "guess"),
    (function("订票", ("*城市们: str",)), "城市们", "loud"),
)


def case_of(case: FunctionCase) -> str:
    return f"parameters_schema({spoken_label(case)})"


RULES = (
    Rule("types", "each property is `json_type` of the type `resolve_annotations` gives, so string "
         "annotations work", case=case_of(function(*FIND_HOTELS, future=True)), hint="future"),
    Rule("shape", "the shape is 02.2's, `\"additionalProperties\": false` and an always present "
         '`"required"` included', case=case_of(function(*FIND_HOTELS)), hint="closed"),
    Rule("nullable_required", '**required means "has no default"**: `max_price: int | None` '
         "without a default is required (and nullable)", case=case_of(function(*FIND_HOTELS)),
         hint="nullable_required"),
    Rule("default_optional", "a parameter with a default is not required, whatever its type",
         case=case_of(function(*FIND_HOTELS)), hint="default_is_optional"),
    Rule("required_order", "`required` lists names in signature order",
         case=case_of(function(*BOOK_ROOM)), hint="required_order"),
    Rule("enum_default", "a default is its JSON value, an `Enum` member its `.value` "
         '(`Unit.CELSIUS` gives `"c"`)', case=case_of(function(*SET_UNITS)), hint="enum_default"),
    Rule("varargs", "a `*args` parameter raises `TypeError`", case=case_of(TOTAL_PRICE),
         hint="loud"),
    Rule("names_both", "with a message that names the function and the parameter (`total_price` "
         "and `prices`)", case=case_of(TOTAL_PRICE), hint="type_error_names"),
    Rule("kwargs", "so does a `**kwargs` parameter", case=case_of(SEARCH), hint="loud"),
    Rule("unannotated", "so does a parameter without an annotation", case=case_of(GREET),
         hint="loud"),
    Rule("no_guess", "even one with a default: `limit=3` could mean `int`, `float` or `int | "
         "None`, so never guess", case=case_of(TOP), hint="guess"),
)  # fmt: skip

TEXTS = Catalog() | {
    "summary": "{visible} visible and {hidden} hidden functions, {refused} refused",
    "title": "parameters_schema, second version",
}

HINTS = Catalog() | {
    "future": (
        "This function's module uses `from __future__ import annotations`, so every annotation "
        "is a string ('int', 'list[str]', ...). Take the types from resolve_annotations(func) "
        "(03.5), which asks typing.get_type_hints, not from parameter.annotation."
    ),
    "enum_default": (
        "A default that is an Enum member is not JSON: show the model its value (Unit.CELSIUS "
        'becomes "c"), which is also what the model sends back.'
    ),
    "enum_name_default": (
        'Show an Enum default by its value, not its name: Unit.CELSIUS becomes "c" (its .value), '
        'not "CELSIUS" (its .name), because the model sends values.'
    ),
    "loud": (
        "Never drop or guess a parameter: raise TypeError for *args, **kwargs and parameters "
        "without an annotation, naming the function and the parameter."
    ),
    "guess": (
        "This parameter has a default but no annotation: do not guess its type from the default "
        "(3 could stand for int, float or int | None). Raise TypeError naming the function and "
        "the parameter."
    ),
    "property": "Compare each property with json_type of the parameter's type (03.4).",
    "must_not_raise": (
        "Only *args, **kwargs, unannotated parameters and types json_type cannot map may raise; "
        "this function has none of them, so return its schema."
    ),
}


hint = HINTS.hint


# --- hidden functions ----------------------------------------------------------------------


def _default_for(rng: random.Random, source: str) -> str | None:
    """A default that fits the annotation, as source text (``None`` when there is none)."""
    value = evaluate(source)
    if type(None) in getattr(value, "__args__", ()):
        return "None"
    if isinstance(value, type) and issubclass(value, enum.Enum):
        return f"{value.__name__}.{rng.choice(list(value)).name}"
    if getattr(value, "__origin__", None) is not None and source.startswith("Literal"):
        return repr(rng.choice(value.__args__))
    return basic_default(rng, source)


def hidden_functions(count: int = 24) -> list[tuple[str, tuple[str, ...]]]:
    rng = hidden_rng("03.6")
    return [
        (f"tool_{index}", random_parts(rng, random_annotation, _default_for))
        for index in range(count)
    ]


def random_bad(rng: random.Random, index: int) -> tuple[FunctionCase, str, str]:
    """A random valid signature with one parameter a schema cannot represent."""
    text, where, name, key = rng.choice(
        [("*prices: float", "varargs", "prices", "loud"), ("*args", "varargs", "args", "loud"),
         ("**options: str", "end", "options", "loud"), ("**kwargs", "end", "kwargs", "loud"),
         ("地点", "start", "地点", "loud"), ("城市='北京'", "end", "城市", "guess")]
    )  # fmt: skip
    names = [n for n in rng.sample(NAMES, 3) if n not in (name, "unit")]
    parts = [parameter_text(n, rng.choice(["str", "int", "bool"])) for n in names]
    if where == "start":
        parts.insert(0, text)
    elif where == "varargs":
        parts.insert(rng.randint(0, len(parts)), text)
        parts.append("unit: str = 'c'")
    else:
        parts.append(text)
    return function(f"bad_tool_{index}", tuple(parts), future=index % 2 == 1), name, key


# --- checking ------------------------------------------------------------------------------


def function_case(learner: Learner, case: FunctionCase, override: HintText | None) -> Case:
    """``parameters_schema`` on ``case``; ``override`` the hint whatever goes wrong, ``extra``
    the parameters whose default is an Enum member."""
    func = case.value()
    texts = string_annotations(func)
    raised = [
        (lambda r: case.future and any(text in r.message for text in texts), hint("future")),
        (lambda r: True, hint("must_not_raise")),
    ]
    want = expected_parameters_schema(func, expected_schema)
    enum_name = (lambda g: _enum_name_default(g, func), hint("enum_name_default"))
    hints = [] if override else [enum_name, *parameters_hints(want, func)]
    parameters = inspect.signature(func).parameters.items()
    enums = [name for name, p in parameters if isinstance(p.default, enum.Enum)]
    return Case(case_of(case), (case.spec(learner),), want, hints, raised, override, extra=enums)


def judge(case: Case, got: Any, reply: Reply) -> None:
    __tracebackhide__ = True
    enums = [f"$.properties.{name}.default" for name in case.extra]
    in_default = (lambda where: any(enum in where for enum in enums), hint("enum_default"))
    got = returned_json(case.label, reply, case.expected, hints=[in_default])
    default = case.hint or _property_hint(case.expected, got) or hint("property")
    expect_schema(case.label, case.expected, got, case.hints, default)


def _enum_name_default(got: Any, func: Any) -> bool:
    """Whether ``got`` shows an Enum default by its member's name instead of its value."""
    properties = got.get("properties") if isinstance(got, dict) else None
    if not isinstance(properties, dict):
        return False
    return any(
        isinstance(p.default, enum.Enum)
        and p.default.name != p.default.value
        and isinstance(properties.get(name), dict)
        and properties[name].get("default") == p.default.name
        for name, p in inspect.signature(func).parameters.items()
    )


def _property_hint(want: dict, got: Any) -> HintText | None:
    if not isinstance(got, dict) or not isinstance(got.get("properties"), dict):
        return None
    for name, prop in want["properties"].items():
        found = schema_hint(prop, got["properties"].get(name))
        if found:
            return found
    return None


def run(learner: Learner) -> str:
    rng = hidden_rng("03.6 refused")
    hidden = hidden_functions()
    # Each signature also under the future import: a failure there is the strings.
    cases = [
        function_case(learner, function(name, parts, future), hint("future") if future else None)
        for name, parts in (*VISIBLE, *hidden)
        for future in (False, True)
    ]
    run_cases(learner, "parameters_schema", cases, judge=judge)
    refused = [
        Refusal(case_of(case), (case.spec(learner),), [case.name, parameter], hint(key))
        for case, parameter, key in (*REFUSED, *(random_bad(rng, index) for index in range(12)))
    ]
    count = expect_refusals(learner, "parameters_schema", refused)
    return TEXTS.text("summary", visible=2 * len(VISIBLE), hidden=2 * len(hidden), refused=count)


EARLIER = (("resolve_annotations", "03.5"), ("json_type", "03.4"))


@exercise("03.6", notebook="03_pitfalls", title=HintText.of(TEXTS, "title"), points=2,
          targets=("parameters_schema",), rules=RULES)  # fmt: skip
def check_parameters_schema(learner: Learner) -> str:
    return after_earlier(learner, "parameters_schema", EARLIER, lambda: run(learner))
