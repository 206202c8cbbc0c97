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
        "from_exc": edited(
            "resolve_annotations",
            (
                CELL,
                '"or import that name in the function\'s module") from exc',
                '"or import that name in the function\'s module") from None',
            ),
        ),
    }
}


def test_a_type_error_raised_without_from_names_what_it_has_instead():
    def without_from(func):
        try:
            hints = typing.get_type_hints(func)
        except NameError as exc:
            message = str(exc)
            error = TypeError(f"{func.__name__}(): {message}")
        else:
            return {n: hints[n] for n in inspect.signature(func).parameters if n in hints}
        raise error

    message = rejected("03.5", without_from)
    assert "Case: resolve_annotations(def find(hotel: Hotel" in message
    assert "not raised from the NameError (no cause)" in message


CHINESE = """
import inspect
import typing


def resolve_annotations(func):
    parameters = inspect.signature(func).parameters
    try:
        hints = typing.get_type_hints(func, include_extras=False)
    except NameError as exc:
        raise TypeError(f"函数 {func.__name__} 的注解无法解析：找不到 {exc.name}") from exc
    return {name: hints[name] for name in parameters if name in hints}
"""


def test_a_correct_answer_written_differently_with_a_chinese_message_passes():
    namespace: dict = {}
    exec(CHINESE, namespace)  # noqa: S102
    assert evaluate("03.5", namespace["resolve_annotations"]).startswith("Exercise 03.5 passed")


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


def test_eval_in_the_wrong_module_is_named_even_when_the_name_error_becomes_a_type_error():
    def eval_here_as_asked(func):
        """eval() in this module, its NameError turned into the TypeError the contract asks for."""
        try:
            return eval_here(func)
        except NameError as exc:
            raise TypeError(f"{func.__name__}(): {exc}") from exc

    message = rejected("03.5", eval_here_as_asked)
    assert "Your code raised TypeError: book(): name 'Hotel' is not defined" in message
    assert "evaluates it in func.__globals__, where Hotel is defined" in message
