"""No rule of a trusted check without a wrong answer that breaks it (see ``rules.py``)."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

from course_lib.checks import EXERCISES

HERE = Path(__file__).parent


def wrong_by_rule() -> dict[str, dict[str, object]]:
    """Every lesson test module's ``WRONG_BY_RULE``, merged."""
    merged: dict[str, dict[str, object]] = {}
    for package in sorted(HERE.glob("lesson*")):
        for info in pkgutil.iter_modules([str(package)]):
            module = importlib.import_module(f"{package.name}.{info.name}")
            for exercise_id, wrong in getattr(module, "WRONG_BY_RULE", {}).items():
                merged.setdefault(exercise_id, {}).update(wrong)
    return merged


TRUSTED = sorted(EXERCISES)


@pytest.mark.parametrize("exercise_id", TRUSTED)
def test_every_rule_has_a_case_a_hint_and_a_wrong_answer_that_breaks_it(exercise_id):
    spec = EXERCISES[exercise_id]
    assert spec.rules, f"exercise {exercise_id} lists no rules"
    for rule in spec.rules:
        assert rule.case and rule.hint, f"{exercise_id} rule {rule.id!r} names no case or hint"
    covered = wrong_by_rule().get(exercise_id, {})
    assert sorted(covered) == sorted(rule.id for rule in spec.rules)
