"""What the check modules of the lessons (``course_lib/checks/lessonNN/``) say to a learner comes
from their catalogs: a wrong answer in the Chinese edition reads Chinese where an audit found
English (a scenario's title in 09.6's list, the value 05's not-JSON hint names, the fields 07.4's
hint lists when there are none, the label of 04.3's hidden cases), the English edition reads
what it read before.

The wrong answers are the ones the lessons' check tests already prove break one rule.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from test_check_feedback import failure_in, wrong_answer
from test_other_domains import ROOT, prose_strings

from course_lib.checks.core import outcome
from course_lib.checks.scenarios import PartlyRight
from course_lib.i18n import speaking


def scenarios_failed(rule_id: str, lang: str) -> PartlyRight:
    (build,) = wrong_answer("lesson09.test_assistant", "09.6", rule_id)
    with speaking(lang):
        result = outcome("09.6", build)
    assert isinstance(result, PartlyRight), str(result)
    return result


def test_a_failed_scenarios_title_is_said_in_the_language_and_recorded_in_english():
    """09.6 listed each failed scenario with its English title (``✗ price_zh（the price, asked in
    Chinese）``); the grader's record of a scenario keeps the English one."""
    chinese, english = scenarios_failed("shop", "zh-CN"), scenarios_failed("shop", "en")
    said, was = str(chinese), str(english)
    assert said.startswith("练习 09.6（ShopAssistant）未通过。")
    assert "  ✗ price_zh（用中文询问价格）：" in said
    assert "\n场景 price_zh：用中文询问价格\n" in said
    assert "  ✗ malformed（模型发来的调用参数不是 JSON）：" in said
    assert was.startswith("Exercise 09.6 (ShopAssistant) is not right yet.")
    assert "  ✗ price_zh (the price, asked in Chinese): " in was
    assert "\nScenario price_zh: the price, asked in Chinese\n" in was
    titles = [[o.record()["title"] for o in r.outcomes] for r in (chinese, english)]
    assert titles[0] == titles[1] and "the price, asked in Chinese" in titles[0]
    shown = str(scenarios_failed("calculator", "zh-CN"))  # a scenario the notebook shows
    assert "  ✗ eval（一个冲着 eval 来的表达式）：" in shown


def other_stub_hint(raising: str, lang: str) -> str:
    """09.6's hint when the assistant reaches another exercise's stub: ``route`` (09.1) raising
    its NotImplementedError, or the constructor raising one."""
    wrong_answer("lesson09.test_assistant", "09.6", "shop")  # puts tests/checks on the path
    from lesson09._assistants import notebook_with

    assistant = notebook_with()
    if raising == "route":

        def route(question):
            raise NotImplementedError("Exercise 09.1: keywords per category")

        assistant.ask.__globals__["route"] = route
    else:

        class assistant:  # noqa: N801 (the learner's class)
            def __init__(self, client, *, model, shop, approve):
                raise NotImplementedError("Exercise 06.4: not written yet")

    failure = failure_in(lang, "09.6", (assistant,)).failure
    assert failure.hint_key == "other_stub"
    return failure.hint


def test_what_09_6_says_is_not_done_yet_speaks_the_language():
    """The stub 09.6's hint names was "Exercise 09.1" (an f-string), or "a stub raised
    NotImplementedError" (a hint made at import, its field English whatever the language)."""
    assert "一道尚未完成的练习（练习 09.1）" in other_stub_hint("route", "zh-CN")
    assert "an exercise that is not done yet (Exercise 09.1)" in other_stub_hint("route", "en")
    said = other_stub_hint("constructor", "zh-CN")
    assert "（某段占位代码抛出了 NotImplementedError）" in said
    was = other_stub_hint("constructor", "en")
    assert "not done yet (a stub raised NotImplementedError)" in was


def not_plain_data(exercise_id: str, lang: str):
    """A wrong answer to 05.1 (registry.call gets bytes) or 05.6 (it returns the SDK's
    message), and what its failure says in ``lang``."""
    wrong_answer("lesson05.test_agent_loop", "05.1", "arguments")  # puts tests/checks on the path
    from lesson05 import test_agent_loop, test_tool_choice

    if exercise_id == "05.6":
        wrong = test_tool_choice.wrong(("return message.content\n", "return message\n"))
    else:
        loop = test_agent_loop.make_loop()

        def wrong(client, registry, question, **options):
            class Bytes:  # hands registry.call the model's arguments as bytes
                def schemas(self, *args, **kwargs):
                    return registry.schemas(*args, **kwargs)

                def call(self, name, arguments=None):
                    return registry.call(name, arguments.encode())

            return loop(client, Bytes(), question, **options)

    return failure_in(lang, exercise_id, (wrong,)).failure


