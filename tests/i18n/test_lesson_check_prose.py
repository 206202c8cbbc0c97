"""What the check modules of the lessons (``course_lib/checks/lessonNN/``) say to a learner comes
from their catalogs: a wrong answer in the Chinese edition reads Chinese where an audit found
English (a scenario's title in 09.6's list, the value 05's not-JSON hint names, the fields 07.3's
hint lists when there are none, the label of 04.3's hidden cases), the English edition reads
what it read before.

The wrong answers are the ones the lessons' check tests already prove break one rule.
"""

from __future__ import annotations

import pytest
from test_check_feedback import failure_in, wrong_answer

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
