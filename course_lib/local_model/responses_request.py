"""Validating an OpenAI Responses API request and bringing it to the policy's shape.

The Responses API talks in *items* rather than messages: ``input`` is a string or a list of
``message``, ``function_call`` (``call_id``, ``name``, ``arguments``) and
``function_call_output`` (``call_id``, ``output``) items; ``instructions`` is the system prompt;
tools are flat (``{"type": "function", "name", "description", "parameters", "strict"}``);
``previous_response_id`` continues a stored conversation (``response_store.py``), and an item it
already holds must not be sent again. Every call must be answered by an output and every output
must answer a call, with the real API's wording. A tool without ``strict`` is made strict when
its schema can be (``strict_default.py``), as the real API does.

The items become Chat Completions messages (an assistant turn with ``tool_calls``, then one tool
message per call), so the same policy answers Chat and Responses alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from course_lib.local_model import openai_options, reasoning_items, sdk_params, strict_default
from course_lib.local_model.limits import Limits
from course_lib.local_model.output_formats import check_text_format
from course_lib.local_model.protocol import (
    ProtocolError,
    check_function_tool,
    invalid_value,
    json_kind,
    missing,
    wrong_type,
)
from course_lib.local_model.response_store import ResponseStore
from course_lib.local_model.tool_choices import responses_choice
from course_lib.local_model.tool_schemas import check_function, unique_names
from course_lib.local_model.turns import ChatRequest

ITEM_TYPES = ["message", "function_call", "function_call_output", "reasoning"]
MESSAGE_ROLES = ["user", "assistant", "system", "developer"]
TEXT_PARTS = ("input_text", "output_text", "refusal")
# The content part types the API lists when it refuses another one (a Chat Completions
# ``{"type": "text"}`` part, usually), in its order; a call's output takes the input ones only.
MESSAGE_PARTS = [
    "input_text",
    "input_image",
    "input_audio",
    "output_text",
    "refusal",
    "input_file",
    "computer_screenshot",
    "summary_text",
    "encrypted_content",
]
OUTPUT_PARTS = ["input_text", "input_image", "input_file"]
MAX_TOOLS = 128
# The API mints item ids with these prefixes and refuses an input item whose id has another one
# (a call's call_... sent as its item id is the usual slip).
ID_PREFIXES = {"function_call": "fc", "message": "msg", "reasoning": "rs"}

MESSAGES = {
    "input_type": (
        "Invalid type for 'input': expected one of a string or array of input items, but got "
        "{got} instead."
    ),
    "chat_tool": (
        "Responses tools are flat: {'type': 'function', 'name': ..., 'parameters': ...}. The "
        "Chat Completions form nests them under 'function'."
    ),
    "unanswered_call": "No tool output found for function call {call_id}.",
    "unknown_output": "No tool call found for function call output with call_id {call_id}.",
    "id_prefix": "Invalid '{where}.id': '{id}'. Expected an ID that begins with '{prefix}'.",
    "duplicate_item": (
        "Duplicate item found with id {id}. Remove duplicate items from your input and try again."
    ),
    "chat_part": (
        "Invalid value: {kind!r}. Supported values are: {supported}. (The Responses API names "
        "text parts 'input_text', and 'output_text' in an assistant's message; 'text' is the "
        "Chat Completions name.)"
    ),
}


@dataclass
class ResponsesCall:
    """A validated Responses request: what the policy sees, and what the reply must echo."""

    request: ChatRequest
    items: list[dict[str, Any]]  # the whole conversation: stored items, then the new input
    tools: list[dict[str, Any]] = field(default_factory=list)  # as echoed in the response
    echo: dict[str, Any] = field(default_factory=dict)  # request fields the response repeats
    limits: Limits = Limits()  # max_output_tokens


def validate(body: dict[str, Any], store: ResponseStore) -> ResponsesCall:
    """Check a Responses request body; raise ProtocolError as the real API would (the model,
    then parameters the API does not have, then the conversation, the tools and the options)."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise missing("model")
    openai_options.check_known(body, sdk_params.RESPONSES, responses=True)
    previous_id = body.get("previous_response_id")
    if previous_id is not None and not isinstance(previous_id, str):
        raise wrong_type("previous_response_id", "a string", previous_id)
    if "input" not in body and previous_id is None:
        raise missing("input")
    new_items = _input_items(body.get("input", []))
    items = (store.conversation(previous_id) if previous_id else []) + new_items
    _check_unique_ids(items)
    _check_pairing(items)
    tools, functions = _check_tools(body.get("tools"))
    choice = responses_choice(body.get("tool_choice"), functions)
    parallel = body.get("parallel_tool_calls", True)
    if parallel is not None and not isinstance(parallel, bool):
        raise wrong_type("parallel_tool_calls", "a boolean", parallel)
    parallel = parallel is not False
    openai_options.responses_options(body)
    instructions = body.get("instructions")
    messages = to_messages(items, instructions)
    output_format = check_text_format(body.get("text"), messages)
    request = ChatRequest(model, messages, choice.functions, choice.policy, parallel, output_format)
    echo = dict(
        model=model,
        instructions=instructions,
        previous_response_id=previous_id,
        tool_choice=choice.echo,
        parallel_tool_calls=parallel,
        text=_echo_text(body.get("text")),
        **_echo_options(body),
    )
    return ResponsesCall(request, items, tools, echo, Limits(body.get("max_output_tokens")))


