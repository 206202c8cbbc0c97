"""Notebook 01's checks accept its solutions and reject realistic wrong ones with a fitting hint.

The solutions are not copied here: they are executed from the exercise cells of
``solutions/01_handwritten_schemas.ipynb``, so these tests always check the code the lesson ships.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest
from solution_cells import load_cells, rejected

from course_lib.checks import NotDoneYet, evaluate

NOTEBOOK = "01_handwritten_schemas"
# The cells whose definitions the tests use: the imports, the functions the exercises describe,
# the example tools, and every exercise cell (their printed output is captured by pytest).
LOADED_CELLS = (
    "w01-imports",
    "w01-get-time",
    "w01-time-tool",
    "w01-get-weather",
    "w01-search-notes",
    "w01-ex1",
    "w01-ex2",
    "w01-ex3",
    "w01-ex4",
    "w01-ex5",
    "w01-desc-tools",
    "w01-desc-orders",
    "w01-ex6",
)


@cache
def solution() -> dict[str, Any]:
    """The names the solution notebook defines in ``LOADED_CELLS``, run in order."""
    return load_cells(NOTEBOOK, LOADED_CELLS)


def weather_tool() -> dict:
    return copy.deepcopy(solution()["WEATHER_TOOL"])


def notes_tool() -> dict:
    return copy.deepcopy(solution()["NOTES_TOOL"])


# --- 01.1 WEATHER_TOOL -------------------------------------------------------------------------


def test_weather_tool_solution_passes():
    assert evaluate("01.1", weather_tool()).startswith("Exercise 01.1 passed")


def test_weather_tool_placeholder_is_not_done_yet():
    with pytest.raises(NotDoneYet):
        evaluate("01.1", ...)


def test_weather_tool_without_type_object_is_rejected():
    tool = weather_tool()
    del tool["function"]["parameters"]["type"]
    assert '"type": "object"' in rejected("01.1", tool)


def test_weather_tool_unit_without_enum_is_rejected():
    tool = weather_tool()
    del tool["function"]["parameters"]["properties"]["unit"]["enum"]
    message = rejected("01.1", tool)
    assert "kelvin" in message or '"enum"' in message
    assert 'list exactly those in "enum"' in message


def test_weather_tool_with_unit_required_is_rejected():
    tool = weather_tool()
    tool["function"]["parameters"]["required"] = ["city", "unit"]
    assert "unit has a default" in rejected("01.1", tool)


def test_weather_tool_without_required_city_is_rejected():
    tool = weather_tool()
    tool["function"]["parameters"]["required"] = []
    assert "city has no default" in rejected("01.1", tool)


def test_weather_tool_with_parameters_next_to_function_is_rejected():
    tool = weather_tool()
    tool["parameters"] = tool["function"].pop("parameters")
    assert '"parameters" belongs inside "function"' in rejected("01.1", tool)


def test_weather_tool_in_the_flat_responses_shape_is_rejected():
    function = weather_tool()["function"]
    assert 'nests "name"' in rejected("01.1", {"type": "function", **function})


def test_weather_tool_with_python_type_names_is_rejected():
    tool = weather_tool()
    tool["function"]["parameters"]["properties"]["city"]["type"] = "str"
    assert "JSON Schema has its own type names" in rejected("01.1", tool)


def test_weather_tool_left_open_to_invented_parameters_is_rejected():
    tool = weather_tool()
    del tool["function"]["parameters"]["additionalProperties"]
    assert '"additionalProperties": false' in rejected("01.1", tool)


def test_weather_tool_with_a_wrong_name_is_rejected():
    tool = weather_tool()
    tool["function"]["name"] = "weather"
    assert "exactly 'get_weather'" in rejected("01.1", tool)


def test_weather_tool_without_description_is_rejected():
    tool = weather_tool()
    tool["function"]["description"] = ""
    assert "the model reads it" in rejected("01.1", tool)


def test_weather_tool_with_a_wrong_default_is_rejected():
    tool = weather_tool()
    tool["function"]["parameters"]["properties"]["unit"]["default"] = "f"
    assert "The function's default is 'c'" in rejected("01.1", tool)


# --- 01.2 NOTES_TOOL ---------------------------------------------------------------------------


def test_notes_tool_solution_passes():
    assert evaluate("01.2", notes_tool()).startswith("Exercise 01.2 passed")


def test_notes_tool_with_only_array_type_for_tags_passes():
    tool = notes_tool()
    tool["function"]["parameters"]["properties"]["tags"] = {
        "type": "array",
        "items": {"type": "string"},
    }
    assert evaluate("01.2", tool).startswith("Exercise 01.2 passed")


def test_notes_tool_with_a_null_default_that_its_own_type_refuses_is_rejected():
    tool = notes_tool()
    tool["function"]["parameters"]["properties"]["tags"]["type"] = "array"
    message = rejected("01.2", tool)
    assert "A default must fit its own schema" in message
    assert '"type": ["array", "null"]' in message


def test_notes_tool_with_limit_required_is_rejected():
    tool = notes_tool()
    tool["function"]["parameters"]["required"] = ["keyword", "limit"]
    assert "Only keyword is required" in rejected("01.2", tool)


def test_notes_tool_tags_without_items_is_rejected():
    tool = notes_tool()
    del tool["function"]["parameters"]["properties"]["tags"]["items"]
    assert '"items": {"type": "string"}' in rejected("01.2", tool)


def test_notes_tool_limit_as_number_is_rejected():
    tool = notes_tool()
    tool["function"]["parameters"]["properties"]["limit"]["type"] = "number"
    assert 'use "integer"' in rejected("01.2", tool)


def test_notes_tool_tags_as_string_is_rejected():
    tool = notes_tool()
    tool["function"]["parameters"]["properties"]["tags"] = {"type": "string"}
    assert '"type": "array"' in rejected("01.2", tool)


def test_notes_tool_with_properties_directly_in_function_is_rejected():
    tool = notes_tool()
    parameters = tool["function"].pop("parameters")
    tool["function"]["properties"] = parameters["properties"]
    tool["function"]["required"] = parameters["required"]
    assert 'Wrap "properties" and "required"' in rejected("01.2", tool)


def test_notes_tool_missing_a_parameter_is_rejected():
    tool = notes_tool()
    del tool["function"]["parameters"]["properties"]["tags"]
    assert "List every parameter" in rejected("01.2", tool)


# --- 01.3 tool_message -------------------------------------------------------------------------


def test_tool_message_solution_passes():
    assert evaluate("01.3", solution()["tool_message"]).startswith("Exercise 01.3 passed")


def test_tool_message_stub_is_not_done_yet():
    def tool_message(tool_call, result):
        raise NotImplementedError("Exercise 01.3: return the role tool message")

    with pytest.raises(NotDoneYet):
        evaluate("01.3", tool_message)


def _call_id(tool_call: Any) -> str:
    return tool_call["id"] if isinstance(tool_call, dict) else tool_call.id


def _content(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


def test_tool_message_without_tool_call_id_is_rejected():
    def tool_message(tool_call, result):
        return {"role": "tool", "content": _content(result)}

    assert 'Add "tool_call_id"' in rejected("01.3", tool_message)


def test_tool_message_with_id_instead_of_tool_call_id_is_rejected():
    def tool_message(tool_call, result):
        return {"role": "tool", "id": _call_id(tool_call), "content": _content(result)}

    assert 'The key is "tool_call_id", not "id": rename it' in rejected("01.3", tool_message)


def test_tool_message_with_the_function_name_as_id_is_rejected():
    def tool_message(tool_call, result):
        name = tool_call["function"]["name"] if isinstance(tool_call, dict) else None
        name = name or tool_call.function.name
        return {"role": "tool", "tool_call_id": name, "content": _content(result)}

    assert "Copy the id of this tool call" in rejected("01.3", tool_message)


def test_tool_message_with_ascii_escapes_is_rejected():
    def tool_message(tool_call, result):
        content = result if isinstance(result, str) else json.dumps(result)
        return {"role": "tool", "tool_call_id": _call_id(tool_call), "content": content}

    assert "ensure_ascii=False" in rejected("01.3", tool_message)


def test_tool_message_with_str_instead_of_json_is_rejected():
    def tool_message(tool_call, result):
        return {"role": "tool", "tool_call_id": _call_id(tool_call), "content": str(result)}

    assert "not str()" in rejected("01.3", tool_message)


def test_tool_message_encoding_strings_again_is_rejected():
    def tool_message(tool_call, result):
        content = json.dumps(result, ensure_ascii=False)
        return {"role": "tool", "tool_call_id": _call_id(tool_call), "content": content}

    assert "pass it through unchanged" in rejected("01.3", tool_message)


def test_tool_message_with_raw_result_as_content_is_rejected():
    def tool_message(tool_call, result):
        return {"role": "tool", "tool_call_id": _call_id(tool_call), "content": result}

    assert '"content" must be a string' in rejected("01.3", tool_message)


def test_tool_message_for_sdk_objects_only_is_rejected_on_a_dict():
    def tool_message(tool_call, result):
        return {"role": "tool", "tool_call_id": tool_call.id, "content": _content(result)}

    message = rejected("01.3", tool_message)
    assert 'tool_call["id"]' in message
    assert "raised AttributeError: 'dict' object has no attribute 'id'" in message


def test_tool_message_with_an_extra_name_key_is_rejected():
    def tool_message(tool_call, result):
        message = solution()["tool_message"](tool_call, result)
        return {**message, "name": "get_weather"}

    assert "exactly the keys role, tool_call_id and content" in rejected("01.3", tool_message)


# --- 01.5 to_anthropic and to_responses ----------------------------------------------------------


def test_format_solutions_pass():
    message = evaluate("01.5", solution()["to_anthropic"], solution()["to_responses"])
    assert message.startswith("Exercise 01.5 passed")


def test_to_anthropic_keeping_parameters_is_rejected():
    def to_anthropic(tool):
        function = tool["function"]
        return {key: function[key] for key in ("name", "description", "parameters")}

    assert '"input_schema", not "parameters"' in rejected(
        "01.5", to_anthropic, solution()["to_responses"]
    )


def test_a_format_failure_shows_the_unchanged_schema_as_one_line():
    def to_anthropic(tool):
        return {"type": "function", **solution()["to_anthropic"](tool)}

    message = rejected("01.5", to_anthropic, solution()["to_responses"])
    assert "<the tool's parameters schema, unchanged>" in message
    assert '"additionalProperties"' not in message
    assert len(message.splitlines()) < 20


def test_to_anthropic_with_a_type_key_is_rejected():
    def to_anthropic(tool):
        return {"type": "function", **solution()["to_anthropic"](tool)}

    assert 'no "type": "function"' in rejected("01.5", to_anthropic, solution()["to_responses"])


def test_to_responses_still_nested_is_rejected():
    def to_responses(tool):
        return {"type": "function", "function": tool["function"]}

    assert "Responses tools are flat" in rejected("01.5", solution()["to_anthropic"], to_responses)


def test_to_responses_without_type_is_rejected():
    def to_responses(tool):
        function = tool["function"]
        return {key: function[key] for key in ("name", "description", "parameters")}

    message = rejected("01.5", solution()["to_anthropic"], to_responses)
    assert 'keeps "type": "function"' in message


def test_to_responses_with_input_schema_is_rejected():
    def to_responses(tool):
        return {"type": "function", **solution()["to_anthropic"](tool)}

    message = rejected("01.5", solution()["to_anthropic"], to_responses)
    assert 'keeps the name "parameters"' in message


def test_to_anthropic_that_changes_its_input_is_rejected():
    def to_anthropic(tool):
        function = tool.pop("function")
        function["input_schema"] = function.pop("parameters")
        return function

    assert "do not change the tool you were given" in rejected(
        "01.5", to_anthropic, solution()["to_responses"]
    )


def test_to_responses_without_strict_is_rejected():
    def to_responses(tool):
        return {
            key: value for key, value in solution()["to_responses"](tool).items() if key != "strict"
        }

    assert 'requires "strict"' in rejected("01.5", solution()["to_anthropic"], to_responses)


# --- the solutions agree with course_lib.reference ---------------------------------------------

AGREEMENT_ARGUMENTS = {
    "WEATHER_TOOL": [
        {"city": "北京"},
        {"city": "上海", "unit": "f"},
        {"city": "Paris", "unit": "kelvin"},
        {"unit": "c"},
        {"city": 3},
        {"city": "北京", "country": "CN"},
    ],
    "NOTES_TOOL": [
        {"keyword": "北京"},
        {"keyword": "上海", "limit": 2, "tags": ["travel"]},
        {"keyword": "上海", "tags": None},
        {"keyword": "上海", "limit": 2.5},
        {"keyword": "上海", "tags": [1]},
        {"limit": 3},
        {"keyword": "上海", "folder": "inbox"},
    ],
}


@pytest.mark.parametrize(
    ("target", "function_cell", "function_name"),
    [
        ("WEATHER_TOOL", "w01-get-weather", "get_weather"),
        ("NOTES_TOOL", "w01-search-notes", "search_notes"),
    ],
)
def test_handwritten_tools_accept_what_the_reference_tool_accepts(
    target, function_cell, function_name
):
    from jsonschema import Draft202012Validator

    from course_lib.reference import function_to_tool

    reference = function_to_tool(solution()[function_name])
    handwritten = solution()[target]
    assert handwritten["function"]["name"] == reference["function"]["name"]
    assert (
        handwritten["function"]["parameters"]["required"]
        == (reference["function"]["parameters"]["required"])
    )
    ours = Draft202012Validator(handwritten["function"]["parameters"])
    theirs = Draft202012Validator(reference["function"]["parameters"])
    for arguments in AGREEMENT_ARGUMENTS[target]:
        assert ours.is_valid(arguments) == theirs.is_valid(arguments), arguments


@pytest.mark.parametrize(
    ("exercise_id", "function_name"), [("01.1", "get_weather"), ("01.2", "search_notes")]
)
def test_the_reference_tools_pass_the_schema_checks(exercise_id, function_name):
    from course_lib.reference import function_to_tool

    tool = function_to_tool(solution()[function_name])
    assert evaluate(exercise_id, tool).startswith(f"Exercise {exercise_id} passed")


@pytest.mark.parametrize("fmt", ["anthropic", "responses"])
def test_format_solutions_agree_with_convert_tool(fmt):
    from course_lib.checks.core import hidden_rng
    from course_lib.checks.nb01 import FORMAT_EXAMPLE, _random_tool
    from course_lib.reference import convert_tool

    rng = hidden_rng("agreement")
    convert = solution()[f"to_{fmt}"]
    for tool in [FORMAT_EXAMPLE, solution()["TIME_TOOL"], *(_random_tool(rng) for _ in range(20))]:
        assert convert(copy.deepcopy(tool)) == convert_tool(tool, fmt)


# --- 01.4 ask_with_tools -------------------------------------------------------------------------


def _round_trip(
    *, append_assistant="once", answer="all", ids="own", decode=True, model=True, returns="text"
):
    """An ask_with_tools with one chosen mistake (the defaults give a correct one)."""
    tool_message = solution()["tool_message"]

    def ask_with_tools(client, question, tools, functions, **kwargs):
        used_model = kwargs["model"] if model else "local-toy"
        messages = [{"role": "user", "content": question}]
        reply = client.chat.completions.create(model=used_model, messages=messages, tools=tools)
        message = reply.choices[0].message
        if not message.tool_calls:
            return message.content
        if append_assistant == "once":
            messages.append(message.model_dump(exclude_none=True))
        calls = message.tool_calls if answer == "all" else message.tool_calls[:1]
        for tool_call in calls:
            if append_assistant == "per call":
                messages.append(message.model_dump(exclude_none=True))
            raw = tool_call.function.arguments
            result = functions[tool_call.function.name](**(json.loads(raw) if decode else raw))
            reply_message = tool_message(tool_call, result)
            if ids == "first":
                reply_message["tool_call_id"] = message.tool_calls[0].id
            elif ids == "none":
                del reply_message["tool_call_id"]
            messages.append(reply_message)
        final = client.chat.completions.create(model=used_model, messages=messages, tools=tools)
        return final.choices[0].message.content if returns == "text" else final.choices[0].message

    return ask_with_tools


def test_round_trip_solution_passes():
    assert evaluate("01.4", solution()["ask_with_tools"]).startswith("Exercise 01.4 passed")


def test_round_trip_helper_without_mistakes_passes():
    assert evaluate("01.4", _round_trip()).startswith("Exercise 01.4 passed")


def test_round_trip_that_appends_the_pydantic_message_passes():
    tool_message = solution()["tool_message"]

    def ask_with_tools(client, question, tools, functions, *, model):
        messages = [{"role": "user", "content": question}]
        message = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = message.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message)
        for tool_call in message.tool_calls:
            result = functions[tool_call.function.name](**json.loads(tool_call.function.arguments))
            messages.append(tool_message(tool_call, result))
        final = client.chat.completions.create(model=model, messages=messages, tools=tools)
        return final.choices[0].message.content

    assert evaluate("01.4", ask_with_tools).startswith("Exercise 01.4 passed")


def test_round_trip_forgetting_the_assistant_message_is_rejected():
    message = rejected("01.4", _round_trip(append_assistant="never"))
    assert "Append the assistant message (the reply with tool_calls)" in message


def test_round_trip_appending_the_assistant_message_per_call_is_rejected():
    message = rejected("01.4", _round_trip(append_assistant="per call"))
    assert "Append the assistant message once" in message


def test_round_trip_answering_only_the_first_call_is_rejected():
    assert "Answer every tool call" in rejected("01.4", _round_trip(answer="first"))


def test_round_trip_reusing_the_first_id_is_rejected():
    assert "its own call's id" in rejected("01.4", _round_trip(ids="first"))


def test_round_trip_forgetting_the_ids_is_rejected():
    assert 'needs "tool_call_id"' in rejected("01.4", _round_trip(ids="none"))


def test_round_trip_without_json_loads_is_rejected():
    message = rejected("01.4", _round_trip(decode=False))
    assert "json.loads them" in message
    assert "functions['get_weather']() argument after ** must be a mapping" in message
    assert "course_lib" not in message and "_check_" not in message


def test_round_trip_calling_the_unfinished_01_3_stub_points_at_01_3():
    def tool_message(tool_call, result):
        raise NotImplementedError("Exercise 01.3: return the role tool message")

    ask_with_tools = load_cells(
        NOTEBOOK, ["w01-ex4"], namespace={"json": json, "tool_message": tool_message}
    )["ask_with_tools"]
    message = rejected("01.4", ask_with_tools)
    assert "tool_message is exercise 01.3" in message


def test_round_trip_without_tools_on_the_second_request_says_which_request():
    def ask_with_tools(client, question, tools, functions, *, model):
        messages = [{"role": "user", "content": question}]
        message = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = message.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        for tool_call in message.tool_calls:
            result = functions[tool_call.function.name](**json.loads(tool_call.function.arguments))
            messages.append(solution()["tool_message"](tool_call, result))
        final = client.chat.completions.create(model=model, messages=messages)
        return final.choices[0].message.content

    message = rejected("01.4", ask_with_tools)
    assert "Pass tools=tools to every request" in message
    assert "Where:    request 2 of 2 your function sent" in message
    assert "no tools (tools= not passed)" in message


def test_round_trip_ignoring_the_model_argument_is_rejected():
    assert "Pass model=model" in rejected("01.4", _round_trip(model=False))


def test_round_trip_returning_the_message_object_is_rejected():
    assert "Return the text" in rejected("01.4", _round_trip(returns="message"))


def test_round_trip_that_never_sends_the_results_is_rejected():
    def ask_with_tools(client, question, tools, functions, *, model):
        messages = [{"role": "user", "content": question}]
        reply = client.chat.completions.create(model=model, messages=messages, tools=tools)
        return reply.choices[0].message.content or ""

    assert "send the conversation once more" in rejected("01.4", ask_with_tools)


# --- 01.6 BETTER_DESCRIPTION --------------------------------------------------------------------


def test_better_description_solution_passes():
    message = evaluate("01.6", solution()["BETTER_DESCRIPTION"])
    assert message.startswith("Exercise 01.6 passed")


def test_the_vague_description_is_rejected():
    assert "Rewrite the vague description" in rejected("01.6", "Gets info.")


def test_a_slightly_better_but_still_vague_description_is_rejected():
    assert "in the words people use" in rejected("01.6", "Tracks orders.")


def test_a_description_in_chinese_only_is_rejected():
    assert "in the words people use" in rejected("01.6", "追踪订单和快递的物流状态")


def test_a_description_that_claims_web_questions_is_rejected():
    greedy = solution()["BETTER_DESCRIPTION"] + " Also searches the web for news and facts."
    assert "claims web questions too" in rejected("01.6", greedy)


def test_an_overlong_description_is_rejected():
    assert "Keep it short" in rejected("01.6", "Track orders, parcels and packages. " * 12)


def test_a_description_that_is_not_a_string_is_rejected():
    assert "Assign a string" in rejected("01.6", ["track", "order"])


def test_the_notebook_shows_the_questions_and_tools_the_check_uses():
    from course_lib.checks import nb01

    assert solution()["ORDER_QUESTIONS"] == nb01.ORDER_QUESTIONS
    assert solution()["WEB_QUESTIONS"] == nb01.WEB_QUESTIONS
    assert solution()["order_tool"]("x") == nb01.order_tool("x")
    assert solution()["SEARCH_WEB_TOOL"] == nb01.SEARCH_WEB_TOOL
