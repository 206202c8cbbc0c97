"""Exercise 09.1 ``route``: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import re

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.capstone.policies import CATEGORIES, KEYWORDS, ORDER_ID
from course_lib.checks import EXERCISES, NotDoneYet, evaluate
from course_lib.checks.lesson09._policy_oracles import expected_route

from ._solution import edited, solution

HAS_KEYWORD = "w09-route"


def test_the_solution_passes_every_visible_and_hidden_question():
    assert evaluate("09.1", solution()["route"]) == (
        "Exercise 09.1 passed: route (9 visible and 15 hidden questions)."
    )


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["09.1"]
    assert (spec.notebook, spec.points, spec.targets) == (
        "09_capstone",
        2,
        ("route",),
    )


def test_the_oracle_reads_mixed_english_and_chinese_text_as_the_contract_says():
    assert expected_route("我的order到哪了？") == ["orders"]
    assert expected_route("What does the reorder button cost?") == ["products"]
    assert expected_route("Hello!") == list(CATEGORIES)


def test_the_stub_is_not_done_yet():
    def route(question):
        raise NotImplementedError("Exercise 09.1: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("09.1", route)


def found_in_question_order(question: str) -> list[str]:
    """Categories appended as the question's words are read: right set, wrong order."""
    hits = []
    for category in CATEGORIES:
        for keyword in KEYWORDS[category]:
            pattern = rf"(?<![A-Za-z0-9]){re.escape(keyword)}(?![A-Za-z0-9])"
            match = re.search(pattern if keyword.isascii() else re.escape(keyword), question, re.I)
            if match:
                hits.append((match.start(), category))
    if ORDER_ID.search(question):
        hits.append((ORDER_ID.search(question).start(), "orders"))
    found = []
    for _, category in sorted(hits):
        if category not in found:
            found.append(category)
    return found or list(CATEGORIES)


ASCII = 'pattern = rf"(?<![A-Za-z0-9]){re.escape(keyword)}(?![A-Za-z0-9])"'
SET_START = "    found = {\n        category\n"
WRONG_BY_RULE = {
    "09.1": {
        "list": edited(
            "route",
            (HAS_KEYWORD, "found] or list(CATEGORIES)", "found] or CATEGORIES"),
        ),
        "once": edited(
            "route",
            (
                HAS_KEYWORD,
                "    return [category for category in CATEGORIES if category in found]",
                "    return [c for c in CATEGORIES for k in KEYWORDS[c]"
                " if has_keyword(k, question)] + ['orders'] * bool(ORDER_ID.search(question))",
            ),
        ),
        "order": found_in_question_order,
        "case": edited(
            "route",
            (HAS_KEYWORD, "return re.search(pattern, question, flags=re.IGNORECASE)",
             "return re.search(pattern, question)"),
        ),
        "whole_word": edited(
            "route",
            (HAS_KEYWORD, ASCII, "pattern = re.escape(keyword)"),
        ),
        "chinese": edited(
            "route",
            (HAS_KEYWORD, "    return keyword in question\n",
             "    return keyword in re.split(r\"[\\s?？!！,，。]+\", question)\n"),
        ),
        "mixed": edited(
            "route",
            (HAS_KEYWORD, ASCII, 'pattern = rf"\\b{re.escape(keyword)}\\b"'),
        ),
        "order_id": edited(
            "route",
            (HAS_KEYWORD, '    if ORDER_ID.search(question):\n        found.add("orders")\n', ""),
        ),
        "fallback": edited(
            "route",
            (HAS_KEYWORD, "if category in found] or list(CATEGORIES)", "if category in found]"),
        ),
    }
}  # fmt: skip


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["09.1"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("09.1", rule, WRONG_BY_RULE["09.1"][rule])


def test_a_category_missed_in_a_hidden_question_is_named_with_its_keyword():
    def without_delivery(question):
        return [c for c in solution()["route"](question) if c != "delivery"] or list(CATEGORIES)

    message = rejected("09.1", without_delivery)
    assert "so delivery belongs in the list" in message or "every category" in message


def test_categories_returned_as_one_string_each_letter_are_refused_as_not_names():
    message = rejected("09.1", lambda question: [1])
    assert "Return the categories' names" in message


SEARCH = "return re.search(pattern, question, flags=re.IGNORECASE) is not None"


def test_keywords_looked_up_among_words_split_at_spaces_are_told_about_punctuation():
    split = edited(
        "route", (HAS_KEYWORD, SEARCH, "return keyword.lower() in question.lower().split()")
    )
    message = rejected("09.1", split)
    assert "Case: route('How much is the Longjing tea?')" in message
    assert 'Splitting the question at spaces leaves punctuation on the words ("tea?"' in message


def test_a_keyword_found_at_the_start_of_a_longer_word_is_told_the_word_it_found():
    prefix = edited(
        "route", (HAS_KEYWORD, ASCII, 'pattern = rf"(?<![A-Za-z0-9]){re.escape(keyword)}"')
    )
    message = rejected("09.1", prefix)
    assert "Case: route('Was the summer rainy?')" in message
    assert '"rainy" does not hold the keyword "rain"' in message


def test_a_keyword_inside_a_longer_word_is_told_that_word_and_that_keyword():
    message = rejected("09.1", WRONG_BY_RULE["09.1"]["whole_word"])
    assert '"reorder" does not hold the keyword "order".' in message


def test_word_boundaries_around_chinese_keywords_are_told_why_without_blaming_a_split():
    bounded = edited(
        "route",
        (
            HAS_KEYWORD,
            "    return keyword in question\n",
            '    return re.search(rf"\\b{re.escape(keyword)}\\b", question) is not None\n',
        ),
    )
    message = rejected("09.1", bounded)
    assert "Case: route('我的订单到哪了？')" in message
    assert "\\b sees no boundary between two Chinese characters" in message
    assert "split" not in message


def route_by_words(question):
    """English keywords looked up among the question's words (punctuation stripped): a keyword
    of two words ("how much") is never one of them."""
    words = re.findall(r"[a-z0-9]+", question.lower())
    found = {
        category
        for category in CATEGORIES
        for keyword in KEYWORDS[category]
        if (keyword in words if keyword.isascii() else keyword in question)
    }
    if ORDER_ID.search(question):
        found.add("orders")
    return [category for category in CATEGORIES if category in found] or list(CATEGORIES)


def test_a_keyword_of_two_words_is_matched_as_a_phrase():
    # found by a learner walkthrough: every question holding "how much" held another keyword
    message = rejected("09.1", route_by_words)
    assert "Case: route('so how much for two of them?')" in message
    assert 'breaks the keywords of two words ("how much")' in message


def test_every_category_in_another_order_when_nothing_matched_gets_the_fallback_hint():
    # found by a learner walkthrough: "Hello!" mentions no category, yet the hint spoke of the
    # order "the question mentions them"
    def route_sorted_fallback(question):
        found = solution()["route"](question)
        return sorted(found) if found == list(CATEGORIES) else found

    message = rejected("09.1", route_sorted_fallback)
    assert "Case: route('Hello!')" in message
    assert "No keyword matched: return every category, in the order of CATEGORIES" in message
