"""Exercise 09.5, ``fit_budget(messages, budget) -> list[dict]``: what to drop when the
history grows past the context budget.

The learner's function gets each conversation as a list kept beside their code, so the check
can read it back afterwards (it must not change). The answer is compared with the oracle
(``cases.expected_fit``); when it differs, the hint names the first rule the answer
breaks, found from the answer itself: a system prompt gone, the current exchange cut, a tool
message without its call, a newer exchange dropped before an older one, more dropped than
needed, a message changed.
"""

from __future__ import annotations

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, expect_equal, fail
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson09._policy_oracles import NOTEBOOK
from course_lib.checks.lesson09.budget.cases import (
    Case,
    blocks,
    expected_fit,
    hidden_cases,
    size,
    visible_cases,
)

TEXTS = Catalog() | {
    "unchanged": "the list you were given, unchanged",
    "a_list": "a list of messages",
    "lonely": "a call or a result without the other ({call_id})",
    "partial": "part of the exchange that starts with {question!r}",
    "summary": "{visible} visible and {hidden} hidden conversations",
}
text = TEXTS.text


CASES = [case.label for case in visible_cases()]
RULES = (
    Rule("fits", "Within the budget (`<=`): every message", case=CASES[0], hint="fits"),
    Rule("new_list", "Return a new list; never change the one given", case=CASES[1],
         hint="new_list"),
    Rule("system", 'Never drop the system prompt (the leading `"system"` messages)', case=CASES[1],
         hint="system"),
    Rule("oldest", "Drop the oldest exchanges first", case=CASES[1], hint="oldest"),
    Rule("whole", "Drop whole exchanges (a user message and every message up to the next user "
         "message), so a call never loses its results", case=CASES[1], hint="whole"),
    Rule("as_little", "and stop as soon as the rest fits", case=CASES[1], hint="as_little"),
    Rule("unchanged", "Keep each message as it is: never cut its text", case=CASES[1],
         hint="unchanged"),
    Rule("current", "Never drop the last user message, or anything after it", case=CASES[3],
         hint="current"),
    Rule("must_keep", "If what must stay is over the budget on its own, return just that",
         case=CASES[3], hint="must_keep"),
)  # fmt: skip

HINTS = Catalog() | {
    "returns_list": "fit_budget returns a list of messages (got a {kind}).",
    "fits": (
        "This history is within the budget (its size is at most {budget}: <=, not <), so "
        "nothing is dropped: return every message."
    ),
    "new_list": (
        "fit_budget changed the list it was given: build a new list and leave the caller's "
        "history as it was (it is the assistant's memory)."
    ),
    "system": (
        "The system prompt was dropped: it stays first, whatever the budget (it says who the "
        "assistant is and what it must never do)."
    ),
    "current": (
        "The question being answered now was cut: keep the last user message and every "
        "message after it (its calls and their results)."
    ),
    "whole": (
        "The history keeps {problem}: drop whole exchanges (a user message and everything up "
        "to the next one), so a call never loses its results (the API refuses that)."
    ),
    "oldest": (
        "A newer exchange was dropped while an older one stayed: drop the oldest exchanges first."
    ),
    "as_little": (
        "More was dropped than needed: stop as soon as the rest fits the budget ({budget}), "
        "so the assistant remembers as much as it can."
    ),
    "unchanged": (
        "A message kept was changed: keep each message as it is (drop whole exchanges "
        "instead of cutting their text)."
    ),
    "must_keep": (
        "The system prompt and the current exchange alone are over the budget: return them "
        "anyway (never raise, never drop them); the model can still answer."
    ),
    "generic": "Drop whole exchanges, oldest first, until the rest fits; keep the rest unchanged.",
}
hint = HINTS.hint


def orphan(messages: list[dict]) -> str | None:
    """A tool message whose call is not there, or a call whose result is not: which one."""
    calls = {c.get("id") for m in messages for c in m.get("tool_calls") or []}
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    lonely = sorted(answered - calls) or sorted(calls - answered)
    return lonely[0] if lonely else None


def diagnose(case: Case, got: list, expected: list[dict], must_keep: bool) -> HintText:
    """The hint for an answer that differs from the oracle's: the first rule it breaks."""
    head, exchanges, current = blocks(case.messages)
    if any(m not in case.messages for m in got):
        return hint("unchanged")
    if must_keep and not any(m in got for m in [*head, *current]):  # gave up: kept nothing
        return hint("must_keep")
    if head and got[: len(head)] != head:
        return hint("system")
    if got[len(got) - len(current) :] != current:
        return hint("current")
    if must_keep:
        return hint("must_keep")
    if expected == case.messages:
        return hint("fits", budget=case.budget)
    lonely = orphan(got)
    if lonely is not None:
        return hint("whole", problem=text("lonely", call_id=lonely))
    partial = next((e for e in exchanges if any(m in got for m in e) != all(m in got for m in e)),
                   None)  # fmt: skip
    if partial is not None:
        return hint("whole", problem=text("partial", question=partial[0].get("content")))
    middle = got[len(head) : len(got) - len(current)]
    kept = [i for i, e in enumerate(exchanges) if e[0] in middle]
    if kept and kept != list(range(kept[0], len(exchanges))):
        return hint("oldest")
    if size(got) < size(expected):
        return hint("as_little", budget=case.budget)
    return hint("generic")


def run_case(learner: Learner, case: Case) -> None:
    __tracebackhide__ = True
    kept = learner.run("", result="list(messages)", bind={"messages": case.messages}, keep=True)
    history = learner.handle(kept.handle)
    head, _, current = blocks(case.messages)
    must_keep = size(head) + size(current) > case.budget
    raised = [(lambda _: must_keep, hint("must_keep"))]
    got = learner.call("fit_budget", history, case.budget, case=case.label, hints=raised)
    after = learner.run("", result="messages", bind={"messages": history}).value
    learner.release(kept.handle)
    if after != case.messages:
        fail(case.label, Plain(text("unchanged")), after, hint("new_list"))
    if got.type != "list" or not all(isinstance(m, dict) for m in got.value or []):
        fail(case.label, Plain(text("a_list")), got.value, hint("returns_list", kind=got.type))
    expected = expected_fit(case.messages, case.budget)
    if got.value != expected:
        chosen = diagnose(case, got.value, expected, must_keep)
        expect_equal(case.label, expected, got.value, hint=chosen)


@exercise("09.5", notebook=NOTEBOOK, title="fit_budget", points=2, rules=RULES, hints=HINTS)
def check_fit_budget(learner: Learner) -> str:
    visible, hidden = visible_cases(), hidden_cases()
    for case in [*visible, *hidden]:
        run_case(learner, case)
    return TEXTS.text("summary", visible=len(visible), hidden=len(hidden))
