"""What 07.4's one request must hold, for each kind of client.

An OpenAI client: the model, one user message holding the text, and a strict ``json_schema``
``response_format`` (what ``chat.completions.parse(response_format=...)`` sends). An Anthropic
client: the model, ``max_tokens``, the same message, and ``output_config.format`` (what
``messages.parse(output_format=...)`` sends). A schema the API refuses is its 400, named.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail
from course_lib.checks.lesson07._registry import CHECK_MODEL, MAX_TOKENS

TEXTS = Catalog() | {
    "anthropic_format": "a request with output_config.format (a json_schema made from {model})",
    "a_request": "a request to the model",
    "no_request": "no request",
    "one_request": "one request",
    "requests": "{count} request(s)",
    "messages": "the request's messages",
    "format": "the request's response_format",
    "format_anthropic": "the request's output_config",
    "strict_format": 'a "json_schema" response_format with "strict": true',
}
text = TEXTS.text


HINTS = Catalog() | {
    "no_request": (
        "Ask the model: client.chat.completions.parse with an OpenAI client, "
        "client.messages.parse with an Anthropic one."
    ),
    "max_tokens": "Pass max_tokens=1024 to Anthropic (its API requires max_tokens).",
    "no_format_anthropic": (
        "Ask Anthropic for structured output: client.messages.parse(..., "
        "output_format=schema_model) sends output_config.format, a JSON Schema made from the "
        "model, and the reply keeps to it."
    ),
    "strict_refused_anthropic": (
        "Anthropic refused the schema: model_json_schema() leaves objects open, and "
        "output_config.format wants every object closed. Let client.messages.parse("
        "output_format=schema_model) build the schema (or close every object as in lesson 06)."
    ),
    "one_request": "One request per text is enough.",
    "model": "Pass model=model.",
    "messages": 'Send one user message holding the text: [{{"role": "user", "content": text}}].',
    "no_format": (
        "Ask for structured output: client.chat.completions.parse(..., "
        "response_format=schema_model) sends a strict JSON Schema made from the model."
    ),
    "json_object": (
        '"json_object" promises JSON, not your schema: ask for the schema itself with '
        "response_format=schema_model."
    ),
    "not_strict": (
        'Ask for a strict schema: "strict": true (parse(response_format=schema_model) does).'
    ),
    "strict_refused": (
        "Strict mode refused the schema: model_json_schema() leaves objects open and optional "
        "fields out of required. Let client.chat.completions.parse(response_format="
        "schema_model) build the strict schema (or make it strict as in lesson 06)."
    ),
    "forced_tool": (
        "A forced tool gets JSON too, but this exercise asks for response_format: "
        "client.chat.completions.parse(..., response_format=schema_model)."
    ),
    "chat_parse": (
        "With an OpenAI client this exercise uses Chat Completions: "
        "client.chat.completions.parse(model=model, messages=[...], "
        "response_format=schema_model). The Responses API's client.responses.parse("
        "text_format=...) is the other route, not this one."
    ),
}
hint = HINTS.hint


def diagnose_request(case: str, sample: str, exchanges: list, *, raised: bool) -> None:
    __tracebackhide__ = True
    exchange = the_request(case, exchanges)
    body = exchange.request
    user = [{"role": "user", "content": sample}]
    if "messages" not in body and "input" in body:
        fail(case, user, body.get("messages"), hint("chat_parse"), where=text("messages"))
    if body.get("messages") != user:
        fail(case, user, body.get("messages"), hint("messages"), where=text("messages"))
    wanted = Plain(text("strict_format"))
    shape = body.get("response_format")
    where = text("format")
    if shape is None:
        forced = body.get("tool_choice") not in (None, "auto", "none")
        fail(case, wanted, shape, hint("forced_tool" if forced else "no_format"), where=where)
    if not isinstance(shape, dict) or shape.get("type") != "json_schema":
        json_object = isinstance(shape, dict) and shape.get("type") == "json_object"
        fail(case, wanted, shape, hint("json_object" if json_object else "no_format"), where=where)
    if exchange.status == 400:
        fail(case, wanted, exchange.reply, hint("strict_refused"), where=where)
    if (shape.get("json_schema") or {}).get("strict") is not True:
        fail(case, wanted, shape, hint("not_strict"), where=where)
    if exchange.status != 200 and raised:
        fail(case, wanted, exchange.reply, hint("no_format"), where=where)


def diagnose_anthropic_request(case: str, sample: str, exchanges: list, model_class: str) -> None:
    """The one request to an Anthropic client: model, max_tokens, the text, a format."""
    __tracebackhide__ = True
    exchange = the_request(case, exchanges)
    body = exchange.request
    if body.get("max_tokens") != MAX_TOKENS:
        fail(case, MAX_TOKENS, body.get("max_tokens"), hint("max_tokens"))
    user = [{"role": "user", "content": sample}]
    if body.get("messages") != user:
        fail(case, user, body.get("messages"), hint("messages"), where=text("messages"))
    wanted = Plain(text("anthropic_format", model=model_class))
    config = body.get("output_config")
    shape = config.get("format") if isinstance(config, dict) else None
    if not isinstance(shape, dict):
        fail(case, wanted, config, hint("no_format_anthropic"), where=text("format_anthropic"))
    if exchange.status == 400:
        fail(case, wanted, exchange.reply, hint("strict_refused_anthropic"))


def the_request(case: str, exchanges: list) -> Any:
    """The one exchange, sent with ``model=model``."""
    __tracebackhide__ = True
    if not exchanges:
        fail(case, Plain(text("a_request")), Plain(text("no_request")), hint("no_request"))
    if len(exchanges) > 1:
        got = Plain(text("requests", count=len(exchanges)))
        fail(case, Plain(text("one_request")), got, hint("one_request"))
    body = exchanges[0].request
    if body.get("model") != CHECK_MODEL:
        fail(case, CHECK_MODEL, body.get("model"), hint("model"))
    return exchanges[0]
