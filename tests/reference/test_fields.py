"""What a parameter is, decided once: pydantic ``Field()``, nested defaults, strict refusals.

The schema and dispatch must agree on required, defaults and nullability at every depth; these
tests pin the cases the peers' suites (tests/reference/peers) do not reach.
"""

import dataclasses
import json
from typing import Annotated, Literal

import pytest
import typing_extensions as te
from pydantic import AliasPath, BaseModel, Field

from course_lib.reference import ToolRegistry, function_to_tool, parameters_schema
from course_lib.reference.docstrings import parse_docstring


def registered(func) -> ToolRegistry:
    registry = ToolRegistry()
    registry.tool(func)
    return registry


def error_of(result: str) -> str:
    return json.loads(result)["error"]


# -- Field() ------------------------------------------------------------------------------------


def test_field_alias_is_the_name_the_model_sends_and_the_tool_gets_its_own_name():
    def find(query: str = Field(..., alias="q"), limit: int = Field(default=3, alias="n")):
        return f"{query} {limit}"

    schema = parameters_schema(find)
    assert list(schema["properties"]) == ["q", "n"] and schema["required"] == ["q"]
    registry = registered(find)
    assert registry.call("find", {"q": "茶"}) == "茶 3"
    assert registry.call("find", {"q": "茶", "n": 5}) == "茶 5"
    assert "unexpected" in error_of(registry.call("find", {"query": "茶"}))


def test_field_default_factory_is_called_for_each_call():
    def collect(tags: Annotated[list[str], Field(default_factory=list)]) -> str:
        tags.append("seen")
        return ",".join(tags)

    schema = parameters_schema(collect)
    assert "required" not in schema and "default" not in schema["properties"]["tags"]
    registry = registered(collect)
    assert registry.call("collect", {}) == "seen"
    assert registry.call("collect", {}) == "seen"  # a fresh list, not the last call's


def test_two_defaults_for_one_parameter_are_refused():
    def f(x: Annotated[int, Field(default=1)] = 2) -> None: ...

    with pytest.raises(TypeError, match=r"f\(\): parameter 'x': it has two defaults"):
        parameters_schema(f)


def test_field_default_none_on_a_type_without_none_is_refused():
    def f(x: int = Field(default=None)) -> None: ...

    with pytest.raises(TypeError, match="defaults to None but its annotation does not allow"):
        parameters_schema(f)


def test_alias_paths_are_refused_with_advice():
    def f(x: int = Field(validation_alias=AliasPath("a", 0))) -> None: ...

    with pytest.raises(TypeError, match=r"parameter 'x': .*use Field\(alias='name'\)"):
        parameters_schema(f)


def test_two_parameters_sent_under_the_same_name_are_refused():
    def f(a: int = Field(alias="b"), b: int = 0) -> None: ...

    with pytest.raises(TypeError, match="parameter 'b' is sent as 'b', which another"):
        parameters_schema(f)


def test_positional_only_parameter_with_a_field_default_gets_the_real_default():
    def f(a: int = Field(default=7), /, b: int = 0) -> str:
        return f"{a} {b}"

    registry = registered(f)
    assert registry.call("f", {"b": 1}) == "7 1"


def test_field_json_schema_extra_is_added_and_a_callable_refused():
    def f(x: int = Field(json_schema_extra={"examples": [3], "title": "X"})) -> None: ...

    assert parameters_schema(f)["properties"]["x"] == {"type": "integer", "examples": [3]}

    def g(x: int = Field(json_schema_extra=lambda schema: None)) -> None: ...

    with pytest.raises(TypeError, match="json_schema_extra=...\\) must be a dict"):
        parameters_schema(g)


@dataclasses.dataclass
class Stop:
    city: str
    nights: int = Field(default=1, ge=1)


class Query(te.TypedDict):
    text: str
    limit: Annotated[int, Field(default=10)]


def test_field_defaults_in_dataclasses_and_typed_dicts_agree_with_pydantic():
    def plan(stop: Stop, query: Query) -> str:
        return f"{stop.nights} {query['limit']}"

    props = parameters_schema(plan)["properties"]
    assert props["stop"]["required"] == ["city"]
    assert props["stop"]["properties"]["nights"] == {"type": "integer", "minimum": 1, "default": 1}
    assert props["query"]["required"] == ["text"]
    registry = registered(plan)
    assert registry.call("plan", {"stop": {"city": "上海"}, "query": {"text": "t"}}) == "1 10"
    assert "nights" in error_of(
        registry.call("plan", {"stop": {"city": "x", "nights": 0}, "query": {"text": "t"}})
    )


# -- nulls meaning "use the default", at every depth ----------------------------------------------


@dataclasses.dataclass
class Room:
    name: str
    floor: int = 1
    note: str | None = "none"


class Booking(BaseModel):
    room: Room
    hours: int = 2


class Filters(te.TypedDict):
    status: Literal["open", "closed"]
    page: te.NotRequired[int]


