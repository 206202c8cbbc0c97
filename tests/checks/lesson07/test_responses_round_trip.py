"""Exercise 07.1: the solution passes; a wrong Responses round trip fails on the rule it breaks.

The learner's function talks to a model session on the check's side, so every assertion here is
about what it really sent (``session.exchanges``), whatever it returns.
"""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from lesson07.notebook import solution


def round_trip(
    *,
    model=True,
    tools="responses",
    second_tools=True,
    first_input="text",
    check_calls=True,
    answer="all",
    pair_by="call_id",
    output="as is",
    continuation="previous",
    send_again=True,
    returns="text",
    history="every item",
    answered_when="no calls",
):
    """A responses_round_trip with one chosen mistake (the defaults give a correct one)."""

    def responses_round_trip(client, registry, question, **kwargs):
        used_model = kwargs["model"] if model else "local-toy"
        if tools == "responses":
            sent_tools = registry.schemas(format="responses")
        else:
            sent_tools = registry.schemas()
        first_input_value = (
            question if first_input == "text" else [{"role": "system", "content": "Be brief."}]
        )
        first = client.responses.create(model=used_model, input=first_input_value, tools=sent_tools)
        calls = [item for item in first.output if item.type == "function_call"]
        if answered_when == "text" and first.output_text:
            return first.output_text
        if check_calls and not calls:
            return first.output_text
        if not send_again:
            return first.output_text
        answered = calls if answer == "all" else calls[:1]
        outputs = []
        for item in answered:
            result = registry.call(item.name, item.arguments)
            call_id = {"call_id": item.call_id, "id": item.id, "first": calls[0].call_id}[pair_by]
            if output == "json.dumps":
                import json

                result = json.dumps(result, ensure_ascii=False)
            outputs.append({"type": "function_call_output", "call_id": call_id, "output": result})
        resent = first.output if history == "every item" else calls
        history_items = [
            {"type": "message", "role": "user", "content": question},
            *[item.model_dump(exclude_none=True) for item in resent],
        ]
        second_kwargs = {"tools": sent_tools} if second_tools else {}
        if continuation == "previous":
            second_kwargs.update(previous_response_id=first.id, input=outputs)
        elif continuation == "whole":
            second_kwargs.update(input=[*history_items, *outputs])
        elif continuation == "both":
            second_kwargs.update(previous_response_id=first.id, input=[*history_items, *outputs])
        elif continuation == "neither":
            second_kwargs.update(input=outputs)
        second = client.responses.create(model=used_model, **second_kwargs)
        if returns == "text or None":  # "" read as "no answer"
            return second.output_text or None
        return second.output_text if returns == "text" else second.output

    return responses_round_trip


def first_turn(client, registry, question, model, *, tools=None):
    """How a correct round trip starts: (the tools it sends, the first response, that
    response's function_call items). ``tools``: other tools to send instead of the registry's."""
    tools = registry.schemas(format="responses") if tools is None else tools
    first = client.responses.create(model=model, input=question, tools=tools)
    return tools, first, [item for item in first.output if item.type == "function_call"]


def outputs_for(registry, calls):
    """One function_call_output per item of ``calls``: the registry's result, by its call_id."""
    return [
        {
            "type": "function_call_output",
            "call_id": item.call_id,
            "output": registry.call(item.name, item.arguments),
        }
        for item in calls
    ]


def test_the_solution_passes_every_conversation():
    assert evaluate("07.1", solution("responses_round_trip")) == (
        "Exercise 07.1 passed: responses_round_trip (12 conversations)."
    )


def test_resending_the_whole_conversation_without_previous_response_id_passes_too():
    assert evaluate("07.1", round_trip(continuation="whole")).startswith("Exercise 07.1 passed")


def test_decoding_the_arguments_first_passes_since_the_registry_takes_a_dict_too():
    def responses_round_trip(client, registry, question, *, model):
        import json

        tools, first, calls = first_turn(client, registry, question, model)
        if not calls:
            return first.output_text
        outputs = [
            {
                "type": "function_call_output",
                "call_id": item.call_id,
                "output": registry.call(item.name, json.loads(item.arguments)),
            }
            for item in calls
        ]
        second = client.responses.create(
            model=model, input=outputs, previous_response_id=first.id, tools=tools
        )
        return second.output_text

    assert evaluate("07.1", responses_round_trip).startswith("Exercise 07.1 passed")


