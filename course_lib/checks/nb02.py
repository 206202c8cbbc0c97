"""Checks for notebook 02_reflection: tool schemas derived from functions by reflection.

The oracles here state each exercise's contract in code (the notebook states it in prose). Hidden
cases are generated from ``hidden_rng``: random signatures (names in English and Chinese, basic
types, defaults, keyword-only parameters) built with ``exec``, random Google-style docstrings with
known answers, and random drift between a function and its tool.

``schema_hint`` and ``parameters_hint`` name the likely mistake behind a wrong schema; notebook 03's
checks reuse them.
"""

from __future__ import annotations

import inspect
import json
import random
import re
import typing
from collections.abc import Callable, Iterable
from typing import Any

from course_lib.checks.core import (
    CheckFailed,
    Hint,
    NotDoneYet,
    as_json,
    call_learner,
    expect_json_equal,
    fail,
    hidden_rng,
    learner_raised,
    matching_hint,
    outcome,
)


def exercise(*args: Any, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers nothing: lesson 02's checks now live in ``lesson02/``; ``nb03`` still imports
    this module's helpers until lesson 03 moves too."""
    return lambda run: run


NOTEBOOK = "02_reflection"
EMPTY = inspect.Parameter.empty
BASIC_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
    type(None): "null",
}

# --- hints shared with notebook 03 -------------------------------------------------------------

BOOL_HINT = (
    "bool came out as integer. bool is a subclass of int, so an issubclass() walk (or a check "
    "for int that comes first) catches it: test bool before int, or compare with `is`."
)
OPTIONAL_AS_STRING_HINT = (
    "An `X | None` became a plain string: your code did not recognise the union and fell back "
    "to string. `int | None` is a types.UnionType and `Optional[int]` a typing.Union; "
    "typing.get_origin() tells you which, typing.get_args() gives the members."
)
OPTIONAL_COLLAPSED_HINT = (
    "The null branch was dropped: `X | None` and `Optional[X]` become "
    '{"anyOf": [<schema of X>, {"type": "null"}]}, one branch per member, so the model may send '
    "null."
)
UNION_COLLAPSED_HINT = (
    "The union collapsed to one member: `Union[A, B]` becomes "
    '{"anyOf": [<schema of A>, <schema of B>]}, every member kept, in typing.get_args() order.'
)
ENUM_HINT = (
    'Literal and Enum become {"type": <type of the values>, "enum": [values]}: without "enum" the '
    "model may send any value. An IntEnum or StrEnum is also an int or a str: check for Enum first."
)
ITEMS_HINT = (
    'A container needs to say what it holds: list[T] becomes {"type": "array", "items": '
    "<schema of T>}."
)
TUPLE_HINT = (
    "A fixed-length tuple[A, B] lists one schema per position: "
    '{"type": "array", "prefixItems": [A, B], "minItems": 2, "maxItems": 2}; only tuple[T, ...] '
    'uses "items".'
)
SET_HINT = 'A set or frozenset is an array whose items are unique: add "uniqueItems": true.'
DICT_HINT = (
    'dict[str, V] becomes {"type": "object", "additionalProperties": <schema of V>}: the values '
    "need a schema too."
)
STRING_FALLBACK_HINT = (
    'This came out as {"type": "string"}: a fallback guessed it. Raise TypeError for what you '
    "cannot map, and resolve string annotations with typing.get_type_hints()."
)
ORDER_HINT = "Keep the members in the order typing.get_args() gives them."
STRING_ANNOTATION_HINT = (
    "Your code met an annotation that is still a string (such as 'str'), not a type: the "
    "functions of this check come from a module that starts with `from __future__ import "
    "annotations`, where every annotation is stored as text. Read the types with "
    "typing.get_type_hints(func), not from __annotations__ or parameter.annotation."
)


# --- showing cases and calling learner code ----------------------------------------------------


class Plain:
    """A value shown as its bare text in Expected/Got (``show`` would quote a string as JSON)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def py(value: Any, limit: int = 300) -> str:
    """An input as Python spells it (``None``, ``True``, ``'text'``), for a case label."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


ExceptionHint = tuple[Callable[[BaseException], bool], str]


def call_with_hints(
    fn: Any, *args: Any, case: str, hints: Iterable[ExceptionHint] = (), **kwargs: Any
) -> Any:
    """``call_learner``, except that an exception one of ``hints`` recognises gets that hint
    instead of the generic "run this case yourself"."""
    __tracebackhide__ = True
    if not callable(fn):
        return call_learner(fn, *args, case=case, **kwargs)
    try:
        return fn(*args, **kwargs)
    except (NotImplementedError, CheckFailed):
        raise
    except Exception as exc:
        hint = matching_hint(exc, hints)
        if hint is None:
            raise learner_raised(case, exc) from None
        raise CheckFailed(
            f"Case: {case}\nYour code raised {type(exc).__name__}: {exc}\nHint: {hint}"
        ) from None


def string_annotation_hints(func: Callable[..., Any]) -> list[ExceptionHint]:
    """The hint for code that read ``func``'s annotations as stored, where they are strings."""
    texts = [
        p.annotation
        for p in inspect.signature(func).parameters.values()
        if isinstance(p.annotation, str)
    ]

    def mentions_one(exc: BaseException) -> bool:
        message = str(exc)
        return isinstance(exc, TypeError | KeyError | ValueError | AttributeError) and any(
            re.search(rf"\b{re.escape(text)}\b", message) for text in texts
        )

    return [(mentions_one, STRING_ANNOTATION_HINT)] if texts else []


