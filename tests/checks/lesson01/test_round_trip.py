"""Exercise 01.4: the solution passes; a wrong ask_with_tools fails on the rule it breaks.

The learner's function talks to a model session on the check's side, so every assertion here is
about what it really sent (``session.exchanges``), whatever it returns or prints.
"""

from __future__ import annotations

import json

import pytest
from rules import assert_breaks_rule
from solution_cells import load_cells, rejected

from course_lib.checks import evaluate
from lesson01.notebook import NOTEBOOK, solution


def plain_assistant(message) -> dict:
    """The assistant message as the plain dict the lesson teaches (section 3)."""
    entry = {"role": "assistant", "content": message.content}
    entry["tool_calls"] = [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.function.name, "arguments": c.function.arguments},
        }
        for c in message.tool_calls
    ]
    return entry


def round_trip(
    *,
    system=False,
    check_calls=True,
    decide_by="tool_calls",
    append_assistant="once",
    answer="all",
    ids="own",
    decode=True,
    model=True,
    second_tools=True,
    send_again=True,
    returns="text",
    tool_message=None,
):
    """An ask_with_tools with one chosen mistake (the defaults give a correct one)."""
    build_message = tool_message or solution("tool_message")

    def ask_with_tools(client, question, tools, functions, **kwargs):
        used_model = kwargs["model"] if model else "local-toy"
        messages = [{"role": "user", "content": question}]
        if system:
            messages.insert(0, {"role": "system", "content": "Use the tools."})
        reply = client.chat.completions.create(model=used_model, messages=messages, tools=tools)
        message = reply.choices[0].message
        if check_calls and not message.tool_calls:
            return message.content
        if decide_by == "content" and message.content:
            return message.content
        if not send_again:
            return message.content or ""
        if append_assistant == "once":
            messages.append(plain_assistant(message))
        calls = message.tool_calls if answer == "all" else message.tool_calls[:1]
        for tool_call in calls:
            if append_assistant == "per call":
                messages.append(plain_assistant(message))
            raw = tool_call.function.arguments
            result = functions[tool_call.function.name](**(json.loads(raw) if decode else raw))
            reply_message = build_message(tool_call, result)
            if ids == "first":
                reply_message["tool_call_id"] = message.tool_calls[0].id
            elif ids == "none":
                del reply_message["tool_call_id"]
            messages.append(reply_message)
        again = {"tools": tools} if second_tools else {}
        final = client.chat.completions.create(model=used_model, messages=messages, **again)
        return final.choices[0].message.content if returns == "text" else final.choices[0].message

    return ask_with_tools


def test_the_solution_passes_every_conversation():
    assert evaluate("01.4", solution("ask_with_tools")) == (
        "Exercise 01.4 passed: ask_with_tools (11 conversations)."
    )


def test_the_helper_without_mistakes_passes():
    assert evaluate("01.4", round_trip()).startswith("Exercise 01.4 passed")


def test_appending_the_sdk_message_object_passes():
    def ask_with_tools(client, question, tools, functions, *, model):
        messages = [{"role": "user", "content": question}]
        message = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = message.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message)
        for tool_call in message.tool_calls:
            result = functions[tool_call.function.name](**json.loads(tool_call.function.arguments))
            messages.append(solution("tool_message")(tool_call, result))
        final = client.chat.completions.create(model=model, messages=messages, tools=tools)
        return final.choices[0].message.content

    assert evaluate("01.4", ask_with_tools).startswith("Exercise 01.4 passed")


def test_appending_the_model_dump_of_the_message_passes():
    def ask_with_tools(client, question, tools, functions, *, model):
        messages = [{"role": "user", "content": question}]
        message = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = message.choices[0].message
        if message.tool_calls is None:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        messages += [
            solution("tool_message")(
                c, functions[c.function.name](**json.loads(c.function.arguments))
            )
            for c in message.tool_calls
        ]
        return (
            client.chat.completions.create(model=model, messages=messages, tools=tools)
            .choices[0]
            .message.content
        )

    assert evaluate("01.4", ask_with_tools).startswith("Exercise 01.4 passed")


