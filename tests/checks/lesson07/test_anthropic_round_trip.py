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


def round_trip(  # noqa: C901 (one wrong answer per rule)
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
    stop_check="not tool_use",
    text_first=False,
    swapped=False,
    loop=False,
):
    """An anthropic_round_trip with one chosen mistake (the defaults give a correct one)."""
    is_error_result = solution("is_error_result")
    reply_text = solution("reply_text")

    def anthropic_round_trip(client, registry, question, **kwargs):  # noqa: C901 (one wrong answer per rule)
        used_model = kwargs["model"] if model else "local-toy"
        sent_tools = registry.schemas(format=tools)
        conversation = [{"role": "user", "content": question}]
        if system:
            conversation.insert(0, {"role": "user", "content": "Be brief."})
            conversation.insert(1, {"role": "assistant", "content": "OK."})
        ask = dict(model=used_model, max_tokens=max_tokens, tools=sent_tools)
        reply = client.messages.create(messages=conversation, **ask)
        answered = reply.stop_reason != "tool_use"
        if stop_check == "end_turn":
            answered = reply.stop_reason == "end_turn"
        if check_stop and answered:
            return reply_text(reply)
        if not send_again:
            return reply_text(reply)
        uses = [block for block in reply.content if block.type == "tool_use"]
        results = []
        answered_uses = uses if answer == "all" else uses[:1]
        ran = [registry.call(block.name, block.input) for block in answered_uses]
        for block, result in zip(answered_uses, ran[::-1] if swapped else ran, strict=True):
            sent = json.dumps(result, ensure_ascii=False) if content == "json.dumps" else result
            if content == "text blocks":
                sent = [{"type": "text", "text": result}]
            if content == "nested 600 deep":  # a JSON list json.loads parses fine
                sent = json.loads("[" * 600 + "]" * 600)
            entry = {"type": "tool_result", id_key: block.id, "content": sent}
            flagged = {
                "flagged": is_error_result(result),
                "always": True,
                "word": "error" in result,
            }.get(errors, False)
            if flagged:
                entry["is_error"] = True
            results.append(entry)
        if assistant == "unchanged":
            conversation.append({"role": "assistant", "content": reply.content})
        elif assistant == "text only":
            conversation.append({"role": "assistant", "content": reply_text(reply) or "..."})
        elif assistant == "tool_use only":
            conversation.append({"role": "assistant", "content": uses})
        elif assistant == "text and tool_use":
            kept = [block for block in reply.content if block.type in ("text", "tool_use")]
            conversation.append({"role": "assistant", "content": kept})
        elif assistant == "thinking edited":  # the thoughts tidied, the signature kept
            edited = [
                {**block.model_dump(), "thinking": block.thinking.strip() + " "}
                if block.type == "thinking"
                else block
                for block in reply.content
            ]
            conversation.append({"role": "assistant", "content": edited})
        elif assistant == "rebuilt":  # dicts of the fields a Chat Completions habit keeps
            rebuilt = [
                {"type": "thinking", "thinking": block.thinking, "signature": ""}
                if block.type == "thinking"
                else block.model_dump(exclude_none=True)
                for block in reply.content
            ]
            conversation.append({"role": "assistant", "content": rebuilt})
        if results_in == "one user message":
            preface = [{"type": "text", "text": "Here are the results."}] if text_first else []
            conversation.append({"role": "user", "content": [*preface, *results]})
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
        if loop and final.stop_reason == "tool_use":
            return anthropic_round_trip(client, registry, question, **kwargs)
        if returns == "first block":
            return final.content[0].text
        if returns == "first text block":
            return next(block.text for block in final.content if block.type == "text")
        return reply_text(final) if returns == "text" else final.content

    return anthropic_round_trip


