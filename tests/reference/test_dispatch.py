"""ToolRegistry.call / acall: conversion to annotated types, JSON semantics, errors as data."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import decimal
import enum
import inspect
import json
import pathlib
import threading
import uuid
from typing import Annotated, Literal

import pydantic
import pytest
import typing_extensions as te
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course_lib.reference import ToolRegistry, validate_arguments


class Unit(enum.Enum):
    C = "c"
    F = "f"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Address:
    street: str
    zip: int = 0


class Point(pydantic.BaseModel):
    x: float
    y: float


class Window(te.TypedDict):
    start: datetime.date
    days: te.NotRequired[int]


def kinds(**values: object) -> str:
    """What the tool received: each argument's type name and value, as JSON."""
    return json.dumps({k: [type(v).__name__, repr(v)] for k, v in values.items()})


def error_of(text: str) -> dict:
    payload = json.loads(text)
    assert isinstance(payload, dict) and isinstance(payload.get("error"), str), text
    return payload


@pytest.fixture
def registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str, unit: Unit = Unit.C, days: int = 1) -> str:
        """Weather for a city."""
        return kinds(city=city, unit=unit, days=days)

    @registry.tool
    def plan(
        where: Address,
        at: Point,
        when: datetime.datetime,
        window: Window,
        stops: list[Address] | None = None,
        priority: Priority = Priority.LOW,
        mode: Literal["walk", "drive"] = "walk",
    ) -> str:
        return kinds(where=where, at=at, when=when, window=window, stops=stops, priority=priority)

    @registry.tool
    def scalars(
        ratio: float = 0.0,
        flag: bool = False,
        key: uuid.UUID | None = None,
        price: decimal.Decimal | None = None,
        path: pathlib.Path | None = None,
        pair: tuple[int, str] | None = None,
        labels: set[str] | None = None,
        moment: datetime.time | None = None,
    ) -> str:
        return (
            kinds(ratio=ratio, flag=flag, key=key, price=price, path=path, pair=pair, labels=labels)
            if moment is None
            else kinds(moment=moment)
        )

    @registry.tool
    def ping() -> str:
        return "pong"

    return registry


# -- conversion to the annotated types -----------------------------------------------------------


def test_arguments_arrive_converted_to_enum_members(registry):
    got = json.loads(registry.call("get_weather", '{"city": "北京", "unit": "f"}'))
    assert got == {
        "city": ["str", "'北京'"],
        "unit": ["Unit", "<Unit.F: 'f'>"],
        "days": ["int", "1"],
    }


def test_objects_arrive_as_dataclass_model_typeddict_and_datetime_instances(registry):
    arguments = {
        "where": {"street": "长安街"},
        "at": {"x": 1, "y": 2.5},
        "when": "2024-05-01T09:30:00+08:00",
        "window": {"start": "2024-05-01"},
        "stops": [{"street": "a", "zip": 1}],
        "priority": 2,
    }
    got = json.loads(registry.call("plan", arguments))
    assert got["where"] == ["Address", "Address(street='长安街', zip=0)"]
    assert got["at"] == ["Point", "Point(x=1.0, y=2.5)"]
    assert got["when"][0] == "datetime" and "tzinfo=TzInfo(" in got["when"][1]
    assert got["window"] == ["dict", "{'start': datetime.date(2024, 5, 1)}"]
    assert got["stops"] == ["list", "[Address(street='a', zip=1)]"]
    assert got["priority"] == ["Priority", "<Priority.HIGH: 2>"]


def test_scalars_arrive_as_uuid_decimal_path_tuple_set_and_time(registry):
    arguments = {
        "ratio": 2,
        "key": "00000000-0000-0000-0000-000000000001",
        "price": "19.90",
        "path": "/tmp/北京.csv",
        "pair": [1, "a"],
        "labels": ["b", "a"],
    }
    got = json.loads(registry.call("scalars", arguments))
    assert got["ratio"] == ["float", "2.0"]  # an integer is a valid number, and becomes a float
    assert got["key"][0] == "UUID" and got["price"] == ["Decimal", "Decimal('19.90')"]
    assert got["path"][0].endswith("Path") and got["pair"] == ["tuple", "(1, 'a')"]
    assert got["labels"][0] == "set"
    assert json.loads(registry.call("scalars", {"moment": "09:30"})) == {
        "moment": ["time", "datetime.time(9, 30)"]
    }


