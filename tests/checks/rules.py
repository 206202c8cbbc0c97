"""Every rule of every contract has a wrong answer that breaks it, and only it.

A check module lists its exercise's rules (``RULES``: the rule, the case that catches it, the
hint that names it; for a check graded by scenarios, the case is the id of the first scenario
that fails). Each lesson's test module declares ``WRONG_BY_RULE``: for each exercise and
rule, targets that break that rule alone; ``assert_breaks_rule`` proves the check rejects them at
that case with that hint, and ``test_rules.py`` proves no rule is left without one.
"""

from __future__ import annotations

from typing import Any

import pytest

from course_lib.checks import EXERCISES, CheckFailed, NotDoneYet, check
from course_lib.checks.scenarios import PartlyRight


def assert_breaks_rule(exercise_id: str, rule_id: str, *targets: Any) -> CheckFailed:
    """``check(exercise_id, *targets)`` fails at the rule's case with the rule's hint."""
    rule = EXERCISES[exercise_id].rule(rule_id)
    with pytest.raises(CheckFailed) as caught:
        check(exercise_id, *targets)
    failed = caught.value
    assert not isinstance(failed, NotDoneYet), str(failed)
    if isinstance(failed, PartlyRight):  # graded by scenarios: the first one that failed
        first = next(outcome for outcome in failed.outcomes if not outcome.passed)
        assert (first.id, first.failure.hint_key) == (rule.case, rule.hint), str(failed)
        return failed
    assert (failed.failure.case, failed.failure.hint_key) == (rule.case, rule.hint), str(failed)
    return failed


def rule_ids(exercise_id: str) -> list[str]:
    return [rule.id for rule in EXERCISES[exercise_id].rules]
