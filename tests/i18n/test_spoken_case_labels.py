"""What a Chinese learner reads when a check of lessons 02, 03, 05 fails: the case label (what
the case is about) and the values shown beside it speak the language, the English run is
unchanged (found by a learner walkthrough of the zh-CN lessons: they were English constants
made at import, or f-strings).

The wrong answers are the ones the lessons' check tests already prove break one rule.
"""

from __future__ import annotations

import pytest
from test_check_feedback import english_lines, failure_in, wrong_answer

from course_lib.checks import EXERCISES


def said(tests: str, exercise_id: str, rule_id: str, lang: str) -> str:
    return str(failure_in(lang, exercise_id, wrong_answer(tests, exercise_id, rule_id)))


@pytest.mark.parametrize(
    ("tests", "exercise_id", "rule_id", "chinese", "english"),
    [
        ("lesson05.test_agent_loop", "05.1", "steps", "[两个并行调用，然后是回答]",
         "[two parallel calls, then an answer]"),
        ("lesson05.test_agent_loop", "05.1", "repeat_parsed", "[一个重复调用，键的顺序和空格不同]",
         "[a repeat with reordered keys and other spacing]"),
        ("lesson05.test_stream", "05.4", "no_choices",
         "用量（usage）数据块>)", "a final usage chunk without choices>)"),
    ],
)  # fmt: skip
def test_a_visible_cases_label_speaks_the_language(tests, exercise_id, rule_id, chinese, english):
    rule = EXERCISES[exercise_id].rule(rule_id)
    zh = failure_in("zh-CN", exercise_id, wrong_answer(tests, exercise_id, rule_id)).failure
    en = failure_in("en", exercise_id, wrong_answer(tests, exercise_id, rule_id)).failure
    assert en.case == rule.case and en.case.endswith(english), en.case
    assert zh.case.endswith(chinese), zh.case
    assert not english_lines(zh.case), zh.case


def without_repeated_steps(*args, **kwargs):
    """A run_agent that answers a repeated call but records no Step for it (a learner's
    reading of "a repeated call is not run")."""
    from dataclasses import replace

    from lesson05.test_agent_loop import make_loop

    result = make_loop()(*args, **kwargs)
    if result.stopped != "repeated_call":
        return result
    kept = [step for step in result.steps if '"error"' not in step.result]
    return replace(result, steps=kept)


def test_the_marker_of_the_learners_repeated_call_error_speaks_the_language():
    """05.1 shows a repeated call's result as a marker on both sides (its wording is the
    learner's): the marker was English."""
    chinese = str(failure_in("zh-CN", "05.1", (without_repeated_steps,)))
    english = str(failure_in("en", "05.1", (without_repeated_steps,)))
    assert '"result": "<your repeated-call error>"' in english
    assert '"result": "<你对重复调用的错误回应>"' in chinese
    assert "提示：为每个调用记录一个 Step，重复调用也要记录" in chinese
