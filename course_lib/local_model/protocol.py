"""Request validation that answers like the real Chat Completions API.

A real provider rejects a malformed conversation with HTTP 400 and a JSON body
``{"error": {"message", "type", "param", "code"}}``; the ``openai`` SDK turns that into
``openai.BadRequestError``. The local model checks the same rules and words its messages like the
real ones (so a search for the message finds help), followed by one sentence on what to fix.
"""

from __future__ import annotations

import json
import re
from typing import Any

from course_lib.local_model.turns import ChatRequest

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
MAX_NAME_LENGTH = 64


class ProtocolError(Exception):
    """A request the real API would refuse. ``body()`` is the JSON error body to send back."""

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        status: int = 400,
        type: str = "invalid_request_error",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code
        self.status = status
        self.type = type

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }


def json_kind(value: Any) -> str:
    """The JSON type name of a value, as the API's messages spell it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def parse_body(raw: bytes) -> dict[str, Any]:
    """Decode the request body, refusing anything that is not a JSON object."""
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise ProtocolError(
            "We could not parse the JSON body of your request. The API expects a JSON object "
            "(the SDK builds one for you; if you post by hand, send json.dumps(payload) with "
            "Content-Type: application/json)."
        )
    return body


def validate_request(body: dict[str, Any]) -> ChatRequest:
    """Check a Chat Completions request body; return what a policy needs, or raise ProtocolError."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise _missing("model")
    messages = body.get("messages")
    if messages is None:
        raise _missing("messages")
    if not isinstance(messages, list):
        raise _wrong_type("messages", "an array", messages)
    if not messages:
        raise ProtocolError(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got "
            "an empty array instead.",
            param="messages",
            code="empty_array",
        )
    for index, message in enumerate(messages):
        _check_message(index, message)
    _check_tool_pairing(messages)
    tools = _check_tools(body)
    tool_choice = _check_tool_choice(body.get("tool_choice", "auto"), tools)
    parallel = body.get("parallel_tool_calls", True)
    if not isinstance(parallel, bool):
        raise _wrong_type("parallel_tool_calls", "a boolean", parallel)
    _check_options(body)
    return ChatRequest(
        model=model,
        messages=messages,
        tools=tools,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel,
    )


# -- messages -------------------------------------------------------------------------------------


def _check_message(index: int, message: Any) -> None:
    where = f"messages[{index}]"
    if not isinstance(message, dict):
        raise _wrong_type(where, "an object", message)
    role = message.get("role")
    if role is None:
        raise _missing(f"{where}.role")
    if role not in ROLES:
        raise ProtocolError(
            f"Invalid value: {role!r}. Supported values are: 'system', 'assistant', 'user', "
            "'function', 'tool', and 'developer'.",
            param=f"{where}.role",
            code="invalid_value",
        )
    if role == "tool":
        _check_tool_message(where, message)
    elif role == "assistant":
        _check_assistant_message(where, message)
    elif role != "function":
        if "content" not in message:
            raise _missing(f"{where}.content")
        _check_content(where, message["content"], f"A {role} message")


def _check_content(where: str, content: Any, who: str) -> None:
    if isinstance(content, str):
        return
    parts_ok = isinstance(content, list) and all(
        isinstance(part, dict) and isinstance(part.get("type"), str) for part in content
    )
    if not parts_ok:
        raise ProtocolError(
            f"Invalid type for '{where}.content': expected one of a string or array of objects, "
            f"but got {json_kind(content)} instead. {who} carries text: if you have a Python "
            "value, send json.dumps(value, ensure_ascii=False).",
            param=f"{where}.content",
            code="invalid_type",
        )


def _check_tool_message(where: str, message: dict) -> None:
    if "tool_call_id" not in message:
        raise ProtocolError(
            f"Missing required parameter: '{where}.tool_call_id'. Every tool message must say "
            "which call it answers: copy the id of the assistant's tool call.",
            param=f"{where}.tool_call_id",
            code="missing_required_parameter",
        )
    if not isinstance(message["tool_call_id"], str):
        raise _wrong_type(f"{where}.tool_call_id", "a string", message["tool_call_id"])
    if "content" not in message:
        raise _missing(f"{where}.content")
    _check_content(where, message["content"], "A tool message")


