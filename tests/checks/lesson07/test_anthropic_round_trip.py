"""Exercise 07.3: the solution passes; a wrong Anthropic round trip fails on the rule it breaks.

The learner's function gets a real ``anthropic.Anthropic`` client on a model session of the
check's side; every assertion is about what it really sent.
"""

from __future__ import annotations

import json

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from lesson07.notebook import solution


def round_trip(
    *,
    model=True,
    max_tokens=1024,
    tools="anthropic",
    second_tools=True,
    system=False,
    check_stop=True,
    assistant="unchanged",
    results_in="one user message",
    answer="all",
    id_key="tool_use_id",
    content="as is",
    errors="flagged",
    send_again=True,
    returns="text",
):
    """An anthropic_round_trip with one chosen mistake (the defaults give a correct one)."""
    is_error_result = solution("is_error_result")
    reply_text = solution("reply_text")

    def anthropic_round_trip(client, registry, question, **kwargs):
        used_model = kwargs["model"] if model else "local-toy"
        sent_tools = registry.schemas(format=tools)
        conversation = [{"role": "user", "content": question}]
        if system:
            conversation.insert(0, {"role": "user", "content": "Be brief."})
            conversation.insert(1, {"role": "assistant", "content": "OK."})
        ask = dict(model=used_model, max_tokens=max_tokens, tools=sent_tools)
        reply = client.messages.create(messages=conversation, **ask)
        if check_stop and reply.stop_reason != "tool_use":
            return reply_text(reply)
        if not send_again:
            return reply_text(reply)
        uses = [block for block in reply.content if block.type == "tool_use"]
        results = []
        for block in uses if answer == "all" else uses[:1]:
            result = registry.call(block.name, block.input)
            sent = json.dumps(result, ensure_ascii=False) if content == "json.dumps" else result
            entry = {"type": "tool_result", id_key: block.id, "content": sent}
            if (errors == "flagged" and is_error_result(result)) or errors == "always":
                entry["is_error"] = True
            results.append(entry)
        if assistant == "unchanged":
            conversation.append({"role": "assistant", "content": reply.content})
        elif assistant == "text only":
            conversation.append({"role": "assistant", "content": reply_text(reply) or "..."})
        if results_in == "one user message":
            conversation.append({"role": "user", "content": results})
        elif results_in == "tool role":
            for result in results:
                conversation.append(
                    {"role": "tool", "tool_use_id": result[id_key], "content": result["content"]}
                )
        else:
            conversation += [{"role": "user", "content": [result]} for result in results]
        if not second_tools:
            del ask["tools"]
        final = client.messages.create(messages=conversation, **ask)
        return reply_text(final) if returns == "text" else final.content

    return anthropic_round_trip


def test_the_solution_passes_every_conversation():
    assert evaluate("07.3", solution("anthropic_round_trip")) == (
        "Exercise 07.3 passed: anthropic_round_trip (7 conversations)."
    )


def test_the_helper_without_mistakes_passes():
    assert evaluate("07.3", round_trip()).startswith("Exercise 07.3 passed")


def test_sending_the_blocks_as_plain_dicts_passes_too():
    is_error_result, reply_text = solution("is_error_result"), solution("reply_text")

    def anthropic_round_trip(client, registry, question, *, model):
        tools = registry.schemas(format="anthropic")
        conversation = [{"role": "user", "content": question}]
        reply = client.messages.create(
            model=model, max_tokens=1024, messages=conversation, tools=tools
        )
        if reply.stop_reason != "tool_use":
            return reply_text(reply)
        blocks = [block.model_dump(exclude_none=True) for block in reply.content]
        results = []
        for block in blocks:
            if block["type"] == "tool_use":
                result = registry.call(block["name"], block["input"])
                entry = {"type": "tool_result", "tool_use_id": block["id"], "content": result}
                entry["is_error"] = is_error_result(result)
                results.append(entry)
        conversation += [
            {"role": "assistant", "content": blocks},
            {"role": "user", "content": results},
        ]
        final = client.messages.create(
            model=model, max_tokens=1024, messages=conversation, tools=tools
        )
        return reply_text(final)

    assert evaluate("07.3", anthropic_round_trip).startswith("Exercise 07.3 passed")


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "07.3": {
        "model": round_trip(model=False),
        "max_tokens": round_trip(max_tokens=512),
        "tools": round_trip(second_tools=False),
        "first_messages": round_trip(system=True),
        "no_tool_use": round_trip(check_stop=False),
        "assistant": round_trip(assistant="missing"),
        "one_user_message": round_trip(results_in="tool role"),
        "tool_use_id": round_trip(id_key="tool_call_id"),
        "content": round_trip(content="json.dumps"),
        "is_error": round_trip(errors="never"),
        "second_request": round_trip(send_again=False),
        "returns_text": round_trip(returns="content"),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["07.3"]))
