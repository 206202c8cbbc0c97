"""Structured output requests: Chat's ``response_format`` and Responses' ``text.format``.

Both name one of three formats: plain ``text``, ``json_object`` (any JSON object; the
conversation must say "json" somewhere, as the real API insists) or ``json_schema`` (a named
schema, ``strict`` or not; strict schemas follow the rules in ``tool_schemas.py``). Both become
one :class:`~course_lib.local_model.turns.OutputFormat` for the policy.
"""

from __future__ import annotations

from typing import Any

from course_lib.local_model.protocol import ProtocolError, invalid_value, missing, wrong_type
from course_lib.local_model.tool_schemas import check_output_schema, checked_name
from course_lib.local_model.turns import OutputFormat

FORMATS = ["text", "json_object", "json_schema"]
MESSAGES = {
    "json_word_chat": (
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type "
        "'json_object'."
    ),
    "json_word_responses": (
        "Response input messages must contain the word 'json' in some form to use 'text.format' "
        "of type 'json_object'."
    ),
}


def check_response_format(value: Any, messages: list[dict]) -> OutputFormat | None:
    """``response_format``: ``text``, ``json_object`` or ``json_schema`` (strict or not)."""
    if _optional_object(value, "response_format") is None:
        return None
    found = _plain_format(value, "response_format", messages, "json_word_chat", "messages")
    if found is not _JSON_SCHEMA:
        return found
    spec = value.get("json_schema")
    if spec is None:
        raise missing("response_format.json_schema")
    if not isinstance(spec, dict):
        raise wrong_type("response_format.json_schema", "an object", spec)
    return json_schema_format(spec, "response_format.json_schema", error_param="response_format")


def _optional_object(value: Any, where: str) -> dict | None:
    """``value``, which may be left out (``None``) but is an object when sent."""
    if value is not None and not isinstance(value, dict):
        raise wrong_type(where, "an object", value)
    return value


_JSON_SCHEMA = OutputFormat("json_schema")  # what _plain_format returns for a json_schema


def _plain_format(
    spec: dict, where: str, messages: list[dict], json_word: str, json_word_param: str
) -> OutputFormat | None:
    """A ``text`` format (``None``) or a ``json_object`` one; ``_JSON_SCHEMA`` for a
    ``json_schema`` (its caller reads the rest); raise for a missing or unknown type."""
    kind = spec.get("type")
    if kind is None:
        raise missing(f"{where}.type")
    if kind == "text":
        return None
    if kind == "json_object":
        if not mentions_json(messages):
            raise ProtocolError(MESSAGES[json_word], param=json_word_param)
        return OutputFormat("json_object")
    if kind != "json_schema":
        raise invalid_value(f"{where}.type", kind, FORMATS)
    return _JSON_SCHEMA


def json_schema_format(spec: dict, where: str, *, error_param: str, code=None) -> OutputFormat:
    """The ``{"name", "schema", "strict", "description"}`` part both OpenAI APIs share."""
    name = checked_name(where, spec, null_is_missing=True)
    strict = spec.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise wrong_type(f"{where}.strict", "a boolean", strict)
    schema = spec.get("schema", {"type": "object"})
    label = f"response_format {name!r}"
    check_output_schema(label, schema, strict=bool(strict), param=error_param, code=code)
    return OutputFormat("json_schema", name, schema, bool(strict))


def mentions_json(messages: list[dict]) -> bool:
    """Whether any message's text says "json" (the real API's condition for ``json_object``)."""
    for message in messages:
        content = message.get("content")
        parts = [content] if isinstance(content, str) else content or []
        for part in parts:
            text = part.get("text") if isinstance(part, dict) else part
            if isinstance(text, str) and "json" in text.lower():
                return True
    return False


def check_text_format(text: Any, messages: list[dict]) -> OutputFormat | None:
    """Responses' ``text``: ``{"format": {"type": "json_schema", "name", "schema", "strict"}}``.

    Unlike Chat, the schema's fields sit in the format itself, not under ``json_schema``.
    """
    if _optional_object(text, "text") is None:
        return None
    spec = text.get("format")
    if _optional_object(spec, "text.format") is None:
        return None
    found = _plain_format(spec, "text.format", messages, "json_word_responses", "text.format.type")
    if found is not _JSON_SCHEMA:
        return found
    if "schema" not in spec:
        raise missing("text.format.schema")
    return json_schema_format(
        spec, "text.format", error_param="text.format.schema", code="invalid_json_schema"
    )
