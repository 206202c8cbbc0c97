"""Exercise 01.3, ``tool_message(tool_call, result) -> dict``: the ``role: "tool"`` message.

The tool call is built beside the learner's code, either as the SDK's own object
(``ChatCompletionMessageFunctionToolCall``) or as the plain dict of the same shape; the message
comes back as JSON. ``message_problem`` is also how 01.4 judges the tool messages a round trip
sends. Rules, the case that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from random import Random
from typing import Any

from course_lib.checks.cases import Case, run_cases
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, first_difference, hidden_rng
from course_lib.checks.compare import fail as fail_case
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply
from course_lib.checks.lesson01._values import CITIES, NOTEBOOK, random_word, result_json

SDK, DICT = "sdk", "dict"  # the two forms a tool call comes in
# The case labels, one per form of the tool call (the call itself is shown in Python spelling).
TEXTS = Catalog() | {
    SDK: "tool_message(<the SDK's tool call, id {call_id}>, {result})",
    DICT: "tool_message(<a dict, id {call_id}>, {result})",
    "summary": "{count} cases",
}


def case_label(form: str, call_id: str, result: Any) -> str:
    return TEXTS.text(form, call_id=repr(call_id), result=repr(result))


WEATHER_CASE = case_label(SDK, "call_v0", "晴, 31°C")
DICT_RESULT_CASE = case_label(SDK, "call_v1", {"city": "北京", "temperature": 31, "sky": "晴"})
FIRST_DICT_CALL_CASE = case_label(
    DICT, "call_v2", [{"title": "上海 trip", "tags": ["旅行"]}, {"title": "budget", "tags": []}]
)

RULES = (
    Rule("keys", 'the message has exactly three keys: `"role"`, `"tool_call_id"`, `"content"`',
         case=WEATHER_CASE, hint="extra_keys"),
    Rule("role", '`"role"` is `"tool"`', case=WEATHER_CASE, hint="role"),
    Rule("tool_call_id", '`"tool_call_id"` is the id of the call it answers (the key is '
         "`tool_call_id`, not `id`)", case=WEATHER_CASE, hint="id_key"),
    Rule("both_forms", "`tool_call` is either the SDK's object, as in `assistant.tool_calls[0]` "
         'above (its id is `tool_call.id`), or a plain dict of the same shape (`tool_call["id"]`), '
         "which is what you get when you keep the conversation as dicts", case=FIRST_DICT_CALL_CASE,
         hint="dict_call"),
    Rule("string_unchanged", 'a `str` result is the `"content"` unchanged', case=WEATHER_CASE,
         hint="string_unchanged"),
    Rule("json_text", "any other result becomes JSON text with `json.dumps`, not `str()` (so `42` "
         'becomes `"42"` and `None` becomes `"null"`)', case=DICT_RESULT_CASE, hint="json_not_str"),
    Rule("ensure_ascii", "that JSON keeps 北京 as 北京 (`ensure_ascii=False`)",
         case=DICT_RESULT_CASE, hint="ensure_ascii"),
)  # fmt: skip

HINTS = Catalog() | {
    "not_dict": 'Return a dict: {{"role": "tool", "tool_call_id": ..., "content": ...}}.',
    "role": 'The reply to a tool call has "role": "tool".',
    "id_key": 'The key is "tool_call_id", not "id": rename it (and keep no "id" key).',
    "no_id": 'Add "tool_call_id" (the id of the call you answer): it pairs reply and call.',
    "copy_id": (
        'Copy the id of this tool call into "tool_call_id": tool_call.id for the SDK\'s object, '
        'tool_call["id"] for a dict.'
    ),
    "content_string": '"content" must be a string: encode non-string results with json.dumps.',
    "content_parts": (
        "A list of text parts is a form the API accepts too, and it says the same; this "
        'exercise asks for the plain form: "content" is the text itself, one string.'
    ),
    "string_unchanged": (
        "A string result is already text: pass it through unchanged (no json.dumps)."
    ),
    "json_not_str": "Encode with json.dumps, not str(): str() writes Python, not JSON.",
    "none_is_null": (
        'A None result is encoded too: json.dumps(None) is the text "null", not an empty text '
        'or "None".'
    ),
    "decodes_back": "The content must decode (json.loads) back to the result you were given.",
    "ensure_ascii": "Pass ensure_ascii=False so 北京 stays 北京 instead of \\u5317\\u4eac.",
    "extra_keys": ("Use exactly the keys role, tool_call_id and content (remove {extra})."),
    "dict_call": 'tool_call may also be a dict: read its id as tool_call["id"] then.',
    "sdk_call": (
        'tool_call may also be the SDK\'s object, which has no ["id"]: read its id as '
        "tool_call.id then."
    ),
}


hint = HINTS.hint


def expected_message(call_id: str, result: Any) -> dict:
    """The oracle: the result as text, strings unchanged, the rest as unescaped JSON."""
    content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def message_problem(got: Any, call_id: str, result: Any) -> HintText | None:
    """The hint for the first thing wrong with ``got`` (JSON), or ``None`` if it is right.

    The JSON text in "content" may use any spacing or key order, but no ASCII escapes.
    """
    if not isinstance(got, dict):
        return hint("not_dict")
    if got.get("role") != "tool":
        return hint("role")
    if "tool_call_id" not in got:
        return hint("id_key" if "id" in got else "no_id")
    if got["tool_call_id"] != call_id:
        return hint("copy_id")
    content = got.get("content")
    if _is_text_parts(content):
        return hint("content_parts")
    if not isinstance(content, str):
        return hint("content_string")
    if isinstance(result, str):
        if content != result:
            return hint("string_unchanged")
    elif result is None and content.strip() in ("", "None"):
        return hint("none_is_null")
    else:
        try:
            decoded = json.loads(content)
        except ValueError:
            return hint("json_not_str")
        if first_difference(result, decoded) is not None:
            return hint("decodes_back")
        if "\\u" in content and "\\u" not in json.dumps(result, ensure_ascii=False):
            return hint("ensure_ascii")
    extra = sorted(set(got) - {"role", "tool_call_id", "content"})
    if extra:
        return hint("extra_keys", extra=", ".join(extra))
    return None


def _is_text_parts(content: Any) -> bool:
    """Whether ``content`` is a list of ``{"type": "text", "text": ...}`` parts."""
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(part, dict) and part.get("type") == "text" for part in content)
    )


def tool_call(learner: Learner, form: str, call_id: str, arguments: dict) -> dict:
    """A call of get_weather: a value spec of the SDK's tool call object, built beside the
    learner's code, or the same call as the plain dict ``model_dump()`` gives."""
    function = {"arguments": json.dumps(arguments, ensure_ascii=False), "name": "get_weather"}
    if form == DICT:
        return {"id": call_id, "function": function, "type": "function"}
    return learner.source(
        f"ChatCompletionMessageFunctionToolCall(id={call_id!r}, type='function', "
        f"function={function!r})",
        setup="from openai.types.chat import ChatCompletionMessageFunctionToolCall",
    )


