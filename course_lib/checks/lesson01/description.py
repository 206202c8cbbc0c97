"""Exercise 01.6, ``BETTER_DESCRIPTION``: a description of ``track_order`` that routes order
questions to it while a decoy tool, ``search_web``, is present.

Only the string travels: the check builds the tools from it on its own side and asks its own
local model (``HeuristicPolicy``, the default toy model) every question, so nothing the notebook
does to its model or client decides the routing. The notebook shows the same tools and visible
questions; a test keeps the two copies equal. Rules: see ``RULES``.
"""

from __future__ import annotations

import json
from random import Random

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail, hidden_rng, show
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson01._values import NOTEBOOK, chat_tool, value_of

VAGUE_DESCRIPTION = "Gets info."
MAX_DESCRIPTION_CHARS = 300
CHECK_MODEL = "toy-check-model"

# Every other phrase this check shows: case labels, what was expected or found, where.
TEXTS = Catalog() | {
    "case_question": "the question {question}",
    "a_string": "a non-empty str",
    "a_better_one": "a better description",
    "at_most": "at most {limit} characters",
    "characters": "{count} characters",
    "call": "a call to {name}",
    "call_with": "a call to {name} with {arguments}",
    "no_call": "no call, the text {text}",
    "scores": "explain_choice scores: {scores}",
    "summary": "{count} questions routed",
}


text = TEXTS.text


def question_label(question: str) -> str:
    return text("case_question", question=repr(question))


RULES = (
    Rule("short_string",
         f"the description is a string of at most {MAX_DESCRIPTION_CHARS} characters",
         case="BETTER_DESCRIPTION", hint="too_long"),
    Rule("orders", "every question in `ORDER_QUESTIONS`, and each of the check's hidden ones "
         "(other order numbers, asked with the same kinds of words: order, package, parcel, track, "
         "where, delivery status, arrive; 订单, 快递, 包裹, 物流状态, 到哪里), goes to "
         "`track_order` with the right `order_number`",
         case=question_label("Where is my order 51234?"), hint="order_words"),
    Rule("web", "every question in `WEB_QUESTIONS`, and the hidden web searches (news, facts, "
         "opening hours), still goes to `search_web`",
         case=question_label("Search the web for news about 上海"), hint="claims_web"),
)  # fmt: skip

HINTS = Catalog() | {
    "not_str": "Assign a string: the description itself, not a list or another value.",
    "empty": "The string is empty: write the description of track_order in it.",
    "vague": "Rewrite the vague description: say what track_order does and when to use it.",
    "too_long": (
        "Keep it short (at most {limit} characters): say what the tool does and when to use "
        "it, in a sentence or two."
    ),
    "order_words": (
        "Describe what track_order is for in the words people use in such questions (order, "
        "package, parcel, delivery status, where, arrive; 订单, 快递, 包裹, 物流). Try "
        "explain_choice(question, [order_tool(BETTER_DESCRIPTION), SEARCH_WEB_TOOL])."
    ),
    "claims_web": (
        "Your description now claims web questions too: describe only what track_order does, "
        "so search_web keeps the questions it is for."
    ),
}


hint = HINTS.hint


SEARCH_WEB_TOOL = chat_tool(
    "search_web",
    "Search the web for anything: news, facts, prices, shipping times, opening hours.",
    {"query": {"type": "string", "description": "What to search for"}},
    ["query"],
)
ORDER_QUESTIONS = [
    "Where is my order 51234?",
    "Track my parcel 88812, please.",
    "What is the delivery status of order 40017?",
    "When will package 77001 arrive?",
    "我的订单 51234 到哪里了?",
    "快递 88812 的物流状态是什么?",
]
WEB_QUESTIONS = [
    "Search the web for news about 上海",
    "What are the opening hours of the 北京 zoo?",
    "Find facts about the Great Wall",
]
HIDDEN_ORDER_TEMPLATES = [
    "Where is order {n} now?",
    "Please track package {n} for me.",
    "Delivery status of my parcel {n}?",
    "When does my order {n} arrive?",
    "订单 {n} 到哪里了?",
    "包裹 {n} 的物流状态",
]
HIDDEN_WEB_QUESTIONS = [
    "Search the web for facts about 上海",
    "Find news about the 北京 marathon",
    "What are the opening hours of the Louvre?",
]


