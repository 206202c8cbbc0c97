"""Exercise 04.4, ``DispatchRegistry.call(name, arguments) -> str``: run a tool the way the model
asked for it, and answer every problem as an error object instead of raising.

The registry is built beside the learner's code from the learner's ``DispatchRegistry``, with
entries the check writes itself (so ``call`` is tested alone, whatever 04.1's ``tool`` does); the
tools are source text and run there. Each ``call`` comes back as the text it returned.
Rules, the case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson04._tool_sources import (
    NOTEBOOK,
    expect_json_text,
    json_text,
    local_tool,
    method,
    phrase,
    shown,
)
from course_lib.checks.lesson04.dispatch.cases import (
    ERROR_CASES,
    HINTS,
    OK_CASES,
    TOOLS,
    ErrorCase,
    OkCase,
    build_snippet,
    case_of,
    entries,
    hidden_cases,
    registry_case,
)
from course_lib.checks.meaning import first_unsaid, says_all
from course_lib.checks.meaning import shown as shown_word
from course_lib.i18n import translate

RULES = (
    Rule("json_result", "turn any other result into `json.dumps(result, ensure_ascii=False)`",
         case=case_of("json_result"), hint="json_not_str"),
    Rule("readable", "so 北京 stays readable", case=case_of("json_result"), hint="ensure_ascii"),
    Rule("json_arguments", "accept a dict or a JSON string as `arguments`",
         case=case_of("json_arguments"), hint="parse_json"),
    Rule("str_result", "return a str result unchanged", case=case_of("str_result"),
         hint="str_unchanged"),
    Rule("empty", 'read `""` as no arguments, `{}`', case=case_of("empty"), hint="empty"),
    Rule("never_raises", "never raise: always return a str", case=case_of("unknown"),
         hint="raised_unknown"),
    Rule("error_object", 'write every error as `error_text(message)`, a JSON object '
         '`{"error": message}`, never plain text', case=case_of("unknown"),
         hint="error_object"),
    Rule("unknown_named", "for an unknown `name`, name it in the message",
         case=case_of("unknown"), hint="name_unknown"),
    Rule("unknown", "and list every registered name", case=case_of("unknown"),
         hint="list_tools"),
    Rule("bad_json", "for invalid JSON, say so (`JSON`, or `解析`)", case=case_of("bad_json"),
         hint="bad_json"),
    Rule("not_object", "for JSON that is not an object, say it must be one (`object`, or `对象`: "
         "`参数必须是一个 JSON 对象`)", case=case_of("not_object"), hint="not_object"),
    Rule("only_empty", 'only `""`: `null`, `[]` and `0` are JSON that is not an object',
         case=case_of("only_empty"), hint="only_empty"),
    Rule("validate", 'check the arguments with '
         '`validate_arguments(entry["parameters"], arguments)` (your 04.3); when they are '
         'invalid, do not run the tool', case=case_of("validate"), hint="validate_first"),
    Rule("every_problem", "and put every problem message into the error",
         case=case_of("every_problem"), hint="every_problem"),
    Rule("unencodable", "a result `json.dumps` cannot encode (a `date`; see 04.5) is an error "
         "naming the exception's type and text", case=case_of("unencodable"),
         hint="unencodable"),
    Rule("tool_raises", 'when the tool raises, the message contains '
         '`f"{type(exc).__name__}: {exc}"`', case=case_of("tool_raises"), hint="tool_raised"),
)  # fmt: skip


TEXTS = Catalog() | {"summary": "{results} results and {errors} errors"}


hint = HINTS.hint


def build_registry(learner: Learner) -> str:
    """``DispatchRegistry()`` beside the learner's code, its ``_tools`` filled with the check's
    entries: a constructor that raises and a ``_tools`` that is not a dict get their own hints."""
    __tracebackhide__ = True
    case = registry_case()
    bind = {"DispatchRegistry": learner.target("DispatchRegistry")}
    made = learner.run("registry = DispatchRegistry()\n", result="registry", keep=True, bind=bind)
    if made.raised:
        fail(case, phrase("dispatch_registry"), Plain(made.raised_text), hint("not_constructed"))
    bind = {"registry": learner.handle(made.handle), "entries": entries()}
    reply = learner.run(build_snippet(), result="registry", keep=True, bind=bind)
    if reply.raised:
        fail(case, phrase("dispatch_registry"), Plain(reply.raised_text), hint("no_tools"))
    return reply.handle


def called(
    learner: Learner, registry: str, name: str, arguments: Any, case: str, raised_key: str
) -> str:
    __tracebackhide__ = True
    reply = learner.attempt(method(learner, registry, "call"), name, arguments)
    if reply.raised:
        fail(case, phrase("a_str"), Plain(reply.raised_text), hint(raised_key))
    if reply.type != "str":
        fail(case, phrase("a_str"), shown(reply), hint("not_str"))
    return reply.value


def expect_result(learner: Learner, registry: str, item: OkCase) -> None:
    __tracebackhide__ = True
    got = called(learner, registry, item.name, item.arguments, item.label, item.raised_key)
    result = local_tool(item.name)(**item.parsed)
    if isinstance(result, str):
        hints = [(lambda g: g == json_text(result), hint("str_unchanged")),
                 (lambda g: "error" in g, hint(item.error_hint))]  # fmt: skip
        expect_equal(item.label, result, got, hints=hints)
        return
    value = _loaded(got)
    is_error = isinstance(value, dict) and "error" in value or got.lower().startswith("error")
    wrong = hint(item.error_hint) if is_error else hint("json_not_str")
    expect_json_text(
        item.label, result, got, not_text=hint("not_str"), not_json=hint("json_not_str"),
        wrong=wrong, escaped=hint("ensure_ascii"),
    )  # fmt: skip


def _loaded(text: str) -> Any:
    """The JSON value of ``text``, or None when it is no JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def error_message(case: str, got: str, expected: Plain, item: ErrorCase) -> str:
    """The message in ``got``, failing unless it is a JSON object with an "error" string.

    Text that is no such object is an error written as plain text when it says what the case's
    error must say or starts like one ("Error: ...", "错误: ..."); anything else is the tool's
    own result, so the tool ran where it must not have: the case's own hint.
    """
    __tracebackhide__ = True
    value = _loaded(got)
    if isinstance(value, dict) and isinstance(value.get("error"), str) and value["error"]:
        return value["error"]
    if isinstance(value, dict) and "error" in value:
        fail(case, expected, got, hint("error_key"))
    plain_error = got.lower().startswith(("error", "exception", "错误", "异常"))
    if plain_error or (not isinstance(value, dict) and says_all(got, item.words)):
        fail(case, expected, got, hint("error_object"))
    fail(case, expected, got, hint(item.hint, name=item.name, arguments=item.arguments))
    return ""


