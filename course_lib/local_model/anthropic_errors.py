"""The Anthropic Messages API's 400s for a request body: the catalog of their wordings, and the
checks of one field that most of them come from.

Anthropic words a 400 as ``field.path: what is wrong`` (pydantic's wording: ``Field required``,
``Input should be a valid string``); ``messages_request`` raises them in the order the real API
reports them. Split from ``messages_request``, which still exports ``fail``.
"""

from __future__ import annotations

from typing import Any

from course_lib.local_model.protocol import ProtocolError

MESSAGES = {
    "version": "anthropic-version: header is required",
    "required": "{field}: Field required",
    "string": "{field}: Input should be a valid string",
    "integer": "{field}: Input should be a valid integer",
    "boolean": "{field}: Input should be a valid boolean",
    "list": "{field}: Input should be a valid list",
    "dict": "{field}: Input should be a valid dictionary",
    "positive": "{field}: Input should be greater than or equal to 1",
    "no_messages": "messages: at least one message is required",
    "empty_text": "{part}: text content blocks must be non-empty",
    "blank_text": "{part}: text content blocks must contain non-whitespace text",
    "trailing_whitespace": "messages: final assistant content cannot end with trailing whitespace",
    "role": "{field}: Input should be 'user' or 'assistant'",
    "empty": (
        "messages.{index}: all messages must have non-empty content except for the optional "
        "final assistant message"
    ),
    "block_tag": (
        "{field}: Input tag '{tag}' found using 'type' does not match any of the expected tags: "
        "{tags}"
    ),
    "unanswered": (
        "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately "
        "after: {ids}. Each `tool_use` block must have a corresponding `tool_result` block in "
        "the next message."
    ),
    "results_first": (
        "messages.{index}: Did not find {count} `tool_result` block(s) at the beginning of this "
        "message. Messages following `tool_use` blocks must begin with a matching number of "
        "`tool_result` blocks."
    ),
    "unknown_result": (
        "messages.{index}.content.{position}: unexpected `tool_use_id` found in `tool_result` "
        "blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in "
        "the previous message."
    ),
    "tool_name": "{field}: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'",
    "schema_object": "{field}: Input should be 'object'",
    "server_tool": (
        "{field}: the local model has no server tools (got type {tag!r}); define a custom tool "
        "with 'name', 'description' and 'input_schema'."
    ),
    "duplicate_tool": "tools: Tool names must be unique (found {name!r} twice).",
    "too_many_tools": "tools: List should have at most {limit} items after validation, not {n}",
    "choice_tag": "tool_choice: Input tag '{tag}' found using 'type' does not match any of the "
    "expected tags: 'auto', 'any', 'tool', 'none'",
    "choice_unknown": "tool_choice: Tool '{name}' not found in the provided tools ({names}).",
    "choice_without_tools": "tool_choice: a tool choice other than 'auto' requires 'tools'.",
}


def fail(key: str, **fields: Any) -> ProtocolError:
    return ProtocolError(MESSAGES[key].format(**fields))


_KINDS: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "boolean": bool,
    "list": list,
    "dict": dict,
}


def checked(
    mapping: dict, key: str, kind: str | None, where: str = "", *, null_is_missing: bool = False
) -> Any:
    """``mapping[key]``, or the 400 the API gives: ``Field required`` when it is absent (or
    ``null``, with ``null_is_missing``), ``Input should be a valid <kind>`` when it is not of
    ``kind`` (a bool is no integer). ``where`` is the path of ``mapping`` in the body."""
    path = f"{where}.{key}" if where else key
    if key not in mapping or (null_is_missing and mapping[key] is None):
        raise fail("required", field=path)
    value = mapping[key]
    if kind is not None and (
        not isinstance(value, _KINDS[kind]) or (kind == "integer" and isinstance(value, bool))
    ):
        raise fail(kind, field=path)
    return value
