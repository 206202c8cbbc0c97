"""What a check's kernel-side text says of a learner's value (lesson 05's meeting registry, lesson
08's ``kernel_side``) travels as data and is said on the check's side, in the learner's language:
where a value stops being JSON, a stand-in for a value whose repr raised, the exchange that took
too long. The English a check prints is what it printed before, byte for byte."""

from __future__ import annotations

import time

import pytest
from test_check_feedback import failure_in, wrong_answer


class Unprintable:
    def __repr__(self):
        raise ValueError("no repr")


KIND = f"{Unprintable.__module__}.Unprintable"  # as the driver names a class of a module


def test_a_08_3_loop_returning_a_value_whose_repr_raises_is_shown_in_chinese_and_as_before():
    """08.3's kernel side describes what the loop returned (``kernel_side.returned``); its Got
    line showed the driver's English stand-in whatever the language."""
    wrong_answer("lesson08.test_mcp_loop", "08.3", "answer")  # puts tests/checks on the path
    from lesson08.notebook import solution

    right = solution("run_agent_with_mcp")

    async def run_agent_with_mcp(client, session, question, *, model, max_turns=6):
        await right(client, session, question, model=model, max_turns=max_turns)
        return Unprintable()

    chinese, english = (
        failure_in(lang, "08.3", (run_agent_with_mcp,)).failure for lang in ("zh-CN", "en")
    )
    assert chinese.hint_key == english.hint_key == "return_str"
    assert english.got == f"<{KIND} whose repr() raised ValueError>"
    assert chinese.got == f"<{KIND}，它的 repr() 抛出了 ValueError>"


class Raw(bytes):
    """The arguments as bytes, which no repr() can show."""

    def __repr__(self):
        raise ValueError("no repr")


def test_05_3_arguments_whose_repr_raises_are_shown_in_chinese_and_as_before():
    """05.3's meeting registry describes the arguments ``registry.call`` received
    (``MeetingRegistry.observed``); its Got line showed the driver's English stand-in whatever
    the language."""
    wrong_answer("lesson05.test_tool_calls", "05.3", "arguments")  # puts tests/checks on the path
    from lesson05.test_tool_calls import in_threads

    def raw_arguments(registry, tool_call):
        function = tool_call["function"]
        return registry.call(function["name"], Raw(function["arguments"].encode()))

    chinese, english = (
        failure_in(lang, "05.3", (in_threads(raw_arguments),)).failure for lang in ("zh-CN", "en")
    )
    assert chinese.hint_key == english.hint_key == "arguments_unchanged"
    assert english.got == '"<list whose repr() raised ValueError>"'
    assert english.where == "the arguments registry.call received"
    assert chinese.got == '"<list，它的 repr() 抛出了 ValueError>"'
    assert chinese.where == "registry.call 收到的调用参数"


def test_05_3_arguments_that_are_not_json_are_shown_as_their_repr_in_both_languages():
    """Bytes, whose repr is the learner's value: the same in both editions, as before."""
    wrong_answer("lesson05.test_tool_calls", "05.3", "arguments")
    from lesson05.test_tool_calls import in_threads

    def bytes_arguments(registry, tool_call):
        function = tool_call["function"]
        return registry.call(function["name"], function["arguments"].encode())

    chinese, english = (
        failure_in(lang, "05.3", (in_threads(bytes_arguments),)).failure for lang in ("zh-CN", "en")
    )
    assert english.got.startswith('"[b\'{\\"city\\": ') and chinese.got == english.got


# -- lesson 08: what the kernel side or the driver wrote in English, in a raised message ----------


class Mute(Exception):
    def __str__(self):
        raise RuntimeError("no message")


