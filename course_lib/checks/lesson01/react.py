"""Exercise 01.7, ``parse_react(text, tool_names) -> dict``: the action in a ReAct reply, or why
there is none.

The cases are the three ways reading an action out of text broke in section 2 of the lesson: a
reply that holds no (complete) action, an input that is not one JSON object, and an action with a
tool that does not exist or with text after it. The oracle below is the contract as code; an
error's ``message`` is free text in any language, judged only by what it must name. Rules, the
case that breaks each, and the hint that names it: see ``RULES`` and ``HINTS``.
"""

from __future__ import annotations

import json
import re
from random import Random
from typing import Any

from course_lib.checks.cases import Case, Table
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, fail, first_difference, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raised_with
from course_lib.checks.lesson01._values import CITIES, NOTEBOOK

TOOLS = ["get_weather", "search_notes"]
TIDY = 'Thought: I need the weather in 北京.\nAction: get_weather\nAction Input: {"city": "北京"}'
ANSWER = "北京 is sunny today, 31°C.\n"
MENTION = "The film is called\nThe Last Action: 上海 1937, and it opens on Friday."
TYPO = 'Action: get_wether\nAction Input: {"city": "北京"}'
REMARK = (
    'Action: get_weather\nAction Input: {"city": "北京"}\n'
    '(I left out {"unit": "f"}: you asked in Celsius.)'
)
TWO_ACTIONS = (
    'Thought: 北京 first.\nAction: get_weather\nAction Input: {"city": "北京"}\n'
    'Action: search_notes\nAction Input: {"keyword": "北京"}'
)
QUOTES = 'Action: search_notes\nAction Input: {"keyword": "the "best" 烤鸭"}'
CUT_OFF = 'Thought: 北京 first.\nAction: get_weather\nAction Input: {"city": "北'
NO_INPUT = "Thought: 北京 first.\nAction: get_weather\n"
NOT_OBJECT = 'Action: get_weather\nAction Input: "北京"'
BOTH_WRONG = "Action: translate\nAction Input: {text: 你好}"

UNKNOWN, BAD_INPUT = "unknown_tool", "bad_input"
TEXTS = Catalog() | {
    "case": "parse_react({text}, {tools})",
    "a_message": "<a message, in any language>",
    "a_message_naming": "<a message naming {name}, in any language>",
    "summary": "{count} replies",
}


def case_label(text: str, tools: list[str] = TOOLS) -> str:
    return TEXTS.text("case", text=repr(text), tools=repr(tools))


RULES = (
    Rule("answer", "a reply without a line that starts with `Action:` is an answer: return "
         '`{"answer": text.strip()}`', case=case_label(ANSWER), hint="answer"),
    Rule("line_start", "only a line that *starts* with `Action:` counts, not the word inside a "
         "sentence", case=case_label(MENTION), hint="line_start"),
    Rule("action", "the arguments are the JSON object after `Action Input:`, decoded",
         case=case_label(TIDY), hint="action"),
    Rule("first_action", "the tool is the rest of the **first** `Action:` line, stripped (a later "
         "one is not run)", case=case_label(TWO_ACTIONS), hint="first_action"),
    Rule("unknown_tool", 'a tool not in `tool_names` gives `{"error": "unknown_tool", "message": '
         "...}`, the message naming that tool, in any language (`没有这个工具: get_wether`)",
         case=case_label(TYPO), hint="unknown_tool"),
    Rule("one_value", "read exactly one JSON value, after `Action Input:` and any spaces or line "
         "breaks: what follows it is not part of the arguments", case=case_label(REMARK),
         hint="one_value"),
    Rule("bad_json", 'input that is not valid JSON gives `{"error": "bad_input", "message": ...}`, '
         "a message in your own words and any language (`参数必须是一个 JSON 对象`), never an "
         "exception", case=case_label(QUOTES), hint="catch"),
    Rule("incomplete", "an action without a complete `Action Input:` (cut off mid-stream, or no "
         "such line) is `bad_input` too, never the answer", case=case_label(CUT_OFF),
         hint="incomplete"),
    Rule("object", 'so is a JSON value that is not an object, such as `"北京"`',
         case=case_label(NOT_OBJECT), hint="object"),
    Rule("name_first", "check the tool name before reading the input", case=case_label(BOTH_WRONG),
         hint="name_first"),
)  # fmt: skip

