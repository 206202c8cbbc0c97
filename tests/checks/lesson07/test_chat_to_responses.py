"""Exercise 07.2: the solution passes; a wrong conversion fails on the rule it breaks, and the
conversion the check expects is one the Responses API accepts."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import evaluate
from course_lib.checks.compare import hidden_rng
from course_lib.checks.lesson07.chat_to_responses import (
    ROUND_TRIP,
    TEXT_AND_CALL,
    expected_items,
    hidden_conversations,
)
from lesson07.notebook import solution


def convert(
    *,
    with_type=True,
    empty_messages=False,
    calls_first=False,
    call_key="call_id",
    decode=False,
    tool_role=False,
    grouped=False,
    mutate=False,
    parts=False,
):
    """A chat_to_responses_input with one chosen mistake (the defaults give a correct one)."""
    import json

    def message_item(message):
        content = message["content"]
        if parts:
            content = [{"type": "input_text", "text": content}]
        item = {"role": message["role"], "content": content}
        if mutate:
            message["type"] = "message"
            return message
        return {"type": "message", **item} if with_type else item

    def chat_to_responses_input(messages):
        items, calls_and_outputs = [], []
        for message in messages:
            if message["role"] == "tool":
                if tool_role:
                    entry = dict(message)
                else:
                    entry = {
                        "type": "function_call_output",
                        "call_id": message["tool_call_id"],
                        "output": message["content"],
                    }
                (calls_and_outputs if grouped else items).append(entry)
                continue
            text_item = [message_item(message)] if message.get("content") or empty_messages else []
            call_items = []
            for tool_call in message.get("tool_calls") or []:
                arguments = tool_call["function"]["arguments"]
                call_items.append(
                    {
                        "type": "function_call",
                        call_key: tool_call["id"],
                        "name": tool_call["function"]["name"],
                        "arguments": json.loads(arguments) if decode else arguments,
                    }
                )
            if grouped:
                items += text_item
                calls_and_outputs += call_items
            else:
                items += call_items + text_item if calls_first else text_item + call_items
        return items + calls_and_outputs

    return chat_to_responses_input


def test_the_solution_passes_every_conversation():
    assert evaluate("07.2", solution("chat_to_responses_input")) == (
        "Exercise 07.2 passed: chat_to_responses_input (7 conversations)."
    )


def test_the_helper_without_mistakes_passes():
    assert evaluate("07.2", convert()).startswith("Exercise 07.2 passed")


@pytest.mark.parametrize(
    "conversation",
    [ROUND_TRIP, TEXT_AND_CALL, *hidden_conversations(hidden_rng("07.2"))],
    ids=lambda c: f"{len(c)} messages",
)
def test_what_the_check_expects_is_accepted_by_the_responses_api(conversation):
    """The oracle's items, sent as the whole input, get an answer from the local model (its
    pairing rules are the real API's: every call answered, every output answering a call)."""
    from course_lib.local_model import MODEL, make_client

    reply = make_client().responses.create(model=MODEL, input=expected_items(conversation))
    assert reply.status == "completed"


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "07.2": {
        "message": convert(with_type=False),
        "no_empty_message": convert(empty_messages=True),
        "text_then_calls": convert(calls_first=True),
        "function_call": convert(call_key="id"),
        "arguments": convert(decode=True),
        "output": convert(tool_role=True),
        "order": convert(grouped=True),
        "unchanged": convert(mutate=True),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["07.2"]))
def test_a_wrong_conversion_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("07.2", rule, WRONG_BY_RULE["07.2"][rule])


def test_a_message_without_type_is_told_it_is_equivalent_and_what_is_asked():
    message = rejected("07.2", WRONG_BY_RULE["07.2"]["message"])
    assert "so they are equivalent, but this exercise asks for" in message


def test_content_as_text_parts_is_told_it_is_accepted_but_not_asked_for():
    message = rejected("07.2", convert(parts=True))
    assert "The API accepts that too" in message


def test_the_call_id_under_id_is_told_where_it_goes():
    assert 'goes under "call_id"' in rejected("07.2", WRONG_BY_RULE["07.2"]["function_call"])


def test_keeping_the_tool_calls_list_is_told_each_call_is_an_item():
    def chat_to_responses_input(messages):
        items = []
        for m in messages:
            if m["role"] == "tool":
                output = {"call_id": m["tool_call_id"], "output": m["content"]}
                items.append({"type": "function_call_output", **output})
            else:
                items.append({"type": "message", **m})
        return items

    assert "each call becomes an item of its own" in rejected("07.2", chat_to_responses_input)


def test_changing_the_given_messages_is_told_to_build_new_dicts():
    message = rejected("07.2", WRONG_BY_RULE["07.2"]["unchanged"])
    assert "Expected: the messages you were given, unchanged" in message
    assert "Build new dicts" in message


