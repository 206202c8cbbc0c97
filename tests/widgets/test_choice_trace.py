"""ToolChoiceTrace's model without a browser: scores follow the request, the choice is marked."""

from __future__ import annotations

from course_lib.local_model import explain_choice
from course_lib.reference import ToolRegistry
from course_lib.widgets import ToolChoiceTrace

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
NOTES = {
    "type": "function",
    "function": {
        "name": "search_notes",
        "description": "Search my notes by keyword.",
        "parameters": {"type": "object", "properties": {"keyword": {"type": "string"}}},
    },
}
TOOLS = [WEATHER, NOTES]


def test_the_scores_are_the_local_models_explanation():
    trace = ToolChoiceTrace("What's the weather in Beijing?", TOOLS)
    expected = explain_choice("What's the weather in Beijing?", TOOLS)
    assert trace.scores == expected.scores
    assert trace.chosen == ["get_weather"]


def test_changing_the_request_changes_the_scores_and_the_choice():
    trace = ToolChoiceTrace("What's the weather in Beijing?", TOOLS)
    before = dict(trace.scores)
    trace.request_input.value = "Find my notes about travel"  # what typing does
    assert trace.scores != before
    assert trace.chosen == ["search_notes"]
    assert 'data-tool="search_notes"' in trace.table.value
    assert "calls: search_notes" in trace.table.value


def test_the_chosen_tool_has_a_green_bar_and_a_mark():
    trace = ToolChoiceTrace("What's the weather in Beijing?", TOOLS)
    row = trace.table.value.split('data-tool="get_weather"')[1].split("</tr>")[0]
    assert "✔ called" in row
    other = trace.table.value.split('data-tool="search_notes"')[1].split("</tr>")[0]
    assert "✔ called" not in other


def test_a_request_no_tool_explains_calls_nothing():
    trace = ToolChoiceTrace("Tell me a joke", TOOLS)
    assert trace.chosen == []
    assert "no tool reaches the threshold" in trace.text()


def test_a_vague_description_scores_lower_than_a_clear_one():
    vague = {"type": "function", "function": {**WEATHER["function"], "description": "Does stuff."}}
    clear = ToolChoiceTrace("What's the weather in Beijing?", [WEATHER]).scores["get_weather"]
    blurry = ToolChoiceTrace("What's the weather in Beijing?", [vague]).scores["get_weather"]
    assert blurry < clear


def test_a_registry_can_stand_for_its_tools():
    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        return city

    assert ToolChoiceTrace("weather in Paris?", registry).chosen == ["get_weather"]


def test_the_text_form_is_the_explanation_table():
    trace = ToolChoiceTrace("What's the weather in Beijing?", TOOLS)
    assert trace.text() == "ToolChoiceTrace\n" + str(explain_choice(trace.request, TOOLS))
    assert repr(trace) == trace.text()
