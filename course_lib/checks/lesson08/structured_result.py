"""Exercise 08.4, ``structured_result(value, output_schema) -> CallToolResult``: a tool's answer
with its ``structuredContent`` beside the text, or a tool error when the value breaks the promise.

Beside the learner's code, a real server lists one tool per case with the case's output schema,
and its ``tools/call`` handler returns the learner's ``structured_result(value, schema)``; a
2026-07-28 ``ClientSession``, which validates structured results against the listing, calls each
tool (``kernel_side.serve_structured``). The check judges what the client saw. A message naming
the problem is judged by the property it names, so it may be written in any language. Rules, the
case that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import json
from random import Random
from typing import Any

from course_lib import schema_library
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail, hidden_rng, json_equal
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, raise_learner_error
from course_lib.checks.lesson08._kernel_bridge import (
    NOTEBOOK,
    kernel_helper,
    raised_reply,
    said_message,
    stub_of,
)
from course_lib.i18n import spoken_label, translate

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperature": {"type": "number"},
        "sky": {"type": "string"},
    },
    "required": ["city", "temperature", "sky"],
    "additionalProperties": False,
}
WORDS = {"type": "array", "items": {"type": "string"}}
ITEMS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
        "required": ["name", "count"],
    },
}

# A case's label, said in the learner's language when a check fails (``case_label``).
CASE_TEXTS = {
    "weather": "weather",
    "list": "a list",
    "string": "a string",
    "zero": "zero",
    "wrong_type": "a wrong type",
    "missing": "a missing property",
    "extra": "an extra property",
    "wrong_item": "a wrong item",
    "list_for_object": "a list for an object",
    "hidden": "hidden {number}",
}

# (label, output schema, value): the values that fit first, then those that do not. A visible
# case's label is its key in CASE_TEXTS; a hidden one's is made in the language in force.
VISIBLE = [
    ("weather", WEATHER, {"city": "北京", "temperature": 31, "sky": "晴"}),
    ("list", WORDS, ["milk", "豆腐"]),
    ("string", {"type": "string"}, "晴"),
    ("zero", {"type": "integer", "minimum": 0}, 0),
    ("wrong_type", WEATHER, {"city": "上海", "temperature": "27", "sky": "多云"}),
    ("missing", WEATHER, {"city": "上海", "temperature": 27}),
    ("extra", WEATHER, {"city": "上海", "temperature": 27, "sky": "阴", "wind": 3}),
    ("wrong_item", ITEMS, [{"name": "milk", "count": 1}, {"name": "豆腐", "count": "两"}]),
    ("list_for_object", WEATHER, ["北京", 31, "晴"]),
]

TEXTS = Catalog() | {
    "case": "structured_result({value}, <{label}>)",
    "a_result": "a CallToolResult",
    "summary": "{count} results",
    "is_error": "isError",
    "structured": "structuredContent",
    "content": "content",
}
text = TEXTS.text


def case_label(label: str, value: Any) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    if len(shown) > 40:
        shown = shown[:39] + "…"
    return text("case", value=shown, label=spoken_label(CASE_TEXTS, label))


WEATHER_CASE, LIST_CASE = (case_label(label, value) for label, _, value in VISIBLE[:2])
WRONG_TYPE_CASE = case_label(VISIBLE[4][0], VISIBLE[4][2])

RULES = (
    Rule("result", "return a `types.CallToolResult`", case=WEATHER_CASE, hint="not_a_result"),
    Rule("structured", "when `value` fits the schema "
         "(`Draft202012Validator(output_schema).iter_errors(value)` finds nothing), "
         "`structured_content` is `value` itself, unchanged", case=WEATHER_CASE, hint="wrapped"),
    Rule("any_type", "that holds for a value of any JSON type (an array, a string, `0`), not only "
         "an object", case=LIST_CASE, hint="any_type"),
    Rule("text_json", "beside it, exactly one text block holds `value` as JSON (`json.dumps`)",
         case=WEATHER_CASE, hint="text_not_json"),
    Rule("misfit_error", "a value that does not fit is a tool error: `is_error=True`",
         case=WRONG_TYPE_CASE, hint="not_validated"),
    Rule("misfit_no_structured", "with no `structured_content`", case=WRONG_TYPE_CASE,
         hint="structured_on_error"),
    Rule("misfit_names", "and one text block that names the property that does not fit (a "
         "missing, an unexpected or a wrong one), in any language", case=WRONG_TYPE_CASE,
         hint="name_the_property"),
    Rule("never_raise", "never raise", case=WRONG_TYPE_CASE, hint="raised"),
)  # fmt: skip

HINTS = Catalog() | {
    "not_a_result": (
        "Return types.CallToolResult(content=[...], structured_content=..., is_error=...), not "
        "a {kind}: the server accepts a dict too, but the other exercises and the SDK's own "
        "servers build the result object, which checks its fields."
    ),
    "wrapped": (
        'structured_content is the value itself: wrapping it ({{"result": ...}}) is what a '
        "2025-11-25 server does for a value that is not an object, and it does not fit this "
        "schema, so the client refused it ({message})."
    ),
    "structured_differs": (
        "structured_content must be the value itself, unchanged: the client validates it "
        "against the tool's output schema and a program reads it as data."
    ),
    "missing_structured": (
        "The tool lists an output schema, so the client refused a result without "
        "structured_content ({message}): set structured_content=value."
    ),
    "any_type": (
        "Since 2026-07-28 structured_content may be any JSON value (an array, a string, a "
        "number), not only an object: set it for every value that fits its schema ({message})."
    ),
    "falsy": (
        '0, [] and "" are values too: test `is None` (or nothing at all), not the value\'s truth.'
    ),
    "text_not_json": (
        "The text block holds the value as JSON (json.dumps(value)), for clients that read only "
        "text; str(value) is Python's spelling ('single quotes', True, None)."
    ),
    "one_text_block": (
        'Answer with exactly one block, types.TextContent(type="text", text=json.dumps(value)), '
        "beside structured_content."
    ),
    "fits_is_error": "A value that fits its schema is a result, not an error: is_error=False.",
    "not_validated": (
        "This value does not fit the output schema, and the client refused the result "
        "({message}): validate value against output_schema first (jsonschema) and answer a "
        "tool error (is_error=True) when it does not fit."
    ),
    "structured_on_error": (
        "A tool error carries no structured_content: leave it out (None), so no client reads "
        "data that broke the promise."
    ),
    "name_the_property": (
        "Say which property does not fit ({names}): the model and the person reading need to "
        "know what to fix. The message may be in any language."
    ),
    "jsonschema_message": (
        "jsonschema's message says what is wrong but not where ({message!r}): add the property, "
        "e.g. from error.path or error.json_path ({names})."
    ),
    "error_text": (
        "A tool error is one text block that says what does not fit: "
        'content=[types.TextContent(type="text", text=message)].'
    ),
    "raised": (
        "structured_result raised ({message}); a client on 2026-07-28 sees only -32603 "
        '"Internal server error". Answer a tool error (is_error=True) instead of raising.'
    ),
    "unreadable": (
        "The client could not read the result ({message}): return "
        "types.CallToolResult(content=[...], structured_content=..., is_error=...)."
    ),
}


hint = HINTS.hint


ASK = "reports = serve_structured(structured_result, cases)"


@exercise("08.4", notebook=NOTEBOOK, title="structured_result", points=2, rules=RULES, hints=HINTS)
def check_structured_result(learner: Learner) -> str:
    cases = [*VISIBLE, *hidden_cases(hidden_rng("08.4"))]
    reply = learner.run(
        ASK,
        result="reports",
        bind={
            "serve_structured": kernel_helper("serve_structured"),
            "structured_result": learner.target("structured_result"),
            "cases": [[schema, value] for _, schema, value in cases],
        },
    )
    if reply.raised:  # serve_structured raised: the SDK, or the exchange took too long
        raise_learner_error(text("a_result"), raised_reply(reply.data))
    for (label, schema, value), report in zip(cases, reply.value, strict=True):
        judge(case_label(label, value), schema, value, report)
    return text("summary", count=len(cases))


def judge(label: str, schema: dict, value: Any, report: dict[str, Any]) -> None:
    __tracebackhide__ = True
    if "raised" in report:
        stub_of(report, "08.4")  # another exercise's stub is what it raised
        message = str(said_message(report["raised"].get("message", "")))
        chosen = hint("raised", message=message)
        raise_learner_error(label, raised_reply(report), [(lambda reply: True, chosen)])
    kind = str(report.get("type", ""))
    if not kind.endswith("CallToolResult"):
        fail(label, Plain(text("a_result")), Plain(kind), hint("not_a_result", kind=kind))
    validator = schema_library.load().Draft202012Validator(schema)
    errors = list(validator.iter_errors(value))
    if not errors:
        judge_fits(label, value, report.get("call") or {})
    else:
        judge_misfit(label, errors, report.get("call") or {})


def judge_fits(label: str, value: Any, call: dict[str, Any]) -> None:
    __tracebackhide__ = True
    expected = {
        "content": [{"type": "text", "text": json.dumps(value, ensure_ascii=False)}],
        "structuredContent": value,
        "isError": False,
    }
    if "raised" in call:  # the client refused what arrived
        message = str(said_message(call["raised"].get("message", "")))
        fail(label, expected, Plain(message), refused_hint(value, message))
    if "protocol_error" in call:
        message = str(call["protocol_error"].get("message", ""))
        fail(label, expected, Plain(message), hint("unreadable", message=message))
    result = call.get("result") or {}
    got = {key: result.get(key) for key in ("content", "structuredContent", "isError")}
    if not json_equal(value, got["structuredContent"]):
        where = text("structured")
        fail(label, expected, got, hint("structured_differs"), where=where)
    if got["isError"]:
        fail(label, expected, got, hint("fits_is_error"), where=text("is_error"))
    content = got["content"]
    if not isinstance(content, list) or len(content) != 1 or content[0].get("type") != "text":
        fail(label, expected, got, hint("one_text_block"), where=text("content"))
    if not holds_json_of(content[0].get("text"), value):
        fail(label, expected, got, hint("text_not_json"), where=text("content"))


def refused_hint(value: Any, message: str):
    if "did not return structured content" in message:
        if isinstance(value, dict):
            return hint("missing_structured", message=message)
        return hint("falsy") if not value else hint("any_type", message=message)
    return hint("wrapped", message=message)


def holds_json_of(got_text: Any, value: Any) -> bool:
    if not isinstance(got_text, str):
        return False
    try:
        return json_equal(value, json.loads(got_text))
    except ValueError:
        return False


def judge_misfit(label: str, errors: list, call: dict[str, Any]) -> None:
    __tracebackhide__ = True
    names = property_names(errors)
    expected = {"isError": True, "structuredContent": None, "names": names}
    if "raised" in call:
        message = str(said_message(call["raised"].get("message", "")))
        fail(label, expected, Plain(message), hint("not_validated", message=message))
    if "protocol_error" in call:
        message = str(call["protocol_error"].get("message", ""))
        fail(label, expected, Plain(message), hint("unreadable", message=message))
    result = call.get("result") or {}
    got = {key: result.get(key) for key in ("isError", "structuredContent", "content")}
    if got["isError"] is not True:
        fail(label, expected, got, hint("not_validated", message="isError: false"))
    if got["structuredContent"] is not None:
        fail(label, expected, got, hint("structured_on_error"), where=text("structured"))
    content = got["content"]
    one_text = isinstance(content, list) and len(content) == 1 and content[0].get("type") == "text"
    message = content[0].get("text") if one_text else None  # one block saying what is wrong
    if not isinstance(message, str) or not message.strip():
        fail(label, expected, got, hint("error_text"), where=text("content"))
    if names and not any(name in message for name in names):
        shown = " / ".join(names)
        chosen = (
            hint("jsonschema_message", message=message, names=shown)
            if any(error.message in message for error in errors)
            else hint("name_the_property", names=shown)
        )
        fail(label, expected, got, chosen, where=text("content"))


def property_names(errors: list) -> list[str]:
    """The properties a message about ``errors`` (jsonschema's, for a value that does not fit)
    may name: a missing or unexpected one, or one on the path to the problem; empty when the
    problem is the value as a whole."""
    names: list[str] = []
    for error in errors:
        if error.validator == "required" and isinstance(error.instance, dict):
            names += [name for name in error.validator_value if name not in error.instance]
        elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = error.schema.get("properties", {})
            names += [name for name in error.instance if name not in known]
        names += [part for part in error.absolute_path if isinstance(part, str)]
    return sorted(set(names))


# -- hidden cases ----------------------------------------------------------------------------------

CITIES = ("北京", "上海", "Paris", "广州", "Lisbon")
SKIES = ("晴", "多云", "rain", "阴")


def hidden_cases(rng: Random, count: int = 4) -> list[tuple[str, dict, Any]]:
    cases = []
    for number in range(count):
        value = {
            "city": rng.choice(CITIES),
            "temperature": rng.randint(-10, 40),
            "sky": rng.choice(SKIES),
        }
        if number % 2:
            broken = rng.choice(("city", "temperature", "sky"))
            value[broken] = [value[broken]]
        cases.append((translate(CASE_TEXTS, "hidden", number=number + 1), WEATHER, value))
    return cases
