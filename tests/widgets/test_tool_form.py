"""ToolForm's model without a browser: controls from the schema, Call through registry.call."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

import ipywidgets as widgets
import pytest

from course_lib.reference import ToolRegistry
from course_lib.widgets import ToolForm
from course_lib.widgets.form_fields import OMIT, FormError


@dataclass
class Point:
    x: int
    y: int


def make_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str, unit: Literal["c", "f"] = "c") -> dict:
        """Get the current weather for a city.

        Args:
            city: The city name.
            unit: c or f.
        """
        if city == "Atlantis":
            raise LookupError("no weather station in Atlantis")
        return {"city": city, "temp": 21 if unit == "c" else 70, "unit": unit}

    @registry.tool
    def search_notes(
        keyword: str,
        limit: int = 5,
        tags: list[str] | None = None,
        exact: bool = False,
        since: int | None = None,
        scores: list[float] | None = None,
        ratio: float = 0.5,
    ) -> dict:
        """Search notes."""
        return {"keyword": keyword, "limit": limit, "tags": tags, "exact": exact, "since": since}

    @registry.tool
    def move(to: Point, label: str | int = "a") -> str:
        """Move to a point."""
        return f"{to.x},{to.y}"

    return registry


def test_each_schema_type_gets_its_control():
    form = ToolForm(make_registry(), "search_notes")
    kinds = {name: type(field.widget) for name, field in form.fields.items()}
    assert kinds == {
        "keyword": widgets.Text,
        "limit": widgets.IntText,
        "tags": widgets.Text,  # comma-separated list
        "exact": widgets.Checkbox,
        "since": widgets.Text,  # nullable number: may stay empty
        "scores": widgets.Text,
        "ratio": widgets.FloatText,
    }


def test_an_enum_is_a_dropdown_of_its_values_starting_at_the_default():
    form = ToolForm(make_registry(), "get_weather")
    unit = form.fields["unit"].widget
    assert isinstance(unit, widgets.Dropdown)
    assert unit.options == ("(empty)", "c", "f")  # optional: may be left out
    assert unit.value == "c"


def test_shapes_without_a_simple_control_become_json_text_areas():
    form = ToolForm(make_registry(), "move")
    assert isinstance(form.fields["to"].widget, widgets.Textarea)  # an object
    assert isinstance(form.fields["label"].widget, widgets.Textarea)  # a union
    form.fill(to={"x": 1, "y": 2})
    form.call_button.click()
    assert form.result == "1,2"


def test_defaults_prefill_the_controls():
    form = ToolForm(make_registry(), "search_notes")
    assert form.fields["limit"].widget.value == 5
    assert form.fields["ratio"].widget.value == 0.5
    assert form.arguments() == {"keyword": "", "limit": 5, "exact": False, "ratio": 0.5}


def test_clicking_call_goes_through_registry_call_and_shows_the_result():
    registry = make_registry()
    form = ToolForm(registry, "get_weather")
    form.fields["city"].widget.value = "北京"
    form.fields["unit"].widget.value = "f"
    form.call_button.click()
    expected = registry.call("get_weather", {"city": "北京", "unit": "f"})
    assert form.result == expected
    assert form.sent == {"city": "北京", "unit": "f"}
    assert "北京" in form.result_view.value and "70" in form.result_view.value
    assert 'call: get_weather({"city": "北京", "unit": "f"})' in form.text()


def test_a_tool_error_comes_back_as_a_result_and_is_shown_as_an_error():
    form = ToolForm(make_registry(), "get_weather")
    form.fill(city="Atlantis")
    form.call_button.click()
    error = json.loads(form.result)
    assert "no weather station in Atlantis" in error["error"]
    assert "course-error" in form.result_view.value
    assert "\nerror:\n" in form.text()


def test_invalid_arguments_are_reported_by_the_registry_not_the_form():
    form = ToolForm(make_registry(), "move")
    form.fill(to={"x": "one", "y": 2})
    form.call()
    assert "to.x" in json.loads(form.result)["problems"][0]


def test_lists_are_split_on_commas_and_numbers_parsed():
    form = ToolForm(make_registry(), "search_notes")
    form.fields["tags"].widget.value = " 北京, travel ,,"
    form.fields["scores"].widget.value = "1.5, 2"
    form.fields["since"].widget.value = "2024"
    assert form.arguments()["tags"] == ["北京", "travel"]
    assert form.arguments()["scores"] == [1.5, 2.0]
    assert form.arguments()["since"] == 2024


def test_optional_fields_left_empty_are_left_out():
    form = ToolForm(make_registry(), "get_weather")
    form.fill(city="Paris", unit=None)
    assert form.fields["unit"].value() is OMIT
    assert form.arguments() == {"city": "Paris"}


def test_text_that_is_not_a_number_stops_the_call_with_a_form_error():
    registry = make_registry()
    form = ToolForm(registry, "search_notes")
    form.fill(keyword="x")
    form.fields["since"].widget.value = "last week"
    assert form.call() is None
    assert form.form_error == "since: 'last week' is not an integer"
    assert "Not called: since" in form.result_view.value
    with pytest.raises(FormError):
        form.arguments()


def test_invalid_json_in_a_json_field_is_a_form_error():
    form = ToolForm(make_registry(), "move")
    form.fields["to"].widget.value = "{x: 1}"
    form.call()
    assert form.form_error.startswith("to: not valid JSON")


def test_a_required_json_field_left_empty_is_a_form_error():
    form = ToolForm(make_registry(), "move")
    form.call()
    assert form.form_error == "to: required, please fill it in"


def test_an_unknown_tool_name_lists_the_tools():
    with pytest.raises(ValueError, match="its tools: get_weather, search_notes, move"):
        ToolForm(make_registry(), "get_wether")


def test_fill_refuses_an_unknown_parameter():
    with pytest.raises(KeyError, match="has no parameter 'town'"):
        ToolForm(make_registry(), "get_weather").fill(town="Paris")


def test_the_text_form_lists_the_parameters_and_the_state():
    form = ToolForm(make_registry(), "get_weather")
    assert form.text() == (
        "ToolForm: get_weather: Get the current weather for a city.\n"
        "  city (string, required): \n"
        "  unit (one of c | f, optional): c\n"
        "result: (press Call)"
    )
    assert repr(form) == form.text()


class LessonRegistry:
    """A registry as a learner writes it in notebook 04: a dict of tools, schemas() and call()."""

    def __init__(self) -> None:
        self.tools = {"shout": lambda text: text.upper()}

    def schemas(self, format: str = "openai") -> list[dict]:
        parameters = {"type": "object", "properties": {"text": {"type": "string"}}}
        return [{"type": "function", "function": {"name": "shout", "parameters": parameters}}]

    def call(self, name: str, arguments: dict) -> str:
        return self.tools[name](**arguments)


def test_any_registry_with_schemas_and_call_works():
    form = ToolForm(LessonRegistry(), "shout")
    form.fill(text="hello 北京")
    form.call_button.click()
    assert form.result == "HELLO 北京"
