"""What the Responses API does with a function tool whose ``strict`` is left out.

Chat Completions treats a missing ``strict`` as ``false``. The Responses API does not: OpenAI's
function-calling guide says it normalizes the schema into strict mode when it can (every object
closed with ``additionalProperties: false``, every property listed in ``required``), so
parameters that were optional become mandatory, and falls back to non-strict, best-effort calling
when the schema cannot be made strict (an open map: ``additionalProperties`` true or a schema,
or an object without ``properties``). Only ``"strict": false`` keeps a loose schema loose.

The local model does the same. A model in strict mode must send every property, so for a
property that was optional and says nothing about what to send (no ``default``, ``null`` not
allowed) it sends a type-correct filler, as real models do (an empty-ish value): the policy reads
the normalized schema with that filler as the property's ``default``
(:func:`as_the_model_reads_it`).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from course_lib.local_model.memo import Memo, exact_key
from course_lib.local_model.protocol import ProtocolError
from course_lib.local_model.schema_values import admits_null, declared_default, placeholder
from course_lib.local_model.tool_schemas import (
    SUBSCHEMA_LISTS,
    SUBSCHEMA_MAPS,
    SUBSCHEMA_SINGLE,
    check_strict,
)

# A tool's parameters -> the JSON text of how the model reads them ("null": cannot be strict).
READINGS: Memo[str | None] = Memo(256)


def strict_reading(parameters: dict[str, Any]) -> dict[str, Any] | None:
    """:func:`as_the_model_reads_it` of the normalized ``parameters``, or ``None`` when they
    cannot be made strict. Worked out once per schema; each caller gets its own copy."""
    text = READINGS.get_or_make(exact_key(parameters), lambda: _reading_text(parameters))
    if text is None:  # not kept: a value JSON would not give back exactly as it is
        return _reading(parameters)
    return json.loads(text)


def _reading(parameters: dict[str, Any]) -> dict[str, Any] | None:
    normalized = normalize(parameters)
    return None if normalized is None else as_the_model_reads_it(parameters, normalized)


def _reading_text(parameters: dict[str, Any]) -> str | None:
    text = json.dumps(_reading(parameters), ensure_ascii=False)
    same = exact_key(json.loads(text)) == exact_key(_reading(parameters))
    return text if same else None


def normalize(parameters: dict[str, Any]) -> dict[str, Any] | None:
    """``parameters`` made strict (a new schema), or ``None`` when it cannot be made strict."""
    schema = copy.deepcopy(parameters)
    if not _close(schema, depth=0):
        return None
    try:
        check_strict("function", schema, param="", code=None)
    except ProtocolError:
        return None
    return schema


def _close(node: Any, depth: int) -> bool:
    """Close every object below ``node`` in place; False where one is an open map."""
    if not isinstance(node, dict) or depth > 64:
        return isinstance(node, (dict, bool))
    kind = node.get("type")
    is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
    if is_object or "properties" in node:
        extra = node.get("additionalProperties", False)
        if not isinstance(node.get("properties"), dict) or extra is not False:
            return False
        node["additionalProperties"] = False
        node["required"] = list(node["properties"])
    for keyword in SUBSCHEMA_MAPS:
        mapping = node.get(keyword)
        if isinstance(mapping, dict) and not all(_close(s, depth + 1) for s in mapping.values()):
            return False
    for keyword in SUBSCHEMA_LISTS:
        options = node.get(keyword)
        if isinstance(options, list) and not all(_close(s, depth + 1) for s in options):
            return False
    for keyword in SUBSCHEMA_SINGLE:
        if keyword != "additionalProperties" and keyword in node:
            if not _close(node[keyword], depth + 1):
                return False
    return True


def as_the_model_reads_it(original: dict[str, Any], normalized: dict[str, Any]) -> dict[str, Any]:
    """The normalized schema, each top-level property that strict mode made mandatory (and
    that has neither a default nor ``null`` to fall back on) given its filler as ``default``."""
    properties = normalized.get("properties") or {}
    was_required = set(original.get("required") or [])
    reading = copy.deepcopy(normalized)
    for name, schema in properties.items():
        if name in was_required or not isinstance(schema, dict):
            continue
        has_default, _ = declared_default(schema, normalized)
        if has_default or admits_null(schema, normalized):
            continue
        reading["properties"][name] = {**schema, "default": placeholder(schema, normalized)}
    return reading
