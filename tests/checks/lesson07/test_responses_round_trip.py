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
        history = [
            {"type": "message", "role": "user", "content": question},
            *[item.model_dump(exclude_none=True) for item in first.output],
        ]
        second_kwargs = {"tools": sent_tools} if second_tools else {}
        if continuation == "previous":
            second_kwargs.update(previous_response_id=first.id, input=outputs)
        elif continuation == "whole":
            second_kwargs.update(input=[*history, *outputs])
        elif continuation == "both":
            second_kwargs.update(previous_response_id=first.id, input=[*history, *outputs])
        elif continuation == "neither":
            second_kwargs.update(input=outputs)
        second = client.responses.create(model=used_model, **second_kwargs)
        return second.output_text if returns == "text" else second.output

    return responses_round_trip


def test_the_solution_passes_every_conversation():
    assert evaluate("07.1", solution("responses_round_trip")) == (
        "Exercise 07.1 passed: responses_round_trip (7 conversations)."
    )


def test_resending_the_whole_conversation_without_previous_response_id_passes_too():
    assert evaluate("07.1", round_trip(continuation="whole")).startswith("Exercise 07.1 passed")


def test_decoding_the_arguments_first_passes_since_the_registry_takes_a_dict_too():
    def responses_round_trip(client, registry, question, *, model):
        import json

        tools = registry.schemas(format="responses")
        first = client.responses.create(model=model, input=question, tools=tools)
        calls = [item for item in first.output if item.type == "function_call"]
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


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "07.1": {
        "model": round_trip(model=False),
        "tools": round_trip(second_tools=False),
        "first_input": round_trip(first_input="system"),
        "no_calls": round_trip(check_calls=False),
        "every_call": round_trip(answer="first"),
        "call_id": round_trip(pair_by="id"),
        "output": round_trip(output="json.dumps"),
        "continue": round_trip(continuation="both"),
        "second_request": round_trip(send_again=False),
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
        tools = registry.schemas(format="responses")
        first = client.responses.create(model=model, input=question, tools=tools)
        calls = [item for item in first.output if item.type == "function_call"]
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
        tools = registry.schemas(format="responses")
        first = client.responses.create(model=model, input=question, tools=tools)
        calls = [item for item in first.output if item.type == "function_call"]
        if not calls:
            return first.output_text
        outputs = [
            {
                "type": "function_call_output",
                "call_id": item.call_id,
                "output": registry.call(item.name, item.arguments),
            }
            for item in calls
        ]
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
        tools = registry.schemas(format="responses")
        first = client.responses.create(model=model, input=question, tools=tools)
        calls = [item for item in first.output if item.type == "function_call"]
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
