"""Exercise 04.5: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import json

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson04._tool_sources import local_tool
from course_lib.reference import to_text as reference_to_text

from ._solution import edited, solution

CELL = "w04-ex5-code"
MARKER = (
    'return text[:max_chars] + f"\\n[... cut {cut} of {len(text)} characters; ask for less ...]"'
)


def wrong(old: str, new: str):
    return edited("to_text", (CELL, old, new))


def test_the_solution_passes_every_case():
    assert evaluate("04.5", solution()["to_text"]) == (
        "Exercise 04.5 passed: to_text (12 values and 10 long results)."
    )


def test_the_reference_to_text_passes():
    assert evaluate("04.5", reference_to_text).startswith("Exercise 04.5 passed")


def test_the_stub_is_not_done_yet():
    def to_text(result, *, max_chars=20_000):
        raise NotImplementedError("Exercise 04.5: write it")

    with pytest.raises(NotDoneYet):
        evaluate("04.5", to_text)


WRONG_BY_RULE = {
    "04.5": {
        "str": wrong("        text = result\n",
                     "        text = json.dumps(result, ensure_ascii=False)\n"),
        "json": wrong("ensure_ascii=False, default=jsonable", "default=jsonable"),
        "isoformat": wrong("default=jsonable)", "default=str)"),
        "decimal": wrong("        return str(value)\n", "        return float(value)\n"),
        "set": wrong("            return sorted(value)\n", "            return list(value)\n"),
        "frozenset": wrong("if isinstance(value, (set, frozenset)):", "if isinstance(value, set):"),
        "dataclass": wrong("if dataclasses.is_dataclass(value) and not isinstance(value, type):",
                           "if False:"),
        "pydantic": wrong("if isinstance(value, pydantic.BaseModel):", "if False:"),
        "unknown": wrong('    raise TypeError(f"to_text cannot turn a {type(value).__name__} into '
                         'JSON; teach jsonable it")', "    return str(value)"),
        "fits": wrong("if len(text) <= max_chars:", "if len(text) < max_chars:"),
        "default_limit": wrong("max_chars: int = 20_000", "max_chars: int = 100_000"),
        "default_fits": wrong("max_chars: int = 20_000", "max_chars: int = 10_000"),
        "never_silent": wrong(MARKER, "return text[:max_chars]"),
        "keep_at_most": wrong("return text[:max_chars] + f", "return text + f"),
        "marker_shape": wrong('f"\\n[... cut', 'f" [... cut'),
        "cut_count": wrong("cut {cut} of {len(text)} characters", "output truncated"),
        "cut_json": wrong("    if len(text) <= max_chars:\n",
                          "    if len(text) <= max_chars or not isinstance(result, str):\n"),
    }
}  # fmt: skip


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["04.5"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("04.5", rule, WRONG_BY_RULE["04.5"][rule])


def test_escaped_chinese_is_told_to_pass_ensure_ascii_false():
    assert "ensure_ascii=False" in rejected("04.5", WRONG_BY_RULE["04.5"]["json"])


def test_str_as_a_fallback_for_dates_is_told_to_use_isoformat():
    assert "isoformat" in rejected("04.5", WRONG_BY_RULE["04.5"]["isoformat"])


def test_a_cut_text_of_exactly_max_chars_is_told_to_compare_with_le():
    assert "compare with <=" in rejected("04.5", WRONG_BY_RULE["04.5"]["fits"])


def test_a_type_error_that_does_not_name_the_type_is_told_to_name_it():
    fn = wrong("to_text cannot turn a {type(value).__name__} into JSON", "unsupported value")
    assert "it does not mention Point" in rejected("04.5", fn)


def test_the_solution_agrees_with_the_reference():
    ours = solution()["to_text"]
    for value in ({"city": "北京"}, [1, "二"], local_tool("next_holiday")("中国")):
        assert json.loads(ours(value)) == json.loads(reference_to_text(value))
    assert ours("北京") == reference_to_text("北京")


def test_a_model_dumped_in_python_mode_is_told_to_use_json_mode():
    fn = wrong('return value.model_dump(mode="json")', "return value.model_dump()")
    message = rejected("04.5", fn)
    assert "(a pydantic model)\nYour code raised TypeError" in message
    assert "model_dump() alone leaves the member" in message
