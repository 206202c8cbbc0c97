"""Exercises 05.1 and 05.2: mistakes in the shape of the conversation, each told what it is.

Every wrong loop here is the solution cell with one realistic mistake edited in.
"""

from __future__ import annotations

from typing import Any

from solution_cells import load_cells, rejected

from lesson05.notebook import LOADED_CELLS, NOTEBOOK

RUN_AGENT = "w05-ex1"
FIXED_LOOP = "w05-ex2"


def edited(cell_id: str, name: str, old: str, new: str) -> Any:
    """``name`` from the solution, with ``old`` replaced by ``new`` in cell ``cell_id``."""
    return load_cells(NOTEBOOK, LOADED_CELLS, edits=[(cell_id, old, new)])[name]


def test_a_stripped_answer_is_told_to_keep_the_content_as_sent():
    wrong = edited(
        RUN_AGENT,
        "run_agent",
        'AgentResult(message["content"], messages',
        'AgentResult(message["content"].strip(), messages',
    )
    message = rejected("05.1", wrong)
    assert "an answer that ends in a newline" in message
    assert "exactly as the model sent it: not stripped" in message


def test_a_repeat_check_without_the_name_is_told_a_repeat_needs_the_same_name():
    wrong = edited(RUN_AGENT, "run_agent", "return name, json.dumps(", "return '', json.dumps(")
    message = rejected("05.1", wrong)
    assert 'the tool message answering get_time({"city": "北京"})' in message
    assert "a repeat needs the same name" in message


def test_an_assistant_message_without_content_is_told_it_is_equivalent_but_not_asked():
    drop_none = (
        "message = {k: v for k, v in assistant_message(reply.choices[0].message).items()"
        " if v is not None}"
    )
    wrong = edited(
        RUN_AGENT, "run_agent", "message = assistant_message(reply.choices[0].message)", drop_none
    )
    message = rejected("05.1", wrong)
    assert 'has no "content" key' in message and "equivalent" in message


def test_the_sdks_model_dump_is_told_which_keys_are_extra():
    wrong = edited(
        FIXED_LOOP,
        "fixed_loop",
        "messages.append(assistant_message(message))",
        "messages.append(message.model_dump())",
    )
    message = rejected("05.2", wrong)
    assert "assistant message has keys the contract does not list: 'annotations'" in message


def test_a_tool_message_with_a_name_key_is_told_the_key_is_extra():
    wrong = edited(
        FIXED_LOOP,
        "fixed_loop",
        '{"role": "tool", "tool_call_id": tool_call.id, "content": result}',
        '{"role": "tool", "tool_call_id": tool_call.id, "name": "x", "content": result}',
    )
    assert "tool message has keys the contract does not list: 'name'" in rejected("05.2", wrong)


def test_a_request_with_part_of_the_conversation_is_told_to_send_all_of_it():
    wrong = edited(
        FIXED_LOOP,
        "fixed_loop",
        "model=model, messages=messages,",
        "model=model, messages=messages[-3:],",
    )
    message = rejected("05.2", wrong)
    assert "request 2 of" in message and "did not send the whole conversation" in message


def test_one_turn_too_few_is_told_the_limit_allows_more_not_that_calls_went_unanswered():
    wrong = edited(FIXED_LOOP, "fixed_loop", "range(max_turns)", "range(max_turns - 1)")
    message = rejected("05.2", wrong)
    assert "asked the model 2 times and returned with every call answered" in message
    assert "were not run" not in message