VISIBLE_RESULTS: list[Any] = [
    "晴, 31°C",
    {"city": "北京", "temperature": 31, "sky": "晴"},
    [{"title": "上海 trip", "tags": ["旅行"]}, {"title": "budget", "tags": []}],
    42,
    21.5,
    True,
    None,
    "",
    {"note": "ASCII only"},
    "  北京: 晴\n",  # spaces and a newline are part of the text, too
]


def cases(rng: Random) -> list[tuple[str, str, Any, dict]]:
    """(form, call id, result, arguments of the call): every third call is a dict."""
    results = list(VISIBLE_RESULTS)
    for _ in range(8):
        results.append(rng.choice([random_word(rng), {rng.choice(CITIES): rng.randint(0, 40)}]))
    table = []
    for index, result in enumerate(results):
        visible = index < len(VISIBLE_RESULTS)
        call_id = f"call_v{index}" if visible else f"call_{random_word(rng)}{index}"
        form = DICT if index % 3 == 2 else SDK
        table.append((form, call_id, result, {"city": rng.choice(CITIES)}))
    return table


def exception_hints(form: str) -> list[tuple[Callable[[Reply], bool], str]]:
    return [
        (lambda r: form == DICT and r.raised_a("AttributeError"), hint("dict_call")),
        (lambda r: form == SDK and (r.raised_a("TypeError") or r.raised_a("AttributeError")),
         hint("sdk_call")),
    ]  # fmt: skip


def judge(case: Case, got: Any, reply: Reply) -> None:
    __tracebackhide__ = True
    found = message_problem(got, case.expected["tool_call_id"], case.args[1])
    if found is not None:
        fail_case(case.label, case.expected, got, found)


@exercise("01.3", notebook=NOTEBOOK, title="tool_message", points=2, rules=RULES)
def check_tool_message(learner: Learner) -> str:
    table = [
        Case(
            case_label(form, call_id, result),
            (tool_call(learner, form, call_id, arguments), result),
            expected_message(call_id, result),
            raised=exception_hints(form),
        )
        for form, call_id, result, arguments in cases(hidden_rng("01.3"))
    ]
    count = run_cases(learner, "tool_message", table, partial(result_json, "tool_message"), judge)
    return TEXTS.text("summary", count=count)