def test_a_wrong_round_trip_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("07.3", rule, WRONG_BY_RULE["07.3"][rule])


def test_results_sent_as_a_tool_role_are_told_they_go_in_the_next_user_message():
    message = rejected("07.3", WRONG_BY_RULE["07.3"]["one_user_message"])
    assert "Anthropic has no tool role" in message
    assert '"tool"' in message and "Where:    the roles of the second request's messages" in message


def test_one_user_message_per_result_is_told_to_put_them_in_one():
    assert "Put every tool_result in one user message" in rejected(
        "07.3", round_trip(results_in="one message each")
    )


def test_changing_the_assistant_content_is_told_to_send_it_back_unchanged():
    message = rejected("07.3", round_trip(assistant="text only"))
    assert "Send the reply's content back unchanged" in message


def test_a_missing_is_error_names_the_failed_call():
    message = rejected("07.3", WRONG_BY_RULE["07.3"]["is_error"])
    assert (
        'Case: anthropic_round_trip(client, registry, "What\'s the weather in 北京 and Tokyo?"'
        in (message)
    )
    assert "Where:    the tool_result answering get_weather({'city': 'Tokyo'})" in message
    assert 'add "is_error": True' in message


def test_is_error_on_every_result_is_told_it_belongs_on_errors_only():
    message = rejected("07.3", round_trip(errors="always"))
    assert '"is_error": True belongs only on results that are errors.' in message


def test_answering_only_the_first_call_is_told_to_answer_every_tool_use():
    assert "Answer every tool_use block" in rejected("07.3", round_trip(answer="first"))


def test_openai_tools_are_told_the_anthropic_shape():
    assert 'Anthropic\'s are {"name", "description", "input_schema"}' in rejected(
        "07.3", round_trip(tools="openai")
    )


def test_the_tools_left_off_the_second_request_say_which_request():
    message = rejected("07.3", WRONG_BY_RULE["07.3"]["tools"])
    assert "Where:    request 2 of 2 your function sent" in message


def test_decoding_the_input_again_is_told_it_is_already_a_dict():
    def anthropic_round_trip(client, registry, question, *, model):
        tools = registry.schemas(format="anthropic")
        reply = client.messages.create(
            model=model,
            max_tokens=1024,
            messages=[{"role": "user", "content": question}],
            tools=tools,
        )
        for block in reply.content:
            if block.type == "tool_use":
                registry.call(block.name, json.loads(block.input))
        return ""

    assert "block.input is already a dict" in rejected("07.3", anthropic_round_trip)


def test_leaving_out_max_tokens_is_told_the_sdk_requires_it():
    def anthropic_round_trip(client, registry, question, *, model):
        reply = client.messages.create(
            model=model,
            messages=[{"role": "user", "content": question}],
            tools=registry.schemas(format="anthropic"),
        )
        return reply.content[0].text

    assert "The SDK refuses a request without max_tokens" in rejected("07.3", anthropic_round_trip)


def test_returning_the_content_blocks_is_told_to_return_the_text():
    message = rejected("07.3", WRONG_BY_RULE["07.3"]["returns_text"])
    assert "Return the text of the last reply (its text blocks), a str." in message


def test_its_own_stub_is_not_done_yet():
    def anthropic_round_trip(client, registry, question, *, model):
        raise NotImplementedError("Exercise 07.3: create, answer every tool_use ...")

    with pytest.raises(NotDoneYet):
        evaluate("07.3", anthropic_round_trip)