def test_defaults_come_from_the_function_when_arguments_are_left_out(registry):
    got = json.loads(registry.call("get_weather", {"city": "上海"}))
    assert got["unit"] == ["Unit", "<Unit.C: 'c'>"] and got["days"] == ["int", "1"]


@pytest.mark.parametrize("arguments", [None, "", "   ", "{}", "null", {}, b"{}"])
def test_none_empty_and_null_mean_no_arguments(registry, arguments):
    assert registry.call("ping", arguments) == "pong"


def test_arguments_may_be_a_dict_json_text_or_utf8_bytes(registry):
    expected = registry.call("get_weather", {"city": "北京"})
    assert registry.call("get_weather", '{"city": "北京"}') == expected
    assert registry.call("get_weather", '{"city": "北京"}'.encode()) == expected


# -- JSON semantics ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments, problem",
    [
        ('{"city": "x", "days": true}', "days: expected integer, got boolean true"),
        ('{"city": "x", "days": "3"}', 'days: expected integer, got string "3"'),
        ('{"city": "x", "days": 3.0}', "days: expected integer, got number 3.0"),
        ('{"city": 5}', "city: expected string, got integer 5"),
        ('{"city": "x", "unit": "k"}', 'unit: expected one of "c", "f", got string "k"'),
        ('{"city": "x", "unit": "C"}', 'unit: expected one of "c", "f", got string "C"'),
    ],
)
def test_json_semantics_no_coercion_between_types(registry, arguments, problem):
    assert error_of(registry.call("get_weather", arguments))["problems"] == [problem]


@pytest.mark.parametrize(
    "arguments, problem",
    [
        ({"flag": 1}, "flag: expected boolean, got integer 1"),
        ({"flag": "true"}, 'flag: expected boolean, got string "true"'),
        ({"ratio": True}, "ratio: expected number, got boolean true"),
        ({"ratio": "0.5"}, 'ratio: expected number, got string "0.5"'),
        ({"price": 1.5}, "price: expected string or null, got number 1.5"),
        ({"labels": ["a", "a"]}, "labels: expected items without repeats"),
        ({"pair": [1, "a", 2]}, "pair"),
    ],
)
def test_json_semantics_for_numbers_booleans_and_collections(registry, arguments, problem):
    (line,) = error_of(registry.call("scalars", arguments))["problems"]
    assert line.startswith(problem)


def test_an_integer_is_a_valid_float(registry):
    assert json.loads(registry.call("scalars", {"ratio": 3}))["ratio"] == ["float", "3.0"]


def test_dates_must_be_iso_8601_strings(registry):
    base = {"where": {"street": "a"}, "at": {"x": 0, "y": 0}, "window": {"start": "2024-05-01"}}
    for when in ("2024-13-01T00:00:00", 1714550400, "yesterday"):
        (line,) = error_of(registry.call("plan", {**base, "when": when}))["problems"]
        assert line.startswith("when: expected")


def test_extra_keys_inside_nested_objects_follow_the_schema(registry):
    # A dataclass's schema says additionalProperties: false, so extras are refused (pydantic
    # alone would drop them silently); a pydantic model's schema follows the model's own
    # `extra` setting (ignore, by default), so there the extra key is accepted and dropped.
    arguments = {
        "where": {"street": "a", "floor": 3},
        "at": {"x": 0, "y": 0, "z": 1},
        "when": "2024-05-01T00:00:00",
        "window": {"start": "2024-05-01"},
    }
    assert error_of(registry.call("plan", arguments))["problems"] == [
        "where.floor: unexpected field; where accepts: street, zip"
    ]
    del arguments["where"]["floor"]
    assert json.loads(registry.call("plan", arguments))["at"] == ["Point", "Point(x=0.0, y=0.0)"]


# -- errors as data ------------------------------------------------------------------------------


