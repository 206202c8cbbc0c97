"""Exercise 01.7: the solution passes; each rule's wrong answer gets that rule's hint, and correct
answers written differently (one with Chinese messages, one without a regex) pass."""

from __future__ import annotations

import json
import re

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import NotDoneYet, evaluate
from course_lib.checks.lesson01.react import CUT_OFF, MENTION, NO_INPUT, QUOTES, REMARK, TYPO
from lesson01.notebook import solution


def test_the_solution_passes_every_reply():
    assert evaluate("01.7", solution("parse_react")) == (
        "Exercise 01.7 passed: parse_react (23 replies)."
    )


def test_the_stub_is_not_done_yet():
    def parse_react(text, tool_names):
        raise NotImplementedError("Exercise 01.7: write it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("01.7", parse_react)


def line_by_line_in_chinese(text, tool_names):
    """No regex: walk the lines; the messages are Chinese."""
    lines = text.splitlines(keepends=True)
    actions = [i for i, line in enumerate(lines) if line.startswith("Action:")]
    if not actions:
        return {"answer": text.strip()}
    first = actions[0]
    name = lines[first][len("Action:") :].strip()
    if name not in tool_names:
        return {"error": "unknown_tool", "message": f"没有这个工具: {name}"}
    inputs = [i for i in range(first + 1, len(lines)) if lines[i].startswith("Action Input:")]
    if not inputs:
        return {"error": "bad_input", "message": "缺少 Action Input"}
    rest = "".join(lines[inputs[0] :])[len("Action Input:") :]
    try:
        value, _ = json.JSONDecoder().raw_decode(rest.lstrip())
    except ValueError:
        return {"error": "bad_input", "message": "参数不是合法的 JSON"}
    if type(value) is not dict:
        return {"error": "bad_input", "message": "参数必须是一个 JSON 对象"}
    return {"tool": name, "arguments": value}


def one_regex_with_named_groups(text, tool_names):
    """One pattern for the two lines, then raw_decode from where the pattern stopped."""
    action = re.search(r"^Action:[ \t]*(?P<name>[^\n]*?)[ \t]*$", text, flags=re.M)
    if not action:
        return dict(answer=text.strip())
    if action["name"] not in tool_names:
        return dict(error="unknown_tool", message=f"Unknown tool: {action['name']}")
    given = re.compile(r"^Action Input:\s*", re.M).search(text, action.end())
    problem = "no Action Input"
    if given:
        try:
            arguments = json.JSONDecoder().raw_decode(text, given.end())[0]
        except json.JSONDecodeError as error:
            problem = error.msg
        else:
            if isinstance(arguments, dict):
                return dict(tool=action["name"], arguments=arguments)
            problem = "not an object"
    return dict(error="bad_input", message=problem)


@pytest.mark.parametrize("alternative", [line_by_line_in_chinese, one_regex_with_named_groups])
def test_correct_answers_written_differently_pass(alternative):
    assert evaluate("01.7", alternative).startswith("Exercise 01.7 passed")


# -- wrong answers ------------------------------------------------------------------------------

ACTION = re.compile(r"^Action:(.*)$", re.M)
INPUT = re.compile(r"^Action Input:\s*", re.M)


def parser(
    *,
    no_action=lambda text: {"answer": text.strip()},
    action_pattern=ACTION,
    key="tool",
    check_name=True,
    name_first=True,
    read=lambda rest, start: json.JSONDecoder().raw_decode(rest, start)[0],
    catch=True,
    objects_only=True,
    message=lambda name: f"no tool {name}",
):
    """A parse_react with one chosen mistake (the defaults give a correct one)."""

    def parse_react(text, tool_names):
        action = action_pattern.search(text)
        if action is None:
            return no_action(text)
        name = action.group(1).strip()
        unknown = {"error": "unknown_tool", "message": message(name)}
        if check_name and name_first and name not in tool_names:
            return unknown
        found = INPUT.search(text, action.end())
        if found is None:
            return {"error": "bad_input", "message": "no input"}
        try:
            arguments = read(text, found.end())
        except json.JSONDecodeError:
            if not catch:
                raise
            return {"error": "bad_input", "message": "not JSON"}
        if check_name and not name_first and name not in tool_names:
            return unknown
        if objects_only and not isinstance(arguments, dict):
            return {"error": "bad_input", "message": "not an object"}
        return {key: name, "arguments": arguments}

    return parse_react


def test_the_parser_without_mistakes_passes():
    assert evaluate("01.7", parser()).startswith("Exercise 01.7 passed")


COMBINED = re.compile(r"^Action: *(.+?) *\nAction Input: *(\{.*?\})", re.M | re.S)


def one_combined_regex(text, tool_names):
    """Section 2's way: one pattern for a whole action; no match is taken for the answer."""
    found = COMBINED.search(text)
    if found is None:
        return {"answer": text.strip()}
    name, raw = found.groups()
    if name not in tool_names:
        return {"error": "unknown_tool", "message": f"unknown tool {name}"}
    try:
        return {"tool": name, "arguments": json.loads(raw)}
    except json.JSONDecodeError:
        return {"error": "bad_input", "message": "not JSON"}


def whole_rest_with_json_loads(rest, start):
    return json.loads(rest[start:])


def the_last_action(text, tool_names):
    """Takes the last Action: line of a reply instead of the first."""
    actions = list(ACTION.finditer(text))
    start = actions[-1].start() if actions else 0
    return parser()(text[start:], tool_names)


WRONG_BY_RULE = {
    "01.7": {
        "first_action": the_last_action,
        "answer": parser(no_action=lambda text: None),
        "line_start": parser(action_pattern=re.compile(r"Action:(.*)$", re.M)),
        "action": parser(key="name"),
        "unknown_tool": parser(check_name=False),
        "one_value": parser(read=whole_rest_with_json_loads),
        "bad_json": parser(catch=False),
        "incomplete": one_combined_regex,
        "object": parser(objects_only=False),
        "name_first": parser(name_first=False),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["01.7"]))
def test_a_wrong_parser_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("01.7", rule, WRONG_BY_RULE["01.7"][rule])


def test_an_unstripped_answer_is_told_to_strip_it():
    message = rejected("01.7", parser(no_action=lambda text: {"answer": text}))
    assert "text.strip()" in message.split("Hint:")[1]


def test_arguments_left_as_text_are_told_to_decode_them():
    text_read = parser(read=lambda rest, start: rest[start:].strip(), objects_only=False)
    message = rejected("01.7", text_read)
    assert "the decoded JSON object, a dict, not the text" in message


def test_a_message_that_does_not_name_the_unknown_tool_is_told_to_name_it():
    message = rejected("01.7", parser(message=lambda name: "工具不存在"))
    assert f"Case: parse_react({TYPO!r}" in message
    assert "must name the tool the model asked for (get_wether)" in message


def test_an_error_without_a_message_is_told_to_give_one():
    def no_message(text, tool_names):
        outcome = parser()(text, tool_names)
        return {"error": outcome["error"]} if "error" in outcome else outcome

    assert "An error is exactly" in rejected("01.7", no_message)


def test_json_loads_without_a_catch_is_told_the_remark_is_not_part_of_the_arguments():
    message = rejected("01.7", parser(read=whole_rest_with_json_loads, catch=False))
    assert f"Case: parse_react({REMARK!r}" in message
    assert "JSONDecodeError: Extra data" in message
    assert "raw_decode(text, start) reads one value" in message


def test_a_regex_that_found_nothing_is_told_to_check_for_none():
    def no_none_check(text, tool_names):
        action = ACTION.search(text)
        if action is None:
            return {"answer": text.strip()}
        name = action.group(1).strip()
        if name not in tool_names:
            return {"error": "unknown_tool", "message": name}
        start = INPUT.search(text, action.end()).end()
        try:
            arguments = json.JSONDecoder().raw_decode(text, start)[0]
        except json.JSONDecodeError:
            return {"error": "bad_input", "message": "not JSON"}
        if not isinstance(arguments, dict):
            return {"error": "bad_input", "message": "not an object"}
        return {"tool": name, "arguments": arguments}

    message = rejected("01.7", no_none_check)
    assert f"Case: parse_react({NO_INPUT!r}" in message
    assert "re.search returned None" in message


def test_the_visible_cases_are_the_three_failures_of_section_2():
    """A reply cut off, quotes that break the input, a remark after the action and a tool that
    does not exist: each has its own visible case, and an answer that only mentions Action:."""
    from course_lib.checks.lesson01.react import VISIBLE, expected_outcome

    texts = [text for text, _, _ in VISIBLE]
    assert {CUT_OFF, NO_INPUT, QUOTES, REMARK, TYPO, MENTION} <= set(texts)
    assert expected_outcome(REMARK, ["get_weather"]) == {
        "tool": "get_weather",
        "arguments": {"city": "北京"},
    }


def test_a_tuple_is_told_to_return_one_dict():
    message = rejected("01.7", lambda text, tool_names: ("answer", text))
    assert "Return one dict" in message


def test_a_tool_name_with_its_trailing_spaces_is_told_to_strip_it():
    def unstripped(text, tool_names):
        action = ACTION.search(text)
        if action is None:
            return {"answer": text.strip()}
        name = action.group(1).lstrip()
        if name not in tool_names:
            return {"error": "unknown_tool", "message": f"no tool {name}"}
        return parser()(text, tool_names)

    message = rejected("01.7", unstripped)
    assert "Strip the spaces around the tool name" in message


def test_an_empty_error_message_is_told_to_say_what_is_wrong():
    message = rejected("01.7", parser(message=lambda name: ""))
    assert "Give the error a message" in message


def test_invalid_json_taken_for_the_answer_is_told_it_is_bad_input():
    def answer_when_unreadable(text, tool_names):
        outcome = parser()(text, tool_names)
        if outcome.get("message") == "not JSON":
            return {"answer": text.strip()}
        return outcome

    message = rejected("01.7", answer_when_unreadable)
    assert f"Case: parse_react({QUOTES!r}" in message
    assert "is not one JSON object" in message.split("Hint:")[1]


def test_an_answer_that_is_not_text_gets_the_answer_hint_not_a_crash():
    message = rejected("01.7", parser(no_action=lambda text: {"answer": None}))
    assert "the model answered directly" in message


def test_a_tool_name_with_its_leading_space_is_told_to_strip_it():
    def after_the_colon(text, tool_names):
        action = ACTION.search(text)
        if action is None:
            return {"answer": text.strip()}
        if action.group(1) not in tool_names:
            return {"error": "unknown_tool", "message": f"no tool {action.group(1)}"}
        return parser()(text, tool_names)

    message = rejected("01.7", after_the_colon)
    assert "Strip the spaces around the tool name: ' get_weather'" in message


def test_raw_decode_started_before_the_spaces_is_told_it_does_not_skip_them():
    def at_the_colon(rest, start):
        while rest[start - 1] in " \n":
            start -= 1
        return json.JSONDecoder().raw_decode(rest, start)[0]

    message = rejected("01.7", parser(read=at_the_colon))
    assert "raw_decode does not skip the spaces" in message.split("Hint:")[1]


def test_json_loads_caught_as_bad_input_is_still_told_the_remark_is_not_part_of_it():
    message = rejected("01.7", parser(read=whole_rest_with_json_loads))
    assert "The arguments end where the JSON value ends" in message.split("Hint:")[1]