def looping_round_trip(client, registry, question, *, model):
    """Lesson 05's loop instead of one round trip: a third request when the model asks again."""
    tools = registry.schemas(format="responses")
    response = client.responses.create(model=model, input=question, tools=tools)
    for _ in range(4):
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            break
        outputs = outputs_for(registry, calls)
        response = client.responses.create(
            model=model, previous_response_id=response.id, input=outputs, tools=tools
        )
    return response.output_text


def with_tools(change):
    """A correct round trip that sends ``change(registry.schemas(format="responses"))``."""

    def responses_round_trip(client, registry, question, *, model):
        changed = change(registry.schemas(format="responses"))
        tools, first, calls = first_turn(client, registry, question, model, tools=changed)
        if not calls:
            return first.output_text
        outputs = outputs_for(registry, calls)
        second = client.responses.create(
            model=model, previous_response_id=first.id, input=outputs, tools=tools
        )
        return second.output_text

    return responses_round_trip


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "07.1": {
        "model": round_trip(model=False),
        "tools": round_trip(second_tools=False),
        "first_input": round_trip(first_input="system"),
        "no_calls": round_trip(check_calls=False),
        "text_beside": round_trip(answered_when="text"),
        "reasoning": round_trip(continuation="whole", history="calls only"),
        "every_call": round_trip(answer="first"),
        "call_id": round_trip(pair_by="id"),
        "output": round_trip(output="json.dumps"),
        "continue": round_trip(continuation="both"),
        "second_request": round_trip(send_again=False),
        "no_third": looping_round_trip,
        "returns_text": round_trip(returns="output"),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["07.1"]))
def test_a_wrong_round_trip_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("07.1", rule, WRONG_BY_RULE["07.1"][rule])


def test_results_paired_by_the_item_id_are_told_call_id_is_the_pairing():
    message = rejected("07.1", WRONG_BY_RULE["07.1"]["call_id"])
    assert "not by the item's id (fc_...)" in message
    assert "Where:    the second request's input" in message


def test_every_output_answering_the_first_call_is_told_each_carries_its_own():
    assert "its own one" in rejected("07.1", round_trip(pair_by="first"))


def test_previous_response_id_with_the_whole_input_is_told_to_choose_one():
    message = rejected("07.1", WRONG_BY_RULE["07.1"]["continue"])
    assert "previous_response_id already holds the question and the calls" in message


def test_outputs_without_previous_response_id_or_their_calls_are_outputs_for_unknown_calls():
    message = rejected("07.1", round_trip(continuation="neither"))
    assert "The outputs answer calls this request does not hold" in message


def test_chat_completions_tools_are_told_the_responses_tools_are_flat():
    message = rejected("07.1", round_trip(tools="openai"))
    assert 'the flat ones: registry.schemas(format="responses")' in message
    assert "Where:    request 1 of 1 your function sent" in message


def test_the_tools_left_off_the_second_request_are_told_they_are_not_carried_over():
    message = rejected("07.1", WRONG_BY_RULE["07.1"]["tools"])
    assert "not carried over by previous_response_id" in message
    assert "no tools (tools= not passed)" in message


def test_the_tools_left_off_a_resent_conversation_are_not_told_about_previous_response_id():
    # this learner never used previous_response_id: the hint names what it did, not that
    message = rejected("07.1", round_trip(continuation="whole", second_tools=False))
    assert "previous_response_id" not in message
    assert "this one too: a request offers the model only the tools it carries" in message
    assert "no tools (tools= not passed)" in message


def test_an_output_encoded_twice_is_told_to_send_the_registry_text_unchanged():
    message = rejected("07.1", WRONG_BY_RULE["07.1"]["output"])
    assert "Where:    the output answering get_weather" in message
    assert "it is already a string" in message


def test_reading_the_call_the_chat_way_is_told_the_items_are_flat():
    def responses_round_trip(client, registry, question, *, model):
        tools = registry.schemas(format="responses")
        first = client.responses.create(model=model, input=question, tools=tools)
        for item in first.output:
            registry.call(item.function.name, item.function.arguments)
        return first.output_text

    assert "Responses items are flat" in rejected("07.1", responses_round_trip)


def test_reading_choices_off_a_response_is_told_what_a_response_holds():
    def responses_round_trip(client, registry, question, *, model):
        first = client.responses.create(
            model=model, input=question, tools=registry.schemas(format="responses")
        )
        return first.choices[0].message.content

    assert "read .output and .output_text" in rejected("07.1", responses_round_trip)


