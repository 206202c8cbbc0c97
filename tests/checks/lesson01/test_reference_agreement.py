"""The lesson's hand-written tools say what ``course_lib.reference`` derives from the functions."""

from __future__ import annotations

import pytest

from lesson01.notebook import solution

AGREEMENT_ARGUMENTS = {
    "WEATHER_TOOL": [
        {"city": "北京"},
        {"city": "上海", "unit": "f"},
        {"city": "Paris", "unit": "kelvin"},
        {"unit": "c"},
        {"city": 3},
        {"city": "北京", "country": "CN"},
    ],
    "NOTES_TOOL": [
        {"keyword": "北京"},
        {"keyword": "上海", "limit": 2, "tags": ["travel"]},
        {"keyword": "上海", "tags": None},
        {"keyword": "上海", "limit": 2.5},
        {"keyword": "上海", "tags": [1]},
        {"limit": 3},
        {"keyword": "上海", "folder": "inbox"},
    ],
}


@pytest.mark.parametrize(
    ("target", "function_name"),
    [("WEATHER_TOOL", "get_weather"), ("NOTES_TOOL", "search_notes")],
)
def test_handwritten_tools_accept_what_the_reference_tool_accepts(target, function_name):
    from jsonschema import Draft202012Validator

    from course_lib.reference import function_to_tool

    reference = function_to_tool(solution(function_name))
    handwritten = solution(target)
    assert handwritten["function"]["name"] == reference["function"]["name"]
    assert (
        handwritten["function"]["parameters"]["required"]
        == reference["function"]["parameters"]["required"]
    )
    ours = Draft202012Validator(handwritten["function"]["parameters"])
    theirs = Draft202012Validator(reference["function"]["parameters"])
    for arguments in AGREEMENT_ARGUMENTS[target]:
        assert ours.is_valid(arguments) == theirs.is_valid(arguments), arguments
