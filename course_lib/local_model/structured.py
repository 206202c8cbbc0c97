"""Structured output: JSON that follows the requested schema, filled from the conversation.

With ``response_format`` (Chat Completions) or ``text.format`` (Responses) the toy model's
answer is JSON instead of prose. It fills the schema the way it fills tool arguments
(``arguments.py``): from the latest user message and the tool results since, in that order.
A value it cannot find gets a deterministic, type-correct placeholder (``schema_values.py``):
``null`` where allowed, the first enum member, the smallest number in bounds, ``false``, ``[]``,
and for a string the sentence "(not found in the request)" (in Chinese for a Chinese request),
so the reply says plainly what it did not find. ``json_object`` (no schema) gets
``{"answer": <the prose reply>}``.
"""

from __future__ import annotations

import json

from course_lib.local_model import text as txt
from course_lib.local_model.arguments import Reader, fill_value
from course_lib.local_model.turns import OutputFormat


def structured_reply(
    output_format: OutputFormat, user_text: str, results: list[str], prose: str
) -> str:
    """The JSON text of the reply (``prose`` is what the model would have said without a format)."""
    if output_format.kind == "json_object" or output_format.schema is None:
        return json.dumps({"answer": prose}, ensure_ascii=False)
    schema = output_format.schema
    reading = "\n".join([user_text, *(result[: txt.MAX_READ] for result in results)])
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    described = f"{output_format.name} {schema.get('description', '')}"
    reader = Reader(reading[: 2 * txt.MAX_READ], properties, txt.concepts(described))
    reader.language = "zh" if txt.mostly_chinese(user_text) else "en"
    value, _ = fill_value(reader, output_format.name, schema, schema)
    return json.dumps(value, ensure_ascii=False)