def test_the_solution_passes_every_conversation():
    assert evaluate("07.3", solution("anthropic_round_trip")) == (
        "Exercise 07.3 passed: anthropic_round_trip (13 conversations)."
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
        "cut_short": round_trip(stop_check="end_turn"),
        "assistant": round_trip(assistant="missing"),
        "assistant_unchanged": round_trip(assistant="tool_use only"),
        "thinking": round_trip(assistant="text and tool_use"),
        "one_user_message": round_trip(results_in="tool role"),
        "tool_use_id": round_trip(id_key="tool_call_id"),
        "content": round_trip(content="json.dumps"),
        "is_error": round_trip(errors="never"),
        "is_error_only": round_trip(errors="word"),
        "second_request": round_trip(send_again=False),
        "no_third": round_trip(loop=True),
        "returns_text": round_trip(returns="content"),
        "every_text_block": round_trip(returns="first text block"),
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
    assert '"is_error": True belongs only on results that are errors' in message


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


def test_text_before_the_results_is_told_the_results_come_first():
    message = rejected("07.3", round_trip(text_first=True))
    assert "Put the tool_result blocks first in the user message" in message
    assert "Where:    the tool_result blocks of the user message you sent" in message


def test_text_after_the_results_passes():
    def with_text_after(client, registry, question, *, model):
        is_error_result, reply_text = solution("is_error_result"), solution("reply_text")
        tools = registry.schemas(format="anthropic")
        conversation = [{"role": "user", "content": question}]
        reply = client.messages.create(
            model=model, max_tokens=1024, messages=conversation, tools=tools
        )
        if reply.stop_reason != "tool_use":
            return reply_text(reply)
        results = []
        for block in reply.content:
            if block.type == "tool_use":
                result = registry.call(block.name, block.input)
                entry = {"type": "tool_result", "tool_use_id": block.id, "content": result}
                if is_error_result(result):
                    entry["is_error"] = True
                results.append(entry)
        after = {"type": "text", "text": "Those are the results."}
        conversation += [
            {"role": "assistant", "content": reply.content},
            {"role": "user", "content": [*results, after]},
        ]
        final = client.messages.create(
            model=model, max_tokens=1024, messages=conversation, tools=tools
        )
        return reply_text(final)

    assert evaluate("07.3", with_text_after).startswith("Exercise 07.3 passed")


def test_results_sent_with_each_others_calls_are_told_each_goes_with_its_own_block():
    message = rejected("07.3", round_trip(swapped=True))
    assert "This tool_result holds the result of another call" in message


def test_results_as_text_blocks_are_told_the_api_takes_them_but_the_exercise_wants_the_string():
    message = rejected("07.3", round_trip(content="text blocks"))
    assert "Your tool_result content is a list of text blocks" in message


def test_a_result_nested_600_deep_fails_its_case_instead_of_overflowing_the_check():
    """A tool_result whose content is a list nested 600 deep: the check shows it as what was sent,
    and the case fails with the content hint. masked() walked every request it showed for the
    reply's signatures even when the reply had none, and raised RecursionError on this one."""
    message = rejected("07.3", round_trip(content="nested 600 deep"))  # CheckFailed, nothing else
    assert "Got:      [" in message
    assert "The content is the text registry.call(block.name, block.input) returns" in message


def test_the_word_error_in_a_successful_result_is_not_an_error_result():
    message = rejected("07.3", round_trip(errors="word"))
    assert "Where:    the tool_result answering get_weather({'city': 'Berlin'})" in message
    assert 'merely holds the word "error"' in message


def test_a_reply_cut_short_by_max_tokens_is_an_answer_not_a_call():
    message = rejected("07.3", round_trip(stop_check="end_turn"))
    assert "Tell me everything about the weather." in message
    assert 'stop_reason is not "tool_use"' in message


def test_dropping_the_assistant_text_before_its_calls_is_told_to_send_every_block():
    message = rejected("07.3", round_trip(assistant="tool_use only"))
    assert "every block of it (its text too)" in message


def test_keeping_only_text_and_tool_use_blocks_is_told_the_thinking_block_goes_back():
    message = rejected("07.3", WRONG_BY_RULE["07.3"]["thinking"])
    assert "model='local-toy-reasoning'" in message
    assert "The reply began with a thinking block" in message


def test_a_thinking_block_rebuilt_without_its_signature_is_told_to_send_it_unchanged():
    message = rejected("07.3", round_trip(assistant="rebuilt"))
    assert "its signature seals its text" in message


def test_returning_the_first_blocks_text_is_told_a_thinking_block_has_none():
    message = rejected("07.3", round_trip(returns="first block"))
    assert "model='local-toy-reasoning'" in message
    assert "starts with a thinking block, which has no .text" in message


def test_the_text_blocks_joined_by_a_comprehension_of_their_own_pass():
    is_error_result = solution("is_error_result")

    def anthropic_round_trip(client, registry, question, *, model):
        ask = {"model": model, "max_tokens": 1024, "tools": registry.schemas(format="anthropic")}
        history = [{"role": "user", "content": question}]
        reply = client.messages.create(messages=history, **ask)
        if reply.stop_reason == "tool_use":
            answers = []
            for use in (b for b in reply.content if b.type == "tool_use"):
                out = registry.call(use.name, use.input)
                answers.append(
                    {"type": "tool_result", "tool_use_id": use.id, "content": out}
                    | ({"is_error": True} if is_error_result(out) else {})
                )
            history.append({"role": "assistant", "content": reply.content})
            history.append({"role": "user", "content": answers})
            reply = client.messages.create(messages=history, **ask)
        return "".join(getattr(b, "text", "") for b in reply.content if b.type == "text")

    assert evaluate("07.3", anthropic_round_trip).startswith("Exercise 07.3 passed")


def test_reading_every_block_as_a_call_is_told_a_thinking_block_comes_first():
    is_error_result, reply_text = solution("is_error_result"), solution("reply_text")

    def anthropic_round_trip(client, registry, question, *, model):
        ask = {"model": model, "max_tokens": 1024, "tools": registry.schemas(format="anthropic")}
        history = [{"role": "user", "content": question}]
        reply = client.messages.create(messages=history, **ask)
        if reply.stop_reason != "tool_use":
            return reply_text(reply)
        calls = reply.content[1:] if reply.content[0].type == "text" else reply.content
        results = []
        for use in calls:
            out = registry.call(use.name, use.input)
            entry = {"type": "tool_result", "tool_use_id": use.id, "content": out}
            results.append({**entry, "is_error": True} if is_error_result(out) else entry)
        history += [
            {"role": "assistant", "content": reply.content},
            {"role": "user", "content": results},
        ]
        return reply_text(client.messages.create(messages=history, **ask))

    message = rejected("07.3", anthropic_round_trip)
    assert "model='local-toy-reasoning'" in message
    assert "starts with a thinking block, which has no id, name or input" in message


def test_an_edited_thinking_block_is_told_its_signature_seals_it_without_showing_the_signature():
    message = rejected("07.3", round_trip(assistant="thinking edited"))
    assert "its signature seals its text" in message
    assert "<the signature of the reply's block 0>" in message  # it differs from run to run


def test_returning_only_the_first_text_block_is_told_to_join_every_text_block():
    message = rejected("07.3", round_trip(returns="first text block"))
    assert "Is it sunny in Paris or in London?" in message
    assert "holds 2 text blocks and you returned only one of them" in message


def test_the_text_blocks_collected_in_a_loop_pass():
    is_error_result = solution("is_error_result")

    def anthropic_round_trip(client, registry, question, *, model):
        tools = registry.schemas(format="anthropic")
        messages = [{"role": "user", "content": question}]
        reply = client.messages.create(model=model, max_tokens=1024, messages=messages, tools=tools)
        if reply.stop_reason == "tool_use":
            results = []
            for block in reply.content:
                if block.type != "tool_use":
                    continue
                result = registry.call(block.name, block.input)
                entry = {"type": "tool_result", "tool_use_id": block.id, "content": result}
                if is_error_result(result):
                    entry["is_error"] = True
                results.append(entry)
            messages += [
                {"role": "assistant", "content": reply.content},
                {"role": "user", "content": results},
            ]
            reply = client.messages.create(
                model=model, max_tokens=1024, messages=messages, tools=tools
            )
        pieces = []
        for block in reply.content:
            if block.type == "text":
                pieces.append(block.text)
        return "".join(pieces)

    assert evaluate("07.3", anthropic_round_trip).startswith("Exercise 07.3 passed")