@pytest.fixture
def short_exchanges(monkeypatch):
    """``kernel_side`` with an exchange bounded at 0.5 s (joined for 1.5 s), so that a server
    that blocks its loop outlives the bound in a test's time."""
    wrong_answer("lesson08.test_structured_result", "08.4", "result")  # tests/checks on the path
    from course_lib.checks.lesson08 import _kernel_bridge

    source = _kernel_bridge.KERNEL_SOURCE
    short = source.replace("EXCHANGE_SECONDS = 60.0", "EXCHANGE_SECONDS = 0.5")
    short = short.replace("JOIN_SECONDS = EXCHANGE_SECONDS + 5", "JOIN_SECONDS = 1.5")
    assert "EXCHANGE_SECONDS = 0.5" in short and "JOIN_SECONDS = 1.5" in short
    monkeypatch.setattr(_kernel_bridge, "KERNEL_SOURCE", short)
    monkeypatch.setattr(_kernel_bridge.kernel_side, "JOIN_SECONDS", 1.5)  # the check's side


ENGLISH_TIMEOUT = "The exchange with the MCP server took longer than 1.5 seconds."
CHINESE_TIMEOUT = "与 MCP 服务器的交互超过了 1.5 秒。"


def test_an_08_1_server_that_blocks_its_loop_is_told_the_timeout_in_chinese(short_exchanges):
    """08.1: the kernel side's own timeout (``run_in_fresh_loop``) reached the Got line and the
    ``connect`` hint in English whatever the language."""
    from mcp.server.lowlevel import Server

    def serve_registry(registry):
        async def list_tools(ctx, params):
            time.sleep(3)  # blocks the loop the session runs on: no cancelling it

        async def call_tool(ctx, params):
            return None

        return Server("slow", on_list_tools=list_tools, on_call_tool=call_tool)

    chinese, english = (
        failure_in(lang, "08.1", (serve_registry,)).failure for lang in ("zh-CN", "en")
    )
    assert chinese.hint_key == english.hint_key == "connect"
    assert english.got == ENGLISH_TIMEOUT and f"the server ({ENGLISH_TIMEOUT}): " in english.hint
    assert chinese.got == CHINESE_TIMEOUT and f"服务器（{CHINESE_TIMEOUT}）：" in chinese.hint


def test_an_08_4_result_that_blocks_the_server_is_told_the_timeout_in_chinese(short_exchanges):
    """08.4: the same timeout, raised out of ``serve_structured``, was the English of "your code
    raised"."""
    from lesson08.notebook import solution

    right = solution("structured_result")

    def structured_result(value, output_schema):
        time.sleep(3)  # blocks the server's loop
        return right(value, output_schema)

    chinese, english = (
        str(failure_in(lang, "08.4", (structured_result,))) for lang in ("zh-CN", "en")
    )
    assert f"Your code raised TimeoutError: {ENGLISH_TIMEOUT}" in english
    assert f"你的代码抛出了 TimeoutError: {CHINESE_TIMEOUT}" in chinese, chinese
    assert "exchange with" not in chinese


def test_an_08_4_exception_whose_message_cannot_be_read_is_told_in_chinese_in_the_hint_too():
    """08.4's ``raised`` hint quotes the message of what structured_result raised: the learner's
    own, as it is, or the driver's stand-in for one it could not read, which the hint put in
    English whatever the language."""
    wrong_answer("lesson08.test_structured_result", "08.4", "result")
    from lesson08.notebook import solution

    right = solution("structured_result")

    def unreadable(value, output_schema):
        if isinstance(value, dict) and value.get("temperature") == "27":
            raise Mute()
        return right(value, output_schema)

    def worded(value, output_schema):
        if isinstance(value, dict) and value.get("temperature") == "27":
            raise ValueError("温度不是数字")
        return right(value, output_schema)

    chinese, english = (failure_in(lang, "08.4", (unreadable,)).failure for lang in ("zh-CN", "en"))
    assert chinese.hint_key == english.hint_key == "raised"
    assert english.hint.startswith("structured_result raised (<the message could not be read>);")
    assert chinese.hint.startswith("structured_result 抛出了异常（<无法读取异常的消息>）；")
    assert chinese.raised == "Mute: <无法读取异常的消息>"
    own = [failure_in(lang, "08.4", (worded,)).failure for lang in ("zh-CN", "en")]
    assert own[0].hint.startswith("structured_result 抛出了异常（温度不是数字）；")
    assert own[1].hint.startswith("structured_result raised (温度不是数字);")