def test_an_unknown_tool_lists_the_tools_and_suggests_the_closest_name(registry):
    payload = error_of(registry.call("get_wether", {"city": "x"}))
    assert payload["error"] == (
        "unknown tool 'get_wether'; did you mean 'get_weather'? "
        "available tools: get_weather, plan, scalars, ping"
    )
    assert payload["available"] == ["get_weather", "plan", "scalars", "ping"]
    assert payload["suggestion"] == "get_weather"


def test_an_unknown_tool_differing_only_in_case_is_suggested(registry):
    assert error_of(registry.call("GET_WEATHER", {}))["suggestion"] == "get_weather"


def test_an_unknown_tool_with_no_close_name_makes_no_suggestion(registry):
    payload = error_of(registry.call("translate", {}))
    assert "did you mean" not in payload["error"] and "suggestion" not in payload
    assert "available tools: get_weather, plan, scalars, ping" in payload["error"]


def test_an_unknown_tool_in_an_empty_registry_says_there_are_none():
    assert "available tools: none" in error_of(ToolRegistry().call("x", {}))["error"]


def test_malformed_json_says_where_it_broke(registry):
    payload = error_of(registry.call("get_weather", '{"city": "北京", "unit": }'))
    assert payload["error"].startswith("the arguments for tool 'get_weather' are not valid JSON")
    assert "line 1 column 24 (char 23)" in payload["error"]
    assert payload["near"] == '{"city": "北京", "unit": }'  # the 30 characters either side


def test_arguments_that_are_not_an_object_are_refused(registry):
    for arguments, got in (
        ("[1, 2]", "got array [1, 2]"),
        ('"x"', 'got string "x"'),
        (7, "got integer 7"),
    ):
        payload = error_of(registry.call("get_weather", arguments))
        assert payload["error"].endswith(f"must be a JSON object of named parameters, {got}")


def test_a_dict_holding_values_json_cannot_carry_is_refused_saying_so(registry):
    payload = error_of(registry.call("get_weather", {"city": {1, 2}}))
    assert payload["error"].startswith("the arguments for tool 'get_weather' are not JSON data:")
    assert "set is not JSON serializable" in payload["error"]


def test_bytes_that_are_not_utf8_are_refused_saying_so(registry):
    payload = error_of(registry.call("get_weather", b"\xff\xfe"))
    assert payload["error"].startswith("the arguments for tool 'get_weather' are not UTF-8 text")


def test_invalid_arguments_report_every_problem_at_once_each_naming_the_parameter(registry):
    payload = error_of(registry.call("get_weather", {"unit": "k", "days": "2", "colour": 1}))
    problems = [
        "city: missing required parameter (expected string)",
        "colour: unexpected parameter; this tool accepts: city, unit, days",
        'days: expected integer, got string "2"',
        'unit: expected one of "c", "f", got string "k"',
    ]
    assert payload["problems"] == problems
    # The error text itself names every problem: many models read nothing but "error".
    assert payload["error"] == (
        f"invalid arguments for tool 'get_weather': {'; '.join(problems)}. "
        "Fix them and call the tool again."
    )


def test_an_exception_in_the_tool_comes_back_as_its_type_and_message_without_traceback():
    registry = ToolRegistry()

    @registry.tool
    def lookup(city: str) -> str:
        raise LookupError(f"no such city: {city}")

    payload = error_of(registry.call("lookup", {"city": "Atlantis"}))
    assert payload == {
        "error": "tool 'lookup' failed: LookupError: no such city: Atlantis",
        "tool": "lookup",
        "exception": "LookupError",
    }


def test_the_traceback_is_included_only_when_asked_for():
    registry = ToolRegistry(include_traceback=True)

    @registry.tool
    def divide(a: int, b: int) -> float:
        return a / b

    payload = error_of(registry.call("divide", {"a": 1, "b": 0}))
    assert payload["exception"] == "ZeroDivisionError"
    assert (
        "Traceback (most recent call last)" in payload["traceback"]
        and "a / b" in payload["traceback"]
    )


def test_a_result_that_cannot_become_text_is_an_error_not_a_crash():
    registry = ToolRegistry()

    @registry.tool
    def leak() -> object:
        return threading.Lock()

    payload = error_of(registry.call("leak"))
    assert payload["error"].startswith(
        "tool 'leak' returned a value that cannot be sent to the model"
    )


