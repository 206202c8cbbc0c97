"""Invalid requests and the real APIs' answers to them (imported as ``spec_errors``).

One row per rule: the request (a valid base with one thing wrong) and the status, error type,
``param``, ``code`` and exact message the real API gives (Anthropic's errors have no ``param``
or ``code``). The wordings are the APIs' own, as measured and published; ``spec_errors`` is the
table the conformance test plays on both roads, and :data:`HOSTILE` the values every option is
also sent with (none of which may crash the model or be answered 500).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import local_model_fixtures as fixtures

from course_lib.local_model import MODEL

WEATHER = fixtures.WEATHER


@dataclass(frozen=True)
class Refusal:
    api: str
    label: str
    body: dict[str, Any]
    message: str
    param: str | None = None
    code: str | None = None
    status: int = 400
    type: str = "invalid_request_error"


def chat(**changes: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": fixtures.user("What's the weather in Paris?"), **changes}


def responses(**changes: Any) -> dict[str, Any]:
    return {"model": MODEL, "input": "What's the weather in Paris?", **changes}


def messages(**changes: Any) -> dict[str, Any]:
    base = {"model": MODEL, "max_tokens": 64, "messages": fixtures.user("What's the weather?")}
    return {**base, **changes}


def _range(param: str, kind: str, side: str, limit: Any, got: str) -> str:
    word = "below minimum" if side == "min" else "above maximum"
    sign = ">=" if side == "min" else "<="
    return (
        f"Invalid '{param}': {kind} {word} value. Expected a value {sign} {limit}, but got "
        f"{got} instead."
    )


def _c(label, body, message, param=None, code=None):
    return Refusal("chat", label, body, message, param, code)


def _r(label, body, message, param=None, code=None):
    return Refusal("responses", label, body, message, param, code)


def _m(label, body, message):
    return Refusal("messages", label, body, message)


MOVED = (
    "Unsupported parameter: '{0}'. In the Responses API, this parameter has moved to '{1}'. "
    "Try again with the new parameter. See the API documentation for more information: "
    "https://platform.openai.com/docs/api-reference/responses/create."
)
PART_TYPES = (
    "'input_text', 'input_image', 'input_audio', 'output_text', 'refusal', 'input_file', "
    "'computer_screenshot', 'summary_text', and 'encrypted_content'"
)
REFUSALS = [
    # -- unknown parameters, and the other API's ----------------------------------------------
    _c(
        "a typo",
        chat(temprature=0.2),
        "Unknown parameter: 'temprature'.",
        "temprature",
        "unknown_parameter",
    ),
    _c(
        "Responses' max_output_tokens",
        chat(max_output_tokens=50),
        "Unknown parameter: 'max_output_tokens'.",
        "max_output_tokens",
        "unknown_parameter",
    ),
    _c(
        "Anthropic's stop_sequences",
        chat(stop_sequences=["x"]),
        "Unknown parameter: 'stop_sequences'.",
        "stop_sequences",
        "unknown_parameter",
    ),
    _c(
        "a stream_options member it lacks",
        chat(stream=True, stream_options={"bogus": True}),
        "Unknown parameter: 'stream_options.bogus'.",
        "stream_options.bogus",
        "unknown_parameter",
    ),
    _r(
        "a typo",
        responses(max_output_token=50),
        "Unknown parameter: 'max_output_token'.",
        "max_output_token",
        "unknown_parameter",
    ),
    _r(
        "Chat's max_tokens",
        responses(max_tokens=50),
        "Unknown parameter: 'max_tokens'.",
        "max_tokens",
        "unknown_parameter",
    ),
    _r(
        "Chat's response_format",
        responses(response_format={"type": "json_object"}),
        MOVED.format("response_format", "text.format"),
        "response_format",
        "unsupported_parameter",
    ),
    _r(
        "Chat's reasoning_effort",
        responses(reasoning_effort="low"),
        MOVED.format("reasoning_effort", "reasoning.effort"),
        "reasoning_effort",
        "unsupported_parameter",
    ),
    _r(
        "Chat's stream_options.include_usage",
        responses(stream=True, stream_options={"include_usage": True}),
        "Unknown parameter: 'stream_options.include_usage'.",
        "stream_options.include_usage",
        "unknown_parameter",
    ),
    _r(
        "a Chat Completions text part",
        responses(input=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}]),
        f"Invalid value: 'text'. Supported values are: {PART_TYPES}.",
        "input[0].content[0]",
        "invalid_value",
    ),
    _m("a typo", messages(temprature=0.2), "temprature: Extra inputs are not permitted"),
    _m("OpenAI's n", messages(n=2), "n: Extra inputs are not permitted"),
    _m(
        "a metadata member it lacks",
        messages(metadata={"session": "x"}),
        "metadata.session: Extra inputs are not permitted",
    ),
    # -- parallel_tool_calls and tool_choice without tools (Chat) ------------------------------
    _c(
        "parallel_tool_calls without tools",
        chat(parallel_tool_calls=False),
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when "
        "'tools' are specified.",
        "parallel_tool_calls",
    ),
    _c(
        "tool_choice without tools",
        chat(tool_choice="auto"),
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
        "specified.",
        "tool_choice",
    ),
    # -- Anthropic's text blocks ----------------------------------------------------------------
    _m(
        "an empty text block",
        messages(messages=[{"role": "user", "content": [{"type": "text", "text": ""}]}]),
        "messages: text content blocks must be non-empty",
    ),
    _m(
        "a blank text block",
        messages(messages=[{"role": "user", "content": [{"type": "text", "text": " \n"}]}]),
        "messages: text content blocks must contain non-whitespace text",
    ),
    _m(
        "a final assistant message ending in whitespace",
        messages(
            messages=[
                *fixtures.user("Name a city."),
                {"role": "assistant", "content": "The city is "},
            ]
        ),
        "messages: final assistant content cannot end with trailing whitespace",
    ),
    # -- ranges and counts ----------------------------------------------------------------------
    _c(
        "temperature 3.5",
        chat(temperature=3.5),
        _range("temperature", "decimal", "max", 2, "3.5"),
        "temperature",
        "decimal_above_max_value",
    ),
    _c(
        "temperature -1",
        chat(temperature=-1),
        _range("temperature", "decimal", "min", 0, "-1"),
        "temperature",
        "decimal_below_min_value",
    ),
    _c(
        "top_p 1.5",
        chat(top_p=1.5),
        _range("top_p", "decimal", "max", 1, "1.5"),
        "top_p",
        "decimal_above_max_value",
    ),
    _c(
        "presence_penalty -3",
        chat(presence_penalty=-3),
        _range("presence_penalty", "decimal", "min", -2, "-3"),
        "presence_penalty",
        "decimal_below_min_value",
    ),
    _c(
        "frequency_penalty 2.5",
        chat(frequency_penalty=2.5),
        _range("frequency_penalty", "decimal", "max", 2, "2.5"),
        "frequency_penalty",
        "decimal_above_max_value",
    ),
    _c(
        "max_tokens -1",
        chat(max_tokens=-1),
        _range("max_tokens", "integer", "min", 1, "-1"),
        "max_tokens",
        "integer_below_min_value",
    ),
    _c(
        "max_completion_tokens 0",
        chat(max_completion_tokens=0),
        _range("max_completion_tokens", "integer", "min", 1, "0"),
        "max_completion_tokens",
        "integer_below_min_value",
    ),
    _c(
        "max_tokens beyond the model",
        chat(max_tokens=200_000),
        "max_tokens is too large: 200000. This model supports at most 128000 completion "
        "tokens, whereas you provided 200000.",
        "max_tokens",
        "invalid_value",
    ),
    _c("n 0", chat(n=0), _range("n", "integer", "min", 1, "0"), "n", "integer_below_min_value"),
    _c(
        "n 129",
        chat(n=129),
        _range("n", "integer", "max", 128, "129"),
        "n",
        "integer_above_max_value",
    ),
    _c(
        "n a decimal",
        chat(n=1.5),
        "Invalid type for 'n': expected an integer, but got a decimal number instead.",
        "n",
        "invalid_type",
    ),
    _c(
        "five stop sequences",
        chat(stop=["a", "b", "c", "d", "e"]),
        "Invalid 'stop': array too long. Expected an array with maximum length 4, but got an "
        "array with length 5 instead.",
        "stop",
        "array_above_max_length",
    ),
    _c(
        "top_logprobs 21",
        chat(logprobs=True, top_logprobs=21),
        _range("top_logprobs", "integer", "max", 20, "21"),
        "top_logprobs",
        "integer_above_max_value",
    ),
    _c(
        "top_logprobs without logprobs",
        chat(top_logprobs=2),
        "The 'top_logprobs' parameter is only allowed when 'logprobs' is enabled.",
        "top_logprobs",
    ),
    _c(
        "seventeen metadata pairs",
        chat(metadata={str(i): "v" for i in range(17)}),
        "Invalid 'metadata': too many properties. Expected an object with at most 16 "
        "properties, but got an object with 17 properties instead.",
        "metadata",
        "object_above_max_properties",
    ),
    _c(
        "a metadata value of 513 characters",
        chat(metadata={"k": "v" * 513}),
        "Invalid 'metadata.k': string too long. Expected a string with maximum length 512, but "
        "got a string with length 513 instead.",
        "metadata.k",
        "string_above_max_length",
    ),
    _c(
        "an unknown service tier",
        chat(service_tier="gold"),
        "Invalid value: 'gold'. Supported values are: 'auto', 'default', 'flex', 'scale', "
        "'priority', and 'fast'.",
        "service_tier",
        "invalid_value",
    ),
    _c("a missing model", {"messages": fixtures.user("hi")}, "you must provide a model parameter"),
    _r(
        "max_output_tokens below 16",
        responses(max_output_tokens=10),
        _range("max_output_tokens", "integer", "min", 16, "10"),
        "max_output_tokens",
        "integer_below_min_value",
    ),
    _r(
        "temperature 2.5",
        responses(temperature=2.5),
        _range("temperature", "decimal", "max", 2, "2.5"),
        "temperature",
        "decimal_above_max_value",
    ),
    _r(
        "top_p -0.5",
        responses(top_p=-0.5),
        _range("top_p", "decimal", "min", 0, "-0.5"),
        "top_p",
        "decimal_below_min_value",
    ),
    _r(
        "an unknown truncation",
        responses(truncation="middle"),
        "Invalid value: 'middle'. Supported values are: 'auto' and 'disabled'.",
        "truncation",
        "invalid_value",
    ),
    _m("temperature 1.5", messages(temperature=1.5), "temperature: range: 0..1"),
    _m(
        "temperature null",
        messages(temperature=None),
        "temperature: Input should be a valid number",
    ),
    _m("top_p 1.5", messages(top_p=1.5), "top_p: range: 0..1"),
    _m("top_k a decimal", messages(top_k=1.5), "top_k: Input should be a valid integer"),
    _m(
        "max_tokens 0",
        messages(max_tokens=0),
        "max_tokens: Input should be greater than or equal to 1",
    ),
    _m(
        "max_tokens beyond the model",
        messages(max_tokens=200_000),
        f"max_tokens: 200000 > 128000, which is the maximum allowed number of output tokens "
        f"for {MODEL}",
    ),
    _m(
        "stop_sequences a string",
        messages(stop_sequences="STOP"),
        "stop_sequences: Input should be a valid array",
    ),
    _m(
        "an unknown service tier",
        messages(service_tier="priority"),
        "service_tier: Input should be 'auto' or 'standard_only'",
    ),
    _m(
        "a container",
        messages(container="container_1"),
        "container: Container identifier can only be provided when using the code execution tool",
    ),
    _m(
        "an unknown inference region",
        messages(inference_geo="eu"),
        "inference_geo: must be one of ['global', 'us']",
    ),
    # -- allowed_tools --------------------------------------------------------------------------
    _c(
        "allowed_tools naming a tool not in tools",
        chat(
            tools=[WEATHER],
            tool_choice={
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "auto",
                    "tools": [{"type": "function", "function": {"name": "get_time"}}],
                },
            },
        ),
        "Invalid value for 'tool_choice': function 'get_time' was not found in 'tools'. "
        "Available functions: get_weather.",
        "tool_choice.allowed_tools.tools[0].function.name",
        "invalid_value",
    ),
    _r(
        "allowed_tools with an unknown mode",
        responses(
            tools=[fixtures.flat(WEATHER)],
            tool_choice={"type": "allowed_tools", "mode": "any", "tools": []},
        ),
        "Invalid value: 'any'. Supported values are: 'auto' and 'required'.",
        "tool_choice.mode",
        "invalid_value",
    ),
]
# Sent for every option the rules cover: each must be refused (or, when valid, answered), never
# answered 500 and never crash the server.
HOSTILE: list[Any] = [
    None,
    True,
    -1,
    0,
    1.5,
    10**30,
    -(10**30),
    1e308,
    "",
    "x" * 10_000,
    [],
    [[[[[[["deep"]]]]]]],
    {},
    {"a": {"b": {"c": [1, 2, 3]}}},
]