@pytest.mark.parametrize(
    ("exercise_id", "chinese", "english"),
    [
        ("05.1", "registry.call 收到的调用参数", "the arguments registry.call received"),
        ("05.6", "返回的回答", "the answer"),
    ],
)
def test_what_must_be_plain_data_is_named_in_the_language(exercise_id, chinese, english):
    """05's not-JSON hint named the value in English (and 05.1's crashed on its ``TEXTS``, a
    plain dict without ``.text``)."""
    said, was = not_plain_data(exercise_id, "zh-CN"), not_plain_data(exercise_id, "en")
    assert said.hint_key == was.hint_key == "not_json"
    assert said.hint.startswith(f"{chinese} 必须是纯数据：") and said.expected == "纯 JSON 数据"
    assert was.hint.startswith(f"{english} must be plain data: dicts with string keys")


def test_the_fields_an_extraction_error_names_when_the_reply_is_not_json_speak_the_language():
    """07.4's hint on an error that does not name the model put "none: the reply is not JSON" in
    its list of fields."""
    wrong_answer("lesson07.test_extract", "07.4", "message")  # puts tests/checks on the path
    from lesson07.notebook import solution

    right, extraction_error = solution("extract"), solution("ExtractionError")

    def extract(client, text, schema_model, **options):  # names nothing when there is no JSON
        try:
            return right(client, text, schema_model, **options)
        except extraction_error as error:
            if schema_model.__name__ != "Trip":
                raise
            raise extraction_error("The reply is not JSON.") from error.__cause__

    said, was = (failure_in(lang, "07.4", (extract,)).failure for lang in ("zh-CN", "en"))
    assert said.hint_key == was.hint_key == "message"
    assert "schema 模型（Trip）和校验失败的字段（没有：回复不是 JSON）：" in said.hint
    assert "(Trip) and the fields that failed (none: the reply is not JSON): " in was.hint


def test_the_label_of_a_hidden_validation_case_speaks_the_language():
    """04.3's hidden cases were labelled "validate_arguments(schema, ...) with properties ..."."""
    from course_lib.checks.lesson04.validate_arguments.cases import SCHEMAS
    from course_lib.reference.validation import validate_arguments as reference

    def validate_arguments(schema, arguments):  # right on the notebook's schemas only
        return reference(schema, arguments) if schema in SCHEMAS.values() else []

    said, was = (
        failure_in(lang, "04.3", (validate_arguments,)).failure for lang in ("zh-CN", "en")
    )
    assert said.case.startswith("validate_arguments(schema, {") and "，properties 为 {" in said.case
    assert was.case == said.case.replace("，properties 为 {", " with properties {")
    assert " with properties " not in said.case


# -- the scan: no English prose built in a lesson's check module outside its catalogs ------------

LESSON_CHECKS = sorted((ROOT / "course_lib" / "checks").glob("lesson[0-9][0-9]/**/*.py"))
# The English the scan (``prose_outside_catalogs``, as for the shared check modules) finds in the
# lessons' check modules and lets pass, each group for its reason; each text exactly as written
# (an f-string with ``{}`` for each value), the code's by how it starts.
EXAMPLE_DATA = (  # what the learner's code is given or the check's model says, in both editions
    # the user's questions
    "What's the weather in 北京?", "What's the weather in Paris and London?",
    "Compare three cities", "Weather in {a} and {b}, please.", "What's the weather in {a}?",
    "weather and time",
    "What is the weather in 北京, 上海 and Paris?", "What time is it in London?",
    "What is the weather in {a} and {b}?", "What's the weather in {a} and {b}?",
    "Weather in {a}, please.", "Berlin and 东京", "What time is it in Paris?",
    "Find my notes about 北京", "Which tags do I use?", "豆腐, and all my notes", "Read note 9",
    "北京 notes, please", "Keep looking for 北京", "Look up {k}",
    "What's the delivery weather in 北京 and 上海 tomorrow?",
    "Where is my order A1003? Are there notes on it?", "Is the oolong tea in stock?",
    "Add a note to order A1001: “{}”", "What do the notes on A1001 say?",
    "Find every tea you sell, one by one.", "Cancel order A1002.", "Cancel order A1002, please.",
    "Where is my order A1001?", "Prices of our green teas?", "Is it raining in 北京?",
    "Weather everywhere, one city at a time.", "And Paris?", "Hi, quick question:",
    "Could you tell me", "Be brief.",
    # the texts 07.4 extracts from
    "{} lives in {} and is {}.", "Alice is 30 and lives in Paris.", "Bob lives in London.",
    "张三 spends 4 nights in 上海 and 北京.",
    # what the check's model, tools and shop say
    "Thought: about {}.\nAction: {}{}\nAction Input:", "Action: get_news", "I give up.",
    "RuntimeError: {} is down for {}", "Let me check.", "Checking the weather for you.",
    "Let me look both up.", "Paris is cloudy. Let me look up the time there too.",
    "Paris is cloudy, not sunny.", " London has rain.", "Paris is cloudy; it is noon there.",
    "Sorry, I cannot answer that.", "小雪 light snow", "tea no. {}",
    "the model was asked {} times for one question and stops answering",
    "Lovely scent, a little sweet. ", "你好！How can I help?", "Here you are.",
    "(an earlier answer)",
    # the descriptions and docstrings of the learner's tools the check builds
    "The order number, e.g. 51234", " (int, optional)", "How many days.",
    "Use this tool for 天气 questions.",
)  # fmt: skip
CODE = (  # source the check runs or shows as code (a case's call, a parameter, a class)
    "Hello, name", "from openai.types.chat import", "class Choice{}({}):\n", "str, Enum",
    "*prices: float", "**options: str", "unit: str = 'c'", "fn = getattr(getattr(cls, 'call'",
    "\nfor name, entry in entries.items():", "returned is function", "registry.tool(find_city",
    "[{'城市': '北京', 'n': n} for n", "import json\n", '{"error": "Repeated call',
    "AsyncMeetingRegistry(count, down", "MeetingRegistry(count, down", "\nreply = call_as(",
    "isError: false", "Chat Completions", "converse(client, registry, messages, model={}{})",
)  # fmt: skip
MATCHED = (  # words of a library's or API's own error message the check looks for
    "is down for", "running event loop", "input_schema: Input should be a valid dictionary",
    "returned list", "did not return structured content", "empty array",
    "did not have response", "No tool output found",
)  # fmt: skip
NEVER_SHOWN = (  # an oracle's or the check's own error: a bug of the check's author
    "not a container of 03.3: {}", "values of mixed or unsupported types: {}",
    "not a Literal or an Enum: {}", "not in the table of 03.4: {}",
    "building the tool {} failed: {}", "unknown role {}",
    # a case's context, said in the learner's language by its CASE_TEXTS entry (spoken_label)
    "where its classes are defined above it",
)  # fmt: skip
ALLOWED = (*EXAMPLE_DATA, *MATCHED, *NEVER_SHOWN)