HINTS = Catalog() | {
    "not_dict": (
        "Return one dict: {{'answer': ...}}, {{'tool': ..., 'arguments': ...}} or "
        "{{'error': ..., 'message': ...}}."
    ),
    "answer": (
        "This reply has no line that starts with Action:, so the model answered directly: "
        "return {{'answer': text.strip()}}."
    ),
    "strip": "Return the answer stripped of the spaces and line breaks around it: text.strip().",
    "line_start": (
        "Action: appears here in the middle of a sentence, not at the start of a line, so the "
        "reply is an answer. Look for it at line starts: re.search(r'^Action:', text, "
        "re.MULTILINE), or check each line with line.startswith('Action:')."
    ),
    "action": (
        "Return {{'tool': <the name after Action:, stripped>, 'arguments': <the JSON object after "
        "Action Input:, decoded>}}."
    ),
    "first_action": (
        "This reply has two Action: lines, and only the first one is the action: take the "
        "first line that starts with Action: and the Action Input: after it (re.search finds "
        "the first; re.findall(...)[-1] or a loop that keeps going takes the last)."
    ),
    "skip_spaces": (
        "The input here is one valid JSON object, yet it came back as bad_input. "
        "json.JSONDecoder().raw_decode does not skip the spaces and line breaks before a value: "
        "start it at the first character after Action Input: that is not one of them."
    ),
    "decode": (
        "The arguments are the decoded JSON object, a dict, not the text: decode it with "
        "json.JSONDecoder().raw_decode."
    ),
    "name_spaces": "Strip the spaces around the tool name: {name!r} is not {stripped!r}.",
    "unknown_tool": (
        "{name} is not one of the tools: return {{'error': 'unknown_tool', 'message': ...}}, "
        "never a call to a tool that does not exist."
    ),
    "name_the_tool": (
        "The message must name the tool the model asked for ({name}), in any language, so that "
        "the model can see its mistake: e.g. 没有这个工具: {name}."
    ),
    "message_text": "Give the error a message: a non-empty string saying what is wrong.",
    "error_keys": "An error is exactly {{'error': <the kind>, 'message': <a text>}}.",
    "one_value": (
        "The arguments end where the JSON value ends; the text after it (here a remark with "
        "braces) is not part of them. json.JSONDecoder().raw_decode(text, start) reads one value "
        "and returns where it stopped; json.loads or a greedy regex takes the rest too."
    ),
    "catch": (
        "The input is not valid JSON, and json raised JSONDecodeError: catch it (it is a "
        "ValueError) and return {{'error': 'bad_input', 'message': ...}}. A reply the program "
        "cannot read must not crash it."
    ),
    "bad_input": (
        "The input after Action Input: is not one JSON object: return {{'error': 'bad_input', "
        "'message': ...}}."
    ),
    "incomplete": (
        "This reply starts an action but does not finish it (a stream cut off, or no Action "
        "Input: line): that is {{'error': 'bad_input', ...}}. It is never the answer, or the "
        "user sees a half-written action."
    ),
    "object": (
        "The input is valid JSON but not an object: arguments are one object of named values, "
        "so this is {{'error': 'bad_input', ...}}."
    ),
    "no_match": (
        "A regex found nothing here (re.search returned None) and the code went on: check for "
        "None. No Action: line means an answer; no Action Input: line means "
        "{{'error': 'bad_input', ...}}."
    ),
    "name_first": (
        "Both the tool and its input are wrong here: check the tool name first and report "
        "'unknown_tool' (running the input of a tool that does not exist is meaningless)."
    ),
}


hint = HINTS.hint


def case_hint(key: str, text: str) -> HintText:
    """The hint of a case's rule; ``unknown_tool`` names the tool the reply asked for."""
    if key == "unknown_tool":
        return hint(key, name=ACTION_LINE.search(text).group(1).strip())
    return hint(key)


ACTION_LINE = re.compile(r"^Action:(.*)$", re.MULTILINE)
INPUT_LINE = re.compile(r"^Action Input:", re.MULTILINE)


def expected_outcome(text: str, tool_names: list[str]) -> dict:
    """The oracle. An error is ``{"error": kind}``: its message is judged apart."""
    action = ACTION_LINE.search(text)
    if action is None:
        return {"answer": text.strip()}
    name = action.group(1).strip()
    if name not in tool_names:
        return {"error": UNKNOWN}
    value, _ = read_input(text)
    if not isinstance(value, dict):
        return {"error": BAD_INPUT}
    return {"tool": name, "arguments": value}


def read_input(text: str) -> tuple[Any, str]:
    """The first action's JSON value after ``Action Input:`` and what follows it, stripped;
    ``(None, "")`` when there is no action, no such line or no valid JSON value."""
    action = ACTION_LINE.search(text)
    found = INPUT_LINE.search(text, action.end()) if action else None
    if found is None:
        return None, ""
    rest = text[found.end() :]
    try:
        value, end = json.JSONDecoder().raw_decode(rest, len(rest) - len(rest.lstrip()))
    except json.JSONDecodeError:
        return None, ""
    return value, rest[end:].strip()


# (text, tool names, the hint a wrong outcome gets): the visible cases, one per rule.
VISIBLE = (
    (TIDY, TOOLS, "action"),
    (ANSWER, TOOLS, "answer"),
    (MENTION, TOOLS, "line_start"),
    (TYPO, TOOLS, "unknown_tool"),
    (REMARK, TOOLS, "one_value"),
    (TWO_ACTIONS, TOOLS, "first_action"),
    (QUOTES, TOOLS, "bad_input"),
    (CUT_OFF, TOOLS, "incomplete"),
    (NO_INPUT, TOOLS, "incomplete"),
    (NOT_OBJECT, TOOLS, "object"),
    (BOTH_WRONG, TOOLS, "name_first"),
)
ANSWERS = (
    "{city} 今天{sky}。",
    "It is {sky} in {city} right now.",
    "我没有找到关于 {city} 的笔记。",
)
SKIES = ("晴", "多云", "sunny", "rainy")
REMARKS = ('\nObservation: {{"sky": "{sky}"}}', "\n(unit left out: {{}} means Celsius)", "")