# -- input items ----------------------------------------------------------------------------------


def _input_items(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    if not isinstance(value, list):
        raise ProtocolError(
            MESSAGES["input_type"].format(got=json_kind(value)), param="input", code="invalid_type"
        )
    return [_check_item(f"input[{index}]", item) for index, item in enumerate(value)]


def _check_item(where: str, item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise wrong_type(where, "an object", item)
    kind = item.get("type", "message" if "role" in item else None)
    if kind is None:
        raise missing(f"{where}.type")
    _check_id_prefix(where, kind, item)
    if kind == "message":
        return _check_message(where, item)
    if kind == "function_call":
        _check_strings(where, item, ("call_id", "name", "arguments"))
        return {**item, "type": "function_call"}
    if kind == "function_call_output":
        _check_strings(where, item, ("call_id",))
        if "output" not in item:
            raise missing(f"{where}.output")
        _check_text_or_parts(f"{where}.output", item["output"], OUTPUT_PARTS)
        return item
    if kind == "reasoning":
        return reasoning_items.check_item(where, item)
    raise invalid_value(f"{where}.type", kind, ITEM_TYPES)


def _check_strings(where: str, item: dict, keys: tuple[str, ...]) -> None:
    """Each of ``keys`` is in ``item``, and a string."""
    for key in keys:
        if key not in item:
            raise missing(f"{where}.{key}")
        if not isinstance(item[key], str):
            raise wrong_type(f"{where}.{key}", "a string", item[key])


def _check_id_prefix(where: str, kind: str, item: dict) -> None:
    prefix = ID_PREFIXES.get(kind)
    item_id = item.get("id")
    if prefix and isinstance(item_id, str) and not item_id.startswith(prefix):
        message = MESSAGES["id_prefix"].format(where=where, id=item_id[:100], prefix=prefix)
        raise ProtocolError(message, param=f"{where}.id", code="invalid_value")


def _check_message(where: str, item: dict) -> dict[str, Any]:
    role = item.get("role")
    if role is None:
        raise missing(f"{where}.role")
    if role not in MESSAGE_ROLES:
        raise invalid_value(f"{where}.role", role, MESSAGE_ROLES)
    if "content" not in item:
        raise missing(f"{where}.content")
    _check_text_or_parts(f"{where}.content", item["content"], MESSAGE_PARTS)
    return {**item, "type": "message"}


def _check_text_or_parts(where: str, content: Any, allowed: list[str]) -> None:
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise wrong_type(where, "a string or an array of content parts", content)
    for position, part in enumerate(content):
        here = f"{where}[{position}]"
        if not isinstance(part, dict):
            raise wrong_type(here, "an object", part)
        if not isinstance(part.get("type"), str):
            raise missing(f"{here}.type")
        if part["type"] not in allowed:
            message = MESSAGES["chat_part"].format(
                kind=part["type"][:80], supported=_listing(allowed)
            )
            raise ProtocolError(message, param=here, code="invalid_value")
        if part["type"] in TEXT_PARTS:
            key = "refusal" if part["type"] == "refusal" else "text"
            if not isinstance(part.get(key), str):
                raise wrong_type(f"{here}.{key}", "a string", part.get(key))


def _listing(options: list[str]) -> str:
    quoted = [repr(option) for option in options]
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def text_of(content: Any) -> str:
    """The text of a message's content or a call's output (a string, or text parts)."""
    if isinstance(content, str):
        return content
    return "".join(
        part.get("text", "") or "" for part in content or [] if part.get("type") in TEXT_PARTS
    )


def _check_unique_ids(items: list[dict[str, Any]]) -> None:
    """No item twice: an input that repeats what ``previous_response_id`` already holds (the
    output items of the stored response, with their ids) is refused, as the real API does."""
    seen: set[str] = set()
    for item in items:
        item_id = item.get("id")
        if not isinstance(item_id, str):
            continue
        if item_id in seen:
            message = MESSAGES["duplicate_item"].format(id=item_id[:100])
            raise ProtocolError(message, param="input")
        seen.add(item_id)


def _check_pairing(items: list[dict[str, Any]]) -> None:
    """Every output answers a call made before it; every call gets an output."""
    called: set[str] = set()
    answered: set[str] = set()
    for item in items:
        if item["type"] == "function_call":
            called.add(item["call_id"])
        elif item["type"] == "function_call_output":
            if item["call_id"] not in called:
                message = MESSAGES["unknown_output"].format(call_id=item["call_id"][:100])
                raise ProtocolError(message, param="input")
            answered.add(item["call_id"])
    for item in items:
        if item["type"] == "function_call" and item["call_id"] not in answered:
            message = MESSAGES["unanswered_call"].format(call_id=item["call_id"][:100])
            raise ProtocolError(message, param="input")


def to_messages(items: list[dict[str, Any]], instructions: str | None) -> list[dict[str, Any]]:
    """The conversation as Chat Completions messages: calls grouped into one assistant turn,
    each followed at once by its outputs (wherever they were in the input)."""
    outputs = {
        item["call_id"]: text_of(item["output"])
        for item in items
        if item["type"] == "function_call_output"
    }
    messages: list[dict[str, Any]] = []
    if instructions:
        messages.append({"role": "system", "content": instructions})
    pending: list[dict[str, Any]] = []  # tool messages owed after the current group of calls
    for item in items:
        if item["type"] != "function_call" and pending:
            messages.extend(pending)
            pending = []
        if item["type"] == "message":
            messages.append({"role": item["role"], "content": text_of(item["content"])})
        elif item["type"] == "function_call":
            call = {
                "id": item["call_id"],
                "type": "function",
                "function": {"name": item["name"], "arguments": item["arguments"]},
            }
            last = messages[-1] if messages else None
            joins = (
                last is not None
                and last["role"] == "assistant"
                and (not pending or last.get("tool_calls"))
            )
            if joins:
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            pending.append(
                {
                    "role": "tool",
                    "tool_call_id": item["call_id"],
                    "content": outputs[item["call_id"]],
                }
            )
    return messages + pending


# -- tools, tool_choice, options ------------------------------------------------------------------


def _check_tools(value: Any) -> tuple[list[dict], list[dict]]:
    """(tools as the response echoes them, function dicts for the policy)."""
    if value is None:
        return [], []
    if not isinstance(value, list):
        raise wrong_type("tools", "an array", value)
    if len(value) > MAX_TOOLS:
        raise ProtocolError(
            f"Invalid 'tools': array too long. Expected an array with maximum length {MAX_TOOLS}, "
            f"but got an array with length {len(value)} instead.",
            param="tools",
            code="array_above_max_length",
        )
    echoed, functions = [], []
    for index, tool in enumerate(value):
        where = f"tools[{index}]"
        check_function_tool(where, tool)
        if "name" not in tool and isinstance(tool.get("function"), dict):
            error = missing(f"{where}.name")
            error.message += " " + MESSAGES["chat_tool"]
            raise error
        function = check_function(where, tool)
        read = function
        if tool.get("strict") is None:  # unset: strict if the schema can be made strict
            reading = strict_default.strict_reading(function["parameters"])
            function["strict"] = reading is not None
            if reading is not None:
                read = {**function, "parameters": reading}
        functions.append(read)
        echoed.append({"type": "function", **function})
    return echoed, unique_names(functions, "tools[{index}].name")


def _echo_options(body: dict) -> dict[str, Any]:
    """The options a response repeats, as sent or their defaults (checked already)."""
    found: dict[str, Any] = {
        "store": True,
        "max_output_tokens": None,
        "temperature": 1.0,
        "top_p": 1.0,
        "metadata": {},
        "user": None,
        "truncation": "disabled",
    }
    for key, default in found.items():
        value = body.get(key)
        found[key] = default if value is None else value
    found["metadata"] = dict(found["metadata"])
    found["service_tier"] = openai_options.served_tier(body.get("service_tier"))
    return found


def _echo_text(text: Any) -> dict[str, Any]:
    spec = text.get("format") if isinstance(text, dict) else None
    if not isinstance(spec, dict) or spec.get("type") in (None, "text"):
        return {"format": {"type": "text"}, "verbosity": "medium"}
    return {"format": json.loads(json.dumps(spec)), "verbosity": "medium"}
