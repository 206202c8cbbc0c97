"""What the driver says of itself (a request it could not answer) and of a value it could not
read is said in the learner's language: the driver's reply keeps its English, byte for byte, and
says the same as data (``error_at``), which the check says again in the language in force; a
stand-in for an unreadable value is known by its whole form. A reply a notebook forged chooses
no text beyond the catalog."""

from __future__ import annotations

import json

import pytest
from test_check_feedback import failure_in, wrong_answer

from course_lib.checks.failures import CheckFailed
from course_lib.checks.learner import Learner, spoken_reply
from course_lib.driver import Driver, driver_failed
from course_lib.driver_values import MESSAGES, error_reply, said, said_value
from course_lib.i18n import speaking


def said_by_0103(lang: str, tool_message) -> list[str]:
    return str(failure_in(lang, "01.3", (tool_message,))).splitlines()


def call_id(tool_call) -> str:
    return tool_call["id"] if isinstance(tool_call, dict) else tool_call.id


class Unprintable:
    def __repr__(self):
        raise ValueError("no repr")


class Mute(Exception):
    def __str__(self):
        raise RuntimeError("no message")


def test_a_reply_too_large_to_send_is_said_in_chinese_and_in_english_as_before():
    def tool_message(tool_call, result):
        return {"role": "tool", "tool_call_id": call_id(tool_call), "content": "x" * 2_100_000}

    chinese, english = (said_by_0103(lang, tool_message) for lang in ("zh-CN", "en"))
    assert chinese[-1] == (
        "提示：检查无法在笔记本里运行某个用例（回复超过了 2000000 个字符）。"
        "请重启内核，重新运行上面的单元格，然后再运行这个检查。"
    )
    assert english[-1] == (
        "Hint: The check could not run a case in the notebook (the reply is larger than 2000000 "
        "characters). Restart the kernel, run the cells above again, then run this check."
    )


def test_a_value_whose_repr_raises_is_said_in_chinese_on_the_got_and_where_lines():
    def tool_message(tool_call, result):
        return {"role": "tool", "tool_call_id": call_id(tool_call), "content": Unprintable()}

    chinese, english = (said_by_0103(lang, tool_message) for lang in ("zh-CN", "en"))
    kind = f"{Unprintable.__module__}.Unprintable"  # as the driver names a class of a module
    assert "实际：<dict，它的 repr() 抛出了 ValueError>" in chinese
    assert f"位置：$.content，{kind} 类型的值（<{kind}，它的 repr() 抛出了 ValueError>）" in chinese
    assert "Got:      <dict whose repr() raised ValueError>" in english
    assert f"Where:    at $.content: a {kind} (<{kind} whose repr() raised ValueError>)" in english
    assert not any("whose repr()" in line for line in chinese)


def test_an_exception_whose_message_cannot_be_read_is_said_in_chinese():
    def tool_message(tool_call, result):
        raise Mute()

    chinese, english = (said_by_0103(lang, tool_message) for lang in ("zh-CN", "en"))
    assert "你的代码抛出了 Mute: <无法读取异常的消息>" in chinese
    assert "Your code raised Mute: <the message could not be read>" in english


LINK = Driver({}, link=lambda message: {})
# Each error a request can meet in the driver: the request, the English as the driver always
# wrote it, the Chinese.
ERRORS = {
    "unknown_op": ({"op": "nope"}, "unknown op 'nope'", "未知的操作 'nope'"),
    "malformed_request": (
        {"op": "batch"},
        "malformed request: KeyError: 'requests'",
        "请求格式有误：KeyError: 'requests'",
    ),
    "not_a_spec": (
        {"op": "call", "fn": {"x": 1}},
        "not a value spec: ['x']",
        "不是值的描述：['x']",
    ),
    "no_link": ({"op": "call", "fn": {"client": {}}}, "this driver has no model link", None),
    "no_handle": ({"op": "call", "fn": {"handle": "h9"}}, "no handle 'h9'", "没有句柄 'h9'"),
    "case_failed": (
        {"op": "call", "fn": {"source": "1/0"}},
        "building the case failed: ZeroDivisionError: division by zero",
        "构造用例失败：ZeroDivisionError: division by zero",
    ),
    "unknown_api": (
        {"op": "call", "fn": {"client": {}, "api": "grpc"}},
        "unknown client api 'grpc'",
        "未知的客户端 API 'grpc'",
    ),
}


