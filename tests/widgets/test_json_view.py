"""The JSON line renderer and the difference finder behind SchemaExplorer's comparison."""

from __future__ import annotations

import json

import pytest

from course_lib.widgets.json_view import Difference, differences, is_under, json_html, json_lines

SAMPLES = [
    {},
    [],
    {"a": [1, {"b": None}], "c": {}, "d": [], "城市": "北京", "x.y": True},
    [[1, 2], {"k": [3]}],
    "text",
]


@pytest.mark.parametrize("value", SAMPLES)
def test_json_lines_lay_out_exactly_like_json_dumps_indent_2(value):
    text = "\n".join(line for _, line in json_lines(value))
    assert text == json.dumps(value, indent=2, ensure_ascii=False)


def test_each_line_knows_its_path():
    paths = dict((line.strip(), path) for path, line in json_lines({"a": [1, {"b": 2}], "x.y": 3}))
    assert paths['"b": 2'] == "$.a[1].b"
    assert paths['"x.y": 3'] == '$["x.y"]'


def test_differences_name_missing_extra_and_changed_paths():
    expected = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    got = {"type": "object", "properties": {"a": {"type": "number"}, "b": {}}, "required": []}
    assert differences(expected, got) == [
        Difference("$.properties.a.type", "changed", "integer", "number"),
        Difference("$.properties.b", "extra", got={}),
        Difference("$.required[0]", "missing", expected="a"),
    ]


def test_required_and_type_lists_are_compared_as_sets():
    assert differences({"required": ["a", "b"]}, {"required": ["b", "a"]}) == []
    assert differences({"type": ["string", "null"]}, {"type": ["null", "string"]}) == []
    assert differences({"enum": ["a", "b"]}, {"enum": ["b", "a"]}) != []


def test_json_semantics_true_is_not_one():
    assert differences({"default": 1}, {"default": True}) != []
    assert differences({"default": 1}, {"default": 1}) == []


def test_highlighting_marks_a_path_and_everything_under_it():
    html = json_html({"p": {"q": 1}, "r": 2}, {"$.p"})
    assert html.count('class="course-diff"') == 3  # "p": {, "q": 1, }
    assert is_under("$.p[0].q", {"$.p"}) and not is_under("$.pq", {"$.p"})


def test_json_html_escapes_markup():
    assert "<b>" not in json_html({"d": "<b>bold</b>"})