def order_tool(description: str) -> dict:
    """The Chat Completions tool for ``track_order(order_number: int)`` with ``description``."""
    order_number = {"type": "integer", "description": "The order number, e.g. 51234"}
    return chat_tool("track_order", description, {"order_number": order_number}, ["order_number"])


def routing_cases(rng: Random) -> list[tuple[str, str, dict | None]]:
    """(question, expected tool, expected arguments or None when any arguments will do)."""
    cases: list[tuple[str, str, dict | None]] = []
    for question in ORDER_QUESTIONS:
        number = int("".join(ch for ch in question if ch.isdigit()))
        cases.append((question, "track_order", {"order_number": number}))
    cases += [(question, "search_web", None) for question in WEB_QUESTIONS]
    for template in HIDDEN_ORDER_TEMPLATES:
        number = rng.randint(10000, 99999)
        cases.append((template.format(n=number), "track_order", {"order_number": number}))
    cases += [(question, "search_web", None) for question in HIDDEN_WEB_QUESTIONS]
    return cases


def routed(client: object, question: str, tools: list[dict]) -> tuple[list, str | None]:
    """The calls (name, arguments) the check's local model makes for ``question``, and its text."""
    reply = client.chat.completions.create(
        model=CHECK_MODEL, messages=[{"role": "user", "content": question}], tools=tools
    )
    message = reply.choices[0].message
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
    return calls, message.content


def expect_text(description: object) -> str:
    __tracebackhide__ = True
    case = "BETTER_DESCRIPTION"
    if not isinstance(description, str) or not description.strip():
        key = "empty" if isinstance(description, str) else "not_str"
        fail(case, Plain(text("a_string")), Plain(show(description, limit=120)), hint(key))
    if description.strip() == VAGUE_DESCRIPTION:
        fail(case, Plain(text("a_better_one")), description, hint("vague"))
    limit = MAX_DESCRIPTION_CHARS
    if len(description) > limit:
        wanted, got = text("at_most", limit=limit), text("characters", count=len(description))
        fail(case, Plain(wanted), Plain(got), hint("too_long", limit=limit))
    return description


@exercise("01.6", notebook=NOTEBOOK, title="BETTER_DESCRIPTION", points=2, rules=RULES)
def check_better_description(learner: Learner) -> str:
    from course_lib.local_model import HeuristicPolicy, explain_choice, make_client

    description = expect_text(value_of(learner, "BETTER_DESCRIPTION"))
    tools = [order_tool(description), SEARCH_WEB_TOOL]
    client = make_client(HeuristicPolicy())  # a policy given: always the local model
    cases = routing_cases(hidden_rng("01.6"))
    for question, wanted, arguments in cases:
        calls, said = routed(client, question, tools)
        if calls and calls[0][0] == wanted and (arguments is None or calls[0][1] == arguments):
            continue
        expected = call_text(wanted, arguments)
        got = call_text(*calls[0]) if calls else text("no_call", text=repr(said))
        scores = explain_choice(question, tools).scores
        where = text("scores", scores=", ".join(f"{n} {s:.2f}" for n, s in scores.items()))
        key = "order_words" if wanted == "track_order" else "claims_web"
        fail(question_label(question), Plain(expected), Plain(got), hint(key), where=where)
    return text("summary", count=len(cases))


def call_text(name: str, arguments: dict | None) -> str:
    """A call as Expected or Got show it: with its arguments as one line of JSON (``None``: any
    arguments will do); a call made with ``{}`` says so."""
    if arguments is None:
        return text("call", name=name)
    return text("call_with", name=name, arguments=json.dumps(arguments, ensure_ascii=False))