# Functions of earlier exercises that a later one may call, with their exercise ids.
EARLIER = (
    ("json_type", "02.1"),
    ("parameters_schema", "02.2"),
    ("parse_google_docstring", "02.3"),
    ("function_to_tool", "02.4"),
)


def _global_names(code: Any) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _global_names(const)
    return names


def earlier_failure(fn: Any, exercise_id: str) -> str | None:
    """The note for a failure of ``fn`` (exercise ``exercise_id``) when ``fn`` calls the learner's
    function of an earlier exercise whose check does not pass: fix that one first."""
    code, namespace = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
    if code is None or not isinstance(namespace, dict):
        return None
    called = _global_names(code)
    for name, earlier in EARLIER:
        target = namespace.get(name)
        if earlier < exercise_id and name in called and callable(target):
            if isinstance(outcome(earlier, target), Exception):
                return (
                    f"{fn.__name__} calls your {name}, which does not pass its own check "
                    f"(exercise {earlier}) yet: fix {earlier} first, then run this check again."
                )
    return None


def run_after_earlier(exercise_id: str, fn: Any, run: Callable[[], str]) -> str:
    """``run()``; if it fails and an earlier exercise ``fn`` uses fails too, the hint says so."""
    __tracebackhide__ = True
    try:
        return run()
    except NotDoneYet:
        raise
    except CheckFailed as exc:
        note = earlier_failure(fn, exercise_id)
        if note is None:
            raise
        message = str(exc)
        head, found, hint = message.rpartition("\nHint: ")
        message = f"{head}\nHint: {note} {hint}" if found else f"{message}\nHint: {note}"
        raise CheckFailed(message) from None


def _is_null(schema: Any) -> bool:
    return schema == {"type": "null"}


def _schema_rules(expected: Any, got: Any) -> list[Hint]:
    """(predicate on got, hint) pairs for one schema where expected and got differ."""
    e = expected if isinstance(expected, dict) else {}
    branches = e.get("anyOf", [])
    members = [b for b in branches if not _is_null(b)]
    return [
        (lambda g: e == {"type": "boolean"} and g.get("type") == "integer", BOOL_HINT),
        (
            lambda g: "enum" in e and "enum" not in g and e.get("type") == "integer",
            ENUM_HINT,
        ),
        (lambda g: "enum" in e and "enum" not in g, ENUM_HINT),
        (
            lambda g: len(branches) > len(members) and g == {"type": "string"},
            OPTIONAL_AS_STRING_HINT,
        ),
        (
            lambda g: len(branches) > len(members) and "anyOf" not in g,
            OPTIONAL_COLLAPSED_HINT,
        ),
        (
            lambda g: branches and "anyOf" not in g and g in members,
            UNION_COLLAPSED_HINT,
        ),
        (
            lambda g: (
                branches
                and len(g["anyOf"]) == len(branches)
                and all(b in branches for b in g["anyOf"])
            ),
            ORDER_HINT,
        ),
        (lambda g: "prefixItems" in e and "prefixItems" not in g, TUPLE_HINT),
        (lambda g: e.get("uniqueItems") and not g.get("uniqueItems"), SET_HINT),
        (lambda g: "items" in e and "items" not in g, ITEMS_HINT),
        (
            lambda g: "additionalProperties" in e and "additionalProperties" not in g,
            DICT_HINT,
        ),
        (lambda g: g == {"type": "string"} and e != {"type": "string"}, STRING_FALLBACK_HINT),
    ]


def schema_hint(expected: Any, got: Any) -> str | None:
    """The likely mistake behind ``got`` where ``expected`` was due, looking into nested schemas;
    ``None`` when no known mistake fits."""
    if expected == got or not isinstance(got, dict) or not isinstance(expected, dict):
        return None
    hint = matching_hint(got, _schema_rules(expected, got))
    if hint is not None:
        return hint
    for key, value in expected.items():
        other = got.get(key)
        if isinstance(value, dict):
            children = [(value, other)]
        elif isinstance(value, list) and isinstance(other, list) and len(value) == len(other):
            children = list(zip(value, other, strict=True))
        else:
            continue
        if key == "properties" and isinstance(other, dict):
            children = [(value[name], other.get(name)) for name in value]
        for child_expected, child_got in children:
            found = schema_hint(child_expected, child_got)
            if found:
                return found
    return None


