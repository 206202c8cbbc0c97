"""Multi-turn behaviour: tool_choice, parallel_tool_calls, grounded answers, retries, no repeats."""

from __future__ import annotations

import json

import pytest
from local_model_fixtures import NOTES, WEATHER, answer_calls, tool, user

from course_lib.local_model import (
    MODEL,
    HeuristicPolicy,
    ScriptedPolicy,
    call,
    faults,
    make_client,
)

THREE_CITIES = "Weather in Beijing, Shanghai and Shenzhen?"


def ask(client, messages, **options):
    return client.chat.completions.create(model=MODEL, messages=messages, **options)


def sunny(name: str, arguments: dict) -> dict:
    return {"city": arguments.get("city"), "sky": "sunny", "temp_c": 21}


def names_and_args(message) -> list[tuple[str, dict]]:
    return [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]


def test_after_results_the_answer_quotes_every_result():
    client = make_client()
    messages = user(THREE_CITIES)
    first = ask(client, messages, tools=[WEATHER]).choices[0].message
    answer_calls(messages, first, sunny)
    final = ask(client, messages, tools=[WEATHER]).choices[0]
    assert final.finish_reason == "stop" and final.message.tool_calls is None
    for city in ("Beijing", "Shanghai", "Shenzhen"):
        assert f'get_weather(city="{city}"): {json.dumps(sunny("", {"city": city}))}' in (
            final.message.content
        )


def test_a_chinese_request_gets_a_chinese_answer():
    client = make_client()
    messages = user("北京的天气怎么样？")
    answer_calls(messages, ask(client, messages, tools=[WEATHER]).choices[0].message, sunny)
    content = ask(client, messages, tools=[WEATHER]).choices[0].message.content
    assert content.startswith("工具返回的结果如下") and "北京" in content


def test_without_parallel_calls_it_asks_one_call_per_turn_and_never_repeats_one():
    client = make_client()
    messages = user(THREE_CITIES)
    asked = []
    for _ in range(3):
        message = ask(client, messages, tools=[WEATHER], parallel_tool_calls=False)
        message = message.choices[0].message
        assert len(message.tool_calls) == 1
        asked.append(names_and_args(message)[0])
        answer_calls(messages, message, sunny)
    assert [a["city"] for _, a in asked] == ["Beijing", "Shanghai", "Shenzhen"]
    final = ask(client, messages, tools=[WEATHER], parallel_tool_calls=False).choices[0].message
    assert final.tool_calls is None and "Shenzhen" in final.content


def test_tool_choice_none_never_calls_even_when_a_tool_fits():
    message = ask(make_client(), user(THREE_CITIES), tools=[WEATHER], tool_choice="none")
    message = message.choices[0].message
    assert message.tool_calls is None and 'tool_choice="none"' in message.content


def test_tool_choice_required_calls_even_when_nothing_fits():
    message = ask(
        make_client(), user("Tell me a joke"), tools=[WEATHER, NOTES], tool_choice="required"
    )
    assert len(message.choices[0].message.tool_calls) == 1


def test_a_named_tool_choice_calls_that_tool():
    forced = {"type": "function", "function": {"name": "search_notes"}}
    message = ask(
        make_client(), user("Weather in Beijing"), tools=[WEATHER, NOTES], tool_choice=forced
    )
    assert [n for n, _ in names_and_args(message.choices[0].message)] == ["search_notes"]


def test_tool_choice_required_after_results_repeats_a_call_as_real_models_do():
    client = make_client()
    messages = user("Weather in Beijing")
    answer_calls(messages, ask(client, messages, tools=[WEATHER]).choices[0].message, sunny)
    again = ask(client, messages, tools=[WEATHER], tool_choice="required").choices[0].message
    assert names_and_args(again) == [("get_weather", {"city": "Beijing"})]


FINAL_RESULT = tool(
    "final_result",
    "The final response which ends this conversation",
    {"city": {"type": "string"}, "temp_c": {"type": "integer"}},
    ["city", "temp_c"],
)


BEIJING = [("Weather in Beijing", "Beijing"), ("北京天气", "北京")]


@pytest.mark.parametrize("question, city", BEIJING)
def test_tool_choice_required_after_results_calls_a_tool_not_yet_called_filled_from_results(
    question, city
):
    """An agent framework's output tool (pydantic-ai's ``final_result``) ends the loop."""
    client = make_client()
    messages = user(question)
    tools = [WEATHER, FINAL_RESULT]
    first = ask(client, messages, tools=tools, tool_choice="required").choices[0].message
    assert names_and_args(first) == [("get_weather", {"city": city})]
    answer_calls(messages, first, sunny)
    again = ask(client, messages, tools=tools, tool_choice="required").choices[0].message
    assert names_and_args(again) == [("final_result", {"city": city, "temp_c": 21})]


def run_script(turns, registry, question="Find my notes about python, limit 3", tools=(NOTES,)):
    """Drive a scripted-then-heuristic model with a tiny loop; return every assistant message."""
    client = make_client(ScriptedPolicy(turns, then=HeuristicPolicy()))
    messages = user(question)
    seen = []
    for _ in range(5):
        message = ask(client, messages, tools=list(tools)).choices[0].message
        seen.append(message)
        if not message.tool_calls:
            return seen
        answer_calls(messages, message, registry)
    raise AssertionError("the model did not stop within 5 turns")


