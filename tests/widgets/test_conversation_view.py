"""ConversationView's model without a browser: pairing, flags, colours and the transcript."""

from __future__ import annotations

import json

from course_lib.local_model import MODEL, make_client
from course_lib.reference import ToolRegistry
from course_lib.reference.loop import run_agent
from course_lib.widgets import ConversationView
from course_lib.widgets.base import PALETTE


def call(call_id: str, name: str, arguments: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def weather_conversation() -> list[dict]:
    return [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "北京和上海的天气?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                call("call_a", "get_weather", '{"city": "北京"}'),
                call("call_b", "get_weather", '{"city": "上海"}'),
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": '{"temp": 21}'},
        {"role": "tool", "tool_call_id": "call_b", "content": '{"temp": 25}'},
        {"role": "assistant", "content": "北京 21 °C, 上海 25 °C."},
    ]


def test_a_call_and_its_answer_share_a_colour_given_by_call_order():
    view = ConversationView(weather_conversation())
    assert view.colour_of("call_a") == PALETTE[0]
    assert view.colour_of("call_b") == PALETTE[1]
    html = view.html.value
    # each call id appears on its call box and on its answer box, in its own colour
    for call_id, colour in (("call_a", PALETTE[0]), ("call_b", PALETTE[1])):
        boxes = html.split(f'data-call-id="{call_id}"')[1:]
        assert len(boxes) == 2
        assert all(f"border-left:4px solid {colour}" in box[:80] for box in boxes)


def test_a_complete_conversation_has_no_flags():
    view = ConversationView(weather_conversation())
    assert view.unanswered == [] and view.orphans == []
    assert "course-flag" not in view.html.value
    assert "!" not in view.text()


def test_an_unanswered_call_is_flagged():
    messages = weather_conversation()
    del messages[4]  # the answer to call_b
    view = ConversationView(messages)
    assert view.unanswered == ["call_b"]
    assert "Call call_b was never answered" in view.html.value
    assert "! unanswered call call_b: no tool message answers it" in view.text()


def test_an_orphan_tool_message_is_flagged():
    messages = weather_conversation()
    messages.insert(5, {"role": "tool", "tool_call_id": "call_zzz", "content": "stray"})
    view = ConversationView(messages)
    assert view.orphans == [5]
    assert "Orphan: no earlier assistant call has the id call_zzz." in view.html.value
    assert "! orphan: no earlier assistant call has the id call_zzz" in view.text()


def test_an_answer_before_its_call_is_an_orphan_and_the_call_stays_unanswered():
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_1", "content": "too early"},
        {"role": "assistant", "content": None, "tool_calls": [call("call_1", "f", "{}")]},
    ]
    view = ConversationView(messages)
    assert view.orphans == [1]
    assert view.unanswered == ["call_1"]


def test_arguments_are_pretty_printed_without_escaping_unicode():
    text = ConversationView(weather_conversation()).text()
    assert '    {\n      "city": "北京"\n    }' in text
    assert "\\u" not in text


def test_arguments_that_are_not_json_are_shown_raw_and_flagged():
    messages = [{"role": "assistant", "content": None, "tool_calls": [call("c1", "f", '{"a": ')]}]
    view = ConversationView(messages)
    assert "! the arguments are not valid JSON" in view.text()
    assert "The arguments are not valid JSON." in view.html.value


def test_the_transcript_is_indented_by_role():
    text = ConversationView(weather_conversation()).text()
    assert text.splitlines()[:4] == [
        "system: Answer briefly.",
        "user: 北京和上海的天气?",
        "assistant:",
        "  call [call_a] get_weather",
    ]
    assert "tool [call_b] get_weather:" in text
    assert text.endswith("assistant: 北京 21 °C, 上海 25 °C.")


def test_html_escapes_message_text():
    view = ConversationView([{"role": "user", "content": "<script>alert(1)</script>"}])
    assert "<script>" not in view.html.value
    assert "&lt;script&gt;" in view.html.value


def test_update_redraws_with_new_messages():
    view = ConversationView(weather_conversation()[:3])
    assert view.unanswered == ["call_a", "call_b"]
    view.update(weather_conversation())
    assert view.unanswered == []
    assert "上海 25 °C" in view.html.value


def test_an_agent_result_from_the_local_model_displays_as_its_conversation():
    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str) -> dict:
        """Get the current weather for a city."""
        return {"city": city, "temp": 21}

    result = run_agent(make_client(), registry, "What's the weather in 北京?", model=MODEL)
    view = ConversationView(result)
    assert view.messages == result.messages
    assert view.unanswered == [] and view.orphans == []
    assert view.text().startswith(f"(stopped: {result.stopped} after {len(result.steps)} tool call")
    step = result.steps[0]
    assert f"tool [{step.tool_call_id}] get_weather:" in view.text()
    assert json.loads(step.result)["city"] == "北京"


def test_sdk_message_objects_are_accepted():
    from openai.types.chat import ChatCompletionMessage

    message = ChatCompletionMessage(role="assistant", content="done")
    assert ConversationView([message]).text() == "assistant: done"


def test_an_empty_conversation_says_so():
    assert ConversationView([]).text() == "(no messages)"


def test_a_call_with_a_null_custom_field_is_drawn_not_crashed_on():
    messages = [
        {"role": "user", "content": "北京?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "custom": None,
                    "function": {"name": "get_weather", "arguments": '{"city": "北京"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "晴"},
    ]
    view = ConversationView(messages)
    assert view.unanswered == [] and "get_weather" in view.text()