def test_long_results_are_cut_to_the_registry_limit():
    registry = ToolRegistry(max_result_chars=200)

    @registry.tool
    def dump() -> str:
        return "x" * 10_000

    text = registry.call("dump")
    assert len(text) == 200 and text.endswith("of 10000 characters ...]")


def test_a_result_limit_too_small_for_the_cut_marker_is_refused_at_construction():
    with pytest.raises(ValueError, match=r"max_result_chars=20 .* use at least 100"):
        ToolRegistry(max_result_chars=20)


# -- never raises --------------------------------------------------------------------------------


class BadMessage(Exception):
    def __str__(self) -> str:
        raise RuntimeError("cannot print me")


HOSTILE_CALLS = [
    (None, None),
    (42, "{}"),
    (["get_weather"], "{}"),
    ("x" * 1_000_000, "{}"),
    ("get_weather", 3.5),
    ("get_weather", ["city"]),
    ("get_weather", {"city": object()}),
    ("get_weather", {"city": float("nan")}),
    ("get_weather", {1: "x"}),
    ("get_weather", b"\xff\xfe"),
    ("get_weather", "{" * 100_000),
    ("get_weather", "[" * 100_000 + "]" * 100_000),
    ("get_weather", '{"city": "x"} trailing'),
    ("get_weather", '{"city": "' + "y" * 1_000_000 + '", "days": "z"}'),
    ("get_weather", '{"city": "\\ud800"}'),
    ("get_weather", {"city": "x", "unit": "c" * 100_000}),
    ("plan", {"where": "not an object"}),
    ("plan", {"where": {"street": ["deep"] * 10_000}}),
]


@pytest.mark.parametrize("name, arguments", HOSTILE_CALLS)
def test_call_never_raises_and_answers_hostile_input_with_a_short_json_error(
    registry, name, arguments
):
    text = registry.call(name, arguments)
    assert isinstance(text, str)
    assert len(text) < 5_000
    error_of(text)


@pytest.mark.parametrize(
    "exception",
    [ValueError("bad"), BadMessage(), RecursionError("deep"), MemoryError(), SystemExit(3)],
)
def test_exceptions_raised_by_tools_become_error_results(exception):
    registry = ToolRegistry()

    @registry.tool
    def explode() -> str:
        raise exception

    payload = error_of(registry.call("explode"))
    assert payload["exception"] == type(exception).__name__


def test_a_keyboard_interrupt_inside_a_tool_still_stops_the_caller():
    registry = ToolRegistry()

    @registry.tool
    def wait_forever() -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        registry.call("wait_forever")


def test_positional_only_parameters_are_passed_by_position():
    registry = ToolRegistry()

    @registry.tool
    def span(start: int = 0, stop: int = 10, /, step: int = 1) -> list[int]:
        return list(range(start, stop, step))

    assert registry.call("span", {"stop": 3}) == "[0, 1, 2]"
    assert registry.call("span", {"start": 8, "step": 1}) == "[8, 9]"


def test_parameter_names_that_clash_with_model_attributes_work():
    registry = ToolRegistry()

    @registry.tool
    def export(json: str, copy: bool = False, schema: int = 1) -> str:
        return f"{json}|{copy}|{schema}"

    assert registry.call("export", {"json": "a", "copy": True, "schema": 2}) == "a|True|2"


# -- async ---------------------------------------------------------------------------------------


@pytest.fixture
def async_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    async def fetch(city: str, unit: Unit = Unit.C) -> dict:
        await asyncio.sleep(0)
        return {"city": city, "unit": unit}

    @registry.tool
    async def broken() -> str:
        await asyncio.sleep(0)
        raise ValueError("upstream timeout")

    return registry


def test_call_runs_an_async_tool_to_completion(async_registry):
    assert (
        async_registry.call("fetch", {"city": "北京", "unit": "f"})
        == '{"city": "北京", "unit": "f"}'
    )


def test_call_runs_an_async_tool_from_inside_a_running_event_loop(async_registry):
    async def notebook_cell() -> str:  # Jupyter runs cells inside a running loop
        return async_registry.call("fetch", {"city": "上海"})

    assert asyncio.run(notebook_cell()) == '{"city": "上海", "unit": "c"}'


