"""Anthropic structured outputs and strict tool use, as the Messages API has them.

Two features, alone or together (the SDK offers both: ``client.messages.parse(output_format=
Model)`` and ``messages.stream(output_format=...)`` send ``output_config.format``;
``@beta_tool(strict=True)`` and ``client.beta.messages.tool_runner`` send ``"strict": true``):

* ``output_config.format = {"type": "json_schema", "schema": {...}}``: the reply's text is JSON
  that validates against the schema, filled from the request and the tool results the way
  OpenAI's structured outputs are (``structured.py``);
* ``"strict": true`` on a tool: its ``input`` always validates against ``input_schema``.

Both compile the schema into a decoding grammar, so the real API accepts only a subset of JSON
Schema and says so with a 400 before the model runs: every object must set
``additionalProperties: false`` (optional properties are allowed, unlike OpenAI's strict mode);
numeric bounds, string lengths, ``maxItems``, ``uniqueItems`` and ``minItems`` other than 0 or 1
are refused; definitions may not refer to themselves; and a request may hold at most 20 strict
tools, 24 optional parameters and 16 union-typed parameters across its strict schemas. The
wording is the real API's, as reported from live calls (``tools.N.custom: For 'array' type,
property 'maxItems' is not supported``). The guarantee itself is ``strict_values.conform``.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from course_lib import schema_library
from course_lib.local_model.messages_request import MessagesCall, fail
from course_lib.local_model.protocol import ProtocolError
from course_lib.local_model.strict_values import conform
from course_lib.local_model.tool_schemas import check_keywords, resolve_ref, subschemas
from course_lib.local_model.turns import ChatRequest, OutputFormat, ToolCall, Turn

FORMAT_WHERE = "output_config.format.schema"
MAX_STRICT_TOOLS = 20
MAX_OPTIONAL = 24
MAX_UNIONS = 16
NUMERIC = ("exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf")
UNSUPPORTED = {
    "integer": NUMERIC,
    "number": NUMERIC,
    "string": ("maxLength", "minLength"),
    "array": ("maxItems", "uniqueItems"),
}
DEFINITIONS = ("$defs", "definitions")

MESSAGES = {
    "format_type": "output_config.format.type: Input should be 'json_schema'",
    "invalid": (
        "{where}: JSON schema is invalid. It must match JSON Schema draft 2020-12 "
        "(https://json-schema.org/draft/2020-12)."
    ),
    "open_object": (
        "{where}: For 'object' type, 'additionalProperties' must be explicitly set to false"
    ),
    "extra_object": (
        "{where}: For 'object' type, 'additionalProperties: {value}' is not supported. Please "
        "set 'additionalProperties' to false"
    ),
    "one_property": "{where}: For '{type}' type, property '{names}' is not supported",
    "properties": "{where}: For '{type}' type, properties {names} are not supported",
    "min_items": "{where}: For 'array' type, 'minItems' values other than 0 or 1 are not supported",
    "circular": (
        "Circular reference detected in schema definitions: {cycle}. Self-referencing or "
        "mutually-referencing definitions are not supported."
    ),
    "strict_tools": (
        "Too many strict tools ({count}). The maximum number of strict tools supported is "
        "{limit}. Try reducing the number of tools marked as strict."
    ),
    "optional": (
        "Schemas contains too many optional parameters ({count}), which would make grammar "
        "compilation inefficient. Reduce the number of optional parameters in your tool "
        "schemas (limit: {limit})."
    ),
    "unions": (
        "Schemas contains too many parameters with union types ({count} parameters with type "
        "arrays or anyOf) which exceeds the limit: {limit}"
    ),
}


def output_config(body: dict[str, Any]) -> dict[str, Any]:
    """``output_config`` (an object, or ``{}`` when absent)."""
    config = body.get("output_config")
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise fail("dict", field="output_config")
    return config


def apply(body: dict[str, Any], call: MessagesCall) -> MessagesCall:
    """The call with ``output_config.format`` and the strict tools checked and handed to the
    policy (the format as an :class:`OutputFormat`, strict tools marked ``"strict": True``)."""
    output_format = read_format(output_config(body).get("format"))
    schemas = [output_format.schema] if output_format and output_format.schema else []
    strict: set[str] = set()
    for index, tool in enumerate(body.get("tools") or []):
        flag = tool.get("strict")
        if flag is not None and not isinstance(flag, bool):
            raise fail("boolean", field=f"tools.{index}.custom.strict")
        if flag:
            check_rules(tool["input_schema"], f"tools.{index}.custom")
            strict.add(tool["name"])
            schemas.append(tool["input_schema"])
    check_limits(len(strict), schemas)
    if output_format is None and not strict:
        return call
    tools = [{**t, "strict": True} if t["name"] in strict else t for t in call.request.tools]
    request = replace(call.request, tools=tools, output_format=output_format)
    return replace(call, request=request)


def read_format(spec: Any) -> OutputFormat | None:
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise fail("dict", field="output_config.format")
    if "type" not in spec:
        raise fail("required", field="output_config.format.type")
    if spec["type"] != "json_schema":
        raise ProtocolError(MESSAGES["format_type"])
    schema = spec.get("schema")
    if schema is None:
        raise fail("required", field=FORMAT_WHERE)
    if not isinstance(schema, dict):
        raise fail("dict", field=FORMAT_WHERE)
    check_keywords("output_config.format", schema, param=FORMAT_WHERE, code=None)
    check_rules(schema, FORMAT_WHERE)
    title = schema.get("title")
    return OutputFormat("json_schema", title or "output", schema, strict=True)


# -- the grammar's rules --------------------------------------------------------------------------


def check_rules(schema: dict[str, Any], where: str) -> None:
    """The subset of JSON Schema a strict schema may use (the real 400 for the first break)."""
    if not _valid_schema(schema):
        raise ProtocolError(MESSAGES["invalid"].format(where=where))
    for node, _ in [(schema, ()), *subschemas(schema)]:
        if isinstance(node, dict):
            problem = _problem(node)
            if problem:
                raise ProtocolError(problem.replace("{where}", where))  # braces of the schema stay
    cycle = _cycle(schema)
    if cycle:
        raise ProtocolError(MESSAGES["circular"].format(cycle=" -> ".join(cycle)))


def _valid_schema(schema: dict[str, Any]) -> bool:
    """A draft 2020-12 schema whose references all point inside it (a grammar needs them)."""
    Draft202012Validator = schema_library.load().Draft202012Validator  # slow: load on use
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except (SchemaError, RecursionError):
        return False
    references = (node.get("$ref") for node, _ in subschemas(schema) if isinstance(node, dict))
    return all(
        not isinstance(ref, str) or resolve_ref(schema, ref) is not None for ref in references
    ) and (
        not isinstance(schema.get("$ref"), str) or resolve_ref(schema, schema["$ref"]) is not None
    )


def _types(node: dict[str, Any]) -> list[str]:
    kind = node.get("type")
    kinds = list(kind) if isinstance(kind, list) else [kind] if isinstance(kind, str) else []
    if "properties" in node and "object" not in kinds:
        kinds.append("object")
    return kinds


def _problem(node: dict[str, Any]) -> str | None:
    for kind in _types(node):
        if kind == "object":
            extra = node.get("additionalProperties")
            if extra is None:
                return MESSAGES["open_object"]
            if extra is not False:
                shown = json.dumps(extra, ensure_ascii=False)[:40]
                return MESSAGES["extra_object"].replace("{value}", shown)
        names = sorted(keyword for keyword in UNSUPPORTED.get(kind, ()) if keyword in node)
        if len(names) == 1:
            return MESSAGES["one_property"].replace("{type}", kind).replace("{names}", names[0])
        if names:
            listing = ", ".join(names)
            return MESSAGES["properties"].replace("{type}", kind).replace("{names}", listing)
        if kind == "array" and node.get("minItems", 0) not in (0, 1):
            return MESSAGES["min_items"]
    return None


def _cycle(schema: dict[str, Any]) -> list[str]:
    """A chain of definitions that comes back to where it started (``[]`` when none does)."""
    definitions: dict[str, Any] = {}
    for keyword in DEFINITIONS:
        if isinstance(schema.get(keyword), dict):
            definitions.update({f"{keyword}/{k}": v for k, v in schema[keyword].items()})
    edges = {name: _references(body, definitions) for name, body in definitions.items()}
    state: dict[str, int] = {}  # 1: on the path being walked, 2: every way out walked
    for start in edges:
        if state.get(start):
            continue
        path, ways = [start], [iter(edges[start])]
        state[start] = 1
        while path:
            following = next(ways[-1], None)
            if following is None:
                state[path.pop()] = 2
                ways.pop()
            elif state.get(following) == 1:
                cycle = [*path[path.index(following) :], following]
                return [name.split("/", 1)[1] for name in cycle]
            elif not state.get(following):
                state[following] = 1
                path.append(following)
                ways.append(iter(edges[following]))
    return []


def _references(body: Any, definitions: dict[str, Any]) -> list[str]:
    found: list[str] = []
    nodes = [body, *(sub for sub, _ in subschemas(body))] if isinstance(body, dict) else []
    for node in nodes:
        ref = node.get("$ref") if isinstance(node, dict) else None
        match = re.fullmatch(r"#/(\$defs|definitions)/(.+)", ref) if isinstance(ref, str) else None
        if match and f"{match[1]}/{match[2]}" in definitions:
            found.append(f"{match[1]}/{match[2]}")
    return found


def check_limits(strict_tools: int, schemas: list[dict[str, Any]]) -> None:
    """The request-wide limits of strict tools, optional and union-typed parameters."""
    if strict_tools > MAX_STRICT_TOOLS:
        message = MESSAGES["strict_tools"].format(count=strict_tools, limit=MAX_STRICT_TOOLS)
        raise ProtocolError(message)
    nodes = [n for s in schemas for n in [s, *(sub for sub, _ in subschemas(s))]]
    nodes = [n for n in nodes if isinstance(n, dict)]
    optional = sum(
        len([key for key in n["properties"] if key not in (n.get("required") or [])])
        for n in nodes
        if isinstance(n.get("properties"), dict)
    )
    if optional > MAX_OPTIONAL:
        raise ProtocolError(MESSAGES["optional"].format(count=optional, limit=MAX_OPTIONAL))
    unions = sum(
        1
        for n in nodes
        if isinstance(n.get("anyOf"), list)
        or isinstance(n.get("oneOf"), list)
        or (isinstance(n.get("type"), list) and len(n["type"]) > 1)
    )
    if unions > MAX_UNIONS:
        raise ProtocolError(MESSAGES["unions"].format(count=unions, limit=MAX_UNIONS))


# -- the guarantee --------------------------------------------------------------------------------


def conform_turn(turn: Turn, request: ChatRequest) -> Turn:
    """Strict tools' inputs, and the JSON text of a structured reply, made valid for their
    schemas (a turn that already is comes back as it was)."""
    strict = {tool["name"]: tool["parameters"] for tool in request.tools if tool.get("strict")}
    calls = tuple(
        _conformed(call, strict[call.name]) if call.name in strict else call
        for call in turn.tool_calls
    )
    content = turn.content
    output_format = request.output_format
    if output_format is not None and output_format.schema is not None and not calls:
        content = _conformed_text(content or "", output_format.schema)
    if calls == turn.tool_calls and content == turn.content:
        return turn
    return Turn(content, calls, turn.parts if content == turn.content else ())


def _conformed(call: ToolCall, schema: dict[str, Any]) -> ToolCall:
    arguments = call.parsed()
    fixed = conform(arguments if arguments is not None else {}, schema)
    return call if fixed == arguments else ToolCall.of(call.name, fixed)


def _conformed_text(text: str, schema: dict[str, Any]) -> str:
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    fixed = conform(value, schema)
    return text if fixed == value and value is not None else json.dumps(fixed, ensure_ascii=False)
