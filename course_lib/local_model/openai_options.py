"""The options of an OpenAI request (Chat Completions or Responses), checked as the API checks them.

Three kinds of refusal, each with the real API's status, ``param``, ``code`` and wording:

* a parameter the API does not have (a typo such as ``temprature``, or the other API's
  ``max_output_tokens``): ``Unknown parameter: 'temprature'.`` (``unknown_parameter``), found
  against the parameters the installed SDK's request types list (``sdk_params.py``). Both APIs
  report it after the required parameters and before any other field's problem. The Responses
  API points two Chat Completions habits to their new place (``response_format`` ->
  ``text.format``, ``reasoning_effort`` -> ``reasoning.effort``);
* a value of the wrong JSON type, outside the documented range (``temperature`` 0..2, ``top_p``
  0..1, ``n`` 1..128, ``max_output_tokens`` >= 16...), or not one of an enumeration;
* a count beyond its limit: four ``stop`` sequences, sixteen ``metadata`` pairs (keys up to 64
  characters, values up to 512).

An option the model has no use for (``seed``, ``user``, ``service_tier``, ``store``...) is
accepted once it is well-formed, as the real API accepts it. The rules are one table per API,
in the order the API reports them; ``null`` means "not sent" for every OpenAI option.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from course_lib.local_model import sdk_params
from course_lib.local_model.protocol import (
    MAX_SHOWN,
    ProtocolError,
    array_too_long,
    empty_array,
    invalid_value,
    out_of_range,
    string_too_long,
    unknown_parameter,
    wrong_type,
)

MODEL_MAX_OUTPUT = 128_000  # the local model's largest reply, in tokens (as 2026's models have)
INT64 = 2**63
SERVICE_TIERS = ["auto", "default", "flex", "scale", "priority", "fast"]
MESSAGES = {
    "moved": (
        "Unsupported parameter: '{param}'. In the Responses API, this parameter has moved to "
        "'{place}'. Try again with the new parameter. See the API documentation for more "
        "information: https://platform.openai.com/docs/api-reference/responses/create."
    ),
    "too_large": (
        "{param} is too large: {value}. This model supports at most {limit} completion tokens, "
        "whereas you provided {value}."
    ),
    "metadata_pairs": (
        "Invalid 'metadata': too many properties. Expected an object with at most 16 "
        "properties, but got an object with {count} properties instead."
    ),
    "metadata_key": (
        "Invalid property name in 'metadata': '{key}' is too long. Expected a string with "
        "maximum length 64, but got a string with length {length} instead."
    ),
    "top_logprobs_alone": (
        "The 'top_logprobs' parameter is only allowed when 'logprobs' is enabled."
    ),
    "stream_options": "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
}
MOVED_TO = {"response_format": "text.format", "reasoning_effort": "reasoning.effort"}


@dataclass(frozen=True)
class Rule:
    """One option: its JSON type (``number``, ``integer``, ``boolean``, ``string``, ``object``,
    ``array``), and where it has them, its bounds, choices or maximum length."""

    kind: str
    minimum: int | float | None = None
    maximum: int | float | None = None
    choices: tuple[str, ...] = ()
    max_length: int | None = None


NUMBER, INTEGER, BOOLEAN, STRING, OBJECT, ARRAY = (
    "number",
    "integer",
    "boolean",
    "string",
    "object",
    "array",
)
EXPECTED = {
    NUMBER: "a number",
    INTEGER: "an integer",
    BOOLEAN: "a boolean",
    STRING: "a string",
    OBJECT: "an object",
    ARRAY: "an array",
}
CHAT_RULES: dict[str, Rule] = {
    "max_completion_tokens": Rule(INTEGER, minimum=1),
    "n": Rule(INTEGER, minimum=1, maximum=128),
    "temperature": Rule(NUMBER, minimum=0, maximum=2),
    "top_p": Rule(NUMBER, minimum=0, maximum=1),
    "presence_penalty": Rule(NUMBER, minimum=-2, maximum=2),
    "frequency_penalty": Rule(NUMBER, minimum=-2, maximum=2),
    "logprobs": Rule(BOOLEAN),
    "top_logprobs": Rule(INTEGER, minimum=0, maximum=20),
    "user": Rule(STRING),
    "seed": Rule(INTEGER, minimum=-INT64, maximum=INT64 - 1),
    "moderation": Rule(OBJECT),
    "safety_identifier": Rule(STRING, max_length=64),
    "prompt_cache_options": Rule(OBJECT),
    "prompt_cache_key": Rule(STRING),
    "prompt_cache_retention": Rule(STRING, choices=("in_memory", "24h")),
    "service_tier": Rule(STRING, choices=tuple(SERVICE_TIERS)),
    "max_tokens": Rule(INTEGER, minimum=1),
    "reasoning_effort": Rule(
        STRING, choices=("none", "minimal", "low", "medium", "high", "xhigh", "max")
    ),
    "logit_bias": Rule(OBJECT),
    "stream": Rule(BOOLEAN),
    "stream_options": Rule(OBJECT),
    "store": Rule(BOOLEAN),
    "metadata": Rule(OBJECT),
    "prediction": Rule(OBJECT),
    "verbosity": Rule(STRING, choices=("low", "medium", "high")),
    "modalities": Rule(ARRAY),
    "audio": Rule(OBJECT),
    "web_search_options": Rule(OBJECT),
    "functions": Rule(ARRAY),
}
RESPONSES_RULES: dict[str, Rule] = {
    "instructions": Rule(STRING),
    "previous_response_id": Rule(STRING),
    "max_output_tokens": Rule(INTEGER, minimum=16),
    "max_tool_calls": Rule(INTEGER, minimum=0),
    "temperature": Rule(NUMBER, minimum=0, maximum=2),
    "top_p": Rule(NUMBER, minimum=0, maximum=1),
    "top_logprobs": Rule(INTEGER, minimum=0, maximum=20),
    "truncation": Rule(STRING, choices=("auto", "disabled")),
    "stream": Rule(BOOLEAN),
    "stream_options": Rule(OBJECT),
    "store": Rule(BOOLEAN),
    "background": Rule(BOOLEAN),
    "user": Rule(STRING),
    "safety_identifier": Rule(STRING, max_length=64),
    "prompt_cache_key": Rule(STRING),
    "prompt_cache_retention": Rule(STRING, choices=("in_memory", "24h")),
    "service_tier": Rule(STRING, choices=tuple(SERVICE_TIERS)),
    "metadata": Rule(OBJECT),
    "include": Rule(ARRAY),
    "reasoning": Rule(OBJECT),
    "text": Rule(OBJECT),
    "moderation": Rule(OBJECT),
    "prompt_cache_options": Rule(OBJECT),
}


# -- unknown parameters ----------------------------------------------------------------------------


def check_known(body: Mapping[str, Any], known: frozenset[str], *, responses: bool) -> None:
    """Refuse the first parameter (in the body's order) the API does not have."""
    for key in body:
        if key in known:
            continue
        if responses and key in MOVED_TO:
            message = MESSAGES["moved"].format(param=key, place=MOVED_TO[key])
            raise ProtocolError(message, param=key, code="unsupported_parameter")
        raise unknown_parameter(key)


def check_known_members(value: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    """The same for an object's members (``stream_options.include_usage`` on Responses)."""
    for key in value:
        if key not in known:
            raise unknown_parameter(f"{where}.{key}")


# -- values ---------------------------------------------------------------------------------------


def check_value(param: str, value: Any, rule: Rule) -> None:
    """Refuse ``value`` unless it has the rule's type and lies within its limits."""
    if not _has_kind(value, rule.kind):
        raise wrong_type(param, EXPECTED[rule.kind], value)
    if rule.kind in (NUMBER, INTEGER):
        integer = rule.kind == INTEGER
        error = out_of_range(param, value, rule.minimum, rule.maximum, integer=integer)
        if error is not None:
            raise error
    if rule.choices and value not in rule.choices:
        raise invalid_value(param, value, list(rule.choices))
    if rule.max_length is not None and len(value) > rule.max_length:
        raise string_too_long(param, value, rule.max_length)


def _has_kind(value: Any, kind: str) -> bool:
    if isinstance(value, bool):
        return kind == BOOLEAN
    return isinstance(
        value,
        {
            NUMBER: (int, float),
            INTEGER: int,
            BOOLEAN: bool,
            STRING: str,
            OBJECT: dict,
            ARRAY: list,
        }[kind],
    )


def check_rules(body: Mapping[str, Any], rules: Mapping[str, Rule]) -> None:
    """Every option the body sends (``null`` counts as not sent), in the table's order."""
    for param, rule in rules.items():
        value = body.get(param)
        if value is not None:
            check_value(param, value, rule)


def check_output_limit(param: str, value: int | None) -> None:
    """``max_tokens is too large: ...`` for a limit above what the model can write. (The
    sentence was found for ``max_tokens`` only; the other limits are worded the same way.)"""
    if value is not None and value > MODEL_MAX_OUTPUT:
        shown = str(value) if len(str(value)) <= MAX_SHOWN else str(value)[:MAX_SHOWN] + "…"
        message = MESSAGES["too_large"].format(param=param, value=shown, limit=MODEL_MAX_OUTPUT)
        raise ProtocolError(message, param=param, code="invalid_value")


def check_metadata(metadata: Any) -> None:
    """At most 16 pairs, keys of at most 64 characters, string values of at most 512."""
    if metadata is None:
        return
    if len(metadata) > 16:
        message = MESSAGES["metadata_pairs"].format(count=len(metadata))
        raise ProtocolError(message, param="metadata", code="object_above_max_properties")
    for key, value in metadata.items():
        param = f"metadata.{key}"
        if len(key) > 64:
            message = MESSAGES["metadata_key"].format(key=_short(key), length=len(key))
            raise ProtocolError(message, param=param, code="property_name_above_max_length")
        if not isinstance(value, str):
            raise wrong_type(param, "a string", value)
        if len(value) > 512:
            raise string_too_long(param, value, 512)


def _short(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"


def check_stream_options(body: Mapping[str, Any], known: frozenset[str]) -> None:
    """``stream_options`` only with ``stream``, holding only the members the API has."""
    options = body.get("stream_options")
    if options is None:
        return
    if not body.get("stream"):
        raise ProtocolError(MESSAGES["stream_options"], param="stream_options")
    check_known_members(options, known, "stream_options")
    for key in sorted(options):
        if options[key] is not None:
            check_value(f"stream_options.{key}", options[key], Rule(BOOLEAN))


def check_stop(stop: Any) -> tuple[str, ...]:
    """Chat's ``stop``: a string or an array of one to four strings; the sequences. (The
    wrong-type sentence was not found; it is the form the API uses for other unions.)"""
    if stop is None:
        return ()
    if isinstance(stop, str):
        return (stop,)
    if not isinstance(stop, list):
        raise wrong_type("stop", "one of a string or array of strings", stop)
    if not stop:
        raise empty_array("stop")
    if len(stop) > 4:
        raise array_too_long("stop", len(stop), 4)
    for index, sequence in enumerate(stop):
        if not isinstance(sequence, str):
            raise wrong_type(f"stop[{index}]", "a string", sequence)
    return tuple(stop)


def check_top_logprobs(body: Mapping[str, Any]) -> None:
    if body.get("top_logprobs") is not None and not body.get("logprobs"):
        raise ProtocolError(MESSAGES["top_logprobs_alone"], param="top_logprobs")


def served_tier(requested: str | None) -> str:
    """The tier a reply reports: ``fast`` and ``priority`` are served as ``priority``, ``flex``
    as ``flex``, and everything else (``auto``, ``default``, not set) as ``default``."""
    if requested in ("fast", "priority"):
        return "priority"
    return requested if requested in ("flex", "scale") else "default"


def chat_options(body: Mapping[str, Any]) -> tuple[str, ...]:
    """Every Chat Completions option; the ``stop`` sequences."""
    check_rules(body, CHAT_RULES)
    check_output_limit("max_tokens", body.get("max_tokens"))
    check_output_limit("max_completion_tokens", body.get("max_completion_tokens"))
    check_top_logprobs(body)
    check_metadata(body.get("metadata"))
    check_stream_options(body, sdk_params.CHAT_STREAM_OPTIONS)
    return check_stop(body.get("stop"))


def responses_options(body: Mapping[str, Any]) -> None:
    """Every Responses option but the conversation, its tools and ``text``."""
    check_rules(body, RESPONSES_RULES)
    check_output_limit("max_output_tokens", body.get("max_output_tokens"))
    check_metadata(body.get("metadata"))
    check_stream_options(body, sdk_params.RESPONSES_STREAM_OPTIONS)
