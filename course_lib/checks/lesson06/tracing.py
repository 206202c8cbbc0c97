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
from typing import Any

from course_lib.checks.compare import HintText, Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply
from course_lib.checks.lesson06._shared import NOTEBOOK, shown_answer

NAP_SECONDS = 0.02
MIN_NAP_MS = 1.0
REGISTRY_SOURCE = f'''\
import time

from course_lib.reference import ToolRegistry

registry = ToolRegistry()


@registry.tool
def greet(name: str) -> str:
    """Greet someone."""
    return f"你好, {{name}}!"


@registry.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@registry.tool
def broken() -> str:
    """Always fails."""
    raise RuntimeError("数据库 offline")


@registry.tool
def nap() -> str:
    """Slow on purpose."""
    time.sleep({NAP_SECONDS})
    return "rested"


@registry.tool
def echo(text: str) -> str:
    """Return the text unchanged (it may only look like an error object)."""
    return text
'''
RECORD_KEYS = ("tool", "arguments", "duration_ms", "ok", "error", "result_chars")

TEXTS = {
    "create": "TracedRegistry(registry)",
    "empty_case": "traced.to_jsonl() before any call",
    "call_case": "traced.call({name}, {arguments})",
    "lines_case": "traced.to_jsonl() after the calls",
    "records": "{count} records in traced.records",
    "a_duration": "a float >= 0",
    "nap_duration": "duration_ms >= {least:g} (the tool sleeps {slept:g} ms)",
    "lines": "one JSON object per line, each ending in a newline (the last one too)",
    "unescaped": "张三 written as is",
    "the_end": "the end of the text",
    "summary": "{count} traced calls",
}


def text(key: str, **fields: object) -> str:
    return TEXTS[key].format(**fields)


def call_label(name: str, arguments: Any) -> str:
    return text("call_case", name=repr(name), arguments=repr(arguments))


FIRST_CALL = call_label("greet", {"name": "张三"})
MALFORMED_CALL = call_label("add", '{"a": 1,')
RULES = (
    Rule("returns", "call returns the wrapped registry's result unchanged.", case=FIRST_CALL,
         hint="returns"),
    Rule("one_record", "One record appended per call.", case=call_label("add", '{"a": 1, "b": 2}'),
         hint="one_record"),
    Rule("keys", "A record has exactly the six keys.", case=FIRST_CALL, hint="keys"),
    Rule(
        "arguments",
        "arguments is parsed_arguments(arguments).",
        case=call_label("add", '{"a": 1, "b": 2}'),
        hint="arguments_parsed",
    ),
    Rule("duration_float", "duration_ms is a float >= 0.", case=FIRST_CALL, hint="duration"),
    Rule(
        "milliseconds",
        "duration_ms is in milliseconds.",
        case=call_label("nap", {}),
        hint="milliseconds",
    ),
    Rule("ok", "ok is False for an error result.", case=MALFORMED_CALL, hint="error_not_ok"),
    Rule(
        "ok_parsed",
        "ok is decided by parsing the result, not by its text.",
        case=call_label("echo", {"text": '{"error" is the word 张三 searched for}'}),
        hint="ok_parse",
    ),
    Rule("error", "error is error_message(result).", case=MALFORMED_CALL, hint="error"),
    Rule("result_chars", "result_chars is len(result).", case=FIRST_CALL, hint="result_bytes"),
    Rule("jsonl_empty", "No records: the empty string.", case=TEXTS["empty_case"],
         hint="jsonl_empty"),
    Rule("jsonl_lines", "JSON lines, not one JSON array.", case=TEXTS["empty_case"],
         hint="jsonl_array"),
    Rule(
        "jsonl_newline",
        "Every line ends in a newline, the last one too.",
        case=TEXTS["lines_case"],
        hint="jsonl_newline",
    ),
    Rule("jsonl_unicode", "Lines keep 张三 as 张三.", case=TEXTS["lines_case"],
         hint="ensure_ascii"),
)  # fmt: skip

HINTS = {
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
}
WHY = {
    True: "is an error object, spaced differently",
    False: "only looks like an error object",
}


def hint(key: str, **fields: object) -> HintText:
    return HintText.of(HINTS, key, **fields)


def check_registry() -> Any:
    """The check's own copy of the registry the learner's wrapper receives."""
    namespace: dict[str, Any] = {"__name__": "lesson06_tracing"}
    exec(compile(REGISTRY_SOURCE, "<06.4 registry>", "exec"), namespace)  # noqa: S102
    return namespace["registry"]


def error_of(result: str) -> str | None:
    try:
        value = json.loads(result)
    except ValueError:
        return None
    return value["error"] if isinstance(value, dict) and "error" in value else None