def parameters_hints(expected: dict, func: Callable[..., Any]) -> list[Hint]:
    """Likely mistakes in a parameters schema for ``func``, most specific first."""
    signature = inspect.signature(func)
    with_default = {n for n, p in signature.parameters.items() if p.default is not EMPTY}
    props = expected["properties"]
    required = expected["required"]
    nullable = {n for n, s in props.items() if {"type": "null"} in s.get("anyOf", [])}
    return [
        (lambda g: not isinstance(g, dict), "Return a dict: the JSON Schema object."),
        (
            lambda g: not isinstance(g.get("properties"), dict),
            "properties must be an object mapping each parameter name to its schema, e.g. "
            '{"city": {"type": "string"}}, not a list.',
        ),
        (
            lambda g: "return" in g["properties"] and "return" not in props,
            "'return' is not a parameter: get_type_hints() includes the return annotation; walk "
            "inspect.signature(func).parameters for the names.",
        ),
        (lambda g: g.get("type") != "object", 'The parameters schema has "type": "object".'),
        (
            lambda g: g.get("additionalProperties") is not False,
            'Add "additionalProperties": false so the model cannot invent arguments.',
        ),
        (
            lambda g: "required" not in g,
            'Always include "required" (a list of names; [] when every parameter has a default).',
        ),
        (
            lambda g: (set(required) - set(g["required"])) & nullable,
            "Nullable is not optional: an `X | None` parameter without a default is still "
            "required (the model must send it, possibly as null). Required depends on the "
            "default only.",
        ),
        (
            lambda g: set(g["required"]) & with_default,
            "A parameter with a default is optional: list in required only the parameters "
            "without a default.",
        ),
        (
            lambda g: set(required) - set(g["required"]),
            "Every parameter without a default belongs in required.",
        ),
        (
            lambda g: g["required"] != required and sorted(g["required"]) == sorted(required),
            "List required in signature order.",
        ),
        (
            lambda g: any(
                "default" in props[n] and "default" not in g["properties"].get(n, {}) for n in props
            ),
            'Show each default to the model: add "default": <value> to the property of every '
            "parameter that has one.",
        ),
        (
            lambda g: any(
                "default" not in props[n] and "default" in g["properties"].get(n, {}) for n in props
            ),
            'Only parameters with a default get a "default" key.',
        ),
        (
            lambda g: any(
                json.dumps(props[n].get("default")) != json.dumps(g["properties"][n].get("default"))
                for n in props
            ),
            "A default must be the parameter's default as a JSON value.",
        ),
        (
            lambda g: set(g["properties"]) != set(props),
            "properties needs exactly one entry per parameter of the signature.",
        ),
        (
            lambda g: list(g["properties"]) != list(props),
            "List properties in signature order.",
        ),
    ]


def parameters_hint(expected: dict, got: Any, func: Callable[..., Any]) -> str:
    """The hint for a wrong parameters schema: structure first, then the first wrong property."""
    hint = matching_hint(got, parameters_hints(expected, func))
    if hint is not None:
        return hint
    for name, prop in expected["properties"].items():
        found = schema_hint(prop, got["properties"].get(name))
        if found:
            return found
    return "Compare each property with the table of types in the notebook."


# --- oracles -----------------------------------------------------------------------------------


def expected_json_type(annotation: Any) -> dict:
    """Exercise 02.1's contract."""
    if annotation is None:
        annotation = type(None)
    for python_type, json_name in BASIC_TYPES.items():
        if annotation is python_type:
            return {"type": json_name}
    raise TypeError(f"no basic JSON type for {annotation!r}")


def expected_parameters_schema(func: Callable[..., Any], type_schema=expected_json_type) -> dict:
    """Exercise 02.2's contract (03.2's too, with its richer ``type_schema``)."""
    hints = typing.get_type_hints(func)
    properties: dict[str, dict] = {}
    required: list[str] = []
    for name, parameter in inspect.signature(func).parameters.items():
        schema = type_schema(hints[name])
        if parameter.default is EMPTY:
            required.append(name)
        else:
            default = parameter.default
            schema["default"] = getattr(default, "value", default)  # Enum members: their value
        properties[name] = schema
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


# --- generated functions -----------------------------------------------------------------------

NAMES = (
    "city", "days", "unit", "limit", "query", "verbose", "tags", "options", "price", "note",
    "城市", "天数", "关键词", "数量", "单位",
)  # fmt: skip
WORDS_EN = ("weather", "notes", "the", "city", "today", "forecast", "search", "for", "a", "list")
WORDS_ZH = ("查询", "天气", "北京", "上海", "笔记", "今天", "城市", "搜索", "列表", "温度")


def _text(rng: random.Random, count: int) -> str:
    if rng.random() < 0.5:
        return " ".join(rng.choice(WORDS_EN) for _ in range(count)).capitalize() + "."
    return "".join(rng.choice(WORDS_ZH) for _ in range(count)) + "。"


_DEFAULTS: dict[str, Callable[[random.Random], Any]] = {
    "str": lambda rng: rng.choice(["c", "北京", "", "上海 Shanghai", "metric"]),
    "int": lambda rng: rng.randint(-3, 100),
    "float": lambda rng: rng.choice([0.5, 2.25, -1.0, 10.0]),
    "bool": lambda rng: rng.choice([True, False]),
}


def build_function(
    name: str, params: list[tuple[str, str, Any]], n_positional: int, ns=None, prefix: str = ""
):
    """Make a function with ``exec``: params are (name, annotation source, default or EMPTY);
    the first ``n_positional`` are positional-or-keyword, the rest keyword-only. ``prefix`` opens
    the module's source (e.g. a ``from __future__`` import)."""
    parts = []
    for index, (pname, annotation, default) in enumerate(params):
        if index == n_positional:
            parts.append("*")
        parts.append(f"{pname}: {annotation}" + ("" if default is EMPTY else f" = {default!r}"))
    source = f"def {name}({', '.join(parts)}):\n    return None\n"
    namespace: dict[str, Any] = dict(ns or {})
    # dont_inherit: this module's own `from __future__ import annotations` must not leak in.
    code = compile(prefix + source, f"<generated {name}>", "exec", dont_inherit=True)
    exec(code, namespace)  # noqa: S102 (our own generated source)
    return namespace[name], f"def {name}({', '.join(parts)})"