def learner_problems(learner: Learner, item: ErrorCase) -> list[str] | None:
    """What the ``validate_arguments`` the learner's ``call`` uses says about the case's
    arguments (a list of messages), or ``None`` when it cannot be found or answers no list."""
    parsed = json.loads(item.arguments) if isinstance(item.arguments, str) else item.arguments
    reply = learner.run(
        "fn = getattr(getattr(cls, 'call', None), '__globals__', {}).get('validate_arguments')\n"
        "found = fn(schema, arguments) if callable(fn) else None\n",
        result="found",
        bind={"cls": learner.target("DispatchRegistry"), "schema": item.schema,
              "arguments": parsed},
    )  # fmt: skip
    found = reply.value
    if reply.type != "list" or not all(isinstance(problem, str) for problem in found):
        return None
    return found


def expect_error(learner: Learner, registry: str, item: ErrorCase) -> None:
    __tracebackhide__ = True
    case = item.label
    expected = phrase("error_mentioning", words=", ".join(shown_word(w) for w in item.words))
    got = called(learner, registry, item.name, item.arguments, case, item.raised_key)
    problems = learner_problems(learner, item) if item.kind == "invalid" else None
    if problems == []:
        item = replace(item, hint="validator_misses")
    message = error_message(case, got, expected, item)
    if "\\u" in got:
        fail(case, expected, got, hint("ensure_ascii_error"))
    if item.kind == "unknown" and item.name not in message:
        where = str(phrase("not_mentioned", word=shown_word(item.name)))
        fail(case, expected, message, hint("name_unknown", name=item.name), where=where)
    unsaid = first_unsaid(message, item.words)
    if unsaid is not None:
        fail(case, expected, message, hint(item.hint, name=item.name, arguments=item.arguments),
             where=str(phrase("not_mentioned", word=shown_word(unsaid))))  # fmt: skip
    # The error holds every message the learner's own validator gives, word for word (the
    # wording is the learner's, in any language; dropping one is the mistake).
    left_out = next((problem for problem in problems or [] if problem not in message), None)
    if left_out is not None:
        where = str(phrase("not_mentioned", word=left_out))
        fail(case, expected, message, hint("every_problem"), where=where)


@exercise(
    "04.4",
    notebook=NOTEBOOK,
    title="DispatchRegistry.call",
    points=3,
    targets=("DispatchRegistry",),
    rules=RULES,
    hints=HINTS,
)
def check_dispatch(learner: Learner) -> str:
    registry = build_registry(learner)
    ok, errors = hidden_cases(hidden_rng("04.4"))
    ok_cases, error_cases = [*OK_CASES, *ok], [*ERROR_CASES, *errors]
    for item in ok_cases:
        expect_result(learner, registry, item)
    for item in error_cases:
        expect_error(learner, registry, item)
    return translate(TEXTS, "summary", results=len(ok_cases), errors=len(error_cases))


__all__ = ["RULES", "TOOLS", "check_dispatch"]