def test_a_function_that_never_sends_the_outputs_is_caught_by_the_requests_it_made():
    message = rejected("07.1", WRONG_BY_RULE["07.1"]["second_request"])
    assert "Expected: 2 request(s)" in message and "Got:      1 request(s)" in message


def test_returning_the_output_items_is_told_to_return_the_text():
    message = rejected("07.1", WRONG_BY_RULE["07.1"]["returns_text"])
    assert "Return the text: the last response's output_text." in message


def test_its_own_stub_is_not_done_yet():
    def responses_round_trip(client, registry, question, *, model):
        raise NotImplementedError("Exercise 07.1: create, answer every function_call ...")

    with pytest.raises(NotDoneYet):
        evaluate("07.1", responses_round_trip)


def test_outputs_without_their_type_are_told_the_shape_of_an_output():
    def responses_round_trip(client, registry, question, *, model):
        tools, first, calls = first_turn(client, registry, question, model)
        if not calls:
            return first.output_text
        outputs = [
            {"call_id": item.call_id, "output": registry.call(item.name, item.arguments)}
            for item in calls
        ]
        second = client.responses.create(
            model=model, input=outputs, previous_response_id=first.id, tools=tools
        )
        return second.output_text

    assert '{"type": "function_call_output", "call_id"' in rejected("07.1", responses_round_trip)


def test_the_whole_input_with_the_outputs_before_the_calls_is_told_the_order():
    def responses_round_trip(client, registry, question, *, model):
        tools, first, calls = first_turn(client, registry, question, model)
        if not calls:
            return first.output_text
        outputs = outputs_for(registry, calls)
        items = [item.model_dump(exclude_none=True) for item in calls]
        second = client.responses.create(
            model=model,
            input=[{"role": "user", "content": question}, *outputs, *items],
            tools=tools,
        )
        return second.output_text

    message = rejected("07.1", responses_round_trip)
    assert "the question, the reply's function_call items, then the outputs" in message


def test_a_previous_response_id_that_is_not_the_first_ones_is_told_which_it_is():
    def responses_round_trip(client, registry, question, *, model):
        tools, first, calls = first_turn(client, registry, question, model)
        if not calls:
            return first.output_text
        outputs = [
            {"type": "function_call_output", "call_id": c.call_id, "output": "x"} for c in calls
        ]
        second = client.responses.create(
            model=model, input=outputs, previous_response_id=calls[0].id, tools=tools
        )
        return second.output_text

    assert "the id of the first response (first.id)" in rejected("07.1", responses_round_trip)


def test_a_loop_that_sends_a_third_request_is_told_one_round_trip_returns_the_second_text():
    message = rejected("07.1", looping_round_trip)
    assert "Expected: 2 request(s)" in message and "Got:      3 request(s)" in message
    assert "lesson 05's run_agent" in message


@pytest.mark.parametrize(
    "change",
    [
        lambda tools: [{k: v for k, v in tool.items() if k != "strict"} for tool in tools],
        lambda tools: [{**tool, "strict": True} for tool in tools],
    ],
    ids=["strict left out", "strict true on a loose schema"],
)
def test_tools_whose_strict_key_was_changed_are_told_about_strict_not_carrying_over(change):
    message = rejected("07.1", with_tools(change))
    assert 'differ from registry.schemas(format="responses") in "strict"' in message
    assert "not carried over" not in message


def test_outputs_paired_with_each_others_calls_are_told_each_result_goes_with_its_call():
    def responses_round_trip(client, registry, question, *, model):
        tools, first, calls = first_turn(client, registry, question, model)
        if not calls:
            return first.output_text
        results = [registry.call(item.name, item.arguments) for item in calls]
        outputs = [
            {"type": "function_call_output", "call_id": item.call_id, "output": result}
            for item, result in zip(calls, reversed(results), strict=True)
        ]
        second = client.responses.create(
            model=model, previous_response_id=first.id, input=outputs, tools=tools
        )
        return second.output_text

    message = rejected("07.1", responses_round_trip)
    assert "This output holds the result of another call" in message


def test_a_whole_input_without_the_question_is_shown_the_whole_conversation_expected():
    message = rejected("07.1", _whole_without_question)
    assert "Expected: the question, the reply's function_call items (call_" in message


def _whole_without_question(client, registry, question, *, model):
    tools, first, calls = first_turn(client, registry, question, model)
    if not calls:
        return first.output_text
    outputs = outputs_for(registry, calls)
    items = [item.model_dump(exclude_none=True) for item in calls]
    return client.responses.create(model=model, input=[*items, *outputs], tools=tools).output_text


