"""Exercise 09.5 ``fit_budget``: the solution and one written another way pass; a wrong answer
per rule fails on that rule's case with its hint."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule

from course_lib.capstone.conversation import message_size
from course_lib.checks import EXERCISES, NotDoneYet, evaluate

from ._solution import edited, solution

CELL = "w09-budget"
PASSED = "Exercise 09.5 passed: fit_budget (6 visible and 12 hidden conversations)."
FITS = "        if sum(map(message_size, kept)) <= budget:\n"


def wrong(*edits: tuple[str, str]):
    return edited("fit_budget", *((CELL, old, new) for old, new in edits))


def from_the_newest(messages, budget):
    """Written another way: exchanges grouped first, then kept from the newest while they fit."""
    head = [
        m
        for m in messages[
            : next((i for i, m in enumerate(messages) if m["role"] != "system"), len(messages))
        ]
    ]
    rest = messages[len(head) :]
    groups: list[list[dict]] = []
    for message in rest:
        if message["role"] == "user" or not groups:
            groups.append([])
        groups[-1].append(message)
    current = groups.pop() if groups and groups[-1][0]["role"] == "user" else []
    room = budget - sum(message_size(m) for m in head + current)
    kept: list[list[dict]] = []
    for group in reversed(groups):
        size = sum(message_size(m) for m in group)
        if size > room:
            break
        kept.insert(0, group)
        room -= size
    return [*head, *(m for group in kept for m in group), *current]


def newest_first(messages, budget):
    """Drops the exchange just before the question first: the newest, not the oldest."""
    head = [m for m in messages if m["role"] == "system"]
    last = max(i for i, m in enumerate(messages) if m["role"] == "user")
    users = [i for i, m in enumerate(messages) if m["role"] == "user" and i < last]
    middle, current = messages[len(head) : last], messages[last:]
    while sum(map(message_size, head + middle + current)) > budget and users:
        middle = middle[: users.pop() - len(head)]
    return head + middle + current


def one_message_at_a_time(messages, budget):
    """Drops the oldest message, then the next, until it fits: exchanges cut in half."""
    kept = list(messages)
    position = 1 if kept and kept[0]["role"] == "system" else 0
    last = max(i for i, m in enumerate(messages) if m["role"] == "user")
    while sum(map(message_size, kept)) > budget and position < len(kept) - (len(messages) - last):
        del kept[position]
    return kept


def test_the_solution_passes_every_conversation():
    assert evaluate("09.5", solution()["fit_budget"]) == PASSED


def test_one_written_another_way_keeping_the_newest_that_fit_passes_too():
    assert evaluate("09.5", from_the_newest) == PASSED


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["09.5"]
    assert (spec.notebook, spec.points, spec.targets) == ("09_capstone", 2, ("fit_budget",))


def test_the_stub_is_not_done_yet():
    stub = wrong(("    start = 0\n", '    raise NotImplementedError("Exercise 09.5: x")\n'))
    with pytest.raises(NotDoneYet):
        evaluate("09.5", stub)


WRONG_BY_RULE = {
    "09.5": {
        "fits": wrong((FITS, FITS.replace("<=", "<"))),
        # the caller's list is cut in place and returned
        "new_list": wrong(
            (
                "            return kept\n",
                "            messages[:] = kept\n            return messages\n",
            )
        ),
        # the system prompt is taken for part of the first exchange
        "system": wrong(
            (
                '    while start < len(messages) and messages[start]["role"] == "system":\n'
                "        start += 1\n",
                "",
            )
        ),
        "oldest": newest_first,
        "whole": one_message_at_a_time,
        # everything before the question goes at once
        "as_little": wrong(
            (
                "    for cut in [start, *(i for i in users if i < current), current]:\n",
                "    for cut in [start, current]:\n",
            )
        ),
        # long tool results are shortened instead of whole exchanges dropped
        "unchanged": wrong(
            (
                "    start = 0\n",
                "    if sum(map(message_size, messages)) > budget:\n"
                "        messages = [dict(m, content=m['content'][:40]) if m['role'] == "
                "'tool' else m for m in messages]\n    start = 0\n",
            )
        ),
        # the last message is taken for the question
        "current": wrong(
            (
                "    current = users[-1] if users else len(messages)\n",
                "    current = len(messages) - 1\n",
            )
        ),
        # over the budget with nothing left to drop: an exception
        "must_keep": wrong(
            (
                "            return kept\n    return kept\n",
                "            return kept\n"
                "    raise ValueError('the budget is too small for this question')\n",
            )
        ),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["09.5"]))
def test_a_wrong_fit_budget_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("09.5", rule, WRONG_BY_RULE["09.5"][rule])


def test_an_empty_list_when_what_must_stay_is_over_gets_the_must_keep_hint():
    """Giving up on a history that cannot fit, with [], drops the system prompt too; the hint
    names the rule broken (return what must stay), not the system prompt alone."""
    gives_up = wrong(
        (
            "            return kept\n    return kept\n",
            "            return kept\n    return []\n",
        )
    )
    assert_breaks_rule("09.5", "must_keep", gives_up)
