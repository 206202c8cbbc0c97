"""Exercise 05.6: ``ask_with_choice`` passes; each rule's wrong answer gets that rule's hint;
correct loops written differently (a Chinese error message, no tool_choice after the first
request) pass."""

from __future__ import annotations

import textwrap

import pytest
from rules import assert_breaks_rule
from solution_cells import load_cells, rejected, run_source

from course_lib.checks import evaluate
from lesson05.notebook import LOADED_CELLS, NOTEBOOK, _solution

CELL = "w05-ex6"
REQUEST = (
    "        reply = client.chat.completions.create(\n"
    "            model=model, messages=messages, tools=registry.schemas(), tool_choice=choice\n"
    "        )\n"
)
APPEND_ONCE = (
    "        messages.append(assistant_message(message))\n"
    "        if not message.tool_calls:\n"
    "            return message.content\n"
    "        for tool_call in message.tool_calls:\n"
)
MODES_BRANCH = (
    '    if tool_choice in ("auto", "none", "required"):\n'
    "        choice = tool_choice\n"
    "    elif tool_choice in registry.names():\n"
)
UNKNOWN_BRANCH = (
    "    else:\n"
    '        tools = ", ".join(registry.names())\n'
    '        raise ValueError(f"no tool named {tool_choice!r}: use one of {tools}, or a mode")\n'
)
NAMED = '        choice = {"type": "function", "function": {"name": tool_choice}}\n'


def wrong(*edits: tuple[str, str]):
    cells = load_cells(NOTEBOOK, LOADED_CELLS, edits=[(CELL, old, new) for old, new in edits])
    return cells["ask_with_choice"]


def test_the_solution_passes_every_conversation():
    assert evaluate("05.6", _solution()["ask_with_choice"]) == (
        "Exercise 05.6 passed: ask_with_choice (11 conversations)."
    )


WRONG_BY_RULE = {
    "05.6": {
        "requests": wrong(("tools=registry.schemas(), tool_choice", "tools=[], tool_choice")),
        "loop": wrong((APPEND_ONCE,
                       "        if not message.tool_calls:\n"
                       "            messages.append(assistant_message(message))\n"
                       "            return message.content\n"
                       "        for tool_call in message.tool_calls:\n"
                       "            messages.append(assistant_message(message))\n")),
        "modes_as_is": wrong((MODES_BRANCH, "    if tool_choice in registry.names() or "
                                            'tool_choice in ("auto", "none", "required"):\n')),
        "first_request": wrong((", tool_choice=choice\n", "\n")),
        "later_auto": wrong(('        choice = "auto"\n', "")),
        "named_form": wrong((NAMED, "        choice = tool_choice\n")),
        "answer": wrong(("            return message.content\n", "            return messages\n")),
        "limit": wrong(("    for _ in range(max_turns):\n", "    while True:\n")),
        "unknown_name": wrong((UNKNOWN_BRANCH, "    else:\n    " + NAMED)),
        "validate_first": wrong(
            (UNKNOWN_BRANCH, "    else:\n    " + NAMED),
            (REQUEST,
             "        try:\n    " + REQUEST.replace("\n    ", "\n        ")
             + "        except openai.BadRequestError:\n"
             '            raise ValueError(f"no tool named {tool_choice!r}") from None\n'),
        ),
    }
}  # fmt: skip


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["05.6"]))
def test_a_wrong_ask_with_choice_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("05.6", rule, WRONG_BY_RULE["05.6"][rule])


def test_a_bare_tool_name_is_told_the_named_form_and_not_the_model_error_alone():
    message = rejected("05.6", WRONG_BY_RULE["05.6"]["named_form"])
    assert '{"type": "function", "function": {"name": \'get_time\'}}' in message


def test_forcing_every_turn_is_told_which_request_and_why():
    message = rejected("05.6", WRONG_BY_RULE["05.6"]["later_auto"])
    assert 'Request 2 sent tool_choice="required"' in message and "never answers" in message