def test_an_async_tool_that_raises_becomes_an_error_result(async_registry):
    assert error_of(async_registry.call("broken"))["error"] == (
        "tool 'broken' failed: ValueError: upstream timeout"
    )
    assert error_of(asyncio.run(async_registry.acall("broken")))["exception"] == "ValueError"


def test_acall_validates_and_reports_errors_like_call(async_registry):
    async def main() -> list[str]:
        return [
            await async_registry.acall("fetch", '{"city": 1}'),
            await async_registry.acall("fetc", "{}"),
        ]

    invalid, unknown = asyncio.run(main())
    assert error_of(invalid)["problems"] == ["city: expected string, got integer 1"]
    assert error_of(unknown)["suggestion"] == "fetch"


def test_acall_runs_async_tools_concurrently():
    registry = ToolRegistry()
    events: dict[str, asyncio.Event] = {}

    @registry.tool
    async def wait_for(other: str, me: str) -> str:
        events[me].set()
        await asyncio.wait_for(events[other].wait(), timeout=60)  # deadlocks if run one by one
        return me

    async def main() -> list[str]:
        events.update(a=asyncio.Event(), b=asyncio.Event())
        return await asyncio.gather(
            registry.acall("wait_for", {"other": "b", "me": "a"}),
            registry.acall("wait_for", {"other": "a", "me": "b"}),
        )

    assert asyncio.run(main()) == ["a", "b"]


def test_acall_runs_plain_tools_on_worker_threads_so_they_overlap():
    registry = ToolRegistry()
    barrier = threading.Barrier(2, timeout=60)  # breaks if the two calls do not overlap

    @registry.tool
    def meet(me: str) -> str:
        barrier.wait()
        return me

    async def main() -> list[str]:
        return await asyncio.gather(
            registry.acall("meet", {"me": "a"}), registry.acall("meet", {"me": "b"})
        )

    assert asyncio.run(main()) == ["a", "b"]


# -- call accepts exactly what the emitted schema allows ----------------------------------------


def consistency_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def simple(
        a: int,
        b: float = 1.0,
        c: bool = False,
        d: str = "x",
        e: Literal["x", "y"] = "x",
        g: list[int] | None = None,
        h: Unit = Unit.C,
        i: tuple[int, str] = (1, "a"),
        j: dict[str, int] | None = None,
        k: Annotated[int, pydantic.Field(ge=0, le=10)] = 0,
        m: Annotated[str, pydantic.Field(max_length=3)] = "",
        n: int | str = 0,
    ) -> str:
        return "ok"

    @registry.tool
    def nested(
        where: Address,
        at: Point | None = None,
        stops: list[Address] = [],  # noqa: B006
        price: decimal.Decimal = decimal.Decimal("0"),
        labels: set[str] = frozenset(),  # noqa: B006
        level: Priority = Priority.LOW,
    ) -> str:
        return "ok"

    return registry


