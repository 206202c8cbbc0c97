"""Exercise 04.4: the solution passes; each rule's wrong answer gets that rule's hint."""

from __future__ import annotations

import json

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import CheckFailed, NotDoneYet, evaluate
from course_lib.checks.lesson04._tool_sources import local_tool
from course_lib.checks.lesson04.dispatch.cases import TOOLS
from course_lib.reference import ToolRegistry as ReferenceRegistry

from ._solution import edited, namespace_with, solution

CELL = "w04-ex4-code"


def assert_fails_with(exercise_id: str, target, hint_key: str) -> CheckFailed:
    """The check rejects ``target`` with the hint ``hint_key`` (and does not crash)."""
    with pytest.raises(CheckFailed) as caught:
        evaluate(exercise_id, target)
    assert caught.value.failure.hint_key == hint_key, str(caught.value)
    return caught.value


def wrong(old: str, new: str):
    return edited("DispatchRegistry", (CELL, old, new))


def test_the_solution_passes_every_case():
    assert evaluate("04.4", solution()["DispatchRegistry"]) == (
        "Exercise 04.4 passed: DispatchRegistry.call (6 results and 25 errors)."
    )


def test_the_stub_is_not_done_yet():
    stub = wrong(
        "        if name not in self._tools:\n",
        '        raise NotImplementedError("Exercise 04.4: stub")\n'
        "        if name not in self._tools:\n",
    )
    with pytest.raises(NotDoneYet):
        evaluate("04.4", stub)


BAD_JSON_MESSAGE = (
    'f"The arguments for {name!r} are not valid JSON ({exc.msg} at character "\n'
    '                    f"{exc.pos}). Send the arguments as one JSON object."'
)
WRONG_BY_RULE = {
    "04.4": {
        "json_result": wrong("return json.dumps(result, ensure_ascii=False)", "return str(result)"),
        "readable": wrong("return json.dumps(result, ensure_ascii=False)",
                          "return json.dumps(result)"),
        "json_arguments": wrong("        if isinstance(arguments, str):\n",
                                "        if False:\n"),
        "str_result": wrong("        if isinstance(result, str):\n            return result\n", ""),
        "empty": wrong('if arguments == "":', "if False:"),
        "never_raises": wrong("if name not in self._tools:", "if False:"),
        "error_object": wrong("return error_text(", 'return "Error: " + ('),
        "unknown": wrong(" Available tools: {available}.", ""),
        "unknown_named": wrong("Unknown tool {name!r}.", "Unknown tool."),
        "bad_json": wrong(BAD_JSON_MESSAGE,
                          'f"The arguments for {name!r} could not be read ({exc.msg})."'),
        "not_object": wrong("must be a JSON object.", "must be a dict."),
        "only_empty": wrong("                arguments = json.loads(arguments)\n",
                            "                arguments = json.loads(arguments) or {}\n"),
        "validate": wrong("if problems:", "if False:"),
        "every_problem": wrong("{'; '.join(problems)}", "{problems[0]}"),
        "unencodable": wrong("json.dumps(result, ensure_ascii=False)",
                             "json.dumps(result, ensure_ascii=False, default=str)"),
        "tool_raises": wrong("failed: {type(exc).__name__}: {exc}", "failed: {exc}"),
    }
}  # fmt: skip


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["04.4"]))
def test_a_wrong_answer_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("04.4", rule, WRONG_BY_RULE["04.4"][rule])


def test_a_call_that_raises_on_an_unknown_tool_is_told_it_must_never_raise():
    message = rejected("04.4", WRONG_BY_RULE["04.4"]["never_raises"])
    assert "KeyError" in message and "never raise" in message


def test_plain_error_strings_are_told_to_be_objects():
    assert "not plain text" in rejected("04.4", WRONG_BY_RULE["04.4"]["error_object"])


def test_a_call_without_a_json_guard_is_told_to_catch_the_decode_error():
    cls = wrong("except json.JSONDecodeError as exc:", "except KeyError as exc:")
    assert "json.JSONDecodeError" in rejected("04.4", cls)


def test_a_call_returning_a_dict_is_told_to_return_a_str():
    cls = wrong("return json.dumps(result, ensure_ascii=False)", "return result")
    assert "always returns a str" in rejected("04.4", cls)