def test_returning_something_that_is_not_json_says_so():
    def chat_to_responses_input(messages):
        return [object()]

    assert "Return a list of items" in rejected("07.2", chat_to_responses_input)


def _correct(message_hook=None, call_hook=None, output_hook=None):
    """The right conversion, with one item kind changed by a hook (item, source) -> item."""

    def chat_to_responses_input(messages):
        items = []
        for message in messages:
            if message["role"] == "tool":
                item = {
                    "type": "function_call_output",
                    "call_id": message["tool_call_id"],
                    "output": message["content"],
                }
                items.append(output_hook(item, message) if output_hook else item)
                continue
            if message.get("content"):
                item = {"type": "message", "role": message["role"], "content": message["content"]}
                item = message_hook(item, message) if message_hook else item
                if item is not None:
                    items.append(item)
            for tool_call in message.get("tool_calls") or []:
                item = {
                    "type": "function_call",
                    "call_id": tool_call["id"],
                    "name": tool_call["function"]["name"],
                    "arguments": tool_call["function"]["arguments"],
                }
                items.append(call_hook(item, tool_call) if call_hook else item)
        return items

    return chat_to_responses_input


def _reencoded(item, _call):
    import json

    return {**item, "arguments": json.dumps(json.loads(item["arguments"]))}


def _decoded_output(item, _message):
    import json

    return {**item, "output": json.loads(item["output"])}


@pytest.mark.parametrize(
    ("mistake", "hooks", "told"),
    [
        (
            "the system message dropped",
            {"message_hook": lambda i, m: None if m["role"] == "system" else i},
            "with its role as it is",
        ),
        (
            "system renamed developer",
            {
                "message_hook": lambda i, m: (
                    {**i, "role": "developer"} if m["role"] == "system" else i
                )
            },
            "with its role as it is",
        ),
        (
            "an assistant's text dropped beside its calls",
            {"message_hook": lambda i, m: None if m.get("tool_calls") else i},
            "an assistant's text too when it also has calls",
        ),
        (
            "the call nested under function",
            {
                "call_hook": lambda i, c: {
                    "type": "function_call",
                    "call_id": c["id"],
                    "function": c["function"],
                }
            },
            'A function_call item is flat: "name" and "arguments" sit beside "call_id"',
        ),
        (
            "the call's id also written as the item id",
            {"call_hook": lambda i, c: {**i, "id": c["id"]}},
            "the real API refuses one that does not begin with fc",
        ),
        (
            "call ids made up from a counter",
            {"call_hook": lambda i, c: {**i, "call_id": "call_" + c["id"][-1]}},
            "the id of the call it comes from",
        ),
        (
            "the output's call_id read from a key the tool message has not",
            {"output_hook": lambda i, m: {**i, "call_id": m.get("id")}},
            "a function_call_output's is the tool message's tool_call_id",
        ),
        ("the arguments encoded again", {"call_hook": _reencoded}, "or encode it again"),
        (
            "the result under content",
            {
                "output_hook": lambda i, m: {
                    "type": "function_call_output",
                    "call_id": i["call_id"],
                    "content": i["output"],
                }
            },
            "Responses has no tool role",
        ),
        (
            "the tool message as a user message",
            {
                "output_hook": lambda i, m: {
                    "type": "message",
                    "role": "user",
                    "content": i["output"],
                }
            },
            "Responses has no tool role",
        ),
        ("the result decoded", {"output_hook": _decoded_output}, "the string it is: do not decode"),
        (
            "a status added to each call",
            {"call_hook": lambda i, c: {**i, "status": "completed"}},
            "Write only the keys the table shows",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) and " " in value else "",
)
def test_each_slip_in_one_kind_of_item_gets_the_hint_that_names_it(mistake, hooks, told):
    assert told in rejected("07.2", _correct(**hooks))


def test_the_hooked_correct_conversion_itself_passes():
    assert evaluate("07.2", _correct()).startswith("Exercise 07.2 passed")


def test_a_conversion_by_kind_of_message_written_with_match_passes():
    """A different structure: one small function per kind of message, chosen by ``match``."""

    def calls_of(message):
        return [
            {
                "type": "function_call",
                "call_id": call["id"],
                "name": call["function"]["name"],
                "arguments": call["function"]["arguments"],
            }
            for call in message.get("tool_calls") or []
        ]

    def chat_to_responses_input(messages):
        items = []
        for message in messages:
            match message:
                case {"role": "tool", "tool_call_id": call_id, "content": output}:
                    items += [
                        {"type": "function_call_output", "call_id": call_id, "output": output}
                    ]
                case {"role": role, "content": str(text)} if text:
                    items += [
                        {"type": "message", "role": role, "content": text},
                        *calls_of(message),
                    ]
                case _:
                    items += calls_of(message)
        return items

    assert evaluate("07.2", chat_to_responses_input).startswith("Exercise 07.2 passed")
