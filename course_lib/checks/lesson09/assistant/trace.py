"""09.6's last outcome, judged across every question of a scenario: the assistant's trace holds
lesson 06's records (``TracedRegistry``), one per call the model made, turn after turn.

A record has no call id (06.4's format), so a record is matched to its call by what it says:
the tool, the arguments as parsed, whether the result was an error and which, and the result's
length in characters, all read from the exchanges the check recorded. The calls of one turn run
at the same time, so their records may come in any order within the turn; the turns come in
order.
"""

from __future__ import annotations

import json

from course_lib.checks.compare import Plain
from course_lib.checks.lesson09.assistant.run import Evidence
from course_lib.checks.lesson09.assistant.texts import hint, text
from course_lib.checks.lesson09.assistant.verdict import answers_in, calls_of, verdict
from course_lib.reference.tracing import error_message, parsed_arguments

RECORD_KEYS = ("tool", "arguments", "duration_ms", "ok", "error", "result_chars")
MATCHED = ("tool", "arguments", "ok", "error", "result_chars")


def expected_record(call: dict, content: str | None) -> dict:
    function = call.get("function", {})
    record: dict = {"tool": function.get("name")}
    record["arguments"] = parsed_arguments(function.get("arguments"))
    if content is not None:  # None: the last turn of a question that ran out of turns
        error = error_message(content)
        record.update(ok=error is None, error=error, result_chars=len(content))
    return record


def key(record: dict, fields: tuple[str, ...] = MATCHED) -> str:
    """What a record says of its call, as one text (to compare a turn's records in any order)."""
    return json.dumps({k: record.get(k) for k in fields}, sort_keys=True, ensure_ascii=False)


def partner(wanted: dict, got: list[dict]) -> dict:
    """The record of ``got`` for the same call as ``wanted`` (same tool and arguments), or the
    first one."""
    same = (r for r in got if (r.get("tool"), r.get("arguments")) == (wanted["tool"],
            wanted["arguments"]))  # fmt: skip
    return next(same, got[0] if got else {})


def turns(evidence: Evidence) -> list[list[dict]]:
    """The expected records, turn by turn, across every question."""
    answers = answers_in(evidence.exchanges)
    calls = [calls_of(exchange) for exchange in evidence.exchanges]
    return [
        [expected_record(c, answers.get(str(c.get("id")))) for c in turn] for turn in calls if turn
    ]


def judge_trace(evidence: Evidence) -> None:
    """One 06.4 record per call the model made, turn after turn, across every question."""
    asked, where = evidence.asks[-1], text("the_trace")
    if evidence.trace is None:
        got = evidence.trace_reply.data.get("repr") if evidence.trace_reply else None
        raise verdict(evidence, asked, Plain(where), Plain(str(got)), hint("trace_attribute"))
    for record in evidence.trace:
        if "not_a_dict" in record:
            problem = text("not_a_dict", kind=record["not_a_dict"])
            raise verdict(evidence, asked, Plain("dict"), Plain(record["not_a_dict"]),
                          hint("trace_record", problem=problem), where=where)  # fmt: skip
    expected = turns(evidence)
    wanted = [record for turn in expected for record in turn]
    records = evidence.trace
    if len(records) != len(wanted):
        calls = ", ".join(str(w["tool"]) for w in wanted)
        found = hint("trace_missing", count=len(records), expected=len(wanted), calls=calls)
        raise verdict(evidence, asked, [w["tool"] for w in wanted],
                      [r.get("tool") for r in records], found, where=where)  # fmt: skip
    position = 0
    for turn in expected:
        got = records[position : position + len(turn)]
        position += len(turn)
        fields = MATCHED if all("ok" in w for w in turn) else ("tool", "arguments")
        if sorted(key(r, fields) for r in got) == sorted(key(w, fields) for w in turn):
            continue
        if sorted(map(key, records)) == sorted(map(key, wanted)):
            raise verdict(evidence, asked, wanted, records, hint("trace_order"), where=where)
        problems = (record_problem(partner(w, got), w) for w in turn)
        problem = next((p for p in problems if p is not None), "?")
        raise verdict(evidence, asked, turn, got, hint("trace_record", problem=problem),
                      where=where)  # fmt: skip
    for record in records:
        problem = keys_problem(record)
        if problem is not None:
            raise verdict(evidence, asked, Plain(", ".join(RECORD_KEYS)), record,
                          hint("trace_record", problem=problem), where=where)  # fmt: skip


def record_problem(record: dict, wanted: dict) -> str | None:
    """What about ``record`` does not match its call, or None."""
    for key, value in wanted.items():
        if record.get(key) != value:
            return text("should_be", key=key, value=json.dumps(value, ensure_ascii=False))
    return keys_problem(record)


def keys_problem(record: dict) -> str | None:
    keys = record.get("keys") or []
    if sorted(keys) != sorted(RECORD_KEYS):
        return text("keys_are", keys=", ".join(keys), expected=", ".join(RECORD_KEYS))
    duration = record.get("duration_ms")
    if isinstance(duration, bool) or not isinstance(duration, float) or duration < 0:
        return text("duration_ms")
    return None