def random_params(
    rng: random.Random, annotations: Callable[[random.Random], str], default_for, max_count=5
) -> tuple[list[tuple[str, str, Any]], int]:
    """Random parameter specs; positional ones without a default come first (Python's rule)."""
    names = rng.sample(NAMES, rng.randint(0, max_count))
    params = []
    for pname in names:
        annotation = annotations(rng)
        default = EMPTY
        if rng.random() < 0.5:
            default = default_for(rng, annotation)
        params.append((pname, annotation, default))
    n_positional = rng.randint(0, len(params))
    positional = sorted(params[:n_positional], key=lambda p: p[2] is not EMPTY)
    return positional + params[n_positional:], n_positional


def _basic_default(rng: random.Random, annotation: str) -> Any:
    maker = _DEFAULTS.get(annotation)
    return EMPTY if maker is None else maker(rng)


def random_basic_function(rng: random.Random, index: int):
    """A function whose parameters use only the basic types (list and dict without defaults)."""
    params, n_positional = random_params(
        rng, lambda r: r.choice(["str", "int", "float", "bool", "list", "dict"]), _basic_default
    )
    return build_function(f"tool_{index}", params, n_positional)


# --- 02.1 json_type ----------------------------------------------------------------------------


class Ticket:
    """A class of our own: nothing in the type map."""


UNSUPPORTED = ((complex, "complex"), (bytes, "bytes"), (object, "object"), (Ticket, "Ticket"))


def _json_type_hints(annotation: Any) -> list[Hint]:
    return [
        (lambda g: isinstance(g, str), 'Return a dict such as {"type": "string"}, not the name.'),
        (lambda g: annotation is bool and g == {"type": "integer"}, BOOL_HINT),
        (
            lambda g: annotation in (None, type(None)),
            'None (and type(None)) become {"type": "null"}: compare with `is`.',
        ),
        (
            lambda g: set(g) != {"type"},
            'Return only {"type": ...}: no other keys for the basic types.',
        ),
    ]


NO_RAISE_HINT = (
    "Anything outside the table must raise TypeError: a guessed schema gives the model wrong "
    "instructions and nobody notices."
)


def expect_type_error(
    call: Callable[[], Any], case: str, names: list[str], no_raise_hint: str = NO_RAISE_HINT
) -> None:
    """``call()`` must raise TypeError whose message contains every text in ``names``."""
    __tracebackhide__ = True
    try:
        got = call()
    except NotImplementedError:
        raise
    except TypeError as exc:
        absent = [name for name in names if name not in str(exc)]
        if absent:
            fail(
                case,
                Plain(f"a TypeError naming {' and '.join(names)}"),
                Plain(f"TypeError: {exc}"),
                f"Say in the message what could not be handled: it does not mention {absent[0]}.",
            )
        return
    except Exception as exc:
        fail(
            case,
            Plain("a TypeError"),
            Plain(f"{type(exc).__name__}: {exc}"),
            f"Raise TypeError (not {type(exc).__name__}) with a message that names "
            f"{' and '.join(names)}: check for this case before it breaks something else.",
        )
    fail(case, Plain("a TypeError"), got, no_raise_hint)


@exercise("02.1", notebook=NOTEBOOK, title="json_type", points=1, targets=("json_type",))
def check_json_type(json_type) -> str:
    cases = [str, int, float, bool, list, dict, None, type(None)]
    for annotation in cases:
        label = "type(None)" if annotation is type(None) else getattr(annotation, "__name__", None)
        case = f"json_type({label})"
        got = call_learner(json_type, annotation, case=case)
        expect_json_equal(
            case, expected_json_type(annotation), got, hints=_json_type_hints(annotation)
        )
    for annotation, label in UNSUPPORTED:
        expect_type_error(lambda a=annotation: json_type(a), f"json_type({label})", [label])
    # A fresh dict every call: the caller adds "default"/"description" to what it gets.
    first = call_learner(json_type, str, case="json_type(str)")
    if isinstance(first, dict):
        first["default"] = "北京"
    second = call_learner(json_type, str, case="json_type(str), called a second time")
    if first is second or as_json(second, "json_type(str)") != {"type": "string"}:
        fail(
            "json_type(str) called twice; the caller added a key to the first result",
            {"type": "string"},
            second,
            "Return a new dict on every call (build it in the function, or copy the one from your "
            "table): the dict you return gets changed by whoever uses it.",
        )
    return f"{len(cases) + len(UNSUPPORTED) + 1} cases"


# --- 02.2 parameters_schema --------------------------------------------------------------------


def get_weather(city: str, unit: str = "c", days: int = 1) -> str:
    return city


def 查询天气(城市: str, 天数: int = 3, *, 详细: bool = False) -> str:  # noqa: N802 (Chinese)
    return 城市


def no_parameters() -> str:
    return "上海"


def set_alarm(hour: int, minute: int, *, label: str, loud: bool = True, volume: float = 0.8):
    return None


VISIBLE_FUNCTIONS = (
    (get_weather, "get_weather(city: str, unit: str = 'c', days: int = 1) -> str"),
    (查询天气, "查询天气(城市: str, 天数: int = 3, *, 详细: bool = False) -> str"),
    (no_parameters, "no_parameters() -> str"),
    (
        set_alarm,
        "set_alarm(hour: int, minute: int, *, label: str, loud: bool = True, volume: float = 0.8)",
    ),
)