def hidden_cases(rng: Random, count: int = 12) -> list[tuple[str, list[str], str]]:
    """Replies made like the visible ones: other cities, layouts, remarks and cut-off points."""
    cases = []
    for _ in range(count):
        city, sky = rng.choice(CITIES), rng.choice(SKIES)
        tools = rng.sample(["get_weather", "search_notes", "get_time", "查询天气"], 2)
        name = tools[0]
        arguments = json.dumps({"city": city, "days": rng.randint(1, 7)}, ensure_ascii=False)
        gap = rng.choice([" ", "\n", "  \n  "])
        action = f"Thought: about {city}.\nAction: {name}{rng.choice(['', '  '])}\nAction Input:"
        kind = rng.randrange(5)
        if kind == 0:
            text, key = rng.choice(ANSWERS).format(city=city, sky=sky) + "\n", "answer"
        elif kind == 1:
            remark = rng.choice(REMARKS).format(sky=sky)
            text, key = f"{action}{gap}{arguments}{remark}", "one_value"
        elif kind == 2:
            cut = rng.randint(1, len(arguments) - 1)
            text, key = f"{action}{gap}{arguments[:cut]}", "incomplete"
        elif kind == 3:
            text = f"{action}{gap}{arguments}".replace(f"Action: {name}", "Action: get_news")
            key = "unknown_tool"
        else:
            text, key = f"{action}{gap}{json.dumps([city], ensure_ascii=False)}", "object"
        cases.append((text, tools, key))
    return cases


def outcome_problem(got: Any, expected: dict, text: str, tool_names: list[str], wrong: str) -> Any:
    """``None`` if ``got`` is right, else ``(expected shown, hint)``; ``wrong``: the case's."""
    if got is None and "answer" in expected:
        return expected, hint("answer")
    if not isinstance(got, dict):
        return expected, hint("not_dict")
    action = ACTION_LINE.search(text)
    raw = action.group(1) if action else ""
    padded = raw != raw.strip() and raw.strip() in tool_names
    if padded and got.get("error") == UNKNOWN and expected.get("error") != UNKNOWN:
        return expected, hint("name_spaces", name=raw, stripped=raw.strip())
    if "tool" in expected and got.get("error") == BAD_INPUT:
        return expected, hint("one_value" if read_input(text)[1] else "skip_spaces")
    if "error" in expected:
        return error_problem(got, expected, text, tool_names, wrong)
    if first_difference(expected, got) is None:
        return None
    answered = got.get("answer")
    if isinstance(answered, str) and answered.strip() == expected.get("answer"):
        return expected, hint("strip")
    if "tool" in expected and got.get("tool") == expected["tool"]:
        if isinstance(got.get("arguments"), str):
            return expected, hint("decode")
    return expected, wrong


def error_problem(got: dict, expected: dict, text: str, tool_names: list[str], wrong: str) -> Any:
    """``None`` if ``got`` is the expected error with a fitting message, else (shown, hint)."""
    if expected["error"] == UNKNOWN:
        name = ACTION_LINE.search(text).group(1).strip()
        shown = {**expected, "message": TEXTS.text("a_message_naming", name=name)}
    else:
        name, shown = None, {**expected, "message": TEXTS.text("a_message")}
    if got.get("error") != expected["error"]:
        return shown, wrong
    if set(got) != {"error", "message"}:
        return shown, hint("error_keys")
    message = got["message"]
    if not isinstance(message, str) or not message.strip():
        return shown, hint("message_text")
    if name is not None and name not in message:
        return shown, hint("name_the_tool", name=name)
    return None


EXCEPTION_HINTS = [
    (raised_with("JSONDecodeError", "Extra data"), hint("one_value")),
    (lambda r: r.raised_a("JSONDecodeError") or r.raised_a("ValueError"), hint("catch")),
    (raised_with("AttributeError", "'NoneType'"), hint("no_match")),
]


def judge(case: Case, got: Any, reply: Reply) -> None:
    __tracebackhide__ = True
    problem = outcome_problem(got, case.expected, *case.args, case.hint)
    if problem is not None:
        fail(case.label, problem[0], got, problem[1])


TABLE = Table(
    "parse_react", RULES, HINTS, oracle=expected_outcome, judge=judge, raised=EXCEPTION_HINTS
)


@exercise("01.7", notebook=NOTEBOOK, title="parse_react", points=2, rules=RULES)
def check_parse_react(learner: Learner) -> str:
    cases = [
        TABLE.case(case_label(text, tools), text, list(tools), hint=case_hint(key, text))
        for text, tools, key in (*VISIBLE, *hidden_cases(hidden_rng("01.7")))
    ]
    return TEXTS.text("summary", count=TABLE.run(learner, cases))
