"""Exercise 01.3: the solution passes; a wrong tool_message fails on the rule it breaks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from lesson01.notebook import solution


def call_id(tool_call: Any) -> str:
    return tool_call["id"] if isinstance(tool_call, dict) else tool_call.id


def content(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


def test_the_solution_passes_every_case():
    assert evaluate("01.3", solution("tool_message")) == (
        "Exercise 01.3 passed: tool_message (18 cases)."
    )


def test_json_with_other_spacing_and_key_order_is_accepted_as_equivalent():
    def tool_message(tool_call, result):
        text = result
        if not isinstance(result, str):
            text = json.dumps(result, ensure_ascii=False, indent=2, sort_keys=True)
        return {"role": "tool", "tool_call_id": call_id(tool_call), "content": text}

    assert evaluate("01.3", tool_message).startswith("Exercise 01.3 passed")


def test_the_stub_is_not_done_yet():
    def tool_message(tool_call, result):
        raise NotImplementedError("Exercise 01.3: return the role tool message")

    with pytest.raises(NotDoneYet):
        evaluate("01.3", tool_message)


def with_name(tool_call, result):
    return {**solution("tool_message")(tool_call, result), "name": "get_weather"}


def as_function_role(tool_call, result):
    return {**solution("tool_message")(tool_call, result), "role": "function"}


def with_id_key(tool_call, result):
    return {"role": "tool", "id": call_id(tool_call), "content": content(result)}


def for_sdk_objects_only(tool_call, result):
    return {"role": "tool", "tool_call_id": tool_call.id, "content": content(result)}


def always_json(tool_call, result):
    text = json.dumps(result, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": call_id(tool_call), "content": text}


def with_str(tool_call, result):
    return {"role": "tool", "tool_call_id": call_id(tool_call), "content": str(result)}


def with_ascii_escapes(tool_call, result):
    text = result if isinstance(result, str) else json.dumps(result)
    return {"role": "tool", "tool_call_id": call_id(tool_call), "content": text}


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "01.3": {
        "keys": with_name,
        "role": as_function_role,
        "tool_call_id": with_id_key,
        "both_forms": for_sdk_objects_only,
        "string_unchanged": always_json,
        "json_text": with_str,
        "ensure_ascii": with_ascii_escapes,
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["01.3"]))
def test_a_wrong_tool_message_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("01.3", rule, WRONG_BY_RULE["01.3"][rule])


def test_a_message_without_tool_call_id_is_told_to_add_it():
    def tool_message(tool_call, result):
        return {"role": "tool", "content": content(result)}

    assert 'Add "tool_call_id"' in rejected("01.3", tool_message)


def test_the_id_key_is_told_to_be_renamed():
    assert 'The key is "tool_call_id", not "id": rename it' in rejected("01.3", with_id_key)


def test_the_function_name_as_id_is_told_to_copy_the_calls_id():
    def tool_message(tool_call, result):
        name = tool_call["function"]["name"] if isinstance(tool_call, dict) else None
        name = name or tool_call.function.name
        return {"role": "tool", "tool_call_id": name, "content": content(result)}

    assert "Copy the id of this tool call" in rejected("01.3", tool_message)


def test_ascii_escapes_are_told_ensure_ascii_false():
    assert "ensure_ascii=False" in rejected("01.3", with_ascii_escapes)


def test_str_is_told_to_use_json_dumps():
    assert "not str()" in rejected("01.3", with_str)


def test_a_string_encoded_again_is_told_to_pass_it_through():
    assert "pass it through unchanged" in rejected("01.3", always_json)


def test_the_raw_result_as_content_is_told_content_is_a_string():
    def tool_message(tool_call, result):
        return {"role": "tool", "tool_call_id": call_id(tool_call), "content": result}

    assert '"content" must be a string' in rejected("01.3", tool_message)


def test_reading_the_id_of_a_dict_as_an_attribute_is_told_the_dict_form():
    message = rejected("01.3", for_sdk_objects_only)
    assert "Case: tool_message(<a dict, id 'call_v2'>, " in message
    assert 'tool_call["id"]' in message
    assert "raised AttributeError: 'dict' object has no attribute 'id'" in message


def test_reading_the_id_of_the_sdk_object_as_a_key_is_told_the_object_form():
    def tool_message(tool_call, result):
        return {"role": "tool", "tool_call_id": tool_call["id"], "content": content(result)}

    message = rejected("01.3", tool_message)
    assert "raised TypeError" in message and "tool_call.id" in message


def test_an_extra_key_is_named():
    assert "(remove name)" in rejected("01.3", with_name)


def test_a_message_that_is_not_json_is_told_where():
    def tool_message(tool_call, result):
        return {"role": "tool", "tool_call_id": call_id(tool_call), "content": {result}}

    message = rejected("01.3", tool_message)
    assert "must be plain JSON data" in message and "Where:    at $.content: a set" in message


def test_the_sdk_tool_call_is_the_real_openai_object():
    seen = []

    def tool_message(tool_call, result):
        seen.append(type(tool_call).__name__)
        return solution("tool_message")(tool_call, result)

    evaluate("01.3", tool_message)
    assert seen[:3] == ["ChatCompletionMessageFunctionToolCall"] * 2 + ["dict"]


def test_content_as_text_parts_is_told_it_is_equivalent_and_what_is_asked_instead():
    def tool_message(tool_call, result):
        return {
            "role": "tool",
            "tool_call_id": call_id(tool_call),
            "content": [{"type": "text", "text": content(result)}],
        }

    hint = rejected("01.3", tool_message).split("Hint: ", 1)[1]
    assert "a form the API accepts too" in hint and "one string" in hint


def test_dict_methods_on_the_sdk_object_are_told_the_object_form():
    def tool_message(tool_call, result):
        return {"role": "tool", "tool_call_id": tool_call.get("id"), "content": content(result)}

    message = rejected("01.3", tool_message)
    assert "raised AttributeError" in message and "tool_call.id then" in message


def test_a_stripped_string_result_is_told_to_pass_it_through_unchanged():
    def tool_message(tool_call, result):
        text = result.strip() if isinstance(result, str) else content(result)
        return {"role": "tool", "tool_call_id": call_id(tool_call), "content": text}

    message = rejected("01.3", tool_message)
    assert "'  北京: 晴\\n')" in message and "pass it through unchanged" in message


def test_none_as_an_empty_text_is_told_it_becomes_null():
    def tool_message(tool_call, result):
        text = "" if result is None else content(result)
        return {"role": "tool", "tool_call_id": call_id(tool_call), "content": text}

    message = rejected("01.3", tool_message)
    assert "Case: tool_message(<the SDK's tool call, id 'call_v6'>, None)" in message
    assert 'json.dumps(None) is the text "null"' in message


def test_a_dict_id_read_with_getattr_is_told_the_dict_form_of_the_id():
    def tool_message(tool_call, result):
        found = getattr(tool_call, "id", None)
        return {"role": "tool", "tool_call_id": found, "content": content(result)}

    message = rejected("01.3", tool_message)
    assert "Case: tool_message(<a dict, id 'call_v2'>, " in message
    assert 'tool_call["id"] for a dict' in message


def tool_message_by_asking(tool_call, result):
    """EAFP: a dict is indexed, anything else read by attribute; JSON indented."""
    try:
        call_id = tool_call["id"]
    except TypeError:
        call_id = tool_call.id
    if not isinstance(result, str):
        result = json.dumps(result, ensure_ascii=False, indent=2, sort_keys=True)
    return dict(role="tool", tool_call_id=call_id, content=result)


def tool_message_with_getattr(tool_call, result):
    call_id = getattr(tool_call, "id", None)
    if call_id is None:
        call_id = tool_call.get("id")
    text = result if type(result) is str else json.dumps(result, separators=(",", ":"),
                                                        ensure_ascii=False)  # fmt: skip
    return {"content": text, "tool_call_id": call_id, "role": "tool"}


@pytest.mark.parametrize("alternative", [tool_message_by_asking, tool_message_with_getattr])
def test_correct_tool_messages_written_differently_pass(alternative):
    assert evaluate("01.3", alternative).startswith("Exercise 01.3 passed")