def check_parameters_cases(parameters_schema, cases, type_schema) -> None:
    """Compare ``parameters_schema(func)`` with the oracle for each (func, text) case."""
    __tracebackhide__ = True
    for func, text in cases:
        case = f"parameters_schema({text})"
        expected = expected_parameters_schema(func, type_schema)
        got = call_with_hints(
            parameters_schema, func, case=case, hints=string_annotation_hints(func)
        )
        plain = as_json(got, f"The result of {case}")
        expect_json_equal(case, expected, plain, parameters_hint(expected, plain, func))
        if list(plain["properties"]) != list(expected["properties"]):
            fail(case, expected, plain, "List properties in signature order.")


@exercise(
    "02.2", notebook=NOTEBOOK, title="parameters_schema", points=2, targets=("parameters_schema",)
)
def check_parameters_schema(parameters_schema) -> str:
    rng = hidden_rng("02.2")
    hidden = [random_basic_function(rng, index) for index in range(30)]
    check_parameters_cases(parameters_schema, VISIBLE_FUNCTIONS, expected_json_type)
    check_parameters_cases(parameters_schema, hidden, expected_json_type)
    return f"{len(VISIBLE_FUNCTIONS)} visible and {len(hidden)} hidden functions"


# --- 02.3 parse_google_docstring ---------------------------------------------------------------

WEATHER_DOC = """Get the weather forecast for a city.

    Args:
        city: The city name, for example 北京 or London.
        unit (str): Temperature unit, "c" or "f".
        days (int, optional): How many days to forecast,
            counting today.

    Returns:
        A short forecast: one line per day.
    """
CHINESE_DOC = """
    查询城市天气，
    返回今天的温度。

    这一段是补充说明，不属于摘要。

    Args:
        城市: 城市名称，例如 北京、上海。
        天数 (int): 预报天数：1 到 7。
    """
VISIBLE_DOCS = (
    (
        WEATHER_DOC,
        "Get the weather forecast for a city.",
        {
            "city": "The city name, for example 北京 or London.",
            "unit": 'Temperature unit, "c" or "f".',
            "days": "How many days to forecast, counting today.",
        },
    ),
    (
        CHINESE_DOC,
        "查询城市天气， 返回今天的温度。",
        {"城市": "城市名称，例如 北京、上海。", "天数": "预报天数：1 到 7。"},
    ),
    ("Say hello.", "Say hello.", {}),
    (
        "Add two numbers.\n    Args:\n        a: The first number.\n        b: The second one.",
        "Add two numbers.",
        {"a": "The first number.", "b": "The second one."},
    ),
    (None, "", {}),
    ("   ", "", {}),
)


SECTION_HEADERS = (
    "Args:", "Arguments:", "Returns:", "Raises:", "Yields:", "Examples:", "Example:", "Note:",
)  # fmt: skip


def random_docstring(rng: random.Random, names: list[str]) -> tuple[str, str, dict[str, str]]:
    """A Google-style docstring as Python stores it, with its known summary and descriptions."""
    summary_lines = [_text(rng, rng.randint(2, 6)) for _ in range(rng.randint(1, 2))]
    lines = list(summary_lines)
    if rng.random() < 0.3:
        lines += ["", _text(rng, 5), _text(rng, 3)]
    descriptions: dict[str, str] = {}
    if names:
        gap = [""] if rng.random() < 0.7 else []  # a header also ends the summary
        lines += [*gap, rng.choice(["Args:", "Arguments:"])]
        step = rng.choice([2, 4])
        for pname in names:
            kind = rng.choice(["", " (str)", " (int, optional)", "(list[str])"])
            parts = [_text(rng, rng.randint(1, 5)) for _ in range(rng.randint(1, 3))]
            if rng.random() < 0.2:
                parts[0] = "Format: " + parts[0]
            lines.append(f"{' ' * step}{pname}{kind}: {parts[0]}")
            lines += [f"{' ' * (2 * step)}{part}" for part in parts[1:]]
            descriptions[pname] = " ".join(parts)
    if rng.random() < 0.5:
        lines += ["", "Returns:", f"    {_text(rng, 4)}"]
        if rng.random() < 0.5:
            lines.append("    error: " + _text(rng, 2))
    if rng.random() < 0.3:
        lines += ["", "Raises:", f"    ValueError: {_text(rng, 3)}"]
    indent = " " * rng.choice([4, 8])
    body = "\n".join(f"{indent}{line}" if line else "" for line in lines[1:])
    first = lines[0] if rng.random() < 0.7 else f"\n{indent}{lines[0]}"
    return f"{first}\n{body}\n{indent}", " ".join(summary_lines), descriptions