def looping_ask_with_tools(client, question, tools, functions, *, model):
    """Lesson 05's loop, where 01.4 asks for one round trip: it asks again while there are calls."""
    messages = [{"role": "user", "content": question}]
    for _ in range(5):
        message = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = message.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(plain_assistant(message))
        for tool_call in message.tool_calls:
            result = functions[tool_call.function.name](**json.loads(tool_call.function.arguments))
            messages.append(solution("tool_message")(tool_call, result))
    return ""


def tool_message_with_str(tool_call, result):
    return {"role": "tool", "tool_call_id": tool_call.id, "content": str(result)}


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "01.4": {
        "model": round_trip(model=False),
        "first_request": round_trip(system=True),
        "tools": round_trip(second_tools=False),
        "no_calls": round_trip(check_calls=False),
        "calls_decide": round_trip(decide_by="content"),
        "assistant_once": round_trip(append_assistant="per call"),
        "decode": round_trip(decode=False),
        "every_call": round_trip(answer="first"),
        "own_id": round_trip(ids="first"),
        "tool_messages": round_trip(tool_message=tool_message_with_str),
        "second_request": round_trip(send_again=False),
        "returns_text": round_trip(returns="message"),
        "one_round": looping_ask_with_tools,
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["01.4"]))
def test_a_wrong_round_trip_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("01.4", rule, WRONG_BY_RULE["01.4"][rule])


def test_a_loop_is_told_the_exercise_is_one_round_trip_and_where_loops_come():
    message = rejected("01.4", looping_ask_with_tools)
    assert "Expected: 2 request(s)\nGot:      3 request(s)" in message
    assert "without a third request. Lesson 05 loops" in message


def test_forgetting_the_assistant_message_is_told_to_append_it():
    message = rejected("01.4", round_trip(append_assistant="never"))
    assert "Append the assistant message (the reply with tool_calls)" in message


def test_the_assistant_message_per_call_is_told_to_append_it_once():
    assert "Append the assistant message once" in rejected(
        "01.4", WRONG_BY_RULE["01.4"]["assistant_once"]
    )


def test_answering_only_the_first_call_is_told_to_answer_every_call():
    assert "Answer every tool call" in rejected("01.4", WRONG_BY_RULE["01.4"]["every_call"])


def test_reusing_the_first_id_is_told_each_call_has_its_own():
    assert "its own call's id" in rejected("01.4", WRONG_BY_RULE["01.4"]["own_id"])


def test_tool_messages_without_ids_are_told_they_need_tool_call_id():
    assert 'needs "tool_call_id"' in rejected("01.4", round_trip(ids="none"))


def test_arguments_not_decoded_are_told_json_loads_and_name_the_function_as_called():
    message = rejected("01.4", WRONG_BY_RULE["01.4"]["decode"])
    assert "json.loads them" in message
    assert "functions['get_weather']() argument after ** must be a mapping" in message
    assert "course_lib" not in message and "check_case" not in message


def test_calling_the_unfinished_01_3_stub_points_at_01_3():
    def tool_message(tool_call, result):
        raise NotImplementedError("Exercise 01.3: return the role tool message")

    ask_with_tools = load_cells(
        NOTEBOOK, ["w01-ex4"], namespace={"json": json, "tool_message": tool_message}
    )["ask_with_tools"]
    message = rejected("01.4", ask_with_tools)
    assert "raised NotImplementedError: Exercise 01.3" in message
    assert "finish tool_message (exercise 01.3)" in message


def test_its_own_stub_is_still_not_done_yet():
    from course_lib.checks import NotDoneYet

    def ask_with_tools(client, question, tools, functions, *, model):
        raise NotImplementedError("Exercise 01.4: ask, run every requested tool, ...")

    with pytest.raises(NotDoneYet):
        evaluate("01.4", ask_with_tools)


def test_no_tools_on_the_second_request_says_which_request():
    message = rejected("01.4", WRONG_BY_RULE["01.4"]["tools"])
    assert "Pass tools=tools to every request" in message
    assert "Where:    request 2 of 2 your function sent" in message
    assert "no tools (tools= not passed)" in message


