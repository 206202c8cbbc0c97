"""Exercise 09.2 ``may_use``: the solution passes; each wrong answer gets its rule's hint."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.capstone.policies import PERMISSIONS, ROLES
from course_lib.checks import EXERCISES, NotDoneYet, evaluate

from ._solution import edited, solution

CELL = "w09-may-use"
SUBSET = "    return bool(needed) and needed <= ROLES[role]"


def test_the_solution_passes_every_visible_and_hidden_case():
    assert evaluate("09.2", solution()["may_use"]) == (
        "Exercise 09.2 passed: may_use (7 visible and 18 hidden cases)."
    )


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["09.2"]
    assert (spec.notebook, spec.points, spec.targets) == (
        "09_capstone",
        2,
        ("may_use",),
    )


def test_the_stub_is_not_done_yet():
    def may_use(role, tags):
        raise NotImplementedError("Exercise 09.2: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("09.2", may_use)


def with_set_operations(role, tags):
    """Set operators straight on the tags: a tuple or a list has none."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    needed = tags & PERMISSIONS
    return bool(needed) and needed <= ROLES[role]


WRONG_BY_RULE = {
    "09.2": {
        "bool": edited("may_use", (CELL, SUBSET, "    return needed <= ROLES[role] and needed")),
        "iterables": with_set_operations,
        "categories": edited(
            "may_use", (CELL, SUBSET, "    return bool(needed) and set(tags) <= ROLES[role]")
        ),
        "all_held": edited("may_use", (CELL, SUBSET, "    return bool(needed & ROLES[role])")),
        "deny_default": edited("may_use", (CELL, SUBSET, "    return needed <= ROLES[role]")),
        "unknown_role": edited(
            "may_use",
            (
                CELL,
                "    if role not in ROLES:\n        raise ValueError(",
                "    if role not in ROLES:\n        return False\n        raise ValueError(",
            ),
        ),
        "names_role": edited(
            "may_use",
            (
                CELL,
                "f\"unknown role {role!r}; the roles are {', '.join(ROLES)}\"",
                '"unknown role"',
            ),
        ),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["09.2"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("09.2", rule, WRONG_BY_RULE["09.2"][rule])


def test_a_key_error_for_an_unknown_role_is_told_to_be_a_value_error():
    def may_use(role, tags):
        needed = PERMISSIONS & set(tags)
        return bool(needed) and needed <= ROLES[role]

    assert "Raise ValueError for an unknown role, not KeyError" in rejected("09.2", may_use)


def test_a_policy_that_refuses_what_the_role_holds_is_told_the_role_may_use_it():
    def may_use(role, tags):
        if role not in ROLES:
            raise ValueError(role)
        return "read" not in tags and bool(PERMISSIONS & set(tags) <= ROLES[role])

    message = rejected("09.2", may_use)
    assert "Case: may_use('customer', ('products', 'read'))" in message
    assert "the role holds all of it" in message


def test_a_policy_refusing_tags_that_are_not_a_tuple_is_told_the_type_is_the_difference():
    def may_use(role, tags):
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        if not isinstance(tags, (tuple, list)):
            return False
        needed = PERMISSIONS & set(tags)
        return bool(needed) and needed <= ROLES[role]

    message = rejected("09.2", may_use)
    assert "Case: may_use('staff', frozenset(['internal', 'notes']))" in message
    assert "The same tags as a tuple get the right answer, as a frozenset they do not" in message
    assert "category tag" not in message


def test_an_unknown_role_is_refused_even_for_a_tool_that_needs_no_permission():
    def may_use(role, tags):
        needed = PERMISSIONS & set(tags)
        if not needed:
            return False
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        return needed <= ROLES[role]

    message = rejected("09.2", may_use)
    assert "is not a role in ROLES: raise ValueError" in message


def test_a_number_for_a_bool_is_told_its_type_in_a_whole_sentence():
    def may_use(role, tags):
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        needed = PERMISSIONS & set(tags)
        return int(bool(needed) and needed <= ROLES[role])

    assert "this one returned the type int." in rejected("09.2", may_use)