def test_a_whole_conversation_of_the_calls_alone_is_told_the_reasoning_items_go_back_too():
    message = rejected("07.1", WRONG_BY_RULE["07.1"]["reasoning"])
    assert "model='local-toy-reasoning'" in message
    assert "The reply began with a reasoning item, and its calls belong to it" in message
    assert "every item of the reply (reasoning, function_call, function_call)" in message
    assert "rs_" not in message and "fc_" not in message  # their ids differ from run to run
    assert "Send every item of the reply as it came" in message


def _rebuilt_calls_without_ids(client, registry, question, *, model):
    """The Chat Completions habit: each call rebuilt from its fields, no item ids, no reasoning."""
    tools, first, calls = first_turn(client, registry, question, model)
    if not calls:
        return first.output_text
    rebuilt = [
        {"type": "function_call", "call_id": c.call_id, "name": c.name, "arguments": c.arguments}
        for c in calls
    ]
    outputs = outputs_for(registry, calls)
    second = client.responses.create(
        model=model, input=[{"role": "user", "content": question}, *rebuilt, *outputs], tools=tools
    )
    return second.output_text


def test_calls_rebuilt_without_their_ids_lose_the_reasoning_even_when_the_model_accepts_them():
    message = rejected("07.1", _rebuilt_calls_without_ids)
    assert "The reply began with a reasoning item" in message


def test_the_first_output_items_resent_as_the_sdk_objects_themselves_pass():
    def responses_round_trip(client, registry, question, *, model):
        tools, first, calls = first_turn(client, registry, question, model)
        outputs = outputs_for(registry, calls)
        if not outputs:
            return first.output_text
        conversation = [{"role": "user", "content": question}]
        conversation += [item.model_dump() for item in first.output]
        return client.responses.create(
            model=model, input=conversation + outputs, tools=tools
        ).output_text

    assert evaluate("07.1", responses_round_trip).startswith("Exercise 07.1 passed")


def test_returning_the_text_beside_the_calls_is_told_to_run_them_first():
    message = rejected("07.1", WRONG_BY_RULE["07.1"]["text_beside"])
    assert "This reply holds text beside its function_call items" in message
    assert "Is it sunny in 北京 or in Paris?" in message


def test_looking_at_the_first_item_only_is_told_text_beside_calls_is_not_the_answer():
    def responses_round_trip(client, registry, question, *, model):
        tools, first, calls = first_turn(client, registry, question, model)
        if first.output[0].type == "message":
            return first.output_text
        return client.responses.create(
            model=model,
            previous_response_id=first.id,
            input=outputs_for(registry, calls),
            tools=tools,
        ).output_text

    assert "text beside its function_call items" in rejected("07.1", responses_round_trip)


def _every_item_a_call(skipped):
    """Every item of the reply but those of ``skipped`` types taken as a call."""

    def responses_round_trip(client, registry, question, *, model):
        tools, first, calls = first_turn(client, registry, question, model)
        if not calls:
            return first.output_text
        taken = [item for item in first.output if item.type not in skipped]
        return client.responses.create(
            model=model,
            previous_response_id=first.id,
            input=outputs_for(registry, taken),
            tools=tools,
        ).output_text

    return responses_round_trip


def test_every_item_read_as_a_call_is_told_text_beside_the_calls_is_an_item_too():
    message = rejected("07.1", _every_item_a_call(skipped=()))
    assert "Is it sunny in 北京 or in Paris?" in message
    assert "Not every item of a reply is a call" in message


def test_skipping_only_message_items_is_told_a_reasoning_item_is_not_a_call():
    message = rejected("07.1", _every_item_a_call(skipped=("message",)))
    assert "model='local-toy-reasoning'" in message
    assert "Not every item of a reply is a call" in message


def test_a_second_reply_of_calls_alone_is_answered_with_its_empty_text_not_none():
    """A learner walk found `return second.output_text or None` passing: every second reply
    held text. One that only asks for more calls has the output_text "", and that str is what
    the function returns (with no third request)."""
    from course_lib.checks import CheckFailed, check
    from course_lib.checks.lesson07.responses_round_trip import case_label

    with pytest.raises(CheckFailed) as caught:
        check("07.1", round_trip(returns="text or None"))
    failure = caught.value.failure
    assert failure.case == case_label("And the time in Paris, then in 东京?"), failure.case
    assert (failure.expected, failure.got, failure.hint_key) == ('""', "null", "return_text")
