"""Filling arguments from the request text: numbers wherever a sentence puts them."""

import pytest

from course_lib.local_model.arguments import fill_arguments

NOTES = {
    "name": "search_notes",
    "parameters": {
        "type": "object",
        "properties": {"keyword": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["keyword"],
    },
}


@pytest.mark.parametrize(
    "request_text, limit",
    [
        ("Search my notes for 豆腐, at most 2.", 2),
        ("Search my notes for 豆腐, at most 2", 2),
        ("Search my notes for tofu (limit 4).", 4),
        ("Search my notes for tofu, limit 7!", 7),
    ],
)
def test_a_number_ending_a_sentence_is_still_found(request_text, limit):
    assert fill_arguments(NOTES, request_text).calls[0]["limit"] == limit


def test_a_dotted_version_is_not_read_as_a_number():
    filled = fill_arguments(NOTES, "Search my notes for release 1.2.3")
    assert "limit" not in filled.calls[0]


ORDER = {
    "name": "order_status",
    "parameters": {
        "type": "object",
        "properties": {"order_id": {"type": "string", "description": "The order number."}},
        "required": ["order_id"],
    },
}


@pytest.mark.parametrize(
    "request_text, order_id",
    [
        ("Where is my order A1001?", "A1001"),
        ("我的订单A1002到哪了？", "A1002"),
        ('Add a note to order A1003: "call first"', "A1003"),
        ("Where is SKU-42 now?", "SKU-42"),
    ],
)
def test_an_identifier_parameter_takes_the_code_written_in_the_request(request_text, order_id):
    assert fill_arguments(ORDER, request_text).calls == [{"order_id": order_id}]


def test_an_identifier_parameter_without_a_code_in_the_request_is_missing_not_guessed():
    filled = fill_arguments(ORDER, "Where is my order?")
    assert filled.missing == ["order_id"]


def test_a_plain_word_or_number_is_not_an_identifier():
    assert fill_arguments(ORDER, "Where is order 2024 of Alice?").missing == ["order_id"]


DAY = {
    "name": "delivery_weather",
    "parameters": {
        "type": "object",
        "properties": {"day": {"type": "string", "enum": ["today", "tomorrow"]}},
    },
}


@pytest.mark.parametrize(
    "request_text, day", [("明天北京的天气", "tomorrow"), ("今天呢？", "today")]
)
def test_chinese_today_and_tomorrow_choose_their_enum_members(request_text, day):
    assert fill_arguments(DAY, request_text).calls == [{"day": day}]
