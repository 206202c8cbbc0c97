"""Exercise 09.4 ``converse``: the solution and a loop written another way pass; a wrong answer
per rule, each the solution with one realistic mistake, fails on that rule's case with its
hint."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule

from course_lib.checks import EXERCISES, NotDoneYet, evaluate

from ._solution import edited, solution

CELL = "w09-memory"
PASSED = "Exercise 09.4 passed: converse (4 visible and 6 hidden conversations)."
REQUEST = '        request = {"model": model, "input": chat_to_responses_input(messages)}\n'
CALLS = "        messages.extend(run_tool_calls(registry, calls))\n"

# Written another way: a while loop, one item at a time, the tool messages built by hand with a
# thread pool, the list extended with +=.
ANOTHER_WAY = """
from concurrent.futures import ThreadPoolExecutor

from course_lib.reference.responses_input import chat_to_responses_input


def converse(client, registry, messages, *, model, max_turns=6):
    turns = 0
    options = {"tools": registry.schemas(format="responses")} if registry.names() else {}
    while turns < max_turns:
        turns += 1
        response = client.responses.create(
            model=model, input=chat_to_responses_input(messages), **options
        )
        message = {"role": "assistant", "content": response.output_text or None}
        for item in response.output:
            if item.type == "function_call":
                message.setdefault("tool_calls", []).append(
                    {"id": item.call_id, "type": "function",
                     "function": {"name": item.name, "arguments": item.arguments}})
        messages += [message]
        calls = message.get("tool_calls", [])
        if not calls:
            return response.output_text
        with ThreadPoolExecutor(max_workers=len(calls)) as pool:
            results = list(pool.map(
                lambda c: registry.call(c["function"]["name"], c["function"]["arguments"]), calls))
        messages += [{"role": "tool", "tool_call_id": c["id"], "content": r}
                     for c, r in zip(calls, results)]
    return None
"""


def another_way():
    namespace: dict = {}
    exec(ANOTHER_WAY, namespace)  # noqa: S102 (a test's own alternative answer)
    return namespace["converse"]


def wrong(*edits: tuple[str, str]):
    return edited("converse", *((CELL, old, new) for old, new in edits))


def test_the_solution_passes_every_conversation():
    assert evaluate("09.4", solution()["converse"]) == PASSED


def test_a_loop_written_another_way_passes_too():
    assert evaluate("09.4", another_way()) == PASSED


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["09.4"]
    assert (spec.notebook, spec.points, spec.targets) == ("09_capstone", 2, ("converse",))


def test_the_stub_is_not_done_yet():
    stub = wrong(("    tools = registry", '    raise NotImplementedError("Exercise 09.4: x")\n'
                                         "    tools = registry"))  # fmt: skip
    with pytest.raises(NotDoneYet):
        evaluate("09.4", stub)


WRONG_BY_RULE = {
    "09.4": {
        # the notebook's MODEL instead of the one given
        "model": wrong((REQUEST, REQUEST.replace('"model": model', '"model": "local-toy"'))),
        # tools in the Chat format
        "responses": wrong(('registry.schemas(format="responses")', "registry.schemas()")),
        # only the new question is sent: the earlier exchanges are forgotten
        "whole_history": wrong(
            (
                REQUEST,
                '        request = {"model": model, "input": chat_to_responses_input('
                "[messages[0], *messages[len(history_start):]])}\n",
            ),
            (
                "    tools = registry",
                "    history_start = list(messages[:-1])\n    tools = registry",
            ),
        ),
        # the turns are appended to a copy
        "in_place": wrong(
            ("    tools = registry", "    messages = list(messages)\n    tools = registry")
        ),
        # the answer's message, not its text
        "answer": wrong(("            return reply.output_text\n", "            return message\n")),
        # one assistant message per call
        "assistant_once": wrong(
            (
                "        messages.append(message)\n",
                "        messages.extend([message] * max(len(calls), 1))\n",
            )
        ),
        # only the first call of a turn is answered
        "tool_messages": wrong(
            (CALLS, "        messages.extend(run_tool_calls(registry, calls[:1]))\n")
        ),
        # the function_call item's own id (fc_...) instead of its call_id
        "call_id": wrong(('                "id": item.call_id,', '                "id": item.id,')),
        # the final answer is returned but not appended: the memory forgets it
        "answer_appended": wrong(
            (
                "        messages.append(message)\n        if not calls:\n",
                "        if calls:\n            messages.append(message)\n        if not calls:\n",
            )
        ),
        # one request too many
        "max_turns": wrong(
            ("    for _ in range(max_turns):\n", "    for _ in range(max_turns + 1):\n")
        ),
        # the last turn's calls are left unanswered
        "answered_on_stop": wrong(
            ("    for _ in range(max_turns):\n", "    for turn in range(max_turns):\n"),
            (CALLS, "        if turn == max_turns - 1:\n            return None\n" + CALLS),
        ),
        # an empty tools list is sent
        "no_tools": wrong(
            ("        if tools:\n            request", "        if True:\n            request")
        ),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["09.4"]))
def test_a_wrong_converse_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("09.4", rule, WRONG_BY_RULE["09.4"][rule])


def test_one_assistant_message_per_call_gets_the_assistant_once_hint():
    """Each call in an assistant message of its own: the request merges them back into one turn
    (Responses has no messages), so only the list afterwards shows the mistake."""
    split = wrong(
        (
            "        messages.append(message)\n",
            "        for call in calls:\n"
            '            messages.append({"role": "assistant", "content": None,'
            ' "tool_calls": [call]})\n'
            "        if not calls:\n            messages.append(message)\n",
        )
    )
    assert_breaks_rule("09.4", "assistant_once", split)
