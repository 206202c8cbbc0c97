"""Exercise 00.1: the solution passes, realistic wrong greetings are rejected with fitting hints."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule

from course_lib.checks import EXERCISES, CheckFailed, NotDoneYet, check, evaluate
from course_lib.checks.lesson00.greeting import expected_greeting, hidden_names


def solution(name: str) -> str:
    return f"Hello, {name}!"


def test_the_solution_passes_every_visible_and_hidden_case(capsys):
    check("00.1", solution)
    assert (
        capsys.readouterr().out
        == "Exercise 00.1 passed: greeting (3 visible and 13 hidden cases).\n"
    )


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["00.1"]
    assert (spec.notebook, spec.points, spec.targets) == ("00_welcome", 1, ("greeting",))


def test_hidden_cases_are_fixed_and_include_chinese_and_multi_part_names():
    assert hidden_names() == hidden_names()
    names = hidden_names()
    assert any(any("\u4e00" <= char <= "\u9fff" for char in name) for name in names)
    assert any(" " in name or "-" in name for name in names)
    assert any(name != name.strip() for name in names)
    assert expected_greeting("张伟") == "Hello, 张伟!"


def printed_greeting(name):
    print(f"Hello, {name}!")


# One wrong answer per rule of the contract, each breaking that rule alone.
WRONG_BY_RULE = {
    "00.1": {
        "returns": printed_greeting,
        "exact": lambda name: f"Hello {name}!",
        "name": lambda name: f"Hello, {name.title()}!",
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["00.1"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("00.1", rule, WRONG_BY_RULE["00.1"][rule])


@pytest.mark.parametrize(
    "wrong, case, hint",
    [
        (printed_greeting, "greeting('Ada')", "`return` the text instead of printing it"),
        (lambda name: "Hello, {name}!", "greeting('Ada')", "put an `f` before the quote"),
        (lambda name: "Hello, Ada!", "greeting('张伟')", "do not hard-code a name"),
        (lambda name: f"Hello, {name.title()}!", "greeting('jo娜')", "do not change its capital"),
        (lambda name: f"Hello {name}!", "greeting('Ada')", "Check the punctuation"),
        (lambda name: f"Hello, {name}.", "greeting('Ada')", "Check the punctuation"),
        (lambda name: f"Hello, {name}!\n", "greeting('Ada')", "Remove the extra spaces"),
        (lambda name: f"Hello,  {name}!", "greeting('Ada')", "exactly one space between"),
        (lambda name: f"Hello,{name}!", "greeting('Ada')", "exactly one space between"),
        (
            lambda name: f"Hello, {name.encode('ascii', 'ignore').decode()}!",
            "greeting('张伟')",
            "every character of it",
        ),
        (lambda name: ["Hello", name], "greeting('Ada')", "must return a string"),
        (lambda name: f"Hello, {name!r}!", "greeting('Ada')", "not {name!r}"),
        (lambda name: f"hello, {name}!", "greeting('Ada')", "with a capital H"),
        (lambda name: f"Hello, {name.strip()}!", "greeting(' 李娜 ')", "do not strip it"),
    ],
)
def test_a_wrong_greeting_is_rejected_with_a_hint_that_names_the_mistake(wrong, case, hint):
    with pytest.raises(CheckFailed) as caught:
        check("00.1", wrong)
    message = str(caught.value)
    assert not isinstance(caught.value, NotDoneYet)
    assert f"Case: {case}\n" in message
    assert hint in message.split("Hint: ", 1)[1]


def test_the_stub_is_not_done_yet():
    def greeting(name: str) -> str:
        raise NotImplementedError("Exercise 00.1: return the text Hello, <name>!")

    with pytest.raises(NotDoneYet, match="not done yet"):
        check("00.1", greeting)


@pytest.mark.parametrize(
    "alternative",
    [
        lambda name: "Hello, " + name + "!",
        lambda name: " ".join(["Hello,", name]) + "!",
        lambda name: "".join(["Hello", ", ", name, "!"]),
    ],
    ids=["concatenated", "spaced_join", "joined"],
)
def test_correct_greetings_written_differently_pass(alternative):
    assert evaluate("00.1", alternative).startswith("Exercise 00.1 passed")