def _docstring_hints(expected_summary: str, expected: dict[str, str]) -> list[Hint]:
    def described(g):
        return g[1]

    return [
        (
            lambda g: not isinstance(g, list) or len(g) != 2,
            "Return a tuple of two: (summary, {name: description}).",
        ),
        (lambda g: not isinstance(described(g), dict), "The second item is a dict."),
        (
            lambda g: g[0] != expected_summary and any(h in g[0] for h in SECTION_HEADERS),
            "The summary stops at the first blank line or the first section header (such as "
            "Args:), whichever comes first.",
        ),
        (
            lambda g: any("(" in name or ")" in name for name in described(g)),
            "Drop the `(type)` part: in `days (int): text` the name is `days`.",
        ),
        (
            lambda g: (
                any(name in ("Returns", "Raises", "error") for name in described(g))
                or set(described(g)) - set(expected)
            ),
            "The Args section ends at the first line that is not indented (such as Returns:); "
            "entries after it are not parameters.",
        ),
        (
            lambda g: set(described(g)) != set(expected),
            "Every `name: text` line of the Args section is one parameter.",
        ),
        (
            lambda g: any(":" in expected[n] and ":" not in described(g)[n] for n in expected),
            "Split an entry at its first colon only: in `days (int): Format: 1 to 7.` the "
            "description is `Format: 1 to 7.`, colons and all.",
        ),
        (
            lambda g: any(
                described(g)[n] != expected[n] and described(g)[n].startswith(expected[n])
                for n in expected
            ),
            "The Args section ends at the first line that is not indented (such as Returns:): "
            "the lines after it do not continue the last description.",
        ),
        (
            lambda g: any(
                expected[n] != described(g)[n] and expected[n].startswith(described(g)[n])
                for n in expected
            ),
            "A line indented deeper than the entries continues the previous description: "
            "join it with one space.",
        ),
        (
            lambda g: (
                any(v != " ".join(v.split()) for v in described(g).values())
                or g[0] != " ".join(g[0].split())
                or any(
                    "".join(described(g)[n].split()) == "".join(expected[n].split())
                    for n in expected
                    if described(g)[n] != expected[n]
                )
                or (
                    g[0] != expected_summary
                    and g[0].replace(" ", "") == expected_summary.replace(" ", "")
                )
            ),
            "Strip each line and join lines with exactly one space (no newlines, no double "
            "spaces, and not glued together).",
        ),
        (
            lambda g: g[0] != expected_summary and len(g[0]) > len(expected_summary),
            "The summary stops at the first blank line (or a section header such as Args:).",
        ),
        (
            lambda g: g[0] != expected_summary and expected_summary.startswith(g[0]),
            "The summary is every line before the first blank line, joined with one space.",
        ),
    ]


@exercise(
    "02.3",
    notebook=NOTEBOOK,
    title="parse_google_docstring",
    points=2,
    targets=("parse_google_docstring",),
)
def check_parse_google_docstring(parse_google_docstring) -> str:
    rng = hidden_rng("02.3")
    hidden = []
    for _ in range(40):
        names = rng.sample(NAMES, rng.randint(0, 4))
        hidden.append(random_docstring(rng, names))
    for doc, summary, descriptions in (*VISIBLE_DOCS, *hidden):
        case = f"parse_google_docstring({py(doc)})"
        got = call_learner(parse_google_docstring, doc, case=case)
        expected = (summary, descriptions)
        expect_json_equal(case, expected, got, hints=_docstring_hints(summary, descriptions))
        if not isinstance(got, tuple):
            fail(
                case,
                Plain("a tuple (summary, descriptions)"),
                Plain(f"a {type(got).__name__}"),
                "Return a tuple, as the signature says: `return summary, descriptions`.",
            )
    return f"{len(VISIBLE_DOCS)} visible and {len(hidden)} hidden docstrings"


# --- 02.4 function_to_tool ---------------------------------------------------------------------


def _with_doc(func: Callable[..., Any], doc: str | None) -> Callable[..., Any]:
    func.__doc__ = doc
    return func


def _tool_cases(rng: random.Random) -> list[tuple[Any, ...]]:
    """(func, case text, description argument, summary, descriptions by name) for 02.4."""

    def weather(city: str, unit: str = "c", days: int = 1) -> str:
        return city

    def 查询天气(城市: str, 天数: int = 3) -> str:  # noqa: N802
        return 城市

    def add(a: float, b: float) -> float:
        return a + b

    cases = [
        (_with_doc(weather, WEATHER_DOC), "weather", None, *VISIBLE_DOCS[0][1:]),
        (_with_doc(查询天气, CHINESE_DOC), "查询天气", None, *VISIBLE_DOCS[1][1:]),
        (_with_doc(add, None), "add, no docstring", "把两个数相加。Add two numbers.", "", {}),
    ]
    for index in range(20):
        func, text = random_basic_function(rng, index)
        names = list(inspect.signature(func).parameters)
        documented = [n for n in names if rng.random() < 0.7]
        if rng.random() < 0.3:
            documented.append("not_a_parameter")
        doc, summary, descriptions = random_docstring(rng, documented)
        func.__doc__ = doc
        override = rng.choice([None, None, "Use this tool for 天气 questions."])
        cases.append((func, f"{text} with docstring {py(doc)}", override, summary, descriptions))
    return cases


def expected_tool(func, description: str | None, summary: str, descriptions: dict) -> dict:
    parameters = expected_parameters_schema(func)
    for name, schema in parameters["properties"].items():
        if name in descriptions:
            schema["description"] = descriptions[name]
    return {
        "type": "function",
        "function": {
            "name": func.__name__,
            "description": summary if description is None else description,
            "parameters": parameters,
        },
    }