def test_ignoring_the_model_argument_is_told_to_pass_it():
    assert "Pass model=model" in rejected("01.4", WRONG_BY_RULE["01.4"]["model"])


def test_returning_the_message_object_is_told_to_return_the_text():
    message = rejected("01.4", WRONG_BY_RULE["01.4"]["returns_text"])
    assert "Return the text" in message and "ChatCompletionMessage(" in message


def test_never_sending_the_results_is_told_to_send_the_conversation_again():
    message = rejected("01.4", WRONG_BY_RULE["01.4"]["second_request"])
    assert "send the conversation once more" in message


def test_always_sending_a_second_request_is_told_to_return_right_away():
    def ask_with_tools(client, question, tools, functions, *, model):
        messages = [{"role": "user", "content": question}]
        reply = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        for tool_call in message.tool_calls or []:
            result = functions[tool_call.function.name](**json.loads(tool_call.function.arguments))
            messages.append(solution("tool_message")(tool_call, result))
        final = client.chat.completions.create(model=model, messages=messages, tools=tools)
        return final.choices[0].message.content

    message = rejected("01.4", ask_with_tools)
    assert "Case: ask_with_tools(client, 'Hello!'" in message
    assert "The reply has no tool calls: return its content right away." in message


def test_a_system_message_is_told_to_start_with_the_user_message():
    message = rejected("01.4", WRONG_BY_RULE["01.4"]["first_request"])
    assert "Where:    the first request's messages" in message


def test_what_is_judged_is_what_the_model_received_not_what_the_function_reports():
    """A function that returns the right text without ever sending the tool results is caught
    by the requests the session recorded."""

    def ask_with_tools(client, question, tools, functions, *, model):
        messages = [{"role": "user", "content": question}]
        reply = client.chat.completions.create(model=model, messages=messages, tools=tools)
        return reply.choices[0].message.content or "Here is what the tools returned:"

    assert "2 request(s)" in rejected("01.4", ask_with_tools)


def test_reading_the_name_from_the_call_itself_is_told_it_sits_under_function():
    def ask_with_tools(client, question, tools, functions, *, model):
        messages = [{"role": "user", "content": question}]
        message = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = message.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message)
        for tool_call in message.tool_calls:
            result = functions[tool_call.name](**json.loads(tool_call.arguments))
            messages.append(solution("tool_message")(tool_call, result))
        final = client.chat.completions.create(model=model, messages=messages, tools=tools)
        return final.choices[0].message.content

    message = rejected("01.4", ask_with_tools)
    assert "tool_call.function.name" in message.split("Hint:")[1]


def test_returning_the_text_beside_a_call_is_told_tool_calls_decide():
    message = rejected("01.4", WRONG_BY_RULE["01.4"]["calls_decide"])
    assert "Case: ask_with_tools(client, 'Is it warm in 上海 today?'" in message
    assert "decide by tool_calls, not by content" in message


def round_trip_with(decode):
    """A correct ask_with_tools except for how it turns the arguments' text into values."""

    def ask_with_tools(client, question, tools, functions, *, model):
        messages = [{"role": "user", "content": question}]
        reply = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = reply.choices[0].message
        if message.tool_calls is None:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        for tool_call in message.tool_calls:
            function = functions[tool_call.function.name]
            result = decode(function, tool_call.function.arguments)
            messages.append(solution("tool_message")(tool_call, result))
        final = client.chat.completions.create(model=model, messages=messages, tools=tools)
        return final.choices[0].message.content

    return ask_with_tools


def test_arguments_read_with_eval_fail_on_a_json_null_and_are_told_json_loads():
    message = rejected("01.4", round_trip_with(lambda function, text: function(**eval(text))))
    assert "Case: ask_with_tools(client, '我关于北京的笔记, any tag'" in message
    assert "raised NameError: name 'null' is not defined" in message
    assert "JSON, not Python" in message and "never eval" in message


def test_the_arguments_text_passed_as_the_first_argument_is_told_json_loads():
    """get_weather takes any text as its city, so the mistake shows only in the result."""
    message = rejected("01.4", round_trip_with(lambda function, text: function(text)))
    assert "Where:    the tool message answering get_weather(" in message
    assert "json.loads them" in message