def test_a_call_raising_on_a_result_json_cannot_encode_is_told_to_catch_it():
    cls = wrong("except (TypeError, ValueError) as exc:", "except KeyError as exc:")
    message = rejected("04.4", cls)
    assert "TypeError" in message and "here a date" in message


def test_a_call_whose_validator_misses_the_problem_blames_the_validator():
    namespace = namespace_with(
        (
            "w04-ex2-code",
            '"integer": lambda value: isinstance(value, int) and not isinstance(value, bool)',
            '"integer": lambda value: isinstance(value, int)',
        )
    )
    message = rejected("04.4", namespace["DispatchRegistry"])
    assert "Your validate_arguments finds no problem" in message and "fix 04.3" in message


def test_a_call_without_validation_is_not_blamed_on_the_validator():
    message = rejected("04.4", WRONG_BY_RULE["04.4"]["validate"])
    assert "validate_arguments before calling" in message and "fix 04.3" not in message


def test_the_solution_agrees_with_the_reference_registry():
    ours = solution()["DispatchRegistry"]()
    theirs = ReferenceRegistry()
    for name in TOOLS:
        ours.tool(local_tool(name), name=name)
        theirs.tool(local_tool(name), name=name)
    for name, arguments in [("get_weather", {"city": "北京"}), ("add", '{"a": 2, "b": 3}')]:
        assert json.loads(ours.call(name, arguments)) == json.loads(theirs.call(name, arguments))
    assert ours.call("greet", {"name": "张三"}) == theirs.call("greet", {"name": "张三"})
    for name, arguments in [
        ("nope", {}),
        ("add", "{"),
        ("add", {"a": True, "b": 1}),
        ("read_sensor", {"room": "厨房"}),
    ]:
        assert "error" in json.loads(ours.call(name, arguments))
        assert "error" in json.loads(theirs.call(name, arguments))


def test_a_registry_that_cannot_be_created_is_told_so_without_crashing_the_check():
    cls = wrong(
        "class DispatchRegistry(ToolRegistry):\n",
        "class DispatchRegistry(ToolRegistry):\n"
        "    def __init__(self, tools):\n"
        "        self._tools = {**tools}\n",
    )
    failed = assert_fails_with("04.4", cls, "not_constructed")
    assert "TypeError" in str(failed) and "IndexError" not in str(failed)
    assert "the check creates your registry with no arguments" in str(failed)


def test_a_registry_whose_tools_are_not_a_dict_is_told_to_keep_the_dict():
    cls = wrong(
        "class DispatchRegistry(ToolRegistry):\n",
        "class DispatchRegistry(ToolRegistry):\n"
        "    def __init__(self):\n"
        "        self._tools = []\n",
    )
    assert "keep self._tools = {} from" in str(assert_fails_with("04.4", cls, "no_tools"))


def test_a_plain_text_error_that_names_the_exception_is_told_to_be_an_object_not_to_name_it():
    cls = wrong(
        'return error_text(f"Tool {name!r} failed: {type(exc).__name__}: {exc}")',
        'return f"Tool {name!r} failed: {type(exc).__name__}: {exc}"',
    )
    failed = assert_fails_with("04.4", cls, "error_object")
    assert failed.failure.case == "registry.call('read_sensor', {'room': '厨房'})"


@pytest.mark.parametrize("arguments", ["null", "[]", "0"])
def test_json_that_is_falsy_but_no_object_is_told_only_the_empty_string_means_none(arguments):
    cls = wrong('if arguments == "":', f"if arguments in ('', {arguments!r}):")
    failed = assert_fails_with("04.4", cls, "only_empty")
    assert failed.failure.case == f"registry.call('now', {arguments!r})"
    assert f"{arguments} is JSON that is not an object" in failed.failure.hint


def test_a_message_that_names_no_problem_kind_in_any_language_is_still_rejected():
    cls = wrong("must be a JSON object.", "必须改正。")
    failed = assert_fails_with("04.4", cls, "not_object")
    assert "object (对象)" in str(failed)


def test_an_unknown_tool_error_that_does_not_name_the_tool_is_told_to_name_it():
    message = rejected("04.4", WRONG_BY_RULE["04.4"]["unknown_named"])
    assert "Case: registry.call('get_wether', {'city': '北京'})" in message
    assert "Name the tool the model asked for (get_wether)" in message.split("Hint:")[1]
