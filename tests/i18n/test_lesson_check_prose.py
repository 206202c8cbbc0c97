"""What the check modules of the lessons (``course_lib/checks/lessonNN/``) say to a learner comes
from their catalogs: a wrong answer in the Chinese edition reads Chinese where an audit found
English (a scenario's title in 09.6's list, the value 05's not-JSON hint names, the fields 07.3's
hint lists when there are none, the label of 04.3's hidden cases), the English edition reads
what it read before.

The wrong answers are the ones the lessons' check tests already prove break one rule.
"""

from __future__ import annotations

import pytest
from test_check_feedback import wrong_answer

from course_lib.checks.core import outcome
from course_lib.checks.scenarios import PartlyRight
from course_lib.i18n import speaking


def scenarios_failed(rule_id: str, lang: str) -> PartlyRight:
    (build,) = wrong_answer("lesson09.test_assistant", "09.6", rule_id)
    with speaking(lang):
        result = outcome("09.6", build)
    assert isinstance(result, PartlyRight), str(result)
    return result


def test_a_failed_scenarios_title_is_said_in_the_language_and_recorded_in_english():
    """09.6 listed each failed scenario with its English title (``✗ price_zh（the price, asked in
    Chinese）``); the grader's record of a scenario keeps the English one."""
    chinese, english = scenarios_failed("shop", "zh-CN"), scenarios_failed("shop", "en")
    said, was = str(chinese), str(english)
    assert said.startswith("练习 09.6（ShopAssistant）未通过。")
    assert "  ✗ price_zh（用中文询问价格）：" in said and "\n场景 price_zh：用中文询问价格\n" in said
    assert "  ✗ malformed（模型发来的调用参数不是 JSON）：" in said
    assert was.startswith("Exercise 09.6 (ShopAssistant) is not right yet.")
    assert "  ✗ price_zh (the price, asked in Chinese): " in was
    assert "\nScenario price_zh: the price, asked in Chinese\n" in was
    titles = [[o.record()["title"] for o in r.outcomes] for r in (chinese, english)]
    assert titles[0] == titles[1] and "the price, asked in Chinese" in titles[0]
    shown = str(scenarios_failed("calculator", "zh-CN"))  # a scenario the notebook shows
    assert "  ✗ eval（一个冲着 eval 来的表达式）：" in shown