def parsed(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except ValueError:
            return arguments
        return value if isinstance(value, dict) else arguments
    return arguments


def record_hint(got: dict, expected: dict, arguments: Any, result: str) -> HintText:
    """The hint for a record with the right keys and a wrong value, from what differs."""
    error = expected["error"]
    if got["tool"] != expected["tool"]:
        return hint("tool")
    looks_wrong = (error is None) == result.startswith('{"error"')
    if got["ok"] is not expected["ok"]:
        if looks_wrong:
            return hint("ok_parse", why=WHY[error is not None])
        return hint("error_not_ok" if got["ok"] is True else "ok")
    if got["error"] != error:
        return hint("error")
    if got["arguments"] != expected["arguments"]:
        as_text = isinstance(arguments, str) and got["arguments"] == arguments
        return hint("arguments_parsed" if as_text else "arguments")
    if got["result_chars"] == len(result.encode()):
        return hint("result_bytes")
    return hint("result_chars")


def read(learner: Learner, traced: dict, expression: str) -> Reply:
    return learner.run("", result=expression, bind={"traced": traced})


def expect_record(case: str, records: Any, index: int, call: tuple[str, Any], result: str) -> None:
    """The last of ``records`` is the record of ``call``, whose result was ``result``."""
    __tracebackhide__ = True
    name, arguments = call
    error = error_of(result)
    expected = {
        "tool": name,
        "arguments": parsed(arguments),
        "duration_ms": text("a_duration"),
        "ok": error is None,
        "error": error,
        "result_chars": len(result),
    }
    if not isinstance(records, list) or len(records) != index + 1:
        got = len(records) if isinstance(records, list) else records
        fail(case, Plain(text("records", count=index + 1)), got, hint("one_record"))
    record = records[-1]
    if not isinstance(record, dict) or set(record) != set(RECORD_KEYS):
        fail(case, expected, record, hint("keys", keys=", ".join(RECORD_KEYS)))
    duration = record["duration_ms"]
    if not isinstance(duration, float) or duration < 0:
        fail(case, expected, record, hint("duration"))
    expected["duration_ms"] = duration
    if any(record[key] != expected[key] for key in RECORD_KEYS):
        chosen = record_hint(record, expected, arguments, result)
        expect_equal(case, expected, record, hint=chosen)
    if name == "nap" and duration < MIN_NAP_MS:
        least, slept = MIN_NAP_MS, NAP_SECONDS * 1000
        fail(case, Plain(text("nap_duration", least=least, slept=slept)), duration,
             hint("milliseconds"))  # fmt: skip


def expect_lines(learner: Learner, traced: dict, records: list) -> None:
    __tracebackhide__ = True
    case = TEXTS["lines_case"]
    reply = learner.call(learner.attr(traced, "to_jsonl"), case=case)
    got = reply.value
    if reply.type != "str":
        fail(case, Plain(text("lines")), shown_answer(reply), hint("jsonl_not_str"))
    if got.startswith("["):
        fail(case, Plain(text("lines")), got[:300], hint("jsonl_array"))
    if "\\u" in got or "张三" not in got:
        fail(case, Plain(text("unescaped")), got[:300], hint("ensure_ascii"))
    if not got.endswith("\n"):
        fail(case, Plain(text("lines")), f"...{got[-160:]}", hint("jsonl_newline"),
             where=text("the_end"))  # fmt: skip
    try:
        lines = [json.loads(line) for line in got[:-1].split("\n")]
    except ValueError:
        lines = None
    expect_equal(case, records, lines, hint=hint("jsonl_records"))


def expect_empty_lines(learner: Learner, traced: dict) -> None:
    __tracebackhide__ = True
    case = TEXTS["empty_case"]
    reply = learner.call(learner.attr(traced, "to_jsonl"), case=case)
    got = reply.value
    if reply.type == "str" and got.strip().startswith("["):
        fail(case, "", got, hint("jsonl_array"))
    if reply.type != "str" or got != "":
        fail(case, "", shown_answer(reply), hint("jsonl_empty"))


CALLS: list[tuple[str, Any]] = [
    ("greet", {"name": "张三"}),
    ("add", '{"a": 1, "b": 2}'),
    ("add", '{"a": 1,'),
    ("add", {"a": True, "b": 2}),
    ("broken", {}),
    ("nope", "[1]"),
    ("nap", {}),
    ("echo", {"text": '{"error" is the word 张三 searched for}'}),
    ("echo", {"text": '{ "error": "disk full" }'}),
]


def hidden_calls(count: int = 5) -> list[tuple[str, Any]]:
    rng = hidden_rng("06.4")
    calls = []
    for _ in range(count):
        b = rng.choice([rng.randint(-9, 9), "2", None])
        arguments = {"a": rng.randint(-9, 9), "b": b}
        calls.append(("add", rng.choice([arguments, json.dumps({"a": 1, "b": b})])))
    return calls


@exercise(
    "06.4",
    notebook=NOTEBOOK,
    title="TracedRegistry",
    points=2,
    targets=("TracedRegistry",),
    rules=RULES,
)
def check_traced_registry(learner: Learner) -> str:
    registry = learner.source("registry", setup=REGISTRY_SOURCE)
    created = learner.call("TracedRegistry", registry, case=TEXTS["create"], keep=True)
    traced = learner.handle(created.handle)
    expect_empty_lines(learner, traced)
    calls = [*CALLS, *hidden_calls()]
    ours = check_registry()  # no state: one copy answers every call
    records: Any = []
    for index, (name, arguments) in enumerate(calls):
        case = call_label(name, arguments)
        reply = learner.call(learner.attr(traced, "call"), name, arguments, case=case)
        expected = ours.call(name, arguments)
        if reply.type != "str":
            fail(case, expected, shown_answer(reply), hint("returns"))
        expect_equal(case, expected, reply.value, hint=hint("returns"))
        read_back = read(learner, traced, "traced.records")
        if "unjson" in read_back.data:
            fail(case, Plain(text("records", count=index + 1)), shown_answer(read_back),
                 hint("records_not_json"), where=read_back.data["unjson"])  # fmt: skip
        records = read_back.value
        expect_record(case, records, index, (name, arguments), expected)
    expect_lines(learner, traced, records)
    return text("summary", count=len(calls))
