"""Exercise 06.4, ``TracedRegistry``: one structured record per call, exported as JSON lines.

The wrapped registry is built beside the learner's code from ``REGISTRY_SOURCE``, the wrapper is
kept there as a handle, and the check reads ``traced.records`` and ``traced.to_jsonl()`` back as
JSON after every call. Expected results come from the check's own copy of the same registry.
Durations differ from run to run, so a duration is checked for its type and sign only, plus one
lower bound that a right answer cannot miss: the ``nap`` tool sleeps ``NAP_SECONDS``, so its
record says at least ``MIN_NAP_MS`` milliseconds (a load only makes calls slower; a duration in
seconds would say 0.02). Rules, the case that breaks each, and the hint that names it: see
``RULES``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import (
    HintText,
    Plain,
    expect_equal,
    fail,
    first_difference,
    where_they_differ,
)
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner
from course_lib.checks.lesson06._roles_and_answers import NOTEBOOK, shown_answer
from course_lib.checks.lesson06.tracing.cases import (
    CALLS,
    MIN_NAP_MS,
    NAP_SECONDS,
    REGISTRY_SOURCE,
    check_registry,
    hidden_calls,
)
from course_lib.i18n import ENGLISH, translate
from course_lib.reference.tracing import error_message, parsed_arguments

RECORD_KEYS = ("tool", "arguments", "duration_ms", "ok", "error", "result_chars")

TEXTS = Catalog() | {
    "create": "TracedRegistry(registry)",
    "empty_case": "traced.to_jsonl() before any call",
    "call_case": "traced.call({name}, {arguments})",
    "lines_case": "traced.to_jsonl() after the calls",
    "records": "{count} records in traced.records",
    "a_duration": "a float >= 0",
    "an_int": "an int",
    "negative": "a negative number",
    "not_a_number": "not a number",
    "nap_duration": "duration_ms >= {least:g} (the tool sleeps {slept:g} ms)",
    "nap_below": "a duration below {least:g}",
    "durations_differ": "the durations differ from those in traced.records",
    "duration_where": "at $.duration_ms: {what} where a float >= 0 belongs",
    "lines": "one JSON object per line, each ending in a newline (the last one too)",
    "unescaped": "张三 written as is",
    "the_end": "the end of the text",
    "summary": "{count} traced calls",
    # what a result that looks wrong is, in the ok_parse hint
    "why_spaced": "is an error object, spaced differently",
    "why_lookalike": "only looks like an error object",
}
text = TEXTS.text


def call_label(name: str, arguments: Any) -> str:
    return text("call_case", name=repr(name), arguments=repr(arguments))


FIRST_CALL = call_label("greet", {"name": "张三"})
MALFORMED_CALL = call_label("add", '{"a": 1,')
# The rules name their cases in English (tests/checks/rules.py matches them).
EMPTY_CASE = translate(TEXTS, "empty_case", ENGLISH)
RULES = (
    Rule("returns", "returns `self.registry.call(name, arguments)` unchanged", case=FIRST_CALL,
         hint="returns"),
    Rule("one_record", "appends exactly one record per call to `self.records`",
         case=call_label("add", '{"a": 1, "b": 2}'), hint="one_record"),
    Rule("keys", 'a record is a dict with exactly the keys `"tool"` (the name), `"arguments"`, '
         '`"duration_ms"`, `"ok"`, `"error"` and `"result_chars"`', case=FIRST_CALL, hint="keys"),
    Rule("arguments", '`"arguments"` is `parsed_arguments(arguments)` (given above)',
         case=call_label("add", '{"a": 1, "b": 2}'), hint="arguments_parsed"),
    Rule("duration_float", '`"duration_ms"` is a `float` ≥ 0, the wall time of the wrapped call '
         'measured with `time.perf_counter()`', case=FIRST_CALL, hint="duration"),
    Rule("milliseconds", "in **milliseconds**", case=call_label("nap", {}), hint="milliseconds"),
    Rule("ok", '`"ok"` is `False` for an error result and `True` otherwise', case=MALFORMED_CALL,
         hint="error_not_ok"),
    Rule("ok_parsed", "decided by parsing, `error_message(result) is None`, not by testing the "
         "text (`startswith('{\"error\"')` gets some results wrong)",
         case=call_label("echo", {"text": '{"error" is the word 张三 searched for}'}),
         hint="ok_parse"),
    Rule("error", '`"error"` is `error_message(result)`: the message, or `None`',
         case=MALFORMED_CALL, hint="error"),
    Rule("result_chars", '`"result_chars"` is `len(result)`: characters, not bytes',
         case=FIRST_CALL, hint="result_bytes"),
    Rule("jsonl_empty", "the empty string when there are no records", case=EMPTY_CASE,
         hint="jsonl_empty"),
    Rule("jsonl_lines", "JSON lines, one `json.dumps(record, ensure_ascii=False)` per record in "
         "order, not one JSON array", case=EMPTY_CASE, hint="jsonl_array"),
    Rule("jsonl_newline", 'every line ends in `"\\n"`, the last one too, so more lines can be '
         'appended', case=translate(TEXTS, "lines_case", ENGLISH), hint="jsonl_newline"),
    Rule("jsonl_unicode", "`张三` stays `张三` (`ensure_ascii=False`)",
         case=translate(TEXTS, "lines_case", ENGLISH), hint="ensure_ascii"),
)  # fmt: skip

HINTS = Catalog() | {
    "returns": "call returns the wrapped registry's result unchanged: return what it returned.",
    "one_record": "Append exactly one record to self.records per call.",
    "records_not_json": (
        "Records must be plain JSON data (dicts with string keys, lists, strings, numbers, "
        "booleans and None): they are written as JSON lines."
    ),
    "keys": "A record is a dict with exactly the keys {keys}.",
    "tool": '"tool" is the name the call was made with.',
    "arguments_parsed": (
        "Record parsed_arguments(arguments): JSON text holding an object is stored as that object."
    ),
    "arguments": "Record parsed_arguments(arguments).",
    "duration": (
        "duration_ms is a float >= 0: (time.perf_counter() - start) * 1000, not rounded to an int."
    ),
    "milliseconds": (
        "duration_ms is in milliseconds: (time.perf_counter() - start) * 1000, measured around "
        "the wrapped call."
    ),
    "ok_parse": (
        "Decide ok by parsing the result, ok = error_message(result) is None, not by testing "
        "its text: this result {why}."
    ),
    "error_not_ok": (
        'An error result ({{"error": ...}}) is not ok: ok is False and error holds its message '
        "(use error_message)."
    ),
    "ok": "ok is True exactly when the result is not an error object.",
    "error": "error is error_message(result): the message of an error result, or None.",
    "result_bytes": "result_chars counts characters (len(result)), not UTF-8 bytes.",
    "result_chars": "result_chars is len(result).",
    "jsonl_not_str": "to_jsonl returns one str.",
    "jsonl_empty": "With no records, to_jsonl() returns the empty string.",
    "jsonl_array": 'JSON lines: json.dumps(record) + "\\n" for each record, not one JSON array.',
    "jsonl_newline": (
        'The last line has no newline: add "\\n" after every record, the last one too '
        '("\\n".join(lines) puts one only between lines).'
    ),
    "ensure_ascii": "Write each line with json.dumps(record, ensure_ascii=False).",
    "jsonl_records": "Write every record, in order, one per line.",
    "jsonl_spelling": (
        "These lines hold the right records, so they are equivalent, but they are written "
        "differently (see Where): the exercise asks for json.dumps(record, ensure_ascii=False) "
        'exactly (its default separators, the keys in the record\'s order) and "\\n" after '
        "each line."
    ),
    "arguments_not_json": (
        "The arguments of this call are not valid JSON, and json.loads raised on them: record "
        "parsed_arguments(arguments), which keeps such text as it is."
    ),
}
hint = HINTS.hint


def record_hint(got: dict, expected: dict, arguments: Any, result: str) -> HintText:
    """The hint for a record with the right keys and a wrong value, from what differs."""
    error = expected["error"]
    if got["tool"] != expected["tool"]:
        return hint("tool")
    looks_wrong = (error is None) == result.startswith('{"error"')
    if got["ok"] is not expected["ok"]:
        if looks_wrong:
            return hint(
                "ok_parse", why=text("why_spaced" if error is not None else "why_lookalike")
            )
        return hint("error_not_ok" if got["ok"] is True else "ok")
    if got["error"] != error:
        return hint("error")
    if got["arguments"] != expected["arguments"]:
        as_text = isinstance(arguments, str) and got["arguments"] == arguments
        return hint("arguments_parsed" if as_text else "arguments")
    if got["result_chars"] == len(result.encode()):
        return hint("result_bytes")
    return hint("result_chars")


# Durations differ on every run, so a message never shows one: each is replaced by what it is.
DURATION_IN_TEXT = re.compile(r'("duration_ms"\s*:\s*)-?[0-9][0-9.eE+-]*')


def duration_note(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return text("not_a_number")
    if value < 0:
        return text("negative")
    return text("a_duration") if isinstance(value, float) else text("an_int")


def masked(value: Any) -> Any:
    """A record, or a list of them, with each duration replaced by ``duration_note``."""
    if isinstance(value, list):
        return [masked(item) for item in value]
    if isinstance(value, dict) and "duration_ms" in value:
        return {**value, "duration_ms": duration_note(value["duration_ms"])}
    return value


def masked_text(lines: str) -> str:
    return DURATION_IN_TEXT.sub(r"\1…", lines)


def fail_masked(case: str, expected: Any, got: Any, chosen: HintText) -> None:
    """Fail showing both sides without their durations (``expected`` holds the words for what
    a duration must be); where they differ is said the same way on every run."""
    __tracebackhide__ = True
    shown_got = masked(got)
    if first_difference(expected, shown_got) is None:
        where = text("durations_differ")
    else:  # a whole-value difference gets no Where line, in any language
        where = where_they_differ(expected, shown_got)
    fail(case, expected, shown_got, chosen, where=where)


def expect_record(case: str, records: Any, index: int, call: tuple[str, Any], result: str) -> None:
    """The last of ``records`` is the record of ``call``, whose result was ``result``."""
    __tracebackhide__ = True
    name, arguments = call
    error = error_message(result)
    expected = {
        "tool": name,
        "arguments": parsed_arguments(arguments),
        "duration_ms": text("a_duration"),
        "ok": error is None,
        "error": error,
        "result_chars": len(result),
    }
    if not isinstance(records, list) or len(records) != index + 1:
        got = len(records) if isinstance(records, list) else masked(records)
        fail(case, Plain(text("records", count=index + 1)), got, hint("one_record"))
    record = records[-1]
    if not isinstance(record, dict) or set(record) != set(RECORD_KEYS):
        fail_masked(case, expected, record, hint("keys", keys=", ".join(RECORD_KEYS)))
    duration = record["duration_ms"]
    if not isinstance(duration, float) or duration < 0:
        where = text("duration_where", what=duration_note(duration))
        fail(case, expected, masked(record), hint("duration"), where=where)
    if first_difference({**expected, "duration_ms": duration}, record) is not None:
        chosen = record_hint(record, expected, arguments, result)
        fail_masked(case, expected, record, chosen)
    if name == "nap" and duration < MIN_NAP_MS:
        least, slept = MIN_NAP_MS, NAP_SECONDS * 1000
        fail(case, Plain(text("nap_duration", least=least, slept=slept)),
             Plain(text("nap_below", least=least)), hint("milliseconds"))  # fmt: skip


def expect_lines(learner: Learner, traced: dict, records: list) -> None:
    __tracebackhide__ = True
    case = TEXTS.text("lines_case")
    reply = learner.call(learner.attr(traced, "to_jsonl"), case=case)
    got = reply.value
    if reply.type != "str":
        fail(case, Plain(text("lines")), shown_answer(reply), hint("jsonl_not_str"))
    shown = masked_text(got)
    if got.startswith("["):
        fail(case, Plain(text("lines")), shown[:300], hint("jsonl_array"))
    if "\\u" in got or "张三" not in got:
        fail(case, Plain(text("unescaped")), shown[:300], hint("ensure_ascii"))
    if not got.endswith("\n"):
        fail(case, Plain(text("lines")), f"...{shown[-160:]}", hint("jsonl_newline"),
             where=text("the_end"))  # fmt: skip
    try:
        lines = [json.loads(line) for line in got[:-1].split("\n")]
    except ValueError:
        lines = shown[:300]
    if first_difference(records, lines) is not None:
        fail_masked(case, masked(records), lines, hint("jsonl_records"))
    written = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    difference = first_difference(masked_text(written), shown)
    if difference is not None:
        fail(case, masked_text(written), shown, hint("jsonl_spelling"), where=difference)


def expect_empty_lines(learner: Learner, traced: dict) -> None:
    __tracebackhide__ = True
    case = TEXTS.text("empty_case")
    reply = learner.call(learner.attr(traced, "to_jsonl"), case=case)
    got = reply.value
    if reply.type == "str" and got.strip().startswith("["):
        fail(case, "", got, hint("jsonl_array"))
    if reply.type != "str" or got != "":
        fail(case, "", shown_answer(reply), hint("jsonl_empty"))


CALL_RAISED = [(lambda reply: reply.raised_a("JSONDecodeError"), hint("arguments_not_json"))]


@exercise("06.4", notebook=NOTEBOOK, title="TracedRegistry", points=2, rules=RULES, hints=HINTS)
def check_traced_registry(learner: Learner) -> str:
    registry = learner.source("registry", setup=REGISTRY_SOURCE)
    created = learner.call("TracedRegistry", registry, case=TEXTS.text("create"), keep=True)
    traced = learner.handle(created.handle)
    expect_empty_lines(learner, traced)
    calls = [*CALLS, *hidden_calls()]
    ours = check_registry()  # no state: one copy answers every call
    records: Any = []
    call = learner.attr(traced, "call")
    for index, (name, arguments) in enumerate(calls):
        case = call_label(name, arguments)
        reply = learner.call(call, name, arguments, case=case, hints=CALL_RAISED)
        expected = ours.call(name, arguments)
        if reply.type != "str":
            fail(case, expected, shown_answer(reply), hint("returns"))
        expect_equal(case, expected, reply.value, hint=hint("returns"))
        read_back = learner.run("", result="traced.records", bind={"traced": traced})
        if "unjson" in read_back.data:
            fail(case, Plain(text("records", count=index + 1)), shown_answer(read_back),
                 hint("records_not_json"), where=read_back.data["unjson"])  # fmt: skip
        records = read_back.value
        expect_record(case, records, index, (name, arguments), expected)
    expect_lines(learner, traced, records)
    return text("summary", count=len(calls))