def _booking_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def book(booking: Booking, filters: Filters | None = None) -> str:
        """Book."""
        room = booking.room
        return json.dumps([room.floor, room.note, booking.hours, filters], ensure_ascii=False)

    return registry


def test_strict_schema_offers_nested_nulls_and_call_reads_them_as_defaults():
    registry = _booking_registry()
    (tool,) = registry.schemas(strict=True)
    arguments = {
        "booking": {"room": {"name": "长城", "floor": None, "note": None}, "hours": None},
        "filters": {"status": "open", "page": None},
    }
    # floor and hours refuse null, so their null is "use the default"; note accepts null: None.
    assert json.loads(registry.call("book", arguments)) == [1, None, 2, {"status": "open"}]
    assert tool["function"]["strict"] is True


def test_null_for_a_required_nested_field_stays_an_error():
    registry = _booking_registry()
    reply = registry.call("book", {"booking": {"room": {"name": None}}})
    assert "booking.room.name" in error_of(reply)


@dataclasses.dataclass
class ByCity:
    city: str
    days: int = 3


@dataclasses.dataclass
class ByCode:
    code: int
    days: int | None = None


def test_in_a_union_of_classes_the_branch_that_fits_decides_what_null_means():
    registry = ToolRegistry()

    @registry.tool
    def forecast(where: ByCity | ByCode) -> str:
        """Forecast."""
        return f"{type(where).__name__} {where.days}"

    assert registry.call("forecast", {"where": {"city": "北京", "days": None}}) == "ByCity 3"
    assert registry.call("forecast", {"where": {"code": 7, "days": None}}) == "ByCode None"


# -- strict mode refusals name the function and the parameter -------------------------------------


@pytest.mark.parametrize(
    ("annotation", "why"),
    [
        (list | None, "what an array holds"),
        (dict | None, "open map"),
        (list | dict, "what an array"),
    ],
    ids=["list|None", "dict|None", "list|dict"],
)
def test_strict_mode_refuses_containers_that_say_nothing_of_their_contents(annotation, why):
    def f(x: annotation) -> None:  # type: ignore[valid-type]
        """F."""

    with pytest.raises(
        ValueError, match=rf"f\(\) cannot be offered in strict mode: parameters\.x: .*{why}"
    ):
        function_to_tool(f, strict=True)
    registry = registered(f)
    with pytest.raises(
        ValueError, match=r"tool 'f' cannot be offered in strict mode: parameters\.x"
    ):
        registry.schemas(strict=True)


# -- docstrings -----------------------------------------------------------------------------------


def test_docstring_of_only_a_raises_section_has_no_description():
    assert parse_docstring("Raises:\n    ValueError: when it is bad.\n").description == ""


class Settings(BaseModel):
    """Interface settings.

    Attributes:
        language: Interface language.
        dark: Dark mode.
    """

    language: str = "zh"
    dark: bool = Field(default=False, description="Use the dark theme")


def test_model_docstring_is_parsed_into_its_summary_and_field_descriptions():
    def configure(settings: Settings) -> None: ...

    schema = parameters_schema(configure)["properties"]["settings"]
    assert schema["description"] == "Interface settings."
    assert schema["properties"]["language"]["description"] == "Interface language."
    assert schema["properties"]["dark"]["description"] == "Use the dark theme"  # Field wins


def test_unhashable_annotated_metadata_is_ignored_and_the_tool_still_validates():
    def total(values: Annotated[list[int], [1, 2], {"k": 1}]) -> int:
        return sum(values)

    assert parameters_schema(total)["properties"]["values"] == {
        "type": "array",
        "items": {"type": "integer"},
    }
    registry = registered(total)
    assert registry.call("total", {"values": [1, 2]}) == "3"
    assert "values" in error_of(registry.call("total", {"values": ["a"]}))


def test_an_unresolvable_annotation_in_a_class_or_a_function_says_the_same_thing():
    """One helper resolves both: the message names the class (or the function) and the name."""

    @dataclasses.dataclass
    class Point:
        x: "Missing"  # noqa: F821

    def place(p: Point) -> None: ...

    def move(x: "Nowhere") -> None: ...  # noqa: F821

    with pytest.raises(TypeError) as in_class:
        parameters_schema(place)
    said = str(in_class.value)
    assert (
        said.startswith("place(): parameter 'p': ")
        and "Point: cannot resolve an annotation: " in said
    )
    assert "'Missing'" in said and "the class's module" in said
    with pytest.raises(TypeError) as in_function:
        parameters_schema(move)
    assert str(in_function.value).startswith("move(): cannot resolve an annotation: ")
    assert "'Nowhere'" in str(in_function.value)
    assert "the function's module" in str(in_function.value)


def test_a_malformed_string_annotation_in_a_class_is_a_type_error():
    @dataclasses.dataclass
    class Broken:
        x: "list[int"  # noqa: F722 (a string annotation that is not Python)

    def use(b: Broken) -> None: ...

    with pytest.raises(TypeError, match=r"Broken: cannot resolve its annotations: SyntaxError"):
        parameters_schema(use)
