"""The runner of function-style checks: a row naming a rule or hint nobody wrote fails when made."""

from __future__ import annotations

import pytest

from course_lib.checks import CheckFailed
from course_lib.checks.cases import Table
from course_lib.checks.catalog import Catalog
from course_lib.checks.channel import InProcessChannel
from course_lib.checks.core import Rule
from course_lib.checks.learner import Learner

RULES = (Rule("doubles", "it returns twice its argument", case="double(2)", hint="twice"),)
HINTS = Catalog() | {"twice": "Return twice the number."}
TABLE = Table("double", RULES, HINTS, oracle=lambda n: 2 * n)


def learner(double) -> Learner:
    return Learner(InProcessChannel({"double": double}), "99.1", ("double",))


def test_a_case_naming_an_unknown_rule_or_hint_is_refused_when_made():
    with pytest.raises(LookupError, match="no rule 'triples'"):
        TABLE.case("double(2)", 2, rule="triples")
    with pytest.raises(LookupError, match="no hint 'thrice'"):
        TABLE.case("double(2)", 2, hint="thrice")


def test_the_oracle_gives_the_expected_value_and_the_hint_comes_from_the_table():
    case = TABLE.case("double(3)", 3, rule="doubles", hint="twice")
    assert (case.expected, case.hint, case.hint.key) == (6, "Return twice the number.", "twice")
    assert TABLE.run(learner(lambda n: n + n), [case, TABLE.case("double(0)", 0)]) == 2
    with pytest.raises(CheckFailed) as failed:
        TABLE.run(learner(lambda n: n * 3), [case])
    assert (failed.value.failure.case, failed.value.failure.hint_key) == ("double(3)", "twice")
