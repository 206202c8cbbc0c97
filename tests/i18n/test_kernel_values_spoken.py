"""What a check's kernel-side text says of a learner's value (lesson 05's meeting registry, lesson
08's ``kernel_side``) travels as data and is said on the check's side, in the learner's language:
where a value stops being JSON, a stand-in for a value whose repr raised, the exchange that took
too long. The English a check prints is what it printed before, byte for byte."""

from __future__ import annotations

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