REGISTRY = consistency_registry()

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 12)
    | st.floats(-3, 12, allow_nan=False)
    | st.text("xyab019.-", max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text("xyzstreet", max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
address = st.fixed_dictionaries({"street": st.text(max_size=3)}, optional={"zip": st.integers()})
NEAR_VALID = {
    "simple": {
        "a": st.integers(),
        "b": st.integers() | st.floats(allow_nan=False, allow_infinity=False),
        "c": st.booleans(),
        "d": st.text(max_size=3),
        "e": st.sampled_from(["x", "y", "z"]),
        "g": st.none() | st.lists(st.integers(), max_size=3),
        "h": st.sampled_from(["c", "f", "C"]),
        "i": st.tuples(st.integers(), st.text(max_size=2)).map(list),
        "j": st.none() | st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
        "k": st.integers(-2, 12),
        "m": st.text(max_size=5),
        "n": st.integers() | st.text(max_size=2),
    },
    "nested": {
        "where": address,
        "at": st.none() | st.fixed_dictionaries({"x": st.integers(), "y": st.floats(0, 1)}),
        "stops": st.lists(address, max_size=2),
        "price": st.sampled_from(["1.50", "-2", "1e3", "x", "01.0"]) | st.integers(0, 3),
        "labels": st.lists(st.sampled_from("abc"), max_size=3),
        "level": st.sampled_from([1, 2, 3, "1"]),
    },
}


@st.composite
def arguments_for(draw, tool: str) -> dict:
    arguments = {}
    for name, near in NEAR_VALID[tool].items():
        if draw(st.integers(0, 9)) < 7:  # most parameters present, some missing
            arguments[name] = draw(near if draw(st.integers(0, 3)) else json_values)
    if draw(st.integers(0, 9)) == 0:
        arguments["unexpected"] = 1
    return arguments


def _default_nulls_dropped(tool: str, schema: dict, arguments: dict) -> dict:
    """The arguments without the nulls `call` reads as "use the default" (see below)."""
    signature = inspect.signature(REGISTRY.get(tool).function)
    defaulted = {n for n, p in signature.parameters.items() if p.default is not p.empty}

    def null_refused(name: str) -> bool:
        alone = {"properties": {name: schema["properties"][name]}, "$defs": schema.get("$defs", {})}
        return bool(validate_arguments(alone, {name: None}))

    return {
        k: v for k, v in arguments.items() if not (v is None and k in defaulted and null_refused(k))
    }


@pytest.mark.parametrize("tool", ["simple", "nested"])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_call_accepts_exactly_the_arguments_the_emitted_schema_accepts(tool, data):
    arguments = data.draw(arguments_for(tool))
    schema = REGISTRY.schemas()[REGISTRY.names().index(tool)]["function"]["parameters"]
    problems = validate_arguments(schema, _default_nulls_dropped(tool, schema, arguments))
    result = REGISTRY.call(tool, json.dumps(arguments))
    if problems:
        assert result != "ok", f"call accepted {arguments} although the schema says {problems}"
    else:
        assert result == "ok", f"the schema accepts {arguments} but call said {result}"


# -- null as "not given" (strict mode) -----------------------------------------------------------


def _forecast_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def forecast(city: str, days: int = 3, note: str | None = "none given", /) -> str:
        """Forecast."""
        return json.dumps([city, days, note], ensure_ascii=False)

    return registry


def test_null_for_a_defaulted_non_nullable_parameter_means_use_the_default():
    registry = _forecast_registry()
    assert json.loads(registry.call("forecast", {"city": "北京", "days": None})) == [
        "北京",
        3,
        "none given",
    ]
    assert json.loads(registry.call("forecast", '{"city": "北京", "days": null}'))[1] == 3


def test_null_for_a_nullable_parameter_is_passed_on_as_none():
    registry = _forecast_registry()
    assert json.loads(registry.call("forecast", {"city": "x", "note": None}))[2] is None


def test_null_for_a_required_non_nullable_parameter_is_still_an_error():
    registry = _forecast_registry()
    reply = json.loads(registry.call("forecast", {"city": None, "days": None}))
    assert reply["problems"] == ["city: expected string, got null"]


def test_a_strict_model_sending_null_for_every_optional_parameter_gets_the_defaults():
    registry = ToolRegistry()

    @registry.tool
    def search(keyword: str, limit: int = 5, unit: Unit = Unit.C, tags: list[str] = ()) -> str:
        """Search."""
        return f"{keyword} {limit} {unit.value} {list(tags)}"

    (tool,) = registry.schemas(strict=True)
    required = tool["function"]["parameters"]["required"]
    arguments = {name: None for name in required} | {"keyword": "k"}
    assert registry.call("search", arguments) == "k 5 c []"
    assert asyncio.run(registry.acall("search", json.dumps(arguments))) == "k 5 c []"


def test_null_for_a_defaulted_parameter_in_a_tool_that_needs_a_schema_check():
    registry = ToolRegistry()

    @registry.tool
    def pay(amount: decimal.Decimal, tip: decimal.Decimal = decimal.Decimal("0")) -> str:
        """Pay."""
        return str(amount + tip)

    assert registry.call("pay", {"amount": "1.50", "tip": None}) == "1.50"
    assert "amount" in registry.call("pay", {"amount": None})
