"""The conversations of exercise 09.5 and the oracle that fits them to a budget.

A conversation is a system prompt (usually), earlier exchanges (a user message and everything
up to the next one: plain answers, or tool calls with their results), then the current
question, sometimes already answering its calls. Budgets are derived from the conversation's
own sizes, so each case lands where it means to: exactly at the total, one character over, just
enough for the newest exchange, below what must stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

from course_lib.capstone.conversation import message_size
from course_lib.checks.compare import hidden_rng
from course_lib.i18n import translate

SYSTEM = {"role": "system", "content": "You are the assistant of a small tea shop."}
QUESTIONS = (
    "How much is the Longjing tea?",
    "龙井绿茶多少钱？",
    "Where is my order A1001?",
    "明天北京会下雨吗？",
    "What do customers say about the jasmine tea?",
    "订单A1002能取消吗？",
)


def user(question: str) -> dict:
    return {"role": "user", "content": question}


def plain(question: str, answer: str) -> list[dict]:
    return [user(question), {"role": "assistant", "content": answer}]


def with_tools(question: str, call_id: str, results: list[str], answer: str | None) -> list[dict]:
    """A user question, one assistant message with a call per result, their tool messages,
    then the answer (``None``: the exchange is still going, its calls answered)."""
    calls: list[dict] = []
    messages = [user(question), {"role": "assistant", "content": None, "tool_calls": calls}]
    for n, result in enumerate(results):
        function = {"name": "search_products", "arguments": f'{{"query": "q{n}"}}'}
        calls.append({"id": f"{call_id}_{n}", "type": "function", "function": function})
        messages.append({"role": "tool", "tool_call_id": f"{call_id}_{n}", "content": result})
    if answer is not None:
        messages.append({"role": "assistant", "content": answer})
    return messages


def blocks(messages: list[dict]) -> tuple[list[dict], list[list[dict]], list[dict]]:
    """The leading system messages, the earlier exchanges, and the current one (from the last
    user message on)."""
    start = next((i for i, m in enumerate(messages) if m.get("role") != "system"), len(messages))
    users = [i for i, m in enumerate(messages) if m.get("role") == "user" and i >= start]
    last = users[-1] if users else len(messages)
    cuts = [start, *[i for i in users if i > start and i < last], last]
    exchanges = [messages[a:b] for a, b in zip(cuts, cuts[1:], strict=False) if b > a]
    return messages[:start], exchanges, messages[last:]


def size(messages: list[dict]) -> int:
    return sum(message_size(message) for message in messages)


def expected_fit(messages: list[dict], budget: int) -> list[dict]:
    """09.5's oracle: drop whole earlier exchanges, oldest first, until the rest fits; the
    system prompt and the current exchange always stay."""
    head, exchanges, current = blocks(messages)
    kept = list(exchanges)
    while kept and size(head) + sum(size(e) for e in kept) + size(current) > budget:
        kept.pop(0)
    return [*head, *(m for e in kept for m in e), *current]


# What each case is about: the comment of its label (``Case.about`` is the key).
ABOUT_TEXTS = {
    "exact": "exactly the budget",
    "one_over": "one character over",
    "newest_only": "room for the newest exchange only",
    "current_over": "the current question has its results, and even they are over",
    "nothing_fits": "not even what must stay fits",
    "no_system": "no system prompt",
    "hidden": "hidden",
}


@dataclass(frozen=True)
class Case:
    messages: list[dict]
    budget: int
    about: str

    @property
    def label(self) -> str:
        return f"fit_budget(messages, {self.budget})  # {translate(ABOUT_TEXTS, self.about)}"


def visible_cases() -> list[Case]:
    review = "Lovely scent, a little sweet. " * 6
    earlier = [
        *plain("Hello!", "你好！How can I help?"),
        *with_tools("Prices of our green teas?", "call_a", [review, "龙井 68 CNY"], "龙井 68 CNY."),
        *plain("谢谢！", "不客气。"),
    ]
    conversation = [SYSTEM, *earlier, user("Where is my order A1001?")]
    total = size(conversation)
    head, exchanges, current = blocks(conversation)
    going = [SYSTEM, *earlier, *with_tools("Is it raining in 北京?", "call_b", ["小雨"], None)]
    return [
        Case(conversation, total, "exact"),
        Case(conversation, total - 1, "one_over"),
        Case(conversation, size(head) + size(exchanges[-1]) + size(current), "newest_only"),
        Case(going, size(head) + size(going[-3:]) - 1, "current_over"),
        Case(conversation, size(head) + size(current) - 1, "nothing_fits"),
        Case(conversation[1:], size(conversation[1:]) - 1, "no_system"),
    ]


def hidden_cases(count: int = 12) -> list[Case]:
    rng = hidden_rng("09.5")
    return [hidden_case(rng) for _ in range(count)]


def hidden_case(rng: Random) -> Case:
    messages = [SYSTEM] if rng.random() < 0.8 else []
    for n in range(rng.randint(1, 5)):
        question = rng.choice(QUESTIONS)
        if rng.random() < 0.5:
            messages += plain(question, rng.choice(["好的。", "Here you are.", "明天有小雨。"]) * 3)
        else:
            results = [rng.choice(["龙井 68 CNY", "晴 sunny", "x" * rng.randint(20, 300)])
                       for _ in range(rng.randint(1, 3))]  # fmt: skip
            messages += with_tools(question, f"call_{n}", results, rng.choice(["OK.", "好。"]))
    if rng.random() < 0.3:
        messages += with_tools(rng.choice(QUESTIONS), "call_now", ["结果"], None)
    else:
        messages.append(user(rng.choice(QUESTIONS)))
    head, exchanges, current = blocks(messages)
    least, total = size(head) + size(current), size(messages)
    budget = rng.choice([total, total - 1, rng.randint(max(least - 20, 1), total), least])
    return Case(messages, budget, "hidden")
