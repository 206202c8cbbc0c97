"""Exercise 02.1: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import EXERCISES, NotDoneYet, evaluate

from ._solution import solution


def test_the_solution_passes_every_case():
    assert (
        evaluate("02.1", solution()["json_type"]) == "Exercise 02.1 passed: json_type (13 cases)."
    )


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["02.1"]
    assert (spec.notebook, spec.points, spec.targets) == ("02_reflection", 1, ("json_type",))


def test_the_stub_is_not_done_yet():
    def json_type(annotation):
        raise NotImplementedError("Exercise 02.1: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("02.1", json_type)


def basic_table() -> dict:
    return {
        str: {"type": "string"},
        int: {"type": "integer"},
        float: {"type": "number"},
        bool: {"type": "boolean"},
        list: {"type": "array"},
        dict: {"type": "object"},
        type(None): {"type": "null"},
    }


def json_type_name_only(annotation):
    return basic_table()[type(None) if annotation is None else annotation]["type"]


def json_type_python_names(annotation):
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    if annotation in basic_table():
        return {"type": annotation.__name__}
    raise TypeError(f"cannot map {annotation!r}")


def json_type_issubclass_walk(annotation):
    if annotation is None:
        return {"type": "null"}
    for python_type, name in [
        (int, "integer"),
        (float, "number"),
        (str, "string"),
        (bool, "boolean"),
        (list, "array"),
        (dict, "object"),
        (type(None), "null"),
    ]:
        if isinstance(annotation, type) and issubclass(annotation, python_type):
            return {"type": name}
    raise TypeError(f"cannot map {annotation!r}")


SHARED_TABLE = basic_table()


def json_type_shared_table(annotation):
    if annotation is None:
        annotation = type(None)
    if annotation not in SHARED_TABLE:
        raise TypeError(f"cannot map {annotation!r}")
    return SHARED_TABLE[annotation]  # the caller's changes land in the table


def json_type_key_error(annotation):
    if annotation is None:
        annotation = type(None)
    return dict(basic_table()[annotation])  # KeyError for anything else


def json_type_string_fallback(annotation):
    if annotation is None:
        annotation = type(None)
    return dict(basic_table().get(annotation, {"type": "string"}))


def json_type_forgets_none(annotation):
    if annotation is None:
        raise TypeError("None is not a type")
    return json_type_key_error(annotation)


def json_type_silent_message(annotation):
    if annotation is None:
        return {"type": "null"}
    if annotation not in basic_table():
        raise TypeError("unsupported annotation")
    return dict(basic_table()[annotation])


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "02.1": {
        "a_dict": json_type_name_only,
        "json_names": json_type_python_names,
        "bool": json_type_issubclass_walk,
        "none": json_type_forgets_none,
        "fresh": json_type_shared_table,
        "refuse": json_type_string_fallback,
        "names_it": json_type_silent_message,
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["02.1"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("02.1", rule, WRONG_BY_RULE["02.1"][rule])


def test_the_shared_table_is_left_as_it_was_and_reported_again_on_the_next_run():
    for _ in range(2):
        assert_breaks_rule("02.1", "fresh", json_type_shared_table)
    assert SHARED_TABLE[str] == {"type": "string"}


def test_another_exception_than_type_error_is_named():
    message = rejected("02.1", json_type_key_error)
    assert "Raise TypeError (not KeyError)" in message
    assert "Expected: a TypeError naming complex" in message


def test_none_raising_is_told_that_none_is_in_the_table_not_to_run_it_yourself():
    message = rejected("02.1", json_type_forgets_none)
    assert "Your code raised TypeError: None is not a type" in message
    assert 'None and type(None) both become {"type": "null"}' in message
    assert "yourself" not in message


def test_a_type_in_the_table_that_raises_is_told_what_it_must_return():
    def no_float(annotation):
        if annotation is float:
            raise TypeError("float is not supported")
        return solution()["json_type"](annotation)

    message = rejected("02.1", no_float)
    assert 'float is in the table of 02.1, so json_type must return {"type": "number"}' in message
