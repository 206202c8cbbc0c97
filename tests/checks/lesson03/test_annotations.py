"""Exercise 03.5: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import inspect
import typing

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate

from ._solution import edited, solution


def test_the_solution_passes_every_case():
    assert evaluate("03.5", solution()["resolve_annotations"]) == (
        "Exercise 03.5 passed: resolve_annotations (6 visible and 24 hidden functions, 2 refused)."
    )


def test_the_stub_is_not_done_yet():
    def resolve_annotations(func):
        raise NotImplementedError("Exercise 03.5: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("03.5", resolve_annotations)


def as_stored(func):
    return {n: a for n, a in func.__annotations__.items() if n != "return"}


def with_return(func):
    return typing.get_type_hints(func)


def eval_here(func):
    """Strings evaluated with eval() in this module, not in the function's."""
    found = {}
    for name, parameter in inspect.signature(func).parameters.items():
        annotation = parameter.annotation
        if annotation is inspect.Parameter.empty:
            continue
        found[name] = eval(annotation) if isinstance(annotation, str) else annotation  # noqa: S307
    return found


def with_unannotated(func):
    found = solution()["resolve_annotations"](func)
    return {
        name: found.get(name, p.annotation)
        for name, p in inspect.signature(func).parameters.items()
    }


def name_error_through(func):
    hints = typing.get_type_hints(func)
    return {name: hints[name] for name in inspect.signature(func).parameters if name in hints}


CELL = "w03-ex5"
WRONG_BY_RULE = {
    "03.5": {
        "real_types": as_stored,
        "no_return": with_return,
        "own_module": eval_here,
        "unannotated": with_unannotated,
        "type_error": name_error_through,
        "names_it": edited(
            "resolve_annotations",
            (
                CELL,
                'f"{func.__name__}(): an annotation cannot be resolved ({exc}); define "\n'
                '                        "or import that name in the function\'s module"',
                '"an annotation cannot be resolved"',
            ),
        ),  # fmt: skip
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["03.5"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("03.5", rule, WRONG_BY_RULE["03.5"][rule])


def test_types_are_shown_as_a_notebook_prints_them_strings_quoted():
    message = rejected("03.5", as_stored)
    assert (
        "Expected: {'city': str, 'days': int, 'budget': float | None, 'by_train': bool}" in message
    )
    assert "Got:      {'city': 'str', 'days': 'int'" in message
    assert "Some types came back as text, such as 'str'" in message


def test_eval_in_the_wrong_module_is_named_with_the_missing_name():
    message = rejected("03.5", eval_here)
    assert "Your code raised NameError: name 'Hotel' is not defined" in message
    assert "where Hotel is defined" in message
