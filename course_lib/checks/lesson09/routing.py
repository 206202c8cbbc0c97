"""Exercise 09.1, ``route(question) -> list[str]``: the categories of tools a question needs.

Keywords (``KEYWORDS``) pick categories; an order number picks "orders"; a question without any
keyword gets every category. English keywords are whole words, ignoring case; Chinese ones match
anywhere. Rules, the case that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import re
from random import Random
from typing import Any

from course_lib.capstone.policies import CATEGORIES, KEYWORDS, ORDER_ID
from course_lib.checks.cases import Case, Table
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply
from course_lib.checks.lesson09._policy_oracles import NOTEBOOK, expected_route, keyword_found

TEXTS = Catalog() | {
    "case": "route({question!r})",
    "summary": "{visible} visible and {hidden} hidden questions",
}

# (question, the rule it is about): the visible cases, in the order the check runs them.
VISIBLE = (
    ("How much is the Longjing tea?", "once"),
    ("Will it rain on the delivery of order A1001?", "order"),
    ("PRICE of the Oolong TEA?", "case"),
    ("What does the reorder button cost?", "whole_word"),
    ("so how much for two of them?", "whole_word"),  # a keyword of two words, and no other
    ("我的订单到哪了？", "chinese"),
    ("我的order到哪了？", "mixed"),
    ("Where is A1002?", "order_id"),
    ("Hello!", "fallback"),
)


def case_label(question: str) -> str:
    return TEXTS.text("case", question=question)


def _case_of(rule: str) -> str:
    return case_label(next(question for question, about in VISIBLE if about == rule))


RULES = (
    Rule("list", "Return a list of category names", case=_case_of("fallback"), hint="list"),
    Rule("once", "Each category at most once", case=_case_of("once"), hint="once"),
    Rule("order", "in the order of `CATEGORIES`, whatever order the question mentions them in",
         case=_case_of("order"), hint="order"),
    Rule("case", 'English (ASCII) keywords ignore case: "PRICE" is "price"', case=_case_of("case"),
         hint="case"),
    Rule("whole_word", 'English keywords are whole words: "reorder" does not hold "order"',
         case=_case_of("whole_word"), hint="whole_word"),
    Rule("chinese", 'Chinese keywords match anywhere: "我的订单到哪了" holds "订单"',
         case=_case_of("chinese"), hint="chinese"),
    Rule("mixed", 'An English keyword next to Chinese text still counts: "我的order到哪了" holds '
         '"order"', case=_case_of("mixed"), hint="mixed"),
    Rule("order_id", 'An order number (`ORDER_ID`, for example A1002) picks "orders"',
         case=_case_of("order_id"), hint="order_id"),
    Rule("fallback", "No keyword at all: every category, in order (the model then sees every tool "
         "the role may use)", case=_case_of("fallback"), hint="fallback"),
)  # fmt: skip

HINTS = Catalog() | {
    "list": "Return a list (for example list(CATEGORIES)); this one returned the type {kind}.",
    "not_str": 'Return the categories\' names, strings such as "products".',
    "once": "List each category once, however many of its keywords the question holds.",
    "order": (
        "List the categories in the order of CATEGORIES, not in the order the question "
        "mentions them."
    ),
    "case": 'Compare English keywords ignoring case: "PRICE" is the keyword "price".',
    "whole_word": (
        'An English keyword counts only as a whole word: "{word}" does not hold the keyword '
        '"{keyword}".'
    ),
    "chinese": (
        "Chinese puts no spaces between words, and \\b sees no boundary between two Chinese "
        "characters: look for a Chinese keyword anywhere in the question (keyword in question)."
    ),
    "mixed": (
        "A Latin letter and a Chinese character are both word characters to \\b, so "
        '\\border\\b finds no word boundary in "我的order". Ask for no ASCII letter or digit '
        "around the keyword instead: (?<![A-Za-z0-9]) before it, (?![A-Za-z0-9]) after it."
    ),
    "split": (
        'Splitting the question at spaces leaves punctuation on the words ("tea?" is not '
        '"tea") and breaks the keywords of two words ("how much"): search the question for '
        "each keyword instead, with no ASCII letter or digit on either side: (?<![A-Za-z0-9]) "
        "before it, (?![A-Za-z0-9]) after it."
    ),
    "order_id": 'An order number such as A1002 (ORDER_ID finds it) also picks "orders".',
    "fallback": (
        "No keyword matched: return every category, in the order of CATEGORIES, so the model "
        "still sees every tool the role may use."
    ),
    "missed": "The question holds {found}, so {category} belongs in the list.",
    "extra": "No keyword of {category} is in this question, so it does not belong in the list.",
}
hint = HINTS.hint


def triggers(question: str, category: str) -> list[str]:
    """The keywords of ``category`` the question holds, as the contract reads them."""
    return [keyword for keyword in KEYWORDS[category] if keyword_found(keyword, question)]


# Predictable mistakes, each as the keywords it would miss, in the order they are told: Chinese
# keywords never found; \b around an English one; case kept; the question split at spaces.
MISTAKES = (
    ("chinese", lambda keyword, question: not keyword.isascii()),
    ("mixed", lambda keyword, question: keyword.isascii()
     and re.search(rf"\b{re.escape(keyword)}\b", question, flags=re.IGNORECASE) is None),
    ("case", lambda keyword, question: keyword.isascii()
     and re.search(re.escape(keyword), question) is None),
    ("split", lambda keyword, question: not keyword.isascii()
     or keyword.lower() not in question.lower().split()),
)  # fmt: skip


def missed_hint(question: str, category: str) -> HintText:
    """Why ``category``, which the question needs, was missed: the first predictable mistake
    that misses every keyword behind it (missing only some would still have found it), else
    the keywords themselves."""
    found = triggers(question, category)
    if not found:
        return hint("order_id") if ORDER_ID.search(question) else hint("fallback")
    for key, misses in MISTAKES:
        if all(misses(keyword, question) for keyword in found):
            return hint(key)
    return hint("missed", found=", ".join(map(repr, found)), category=category)


def explain(question: str, expected: list[str], got: list[str]) -> HintText:
    """The hint for a wrong list: the first mistake its difference from ``expected`` shows."""
    if len(set(got)) < len(got):
        return hint("once")
    if sorted(got) == sorted(expected):
        found = any(triggers(question, category) for category in CATEGORIES)
        return hint("order") if found or ORDER_ID.search(question) else hint("fallback")
    if not got:
        return hint("fallback")
    if got == list(CATEGORIES):  # nothing was found, so every category came back
        return missed_hint(question, expected[0])
    if expected == list(CATEGORIES):  # nothing to find, yet some categories were found
        return extra_hint(question, got[0])
    missed = [category for category in expected if category not in got]
    if missed:
        return missed_hint(question, missed[0])
    extra = [category for category in got if category not in expected]
    return extra_hint(question, extra[0]) if extra else hint("fallback")


def extra_hint(question: str, category: str) -> HintText:
    """Why ``category``, which the question does not need, was listed: one of its English
    keywords inside a longer word, else simply that none of its keywords is there."""
    for keyword in (k for k in KEYWORDS[category] if k.isascii()):
        inside = re.search(rf"[A-Za-z0-9]*{re.escape(keyword)}[A-Za-z0-9]*", question, re.I)
        if inside is not None and inside.group().lower() != keyword.lower():
            return hint("whole_word", word=inside.group(), keyword=keyword)
    return hint("extra", category=category)


# Hidden questions that hold keywords only as the start of longer words: nothing to match.
PREFIXES_ONLY = ("Was the summer rainy?",)


def hidden_questions(rng: Random, count: int = 14) -> list[str]:
    """Questions built from keywords of one to three categories, in English and Chinese, in
    any order and case, sometimes with an order number, sometimes with nothing to match; and a
    question whose words only start with keywords."""
    fillers = ("Hi, quick question:", "请问", "Could you tell me", "我想知道", "Hey")
    questions = []
    for _ in range(count):
        words = [rng.choice(KEYWORDS[c]) for c in rng.sample(CATEGORIES, rng.randint(0, 3))]
        words = [w.upper() if w.isascii() and rng.random() < 0.3 else w for w in words]
        if rng.random() < 0.3:
            words.append(f"A{rng.randint(1000, 9999)}")
        rng.shuffle(words)
        glue = rng.choice((" ", "、", " and ", "和"))
        questions.append(f"{rng.choice(fillers)} {glue.join(words)}?" if words else "你好！")
    return [*questions, *PREFIXES_ONLY]


def judge_route(case: Case, got: Any, reply: Reply) -> None:
    """A list of category names, the oracle's; else the hint its difference shows."""
    __tracebackhide__ = True
    if reply.type != "list":
        shown = Plain(reply.data.get("repr", "")) if got is None else got
        fail(case.label, case.expected, shown, hint("list", kind=reply.type))
    if not all(isinstance(item, str) for item in got):
        fail(case.label, case.expected, got, hint("not_str"))
    if got != case.expected:
        expect_equal(case.label, case.expected, got, hint=explain(case.args[0], case.expected, got))


TABLE = Table("route", RULES, HINTS, oracle=expected_route, judge=judge_route)


@exercise("09.1", notebook=NOTEBOOK, title="route", points=2, rules=RULES, hints=HINTS)
def check_route(learner: Learner) -> str:
    hidden = hidden_questions(hidden_rng("09.2"))  # the seed of its first number: same cases
    visible = [TABLE.case(case_label(question), question, rule=rule) for question, rule in VISIBLE]
    TABLE.run(learner, [*visible, *(TABLE.case(case_label(q), q) for q in hidden)])
    return TEXTS.text("summary", visible=len(VISIBLE), hidden=len(hidden))