def _tool_hints(expected: dict, func) -> list[Hint]:
    function = expected["function"]
    props = function["parameters"]["properties"]
    return [
        (lambda g: not isinstance(g, dict), "Return the tool as a dict."),
        (
            lambda g: g.get("type") != "function" or not isinstance(g.get("function"), dict),
            'Wrap it: {"type": "function", "function": {"name": ..., "description": ..., '
            '"parameters": ...}}.',
        ),
        (lambda g: g["function"].get("name") != function["name"], "The name is func.__name__."),
        (
            lambda g: (
                g["function"].get("description") != function["description"]
                and "Args:" in g["function"].get("description", "")
            ),
            "The description is the docstring's summary only, not the whole docstring.",
        ),
        (
            lambda g: g["function"].get("description") != function["description"],
            "Use the description argument when it is given; otherwise the docstring's summary.",
        ),
        (
            lambda g: any(
                "description" in s
                and "description" not in g["function"]["parameters"]["properties"].get(n, {})
                for n, s in props.items()
            ),
            "Put each documented parameter's description into its property: "
            '"properties": {"city": {"type": "string", "description": "..."}}.',
        ),
        (
            lambda g: any(
                "description" not in s
                and "description" in g["function"]["parameters"]["properties"].get(n, {})
                for n, s in props.items()
            ),
            'A parameter the docstring does not document gets no "description" key.',
        ),
        (
            lambda g: set(g["function"]["parameters"]["properties"]) - set(props),
            "Only the function's parameters are properties: a name documented in the docstring "
            "but missing from the signature is ignored.",
        ),
    ]


def _expect_value_error(function_to_tool, func, description: str | None, case: str, hint: str):
    """``function_to_tool(func, description=description)`` must raise ValueError naming func."""
    __tracebackhide__ = True
    name = func.__name__
    try:
        got = function_to_tool(func, description=description)
    except NotImplementedError:
        raise
    except ValueError as exc:
        if name not in str(exc):
            fail(case, Plain(f"a ValueError naming {name}"), Plain(f"ValueError: {exc}"),
                 "Name the function in the message.")  # fmt: skip
        return
    except Exception as exc:
        got = Plain(f"{type(exc).__name__}: {exc}")
    fail(case, Plain(f"a ValueError naming {name}"), got, hint)


NO_DESCRIPTION_HINT = (
    "With neither a docstring nor a description argument, raise ValueError naming the function: "
    "a tool without a description is one the model will not choose."
)
EMPTY_DESCRIPTION_HINT = (
    'description="" is given (it is not None), and it is empty: raise ValueError naming the '
    "function. Only description=None falls back to the docstring's summary."
)


def _ignored_description_hints(description: str | None) -> list[ExceptionHint]:
    return [
        (
            lambda exc: isinstance(exc, ValueError) and bool(description),
            f"A description argument was given ({description!r}): use it. Raise ValueError only "
            "when the description you end up with is empty.",
        )
    ]


@exercise(
    "02.4", notebook=NOTEBOOK, title="function_to_tool", points=2, targets=("function_to_tool",)
)
def check_function_to_tool(function_to_tool) -> str:
    return run_after_earlier("02.4", function_to_tool, lambda: _check_tools(function_to_tool))


def _check_tools(function_to_tool) -> str:
    __tracebackhide__ = True
    cases = _tool_cases(hidden_rng("02.4"))
    for func, text, description, summary, descriptions in cases:
        case = f"function_to_tool({text}, description={description!r})"
        expected = expected_tool(func, description, summary, descriptions)
        hints = string_annotation_hints(func) + _ignored_description_hints(description)
        got = call_with_hints(
            function_to_tool, func, case=case, hints=hints, description=description
        )
        expect_json_equal(case, expected, got, hints=_tool_hints(expected, func))

    def f(x: int):
        return x

    def g(city: str) -> str:
        """Get the weather for a city."""
        return city

    _expect_value_error(
        function_to_tool,
        f,
        None,
        "function_to_tool(f) for `def f(x: int)` with no docstring and no description",
        NO_DESCRIPTION_HINT,
    )
    _expect_value_error(
        function_to_tool,
        g,
        "",
        "function_to_tool(g, description='') for `def g(city: str)` whose docstring is "
        "'Get the weather for a city.'",
        EMPTY_DESCRIPTION_HINT,
    )
    return f"{len(cases) + 2} cases"


# --- 02.5 find_drift ---------------------------------------------------------------------------

LINE = re.compile(r"^(missing|extra|required|type): (\S+)(?:\s|$)")
JSON_TYPE_NAMES = ("string", "integer", "number", "boolean", "array", "object")


def search_notes(keyword: str, limit: int = 5, archived: bool = False) -> list:
    return []


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


def _tool_of(func) -> dict:
    function = {
        "name": func.__name__,
        "description": "A tool.",
        "parameters": expected_parameters_schema(func),
    }
    return {"type": "function", "function": function}