def lesson_prose(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """(line, text) of each string with English prose the scan finds in ``path`` (``source``:
    instead of the file's)."""
    return prose_strings(ast.parse(path.read_text(encoding="utf-8") if source is None else source))


def allowed(text: str) -> bool:
    return text in ALLOWED or text.startswith(CODE)


def unlisted(path: Path, source: str | None = None) -> list[str]:
    where = path.relative_to(ROOT)
    return [f"{where}:{line}: {text!r}" for line, text in lesson_prose(path, source)
            if not allowed(text)]  # fmt: skip


def test_no_sentence_of_a_lessons_check_modules_is_built_outside_a_catalog():
    assert len(LESSON_CHECKS) > 100  # every lesson's modules and its exercises' folders
    found = [line for path in LESSON_CHECKS for line in unlisted(path)]
    assert not found, "learner-facing text outside a catalog:\n" + "\n".join(found)


def test_each_text_the_lesson_scan_lets_pass_is_still_there():
    """A text that is gone (or moved to a catalog) leaves its list."""
    texts = [text for path in LESSON_CHECKS for _, text in lesson_prose(path)]
    assert [entry for entry in ALLOWED if entry not in texts] == []
    assert [start for start in CODE if not any(t.startswith(start) for t in texts)] == []


@pytest.mark.parametrize(
    ("module", "fixed", "english", "found"),
    [
        ("lesson07/extract/__init__.py", 'names or text("no_fields")',
         'names or "none: the reply is not JSON"', "none: the reply is not JSON"),
        ("lesson05/tool_choice.py", 'text("the_answer")', '"the answer"', "the answer"),
        ("lesson05/agent_loop/__init__.py", 'verdict.text("sent")',
         '"the arguments registry.call received"', "the arguments registry.call received"),
        ("lesson04/validate_arguments/cases.py",
         'translate(PHRASES, "hidden_case", arguments=arguments, properties=shown)',
         'f"validate_arguments(schema, {arguments}) with properties {shown}"',
         "validate_arguments(schema, {}) with properties {}"),
        ("lesson09/assistant/scenarios.py", 'TITLE_TEXTS.english("price_zh")',
         '"the price, asked in Chinese"', "the price, asked in Chinese"),
    ],
)  # fmt: skip
def test_the_lesson_scan_fails_on_each_english_text_put_back(module, fixed, english, found):
    """Each text the fixes above moved to a catalog, written back as it was, is caught."""
    path = ROOT / "course_lib" / "checks" / module
    source = path.read_text(encoding="utf-8")
    assert source.count(fixed) == 1 and unlisted(path, source) == []
    (caught,) = unlisted(path, source.replace(fixed, english))
    assert caught.endswith(f": {found!r}")
