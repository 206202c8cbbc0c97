"""ScriptedPolicy plays exact turns, and its fault helpers break calls the way real models do."""

from __future__ import annotations

import json

import openai
import pytest
from local_model_fixtures import WEATHER, user

from course_lib.local_model import MODEL, ScriptedPolicy, Turn, call, faults, make_client

WEATHER_CALL = call("get_weather", city="北京", unit="c")


def first_reply(*turns):
    client = make_client(ScriptedPolicy(list(turns)))
    return client.chat.completions.create(model=MODEL, messages=user("北京天气"), tools=[WEATHER])


def test_a_script_replies_turn_by_turn_counting_assistant_messages():
    client = make_client(ScriptedPolicy([WEATHER_CALL, "北京晴。"]))
    messages = user("北京天气")
    first = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])
    call_id = first.choices[0].message.tool_calls[0].id
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call_id, "content": "晴"},
    ]
    second = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])
    assert second.choices[0].message.content == "北京晴。"
    again = client.chat.completions.create(model=MODEL, messages=user("再来"), tools=[WEATHER])
    assert again.choices[0].message.tool_calls[0].function.name == "get_weather"


def test_a_list_of_calls_is_one_parallel_turn_and_a_turn_can_hold_text_and_calls():
    both = call("get_weather", city="上海")
    message = first_reply([WEATHER_CALL, both]).choices[0].message
    assert [c.function.arguments for c in message.tool_calls] == [
        '{"city": "北京", "unit": "c"}',
        '{"city": "上海"}',
    ]
    mixed = first_reply(Turn("Checking.", (WEATHER_CALL,))).choices[0].message
    assert mixed.content == "Checking." and len(mixed.tool_calls) == 1


def test_a_hallucinated_name_is_a_tool_that_does_not_exist():
    bad = faults.hallucinated_name(WEATHER_CALL)
    assert bad.name != "get_weather" and bad.arguments == WEATHER_CALL.arguments
    assert faults.hallucinated_name(WEATHER_CALL, "weather_now").name == "weather_now"
    sent = first_reply(bad).choices[0].message.tool_calls[0].function.name
    assert sent == bad.name  # the local model sends it as is: the client must cope


def test_malformed_json_arguments_do_not_parse():
    arguments = first_reply(faults.malformed_json(WEATHER_CALL)).choices[0].message
    with pytest.raises(json.JSONDecodeError):
        json.loads(arguments.tool_calls[0].function.arguments)


def test_wrong_type_swaps_the_json_type_of_one_argument():
    limited = call("search_notes", keyword="ai", limit=3)
    assert json.loads(faults.wrong_type(limited, "limit").arguments)["limit"] == "3"
    assert json.loads(faults.wrong_type(call("f", n="7"), "n").arguments)["n"] == 7
    assert json.loads(faults.wrong_type(WEATHER_CALL, "city").arguments)["city"] == ["北京"]


def test_missing_required_drops_the_argument():
    assert json.loads(faults.missing_required(WEATHER_CALL, "city").arguments) == {"unit": "c"}


def test_breaking_an_argument_the_call_does_not_have_is_an_error_that_says_so():
    with pytest.raises(ValueError, match="has no argument 'limit'"):
        faults.wrong_type(WEATHER_CALL, "limit")


def test_a_finished_script_fails_loudly_with_a_500_that_explains():
    client = make_client(ScriptedPolicy(["only turn"]))
    messages = [*user("a"), {"role": "assistant", "content": "only turn"}, *user("b")]
    with pytest.raises(openai.InternalServerError, match="ScriptedPolicy has no turn left"):
        client.chat.completions.create(model=MODEL, messages=messages)


def test_a_script_entry_of_the_wrong_kind_is_refused_at_construction():
    with pytest.raises(TypeError, match="a script turn is"):
        ScriptedPolicy([42])