CHINESE_WHILE = """
def ask_with_choice(client, registry, question, *, model, tool_choice="auto", max_turns=4):
    if tool_choice not in {"auto", "none", "required", *registry.names()}:
        raise ValueError(f"没有名为 {tool_choice} 的工具，可用工具：{'、'.join(registry.names())}")
    forced = {"tool_choice": tool_choice if tool_choice in ("auto", "none", "required")
              else {"type": "function", "function": {"name": tool_choice}}}
    messages, turn = [{"role": "user", "content": question}], 0
    while turn < max_turns:
        turn += 1
        reply = client.chat.completions.create(
            model=model, messages=messages, tools=registry.schemas(), **forced
        )
        forced = {}  # later turns: no tool_choice at all, which means "auto"
        message = reply.choices[0].message
        messages.append(assistant_message(message))
        if message.tool_calls is None or len(message.tool_calls) == 0:
            return message.content
        messages.extend(
            {"role": "tool", "tool_call_id": c.id,
             "content": registry.call(c.function.name, c.function.arguments)}
            for c in message.tool_calls
        )
    return None
"""

CONCURRENT_CALLS = """
def ask_with_choice(client, registry, question, *, model, tool_choice="auto", max_turns=4):
    def wire(choice):
        if choice in ("auto", "none", "required"):
            return choice
        if choice not in registry.names():
            raise ValueError(f"unknown tool {choice!r}")
        return {"type": "function", "function": {"name": choice}}

    choices = [wire(tool_choice)] + ["auto"] * (max_turns - 1)
    messages = [{"role": "user", "content": question}]
    for choice in choices:
        reply = client.chat.completions.create(
            model=model, messages=messages, tools=registry.schemas(), tool_choice=choice
        )
        messages.append(assistant_message(reply.choices[0].message))
        if "tool_calls" not in messages[-1]:
            return messages[-1]["content"]
        messages += reference.run_tool_calls(registry, messages[-1]["tool_calls"])
    return None
"""


@pytest.mark.parametrize("source", [CHINESE_WHILE, CONCURRENT_CALLS], ids=["zh", "concurrent"])
def test_a_loop_written_differently_passes(source):
    namespace = dict(_solution())
    run_source(textwrap.dedent(source), "<alternative>", namespace)
    assert evaluate("05.6", namespace["ask_with_choice"]).startswith("Exercise 05.6 passed")


def test_a_first_request_without_the_choice_is_told_it_sent_none():
    message = rejected("05.6", WRONG_BY_RULE["05.6"]["first_request"])
    assert 'tool_choice="none" (it sent no tool_choice)' in message


def test_the_contract_and_the_rule_allow_what_the_check_accepts_leaving_tool_choice_out():
    # CHINESE_WHILE leaves tool_choice out after the first request and passes (the API's
    # default is "auto" when tools are sent): the contract must not say "sends" alone.
    import json
    from pathlib import Path

    from course_lib.checks import EXERCISES

    notebook = Path(__file__).parents[3] / "solutions" / "05_agent_loop.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    [contract] = [
        "".join(cell["source"])
        for cell in cells
        if cell["metadata"].get("course", {}).get("contract") == "05.6"
    ]
    assert 'sends `tool_choice="auto"` or leaves it out' in contract
    later_auto = EXERCISES["05.6"].rule("later_auto").text
    assert 'sends `tool_choice="auto"` or leaves it out' in later_auto


def test_a_text_returned_when_no_answer_came_is_told_to_return_none():
    """An empty text after max_turns requests was told "return the content of the first reply
    without tool calls", which names no mistake: there was no such reply."""
    empty = wrong(("    return None\n", '    return ""\n'))
    message = rejected("05.6", empty)
    assert "No reply without tool calls came in max_turns=2 requests" in message
    assert "return None, not ''." in message
