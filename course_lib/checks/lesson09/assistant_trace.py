"""09.1's last outcome, judged across every question of a scenario: the assistant's trace holds
one record per call the model made, in order, each matching its call."""

from __future__ import annotations

import json

from course_lib.checks.compare import Plain
from course_lib.checks.lesson09.assistant_run import Evidence
from course_lib.checks.lesson09.assistant_texts import hint, text
from course_lib.checks.lesson09.assistant_verdict import answers_in, calls_of, is_error, verdict

# --- across questions -------------------------------------------------------------------------


def judge_trace(evidence: Evidence) -> None:
    """One record per call the model made, in order, across every question. The calls of the
    last turn of a loop that stopped on its budget may be left out (they were never answered)."""
    asked = evidence.asks[-1]
    if evidence.trace is None:
        got = evidence.trace_reply.data.get("repr") if evidence.trace_reply else None
        raise verdict(
            evidence, asked, Plain(text("the_trace")), Plain(str(got)), hint("trace_attribute")
        )
    wanted, optional = [], set()
    for each in evidence.asks:
        for position, exchange in enumerate(each.exchanges):
            for call in calls_of(exchange):
                if (each.result or {}).get("stopped") != "answer" and position == len(
                    each.exchanges
                ) - 1:
                    optional.add(str(call.get("id")))
                else:
                    wanted.append(call)
    for record in evidence.trace:
        if "not_a_dict" in record:
            problem = text("not_a_dict", kind=record["not_a_dict"])
            raise verdict(
                evidence,
                asked,
                Plain("dict"),
                Plain(record["not_a_dict"]),
                hint("trace_record", problem=problem),
                where=text("the_trace"),
            )
    kept = [r for r in evidence.trace if str(r.get("call_id")) not in optional]
    kept_ids = [str(r.get("call_id")) for r in kept]
    want_ids = [str(c.get("id")) for c in wanted]
    if kept_ids != want_ids:
        missing = [
            text("record_for", call_id=c.get("id"), name=c.get("function", {}).get("name"))
            for c in wanted
            if str(c.get("id")) not in kept_ids
        ]
        if sorted(kept_ids) == sorted(want_ids):  # every call, once each, out of order
            chosen = hint("trace_order")
        else:
            detail = ", ".join(missing) or text("records", count=len(kept))
            chosen = hint("trace_missing", missing=detail)
        raise verdict(evidence, asked, want_ids, kept_ids, chosen, where=text("the_trace"))
    answers = answers_in(evidence.exchanges)
    for record, call in zip(kept, wanted, strict=True):
        problem = record_problem(record, call, evidence.scenario.role, answers)
        if problem:
            expected, wrong = problem
            raise verdict(
                evidence,
                asked,
                Plain(expected),
                record,
                hint("trace_record", problem=wrong),
                where=text("the_trace"),
            )


def record_problem(record: dict, call: dict, role: str, answers: dict[str, str]):
    """``(expected, what is wrong)`` for a record that does not match its call, else None."""
    function = call.get("function", {})
    checks = [
        ("tool", function.get("name")),
        ("arguments", function.get("arguments")),
        ("role", role),
    ]
    content = answers.get(str(call.get("id")))
    if content is not None:
        checks.append(("ok", not is_error(content)))
    for key, value in checks:
        if record.get(key) != value:
            return json.dumps({key: value}, ensure_ascii=False), f"{key} should be {value!r}"
    return None
