"""Validating a Chat Completions request the way the real API does.

A malformed conversation gets HTTP 400 with ``{"error": {"message", "type", "param", "code"}}``;
the ``openai`` SDK raises ``openai.BadRequestError``. The rules: messages with known roles and
text content, tool messages that answer the assistant turn right before them (every call, once),
valid tools (see ``tool_schemas.py``), a ``tool_choice`` that names one of them
(``tool_choices.py``), a ``response_format`` the model can follow, no parameter the API does not
have, and options of the right types and ranges (``openai_options.py``). ``max_tokens`` /
``max_completion_tokens`` and ``stop`` decide where the reply ends (``limits.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from course_lib.local_model import openai_options, sdk_params
from course_lib.local_model.limits import Limits
from course_lib.local_model.output_formats import check_response_format
from course_lib.local_model.protocol import (
    ProtocolError,
    check_function_tool,
    invalid_value,
    json_kind,
    missing,
    wrong_type,
)
from course_lib.local_model.tool_choices import chat_choice
from course_lib.local_model.tool_schemas import check_function, unique_names
from course_lib.local_model.turns import ChatRequest

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
SUPPORTED_ROLES = ["system", "assistant", "user", "function", "tool", "developer"]  # as listed
MAX_TOOLS = 128

MESSAGES = {
    "empty_messages": (
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an "
        "empty array instead."
    ),
    "bad_content": (
        "Invalid type for '{where}.content': expected one of a string or array of objects, but "
        "got {got} instead. {who} carries text: if you have a Python value, send "
        "json.dumps(value, ensure_ascii=False)."
    ),
    "no_tool_call_id": (
        "Missing required parameter: '{where}.tool_call_id'. Every tool message must say which "
        "call it answers: copy the id of the assistant's tool call."
    ),
    "null_content": (
        "Invalid value for '{where}.content': expected a string, got null. An assistant message "
        "without 'tool_calls' must have content."
    ),
    "arguments_type": (
        "Invalid type for '{where}.function.arguments': expected a string, but got {got} "
        "instead. Arguments travel as a JSON string: send the string the model gave you, or "
        "json.dumps(arguments)."
    ),
    "tool_without_call": (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
        "with 'tool_calls'. Put the assistant message that asked for the call (with its "
        "'tool_calls') right before the tool messages."
    ),
    "unknown_call_id": (
        "Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' of previous "
        "message. Each tool message must answer one of the ids {ids} of messages[{opened_at}], "
        "once."
    ),
    "unanswered": (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        "{ids}. Append the assistant message once, then one tool message per call, before "
        "anything else."
    ),
    "empty_tools": (
        "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an "
        "empty array instead. Leave 'tools' out of the request when there are none."
    ),
    "too_many_tools": (
        "Invalid 'tools': array too long. Expected an array with maximum length {limit}, but "
        "got an array with length {length} instead."
    ),
    "tool_shape": "(A Chat Completions tool looks like {'type': 'function', 'function': {...}}.)",
    "no_model": "you must provide a model parameter",
    "parallel_without_tools": (
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when "
        "'tools' are specified."
    ),
}


@dataclass(frozen=True)
class ChatCall:
    """A validated Chat Completions request: what the policy sees, and how the reply ends
    (``limits``), how many choices it has (``n``) and the service tier it reports."""

    request: ChatRequest
    limits: Limits = Limits()
    n: int = 1
    service_tier: str = "default"


def validate_chat_request(body: dict[str, Any]) -> ChatCall:
    """Check a Chat Completions request body; return what the reply needs, or raise
    ProtocolError as the real API would (the required parameters, then unknown ones, then the
    conversation, the tools and every option)."""
    model = body.get("model")
    if not isinstance(model, str) or not model:  # worded so, without param or code (measured)
        raise ProtocolError(MESSAGES["no_model"])
    messages = body.get("messages")
    if messages is None:
        raise missing("messages")
    openai_options.check_known(body, sdk_params.CHAT, responses=False)
    if not isinstance(messages, list):
        raise wrong_type("messages", "an array of objects", messages)
    if not messages:
        raise ProtocolError(MESSAGES["empty_messages"], param="messages", code="empty_array")
    for index, message in enumerate(messages):
        _check_message(index, message)
    _check_tool_pairing(messages)
    tools = _check_tools(body)
    choice = chat_choice(body.get("tool_choice"), tools)
    parallel = body.get("parallel_tool_calls")
    if parallel is not None and not tools:
        raise ProtocolError(MESSAGES["parallel_without_tools"], param="parallel_tool_calls")
    if parallel is not None and not isinstance(parallel, bool):
        raise wrong_type("parallel_tool_calls", "a boolean", parallel)
    stop = openai_options.chat_options(body)
    output_format = check_response_format(body.get("response_format"), messages)
    request = ChatRequest(
        model=model,
        messages=messages,
        tools=choice.functions,
        tool_choice=choice.policy,
        parallel_tool_calls=parallel is not False,
        output_format=output_format,
    )
    most = body.get("max_completion_tokens")
    limits = Limits(body.get("max_tokens") if most is None else most, stop)
    tier = openai_options.served_tier(body.get("service_tier"))
    return ChatCall(request, limits, body.get("n") or 1, tier)


# -- messages -------------------------------------------------------------------------------------


def _check_message(index: int, message: Any) -> None:
    where = f"messages[{index}]"
    if not isinstance(message, dict):
        raise wrong_type(where, "an object", message)
    role = message.get("role")
    if role is None:
        raise missing(f"{where}.role")
    if role not in ROLES:
        raise invalid_value(f"{where}.role", role, SUPPORTED_ROLES)
    if role == "tool":
        _check_tool_message(where, message)
    elif role == "assistant":
        _check_assistant_message(where, message)
    elif role != "function":
        if "content" not in message:
            raise missing(f"{where}.content")
        _check_content(where, message["content"], f"A {role} message")


def _check_content(where: str, content: Any, who: str) -> None:
    if isinstance(content, str):
        return
    parts_ok = isinstance(content, list) and all(
        isinstance(part, dict) and isinstance(part.get("type"), str) for part in content
    )
    if not parts_ok:
        raise ProtocolError(
            MESSAGES["bad_content"].format(where=where, got=json_kind(content), who=who),
            param=f"{where}.content",
            code="invalid_type",
        )
    for position, part in enumerate(content):
        if part["type"] == "text" and not isinstance(part.get("text"), str):
            raise wrong_type(f"{where}.content[{position}].text", "a string", part.get("text"))


def _check_tool_message(where: str, message: dict) -> None:
    if "tool_call_id" not in message:
        raise ProtocolError(
            MESSAGES["no_tool_call_id"].format(where=where),
            param=f"{where}.tool_call_id",
            code="missing_required_parameter",
        )
    if not isinstance(message["tool_call_id"], str):
        raise wrong_type(f"{where}.tool_call_id", "a string", message["tool_call_id"])
    if "content" not in message:
        raise missing(f"{where}.content")
    _check_content(where, message["content"], "A tool message")


def _check_assistant_message(where: str, message: dict) -> None:
    calls = message.get("tool_calls")
    if calls is None:
        if message.get("content") is None:
            raise ProtocolError(
                MESSAGES["null_content"].format(where=where),
                param=f"{where}.content",
                code="invalid_value",
            )
        _check_content(where, message["content"], "An assistant message")
        return
    if message.get("content") is not None:
        _check_content(where, message["content"], "An assistant message")
    if not isinstance(calls, list):
        raise wrong_type(f"{where}.tool_calls", "an array", calls)
    for position, call in enumerate(calls):
        _check_history_call(f"{where}.tool_calls[{position}]", call)


def _check_history_call(here: str, call: Any) -> None:
    if not isinstance(call, dict):
        raise wrong_type(here, "an object", call)
    for key in ("id", "type", "function"):
        if key not in call:
            raise missing(f"{here}.{key}")
    if not isinstance(call["id"], str):
        raise wrong_type(f"{here}.id", "a string", call["id"])
    function = call["function"]
    if not isinstance(function, dict):
        raise wrong_type(f"{here}.function", "an object", function)
    for key in ("name", "arguments"):
        if key not in function:
            raise missing(f"{here}.function.{key}")
    if not isinstance(function["name"], str):
        raise wrong_type(f"{here}.function.name", "a string", function["name"])
    if not isinstance(function["arguments"], str):
        raise ProtocolError(
            MESSAGES["arguments_type"].format(where=here, got=json_kind(function["arguments"])),
            param=f"{here}.function.arguments",
            code="invalid_type",
        )


def _check_tool_pairing(messages: list[dict]) -> None:
    """Every tool message answers the assistant turn right before it, and every call is answered.

    Walk the conversation keeping the ids of the open assistant turn. A tool message must match
    one of them; any other message (or the end) closes the turn, and ids still open are an error.
    """
    open_ids: list[str] = []
    opened_at = -1
    for index, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            call_id = message["tool_call_id"]
            if opened_at < 0:
                raise ProtocolError(MESSAGES["tool_without_call"], param=f"messages.[{index}].role")
            if call_id not in open_ids:
                ids = ", ".join(repr(i) for i in _ids(messages[opened_at])) or "(none)"
                raise ProtocolError(
                    MESSAGES["unknown_call_id"].format(
                        call_id=call_id[:80], ids=ids, opened_at=opened_at
                    ),
                    param=f"messages.[{index}].tool_call_id",
                )
            open_ids.remove(call_id)
            continue
        _close_turn(open_ids, index)
        opened_at = -1
        if role == "assistant" and message.get("tool_calls"):
            open_ids = _ids(message)
            opened_at = index
    _close_turn(open_ids, len(messages))


def _close_turn(open_ids: list[str], index: int) -> None:
    if open_ids:
        raise ProtocolError(
            MESSAGES["unanswered"].format(ids=", ".join(open_ids)),
            param=f"messages.[{index}].role",
        )


def _ids(message: dict) -> list[str]:
    return [call["id"] for call in message.get("tool_calls") or []]


# -- tools ----------------------------------------------------------------------------------------


def _check_tools(body: dict) -> list[dict]:
    if "tools" not in body or body["tools"] is None:
        return []
    tools = body["tools"]
    if not isinstance(tools, list):
        raise wrong_type("tools", "an array", tools)
    if not tools:
        raise ProtocolError(MESSAGES["empty_tools"], param="tools", code="empty_array")
    if len(tools) > MAX_TOOLS:
        raise ProtocolError(
            MESSAGES["too_many_tools"].format(limit=MAX_TOOLS, length=len(tools)),
            param="tools",
            code="array_above_max_length",
        )
    functions = [_check_tool(index, tool) for index, tool in enumerate(tools)]
    return unique_names(functions, "tools[{index}].function.name")


def _check_tool(index: int, tool: Any) -> dict:
    where = f"tools[{index}]"
    check_function_tool(where, tool, MESSAGES["tool_shape"])
    if "function" not in tool:
        raise missing(f"{where}.function")
    function = tool["function"]
    if not isinstance(function, dict):
        raise wrong_type(f"{where}.function", "an object", function)
    return check_function(f"{where}.function", function)