def _drift_cases(rng: random.Random) -> list[tuple[Callable[..., Any], str, dict, list[str]]]:
    """(func, case text, tool, expected "kind: name" list) for 02.5."""
    chinese = _tool_of(查询天气)
    params = chinese["function"]["parameters"]
    params["properties"]["天数"]["type"] = "string"
    params["required"] = ["城市", "天数"]
    del params["properties"]["详细"]
    untyped = _tool_of(get_weather)
    untyped["function"]["parameters"]["properties"]["days"] = {"description": "How many days."}
    cases = [
        (
            search_notes,
            "search_notes(keyword: str, limit: int = 5, archived: bool = False), NOTES_TOOL",
            NOTES_TOOL,
            ["extra: query", "missing: archived", "missing: keyword", "required: limit",
             "type: limit"],
        ),
        (get_weather, "get_weather and its own derived tool", _tool_of(get_weather), []),
        (get_weather, "get_weather and its tool where days has no type", untyped, ["type: days"]),
        (查询天气, "查询天气 and a drifted tool", chinese,
         ["missing: 详细", "required: 天数", "type: 天数"]),
    ]  # fmt: skip
    for index in range(25):
        func, text = random_basic_function(rng, index)
        tool = _tool_of(func)
        schema = tool["function"]["parameters"]
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
                    del props[name]["type"]  # no "type" counts as a different one
                else:
                    props[name]["type"] = rng.choice(
                        [t for t in JSON_TYPE_NAMES if t != props[name]["type"]]
                    )
                expected.append(f"type: {name}")
        for name in rng.sample(["query", "lang", "语言", "page"], rng.randint(0, 2)):
            if name not in props:
                props[name] = {"type": rng.choice(JSON_TYPE_NAMES)}
                expected.append(f"extra: {name}")
        if not required and rng.random() < 0.5:
            del schema["required"]
        cases.append((func, f"{text} and the tool parameters {py(schema)}", tool, expected))
    return cases


UNTYPED_HINT = (
    'A tool property without "type" counts as a different type: give it a `type` line (read '
    'the tool\'s type with .get("type"), which gives None when it is absent).'
)


def _untyped(func, tool: dict) -> set[str]:
    """The function's parameters whose property in the tool has no "type"."""
    props = tool["function"]["parameters"].get("properties", {})
    return {n for n in inspect.signature(func).parameters if n in props and "type" not in props[n]}


def _drift_hints(expected: list[str], untyped: set[str]) -> list[Hint]:
    def names_of(lines, kind):
        return {line.split(": ", 1)[1] for line in lines if line.startswith(kind + ":")}

    return [
        (
            lambda g: names_of(g, "missing") & (names_of(g, "required") | names_of(g, "type")),
            "A parameter missing from the tool gets only its `missing` line: compare required "
            "and type only for parameters both sides have.",
        ),
        (
            lambda g: (
                names_of(g, "missing") == names_of(expected, "extra")
                and names_of(g, "missing") != names_of(expected, "missing")
            ),
            "`missing` is in the function but not in the tool; `extra` is in the tool but not "
            "in the function.",
        ),
        (
            lambda g: not expected and g,
            "A tool that matches its function has no drift: return [].",
        ),
        (
            lambda g: names_of(g, "required") != names_of(expected, "required"),
            "Compare required on both sides: required in the function means no default; a tool "
            'without "required" requires nothing.',
        ),
        (lambda g: untyped - names_of(g, "type"), UNTYPED_HINT),
        (
            lambda g: names_of(g, "type") != names_of(expected, "type"),
            'Compare the "type" of each parameter both sides have.',
        ),
        (
            lambda g: len(g) != len(set(g)),
            "One line per mismatch: no duplicates.",
        ),
    ]


def _drift_keys(lines: Any, case: str, expected: list[str], tool: dict, func) -> list[str]:
    """'kind: name' of each learner line, after checking the line format."""
    __tracebackhide__ = True
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        fail(case, expected, lines, "Return a list of strings, one line per mismatch.")
    keys = []
    for line in lines:
        match = LINE.match(line)
        if not match:
            fail(
                case,
                expected,
                lines,
                "Start every line with its kind, a colon, a space and the parameter name, e.g. "
                "`missing: archived (in the function, not in the tool)`.",
                detail=f"this line does not: {line!r}",
            )
        kind, name = match.groups()
        if kind == "type" and name in inspect.signature(func).parameters:
            theirs = tool["function"]["parameters"].get("properties", {}).get(name, {})
            mine = expected_json_type(typing.get_type_hints(func)[name])["type"]
            if mine not in line or theirs.get("type", mine) not in line:
                fail(
                    case,
                    f"type: {name} is {mine} in the function but "
                    f"{theirs.get('type', 'untyped')} in the tool",
                    line,
                    "A type line names both JSON types, the function's and the tool's.",
                )
        keys.append(f"{kind}: {name}")
    return sorted(keys)


KEY_ERROR_TYPE_HINT = (
    'A tool property may have no "type" key: read it with .get("type") and count a missing '
    "type as a different type."
)


@exercise("02.5", notebook=NOTEBOOK, title="find_drift", points=2, targets=("find_drift",))
def check_find_drift(find_drift) -> str:
    return run_after_earlier("02.5", find_drift, lambda: _check_drift(find_drift))


def _check_drift(find_drift) -> str:
    __tracebackhide__ = True
    cases = _drift_cases(hidden_rng("02.5"))
    for func, text, tool, expected in cases:
        case = f"find_drift({text})"
        hints = [
            *string_annotation_hints(func),
            (
                lambda exc: isinstance(exc, KeyError) and exc.args[:1] == ("type",),
                KEY_ERROR_TYPE_HINT,
            ),
        ]
        got = call_with_hints(
            find_drift, func, json.loads(json.dumps(tool)), case=case, hints=hints
        )
        keys = _drift_keys(as_json(got, f"The result of {case}"), case, expected, tool, func)
        expect_json_equal(
            case, sorted(expected), keys, hints=_drift_hints(sorted(expected), _untyped(func, tool))
        )
    return f"{len(cases)} cases"


__all__ = [
    "CheckFailed",
    "expected_json_type",
    "expected_parameters_schema",
    "parameters_hint",
    "schema_hint",
]