def strict_notes(name: str, arguments: dict):
    if name != "search_notes":
        return {"error": f"unknown tool {name!r}; available tools: search_notes"}
    if "keyword" not in arguments:
        return {"error": "keyword: missing required parameter (expected string)"}
    if not isinstance(arguments.get("limit", 0), int):
        got = json.dumps(arguments["limit"])
        return {"error": f"limit: expected integer, got string {got}"}
    return [f"note about {arguments['keyword']}"]


NOTES_CALL = call("search_notes", keyword="python", limit=3)


def test_after_a_wrong_type_error_it_retries_once_with_the_converted_value():
    first, retry, final = run_script([faults.wrong_type(NOTES_CALL, "limit")], strict_notes)
    assert names_and_args(first) == [("search_notes", {"keyword": "python", "limit": "3"})]
    assert names_and_args(retry) == [("search_notes", {"keyword": "python", "limit": 3})]
    assert 'search_notes(keyword="python", limit=3): ["note about python"]' in final.content
    assert "failed" not in final.content


def test_after_an_unknown_tool_error_it_uses_the_suggested_name():
    first, retry, final = run_script([faults.hallucinated_name(NOTES_CALL)], strict_notes)
    assert first.tool_calls[0].function.name != "search_notes"
    assert names_and_args(retry) == [("search_notes", {"keyword": "python", "limit": 3})]
    assert "note about python" in final.content


def test_after_malformed_json_it_writes_the_call_again():
    client_turns = [faults.malformed_json(NOTES_CALL)]
    client = make_client(ScriptedPolicy(client_turns, then=HeuristicPolicy()))
    messages = user("Find my notes about python, limit 3")
    first = ask(client, messages, tools=[NOTES]).choices[0].message
    messages.append(first.model_dump(exclude_none=True))
    messages.append(
        {
            "role": "tool",
            "tool_call_id": first.tool_calls[0].id,
            "content": json.dumps({"error": "arguments are not valid JSON: expected '}'"}),
        }
    )
    retry = ask(client, messages, tools=[NOTES]).choices[0].message
    assert names_and_args(retry) == [("search_notes", {"keyword": "python", "limit": 3})]


def test_after_a_missing_argument_error_it_finds_the_argument_in_the_request():
    first, retry, _ = run_script([faults.missing_required(NOTES_CALL, "keyword")], strict_notes)
    assert names_and_args(first) == [("search_notes", {"limit": 3})]
    assert names_and_args(retry)[0][1]["keyword"] == "python"


def test_a_boolean_sent_for_an_integer_is_replaced_by_the_number_in_the_request():
    def notes(name, arguments):
        if isinstance(arguments.get("limit"), bool):
            return {"error": "limit: expected integer, got boolean true"}
        return [f"note about {arguments['keyword']}"]

    bad = call("search_notes", keyword="python", limit=True)
    first, retry, final = run_script([bad], notes)
    assert names_and_args(retry) == [("search_notes", {"keyword": "python", "limit": 3})]
    assert "failed" not in final.content


def test_a_list_of_name_parts_sent_for_a_string_is_joined_into_one_name():
    def colleague(name, arguments):
        if not isinstance(arguments["keyword"], str):
            return {"error": "keyword: expected string, got array"}
        return [f"note about {arguments['keyword']}"]

    bad = call("search_notes", keyword=["Zhang", "San"], limit=3)
    first, retry, final = run_script([bad], colleague)
    assert names_and_args(retry) == [("search_notes", {"keyword": "Zhang San", "limit": 3})]


def test_an_error_it_cannot_fix_is_explained_not_retried():
    def broken(name, arguments):
        return {"error": "the notes database is offline"}

    first, final = run_script([NOTES_CALL], broken)
    assert first.tool_calls and final.tool_calls is None
    assert "failed: the notes database is offline" in final.content


def test_a_retry_that_fails_again_is_not_retried_a_second_time():
    def always_wrong(name, arguments):
        return {"error": "limit: expected integer, got something else"}

    messages = run_script([faults.wrong_type(NOTES_CALL, "limit")], always_wrong)
    assert len(messages) == 3  # the faulty call, one retry, then the answer
    assert "failed" in messages[-1].content


@pytest.mark.parametrize("parallel", [True, False])
def test_the_heuristic_never_asks_again_for_an_answered_call(parallel):
    client = make_client()
    messages = user(THREE_CITIES)
    asked: list[tuple] = []
    for _ in range(6):
        message = ask(client, messages, tools=[WEATHER], parallel_tool_calls=parallel)
        message = message.choices[0].message
        if not message.tool_calls:
            break
        for name, arguments in names_and_args(message):
            assert (name, arguments) not in asked
            asked.append((name, arguments))
        answer_calls(messages, message, sunny)
    assert len(asked) == 3


def test_a_hand_written_round_trip_gets_an_answer_not_more_calls():
    messages = [
        *user("What's the weather in Beijing?"),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_handmade",
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "arguments": '{"city": "北京", "unit": "c"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_handmade", "content": "晴，25°C"},
    ]
    message = ask(make_client(), messages, tools=[WEATHER]).choices[0].message
    assert message.tool_calls is None and "晴，25°C" in message.content
