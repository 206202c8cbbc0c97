"""Exercise 06.4: the solution passes; a wrong TracedRegistry fails on the rule it breaks.
Each wrong class is the solution cell with one realistic mistake edited in."""

from __future__ import annotations

import json
import re

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.reference import ToolRegistry
from lesson06.notebook import EX4, solution, targets, wrong


def edited(old: str, new: str, *more: tuple[str, str]):
    return wrong("06.4", EX4, old, new, *more)


LINES = 'return "".join(json.dumps(record, ensure_ascii=False) + "\\n" for record in self.records)'
WRONG_BY_RULE = {
    "06.4": {
        "returns": edited("        return result\n", ""),
        "one_record": edited(
            "self.records.append(\n",
            "self.records = [\n",
            ("            }\n        )\n", "            }\n        ]\n"),
        ),
        "keys": edited('"tool": name,', '"name": name,'),
        "arguments": edited('"arguments": parsed_arguments(arguments),', '"arguments": arguments,'),
        "duration_float": edited(
            '"duration_ms": duration_ms,', '"duration_ms": round(duration_ms),'
        ),
        "milliseconds": edited(
            "(time.perf_counter() - start) * 1000", "time.perf_counter() - start"
        ),
        "ok": edited('"ok": error is None,', '"ok": True,'),
        "ok_parsed": edited('"ok": error is None,', """"ok": not result.startswith('{"error"'),"""),
        "error": edited('"error": error,', '"error": None if error is None else result,'),
        "result_chars": edited(
            '"result_chars": len(result),', '"result_chars": len(result.encode()),'
        ),
        "jsonl_empty": edited(
            LINES,
            'return "\\n".join(json.dumps(r, ensure_ascii=False) for r in self.records) + "\\n"',
        ),
        "jsonl_lines": edited(LINES, "return json.dumps(self.records, ensure_ascii=False)"),
        "jsonl_newline": edited(
            LINES, 'return "\\n".join(json.dumps(r, ensure_ascii=False) for r in self.records)'
        ),
        "jsonl_unicode": edited("json.dumps(record, ensure_ascii=False)", "json.dumps(record)"),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["06.4"]))
def test_a_wrong_traced_registry_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("06.4", rule, *WRONG_BY_RULE["06.4"][rule])


def test_the_solution_passes():
    assert evaluate("06.4", *targets("06.4")) == (
        "Exercise 06.4 passed: TracedRegistry (15 traced calls)."
    )


def test_the_stub_is_not_done_yet():
    (stub,) = edited(
        "        start = time.perf_counter()\n", '        raise NotImplementedError("x")\n'
    )
    with pytest.raises(NotDoneYet):
        evaluate("06.4", stub)


def test_a_text_test_for_ok_is_told_to_parse_and_why_this_result_fools_it():
    message = rejected("06.4", *WRONG_BY_RULE["06.4"]["ok_parsed"])
    assert "echo" in message and "not by testing its text" in message
    assert "only looks like an error object" in message


def test_a_missing_final_newline_shows_the_end_of_the_text():
    message = rejected("06.4", *WRONG_BY_RULE["06.4"]["jsonl_newline"])
    assert "The last line has no newline" in message and "not one JSON array" not in message
    assert "Where:    the end of the text" in message and '}"' in message


def test_durations_in_seconds_are_told_milliseconds():
    message = rejected("06.4", *WRONG_BY_RULE["06.4"]["milliseconds"])
    assert "traced.call('nap', {})" in message and "milliseconds" in message


def test_a_duration_rounded_to_an_int_is_told_a_float():
    message = rejected("06.4", *WRONG_BY_RULE["06.4"]["duration_float"])
    assert "not rounded to an int" in message


def test_raw_argument_text_is_told_to_parse_it():
    message = rejected("06.4", *WRONG_BY_RULE["06.4"]["arguments"])
    assert "parsed_arguments" in message and "JSON text holding an object" in message


def test_counting_bytes_is_told_characters():
    assert "not UTF-8 bytes" in rejected("06.4", *WRONG_BY_RULE["06.4"]["result_chars"])


def test_records_that_are_not_json_are_told_where():
    (cls,) = edited('"ok": error is None,', '"ok": error is None, "at": time.perf_counter,')
    message = rejected("06.4", cls)
    assert "Records must be plain JSON data" in message and "Where:    at $[0].at" in message


def test_the_solution_wraps_a_registry_for_the_agent_loop():
    from course_lib.local_model import MODEL, make_client
    from course_lib.reference.loop import run_agent

    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str) -> str:
        """Current weather for a city, e.g. 北京."""
        return f"{city}: 晴"

    traced = solution("TracedRegistry")(registry)
    result = run_agent(make_client(), traced, "What is the weather in 北京?", model=MODEL)
    assert result.stopped == "answer"
    assert [record["tool"] for record in traced.records] == ["get_weather"]
    assert json.loads(traced.to_jsonl())["arguments"] == {"city": "北京"}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["06.4"]))
def test_a_failure_shows_no_duration_so_two_runs_say_the_same(rule):
    first = rejected("06.4", *WRONG_BY_RULE["06.4"][rule])
    assert rejected("06.4", *WRONG_BY_RULE["06.4"][rule]) == first
    assert not re.search(r'"duration_ms\\?"\s*:\s*[0-9-]', first), first


def test_a_result_returned_stripped_is_told_to_return_it_unchanged():
    message = rejected(
        "06.4", *edited("        return result\n", "        return result.strip()\n")
    )
    assert "traced.call('echo', {'text': '  北京, 晴\\n'})" in message
    assert "returns the wrapped registry's result unchanged" in message


def test_arguments_parsed_without_a_guard_are_told_to_use_parsed_arguments():
    unguarded = edited(
        '"arguments": parsed_arguments(arguments),',
        '"arguments": json.loads(arguments) if isinstance(arguments, str) else arguments,',
    )
    message = rejected("06.4", *unguarded)
    assert "JSONDecodeError" in message and "record parsed_arguments(arguments)" in message


@pytest.mark.parametrize(
    "options", [", sort_keys=True", ', separators=(",", ":")'], ids=["sorted", "compact"]
)
def test_lines_written_another_way_are_told_they_are_equivalent_but_not_asked(options):
    other = edited(
        "json.dumps(record, ensure_ascii=False)", f"json.dumps(record, ensure_ascii=False{options})"
    )
    message = rejected("06.4", *other)
    assert "so they are equivalent, but they are written differently" in message


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_whole_value_difference_gets_no_where_line_in_either_language(lang):
    """Expected and Got already show it; the check once tested the English words, so the
    Chinese edition repeated them as 位置."""
    from course_lib.checks import CheckFailed
    from course_lib.checks.lesson06.tracing import fail_masked
    from course_lib.i18n import speaking

    with speaking(lang), pytest.raises(CheckFailed) as caught:
        fail_masked("c", [{"tool": "add"}], {"tool": "add"}, None)
    assert caught.value.failure.where is None, str(caught.value)
