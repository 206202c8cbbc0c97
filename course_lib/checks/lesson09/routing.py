"""Exercise 09.2, ``route(question) -> list[str]``: the categories of tools a question needs.

Keywords (``KEYWORDS``) pick categories; an order number picks "orders"; a question without any
keyword gets every category. English keywords are whole words, ignoring case; Chinese ones match
anywhere. Rules, the case that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import re
from random import Random

from course_lib.capstone.policies import CATEGORIES, KEYWORDS, ORDER_ID
from course_lib.checks.compare import HintText, Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson09._shared import NOTEBOOK, expected_route, keyword_found

TEXTS = {
    "case": "route({question!r})",
    "a_list": "a list",
    "summary": "{visible} visible and {hidden} hidden questions",
}

# (question, the rule it is about): the visible cases, in the order the check runs them.
VISIBLE = (
    ("How much is the Longjing tea?", "once"),
    ("Will it rain on the delivery of order A1001?", "order"),
    ("PRICE of the Oolong TEA?", "case"),
    ("What does the reorder button cost?", "whole_word"),
    ("我的订单到哪了？", "chinese"),
    ("我的order到哪了？", "mixed"),
    ("Where is A1002?", "order_id"),
    ("Hello!", "fallback"),
)


def case_label(question: str) -> str:
    return TEXTS["case"].format(question=question)


def _case_of(rule: str) -> str:
    return case_label(next(question for question, about in VISIBLE if about == rule))


RULES = (
    Rule("list", "Return a list of category names.", case=_case_of("fallback"), hint="list"),
    Rule("once", "Each category once.", case=_case_of("once"), hint="once"),
    Rule("order", "In the order of CATEGORIES.", case=_case_of("order"), hint="order"),
    Rule("case", "English keywords ignore case.", case=_case_of("case"), hint="case"),
    Rule("whole_word", "English keywords are whole words.", case=_case_of("whole_word"),
         hint="whole_word"),
    Rule("chinese", "Chinese keywords match anywhere.", case=_case_of("chinese"), hint="chinese"),
    Rule("mixed", "An English keyword next to Chinese text still matches.",
         case=_case_of("mixed"), hint="mixed"),
    Rule("order_id", "An order number picks orders.", case=_case_of("order_id"), hint="order_id"),
    Rule("fallback", "No keyword at all: every category.", case=_case_of("fallback"),
         hint="fallback"),
)  # fmt: skip

HINTS = {
    "list": "Return a list (for example list(CATEGORIES)), not a {kind}.",
    "not_str": 'Return the categories\' names, strings such as "products".',
    "once": "List each category once, however many of its keywords the question holds.",
    "order": (
        "List the categories in the order of CATEGORIES, not in the order the question "
        "mentions them."
    ),
    "case": 'Compare English keywords ignoring case: "PRICE" is the keyword "price".',
    "whole_word": (
        'An English keyword counts only as a whole word: "reorder" does not hold the keyword '
        '"order", "cost" is still a keyword.'
    ),
    "chinese": (
        "Chinese puts no spaces between words: look for a Chinese keyword anywhere in the "
        "question (keyword in question), not among words split at spaces."
    ),
    "mixed": (
        "A Latin letter and a Chinese character are both word characters to \\b, so "
        '\\border\\b finds no word boundary in "我的order". Ask for no ASCII letter or digit '
        "around the keyword instead: (?<![A-Za-z0-9]) before it, (?![A-Za-z0-9]) after it."
    ),
    "order_id": 'An order number such as A1002 (ORDER_ID finds it) also picks "orders".',
    "fallback": (
        "No keyword matched: return every category, in the order of CATEGORIES, so the model "
        "still sees every tool the role may use."
    ),
    "missed": "The question holds {found}, so {category} belongs in the list.",
    "extra": "No keyword of {category} is in this question, so it does not belong in the list.",
}


def hint(key: str, **fields: object) -> HintText:
    return HintText.of(HINTS, key, **fields)


def triggers(question: str, category: str) -> list[str]:
    """The keywords of ``category`` the question holds, as the contract reads them."""
    return [keyword for keyword in KEYWORDS[category] if keyword_found(keyword, question)]


def missed_hint(question: str, category: str) -> HintText:
    """Why ``category``, which the question needs, was missed: the first keyword behind it that
    a predictable mistake misses, else the keywords themselves."""
    found = triggers(question, category)
    if not found:
        return hint("order_id") if ORDER_ID.search(question) else hint("fallback")
    for keyword in found:
        if not keyword.isascii():
            return hint("chinese")
        if re.search(rf"\b{re.escape(keyword)}\b", question, flags=re.IGNORECASE) is None:
            return hint("mixed")
        if re.search(re.escape(keyword), question) is None:
            return hint("case")
    return hint("missed", found=", ".join(map(repr, found)), category=category)


def explain(question: str, expected: list[str], got: list[str]) -> HintText:
    """The hint for a wrong list: the first mistake its difference from ``expected`` shows."""
    if len(set(got)) < len(got):
        return hint("once")
    if sorted(got) == sorted(expected):
        return hint("order")
    if not got:
        return hint("fallback")
    if got == list(CATEGORIES):  # nothing was found, so every category came back
        return missed_hint(question, expected[0])
    missed = [category for category in expected if category not in got]
    if missed and len(missed) < len(CATEGORIES):
        return missed_hint(question, missed[0])
    extra = [category for category in got if category not in expected]
    lowered = question.lower()
    if extra and any(k.isascii() and k.lower() in lowered for k in KEYWORDS[extra[0]]):
        return hint("whole_word")
    if extra:
        return hint("extra", category=extra[0])
    return hint("fallback")


def hidden_questions(rng: Random, count: int = 14) -> list[str]:
    """Questions built from keywords of one to three categories, in English and Chinese, in
    any order and case, sometimes with an order number, sometimes with nothing to match."""
    fillers = ("Hi, quick question:", "请问", "Could you tell me", "我想知道", "Hey")
    questions = []
    for _ in range(count):
        categories = rng.sample(CATEGORIES, rng.randint(0, 3))
        words = [rng.choice(KEYWORDS[c]) for c in categories]
        words = [w.upper() if w.isascii() and rng.random() < 0.3 else w for w in words]
        if rng.random() < 0.3:
            words.append(f"A{rng.randint(1000, 9999)}")
        rng.shuffle(words)
        glue = rng.choice((" ", "、", " and ", "和"))
        questions.append(f"{rng.choice(fillers)} {glue.join(words)}?" if words else "你好！")
    return questions


@exercise("09.2", notebook=NOTEBOOK, title="route", points=2, targets=("route",), rules=RULES)
def check_route(learner: Learner) -> str:
    hidden = hidden_questions(hidden_rng("09.2"))
    for question in [*(question for question, _ in VISIBLE), *hidden]:
        case = case_label(question)
        got = learner.call("route", question, case=case)
        expected = expected_route(question)
        if got.type != "list":
            shown = Plain(got.data.get("repr", "")) if got.value is None else got.value
            fail(case, expected, shown, hint("list", kind=got.type))
        if not all(isinstance(item, str) for item in got.value):
            fail(case, expected, got.value, hint("not_str"))
        if got.value != expected:
            expect_equal(case, expected, got.value, hint=explain(question, expected, got.value))
    return TEXTS["summary"].format(visible=len(VISIBLE), hidden=len(hidden))