@pytest.mark.parametrize("key", sorted(ERRORS))
def test_each_error_of_a_request_is_english_as_before_and_said_again_in_chinese(key):
    request, english, chinese = ERRORS[key]
    driver = LINK if key == "unknown_api" else Driver({})
    reply = json.loads(driver.handle_json(json.dumps(request)))
    assert reply["error"] == english and reply["error_at"]["message"] == key
    assert said(reply["error_at"], "en") == english
    assert said(reply["error_at"], "zh-CN") == (chinese or "这个驱动程序没有连接模型")


def test_the_drivers_own_failure_and_a_long_spec_keep_their_english():
    message = "x at 0x7f00aa11 " + "y" * 400
    assert driver_failed("RuntimeError", message)["error"] == (
        "the notebook's driver failed: RuntimeError: " + ("x at 0x… " + "y" * 400)[:300]
    )
    data = driver_failed("OSError", "gone")["error_at"]
    assert said(data, "zh-CN") == "笔记本里的驱动程序出错了：OSError：gone"
    long = Driver({}).handle({"op": "call", "fn": ["z" * 300]})["error"]
    assert long == ("not a value spec: " + repr(["z" * 300]))[:200]
    too_large = error_reply("reply_too_large", limit=2_000_000)
    assert too_large["error"] == "the reply is larger than 2000000 characters"
    tested = {*ERRORS, "driver_failed", "reply_too_large", "repr_raised", "message_unreadable"}
    assert {key for key in MESSAGES if not key.startswith("json_")} == tested


def driver_error(reply: dict, lang: str) -> str:
    learner = Learner.__new__(Learner)
    with speaking(lang), pytest.raises(CheckFailed) as caught:
        learner._checked(reply)
    return str(caught.value.failure.hint)


def test_a_forged_reply_chooses_no_text_beyond_the_catalog():
    forged = (
        {"message": "nope"},
        {"message": "no_handle"},  # a field missing
        {"message": "__class__"},
        "no_link",
        ["no_link"],
    )
    for error_at in forged:
        said_zh = driver_error({"error": "forged words", "error_at": error_at}, "zh-CN")
        assert "（forged words）" in said_zh
    said_zh = driver_error({"error": "forged words", "error_at": {"message": "no_link"}}, "zh-CN")
    assert "（这个驱动程序没有连接模型）" in said_zh  # a catalog sentence, in the language
    with speaking("zh-CN"):
        for text in ("<a b whose repr() raised X>", "<X whose repr() raised a.b>", 12, None):
            assert said_value(text) == text
        assert said_value("<A.<locals>.B whose repr() raised KeyError>") == (
            "<A.<locals>.B，它的 repr() 抛出了 KeyError>"
        )
        assert spoken_reply({"raised": {"message": 3}, "repr": None}) == {
            "raised": {"message": 3},
            "repr": None,
        }


def test_a_loop_returning_an_unprintable_object_is_said_in_chinese():
    """05.2: the kernel describes what the loop returned (``_agent_tools.as_data``); the check
    says its stand-in for the repr in the language in force (``conversation.plain_messages``)."""

    wrong_answer("lesson05.test_fixed_loop", "05.2", "requests")  # puts tests/checks on the path
    from lesson05.test_fixed_loop import make_fixed_loop

    right = make_fixed_loop()

    def fixed_loop(client, registry, question, **kwargs):
        right(client, registry, question, **kwargs)
        return Unprintable()

    chinese, english = (
        str(failure_in(lang, "05.2", (fixed_loop,))).splitlines() for lang in ("zh-CN", "en")
    )
    kind = f"{Unprintable.__module__}.Unprintable"
    assert f"实际：<{kind}，它的 repr() 抛出了 ValueError>" in chinese, chinese
    assert f"Got:      <{kind} whose repr() raised ValueError>" in english, english
