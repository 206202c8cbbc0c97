"""Exercise 01.6: the solution routes every question; a wrong description fails on its rule.

The check computes the routing on its own side from the returned string, so the tests pass
plain strings, exactly what a notebook's ``BETTER_DESCRIPTION`` sends back.
"""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import evaluate
from course_lib.checks.lesson01 import description
from lesson01.notebook import solution


def test_the_solution_routes_every_question():
    assert evaluate("01.6", solution("BETTER_DESCRIPTION")) == (
        "Exercise 01.6 passed: BETTER_DESCRIPTION (18 questions routed)."
    )


def test_the_notebook_shows_the_questions_and_tools_the_check_uses():
    assert solution("ORDER_QUESTIONS") == description.ORDER_QUESTIONS
    assert solution("WEB_QUESTIONS") == description.WEB_QUESTIONS
    assert solution("order_tool")("x") == description.order_tool("x")
    assert solution("SEARCH_WEB_TOOL") == description.SEARCH_WEB_TOOL


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "01.6": {
        "short_string": "Track orders, parcels and packages by their order number. " * 6,
        "orders": "Tracks orders.",
        "web": solution("BETTER_DESCRIPTION") + " Also searches the web for news and facts.",
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["01.6"]))
def test_a_wrong_description_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("01.6", rule, WRONG_BY_RULE["01.6"][rule])


def test_the_vague_description_is_told_to_rewrite_it():
    assert "Rewrite the vague description" in rejected("01.6", "Gets info.")


def test_a_description_in_chinese_only_is_told_the_words_people_use():
    message = rejected("01.6", "追踪订单和快递的物流状态")
    assert "in the words people use" in message
    assert "Where:    explain_choice scores: track_order" in message


def test_a_description_that_claims_web_questions_is_told_so():
    assert "claims web questions too" in rejected("01.6", WRONG_BY_RULE["01.6"]["web"])


def test_an_overlong_description_is_told_to_keep_it_short():
    assert "Keep it short (at most 300 characters)" in rejected(
        "01.6", WRONG_BY_RULE["01.6"]["short_string"]
    )


def test_a_description_that_is_not_a_string_is_told_to_assign_one():
    assert "Assign a string" in rejected("01.6", ["track", "order"])


def test_the_routing_does_not_depend_on_the_notebooks_model(monkeypatch):
    """The check asks its own local model, whatever backend the notebook would use."""
    monkeypatch.setenv("COURSE_BACKEND", "openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert evaluate("01.6", solution("BETTER_DESCRIPTION")).startswith("Exercise 01.6 passed")


def test_a_list_is_shown_as_the_list_it_is_not_as_escaped_text():
    message = rejected("01.6", ["track", "order"])
    assert '"track",' in message and '\\"track\\"' not in message


def test_an_empty_description_is_told_it_is_empty_not_to_assign_a_string():
    message = rejected("01.6", "")
    assert "The string is empty" in message and "Assign a string" not in message


@pytest.mark.parametrize(
    "alternative",
    [
        "我的订单、快递和包裹在哪里: 按订单号查询物流状态、送达时间。Track my order, package or "
        "parcel by its order number: where it is, delivery status, when it will arrive.",
        "Where is my order? Track a package or parcel: delivery status and when it will arrive, "
        "by order number. 订单 快递 包裹 物流状态 到哪里",
    ],
    ids=["chinese_first", "question_words"],
)
def test_correct_descriptions_written_differently_pass(alternative):
    assert evaluate("01.6", alternative).startswith("Exercise 01.6 passed")


def test_a_call_is_shown_with_its_arguments_and_any_arguments_is_shown_without():
    """Expected with None (any arguments will do) names the tool alone; a call made with no
    arguments says ``with {}``, so the learner sees what the model actually sent."""
    assert description.call_text("search_web", None) == "a call to search_web"
    assert description.call_text("track_order", {}) == "a call to track_order with {}"
    shown = description.call_text("track_order", {"order_number": 51234})
    assert shown == 'a call to track_order with {"order_number": 51234}'
