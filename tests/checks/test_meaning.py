"""``course_lib.checks.meaning``: a message says a problem in English or in Chinese, and a
message that does not say it is still caught."""

from __future__ import annotations

import pytest

from course_lib.checks.meaning import first_unsaid, names, says, shown


@pytest.mark.parametrize(
    ("message", "concept"),
    [
        ("city: missing required argument", "missing"),
        ("缺少必要参数 city", "missing"),
        ("未知参数 country", "unexpected"),
        ("country: unexpected parameter", "unexpected"),
        ("参数必须是一个 JSON 对象", "object"),
        ("The arguments must be a JSON object.", "object"),
        ("参数不是合法的 JSON", "JSON"),
        ("应为整数或 null", "integer"),
        ("应为整数或 null", "null"),
        ("should be a String", "string"),
    ],
)
def test_a_message_says_a_concept_in_either_language(message, concept):
    assert says(message, concept)


@pytest.mark.parametrize(
    ("message", "concept"),
    [
        ("city: 请检查", "missing"),
        ("必须改正", "object"),
        ("must be a dict", "object"),
        ("应为整数", "number"),
        ("could not be read", "JSON"),
    ],
)
def test_a_message_that_does_not_say_the_concept_is_caught(message, concept):
    assert not says(message, concept)


def test_a_word_that_is_no_concept_must_appear_as_it_is():
    assert says('应为以下之一："c"、"f"', '"c"')
    assert first_unsaid('one of "c"', ('"c"', '"f"')) == '"f"'


def test_a_name_is_found_as_a_whole_identifier_beside_chinese_text():
    assert names("缺少必要参数city", "city")
    assert names("stops[0].city: missing", "city")
    assert not names("velocity: missing", "city")


def test_a_concept_is_shown_with_its_chinese_spelling():
    assert shown("missing") == "missing (缺少)"
    assert shown('"c"') == '"c"'