def _check_assistant_message(where: str, message: dict) -> None:
    calls = message.get("tool_calls")
    if calls is None:
        if message.get("content") is None:
            raise ProtocolError(
                f"Invalid value for '{where}.content': expected a string, got null. An assistant "
                "message without 'tool_calls' must have content.",
                param=f"{where}.content",
                code="invalid_value",
            )
        _check_content(where, message["content"], "An assistant message")
        return
    if message.get("content") is not None:
        _check_content(where, message["content"], "An assistant message")
    if not isinstance(calls, list):
        raise _wrong_type(f"{where}.tool_calls", "an array", calls)
    for position, call in enumerate(calls):
        here = f"{where}.tool_calls[{position}]"
        if not isinstance(call, dict):
            raise _wrong_type(here, "an object", call)
        for key in ("id", "type", "function"):
            if key not in call:
                raise _missing(f"{here}.{key}")
        function = call["function"]
        if not isinstance(function, dict):
            raise _wrong_type(f"{here}.function", "an object", function)
        for key in ("name", "arguments"):
            if key not in function:
                raise _missing(f"{here}.function.{key}")
        if not isinstance(function["arguments"], str):
            raise ProtocolError(
                f"Invalid type for '{here}.function.arguments': expected a string, but got "
                f"{json_kind(function['arguments'])} instead. Arguments travel as a JSON string: "
                "send the string the model gave you, or json.dumps(arguments).",
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
                raise ProtocolError(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'. Put the assistant message that asked "
                    "for the call (with its 'tool_calls') right before the tool messages.",
                    param=f"messages.[{index}].role",
                )
            if call_id not in open_ids:
                raise ProtocolError(
                    f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' "
                    f"of previous message. Each tool message must answer one of the ids "
                    f"{_listing(_ids(messages[opened_at]))} of messages[{opened_at}], once.",
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
            "An assistant message with 'tool_calls' must be followed by tool messages responding "
            "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
            f"{', '.join(open_ids)}. Append the assistant message once, then one tool message per "
            "call, before anything else.",
            param=f"messages.[{index}].role",
        )


def _ids(message: dict) -> list[str]:
    return [call["id"] for call in message.get("tool_calls") or []]


def _listing(ids: list[str]) -> str:
    return ", ".join(repr(i) for i in ids) or "(none)"


# -- tools ----------------------------------------------------------------------------------------


def _check_tools(body: dict) -> list[dict]:
    if "tools" not in body or body["tools"] is None:
        return []
    tools = body["tools"]
    if not isinstance(tools, list):
        raise _wrong_type("tools", "an array", tools)
    if not tools:
        raise ProtocolError(
            "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an "
            "empty array instead. Leave 'tools' out of the request when there are none.",
            param="tools",
            code="empty_array",
        )
    functions = [_check_tool(index, tool) for index, tool in enumerate(tools)]
    seen: dict[str, int] = {}
    for index, function in enumerate(functions):
        name = function["name"]
        if name in seen:
            raise ProtocolError(
                f"Invalid 'tools': duplicate function name {name!r} (tools[{seen[name]}] and "
                f"tools[{index}]). Tool names must be unique: rename one, or drop the copy.",
                param=f"tools[{index}].function.name",
                code="invalid_value",
            )
        seen[name] = index
    return functions


def _check_tool(index: int, tool: Any) -> dict:
    where = f"tools[{index}]"
    if not isinstance(tool, dict):
        raise _wrong_type(where, "an object", tool)
    if "type" not in tool:
        raise _missing(f"{where}.type")
    if tool["type"] != "function":
        raise ProtocolError(
            f"Invalid value: {tool['type']!r}. Supported values are: 'function'. (A Chat "
            "Completions tool looks like {'type': 'function', 'function': {...}}.)",
            param=f"{where}.type",
            code="invalid_value",
        )
    if "function" not in tool:
        raise _missing(f"{where}.function")
    function = tool["function"]
    if not isinstance(function, dict):
        raise _wrong_type(f"{where}.function", "an object", function)
    if "name" not in function:
        raise _missing(f"{where}.function.name")
    name = function["name"]
    if not isinstance(name, str):
        raise _wrong_type(f"{where}.function.name", "a string", name)
    if len(name) > MAX_NAME_LENGTH:
        raise ProtocolError(
            f"Invalid '{where}.function.name': string too long. Expected a string with maximum "
            f"length {MAX_NAME_LENGTH}, but got a string with length {len(name)} instead.",
            param=f"{where}.function.name",
            code="string_above_max_length",
        )
    if not NAME_PATTERN.match(name):
        raise ProtocolError(
            f"Invalid '{where}.function.name': string does not match pattern. Expected a string "
            f"that matches the pattern '^[a-zA-Z0-9_-]+$'. Got {name!r}: use ASCII letters, "
            "digits, '_' and '-' only (put other languages in the description).",
            param=f"{where}.function.name",
            code="invalid_value",
        )
    description = function.get("description")
    if description is not None and not isinstance(description, str):
        raise _wrong_type(f"{where}.function.description", "a string", description)
    parameters = function.get("parameters", {"type": "object", "properties": {}})
    _check_parameters(where, name, parameters)
    strict = function.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise _wrong_type(f"{where}.function.strict", "a boolean", strict)
    if strict:
        _check_strict(name, parameters, where, ())
    return {"name": name, "description": description or "", "parameters": parameters}


def _check_parameters(where: str, name: str, parameters: Any) -> None:
    param = f"{where}.function.parameters"
    if not isinstance(parameters, dict):
        raise _wrong_type(param, "an object", parameters)
    if parameters.get("type") != "object":
        got = json.dumps(parameters.get("type"))
        raise ProtocolError(
            f"Invalid schema for function '{name}': schema must be a JSON Schema of "
            f"'type: \"object\"', got 'type: {got}'. Parameters are always an object whose "
            "'properties' are the named arguments.",
            param=param,
            code="invalid_function_parameters",
        )
    properties = parameters.get("properties", {})
    if not isinstance(properties, dict) or not all(
        isinstance(schema, dict) for schema in properties.values()
    ):
        raise ProtocolError(
            f"Invalid schema for function '{name}': 'properties' must be an object mapping each "
            "parameter name to its JSON Schema.",
            param=param,
            code="invalid_function_parameters",
        )
    required = parameters.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise ProtocolError(
            f"Invalid schema for function '{name}': 'required' must be an array of property names.",
            param=param,
            code="invalid_function_parameters",
        )


def _check_strict(name: str, schema: dict, where: str, context: tuple[str, ...]) -> None:
    """Strict mode: closed objects, every property required, no defaults, recursively."""

    def fail(rule: str) -> ProtocolError:
        return ProtocolError(
            f"Invalid schema for function '{name}': In context={context}, {rule}",
            param=f"{where}.function.parameters",
            code="invalid_function_parameters",
        )

    if "default" in schema:
        raise fail("'default' is not permitted. Strict mode has no defaults: drop it.")
    types = schema.get("type")
    is_object = types == "object" or (isinstance(types, list) and "object" in types)
    if is_object or "properties" in schema:
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            raise fail("'additionalProperties' is required to be supplied and to be false.")
        missing = [key for key in properties if key not in schema.get("required", [])]
        if missing:
            raise fail(
                "'required' is required to be supplied and to be an array including every key "
                f"in properties. Missing {missing[0]!r}. (Make an optional parameter required "
                "and nullable instead.)"
            )
        for key, sub in properties.items():
            _check_strict(name, sub, where, (*context, "properties", key))
    if isinstance(schema.get("items"), dict):
        _check_strict(name, schema["items"], where, (*context, "items"))
    for keyword in ("anyOf", "oneOf", "allOf"):
        for position, sub in enumerate(schema.get(keyword) or []):
            if isinstance(sub, dict):
                _check_strict(name, sub, where, (*context, keyword, str(position)))
    for key, sub in (schema.get("$defs") or {}).items():
        if isinstance(sub, dict):
            _check_strict(name, sub, where, (*context, "$defs", key))


# -- tool_choice and options ----------------------------------------------------------------------


def _check_tool_choice(choice: Any, tools: list[dict]) -> str | dict:
    if isinstance(choice, str):
        if choice not in ("none", "auto", "required"):
            raise ProtocolError(
                f"Invalid value: {choice!r}. Supported values are: 'none', 'auto', and 'required'.",
                param="tool_choice",
                code="invalid_value",
            )
        if choice == "required" and not tools:
            raise _choice_without_tools()
        return choice
    if not isinstance(choice, dict):
        raise _wrong_type("tool_choice", "a string or an object", choice)
    function = choice.get("function")
    if choice.get("type") != "function" or not isinstance(function, dict):
        raise ProtocolError(
            "Invalid value for 'tool_choice': a named tool choice looks like "
            "{'type': 'function', 'function': {'name': '<tool name>'}}.",
            param="tool_choice",
            code="invalid_value",
        )
    if not tools:
        raise _choice_without_tools()
    name = function.get("name")
    names = [tool["name"] for tool in tools]
    if name not in names:
        raise ProtocolError(
            f"Invalid value for 'tool_choice': function {name!r} was not found in 'tools'. "
            f"Available functions: {', '.join(names)}.",
            param="tool_choice",
            code="invalid_value",
        )
    return {"name": name}


def _choice_without_tools() -> ProtocolError:
    return ProtocolError(
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
        "specified.",
        param="tool_choice",
    )


def _check_options(body: dict) -> None:
    stream = body.get("stream", False)
    if stream is not None and not isinstance(stream, bool):
        raise _wrong_type("stream", "a boolean", stream)
    if body.get("stream_options") is not None and not stream:
        raise ProtocolError(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
        )
    n = body.get("n")
    if n not in (None, 1):
        raise ProtocolError(
            f"Invalid value for 'n': the local model returns one choice, got n={n!r}. Leave "
            "'n' out (or set it to 1).",
            param="n",
            code="invalid_value",
        )


# -- shared wording -------------------------------------------------------------------------------


def _missing(param: str) -> ProtocolError:
    return ProtocolError(
        f"Missing required parameter: '{param}'.", param=param, code="missing_required_parameter"
    )


def _wrong_type(param: str, expected: str, value: Any) -> ProtocolError:
    return ProtocolError(
        f"Invalid type for '{param}': expected {expected}, but got {json_kind(value)} instead.",
        param=param,
        code="invalid_type",
    )
