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


# -- Responses items and Anthropic blocks -------------------------------------------------------


def responses_conversation() -> list[dict]:
    return [
        {"type": "message", "role": "user", "content": "北京和上海的天气?"},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_a",
            "name": "get_weather",
            "arguments": '{"city": "北京"}',
        },
        {
            "type": "function_call",
            "id": "fc_2",
            "call_id": "call_b",
            "name": "get_weather",
            "arguments": '{"city": "上海"}',
        },
        {"type": "function_call_output", "call_id": "call_a", "output": '{"temp": 21}'},
        {"type": "function_call_output", "call_id": "call_b", "output": '{"temp": 25}'},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "北京 21 °C, 上海 25 °C."}],
        },
    ]


def anthropic_conversation() -> list[dict]:
    return [
        {"role": "user", "content": "北京和上海的天气?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {
                    "type": "tool_use",
                    "id": "toolu_a",
                    "name": "get_weather",
                    "input": {"city": "北京"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_b",
                    "name": "get_weather",
                    "input": {"city": "上海"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": '{"temp": 21}'},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_b",
                    "content": '{"error": "no station"}',
                    "is_error": True,
                },
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "北京 21 °C."}]},
    ]


def pair_colours(html: str, call_id: str) -> list[str]:
    boxes = html.split(f'data-call-id="{call_id}"')[1:]
    return [box.split("border-left:4px solid ", 1)[1][:7] for box in boxes]


def test_responses_items_pair_each_function_call_with_its_output_by_call_id():
    view = ConversationView(responses_conversation())
    assert view.format == "responses"
    assert view.unanswered == [] and view.orphans == []
    assert pair_colours(view.html.value, "call_a") == [PALETTE[0]] * 2
    assert pair_colours(view.html.value, "call_b") == [PALETTE[1]] * 2
    text = view.text()
    assert text.splitlines()[:2] == [
        "user: 北京和上海的天气?",
        "function_call [call_a] get_weather",
    ]
    assert "function_call_output [call_b] get_weather:" in text
    assert text.endswith("assistant: 北京 21 °C, 上海 25 °C.")


def test_a_function_call_without_its_output_is_flagged_in_the_responses_words():
    items = responses_conversation()
    del items[4]
    view = ConversationView(items)
    assert view.unanswered == ["call_b"]
    assert "! unanswered call call_b: no function_call_output answers it" in view.text()
    assert "Call call_b was never answered: add a function_call_output" in view.html.value


def test_an_output_for_an_unknown_call_id_is_an_orphan():
    items = responses_conversation()
    items[3] = {**items[3], "call_id": "fc_1"}  # the item id, not the call_id
    view = ConversationView(items)
    assert view.orphans == [3] and view.unanswered == ["call_a"]
    assert "Orphan: no earlier assistant call has the id fc_1." in view.html.value


def test_anthropic_tool_use_blocks_pair_with_tool_results_in_the_next_user_message():
    view = ConversationView(anthropic_conversation())
    assert view.format == "anthropic"
    assert view.unanswered == [] and view.orphans == []
    for index, call_id in enumerate(["toolu_a", "toolu_b"]):
        assert pair_colours(view.html.value, call_id) == [PALETTE[index]] * 2
    text = view.text()
    assert "assistant: Let me look.\n  tool_use [toolu_a] get_weather" in text
    assert "user:\n  tool_result [toolu_a] get_weather:" in text
    assert "  tool_result [toolu_b] get_weather (is_error):" in text
    assert "!" not in text


def test_a_result_sent_as_a_tool_role_to_anthropic_is_flagged():
    messages = anthropic_conversation()[:2]
    messages.append({"role": "tool", "tool_call_id": "toolu_a", "content": "21"})
    view = ConversationView(messages)
    assert view.unanswered == ["toolu_b"]
    assert "the Messages API has no tool role" in view.text()
    assert "The Messages API has no tool role" in view.html.value
    assert "add a tool_result with this tool_use_id to the next user message" in view.html.value


def test_an_anthropic_result_a_message_too_late_is_flagged():
    messages = anthropic_conversation()
    results = messages[2]
    messages[2] = {"role": "user", "content": "and?"}
    messages.insert(3, {"role": "assistant", "content": "ok"})
    messages.insert(4, results)
    view = ConversationView(messages)
    assert view.unanswered == []
    assert "! toolu_a is answered, but not in the message right after its tool_use" in view.text()


def test_anthropic_sdk_blocks_inside_a_dict_message_are_read():
    from anthropic.types import TextBlock, ToolUseBlock

    blocks = [
        TextBlock(type="text", text="查一下。"),
        ToolUseBlock(type="tool_use", id="toolu_1", name="get_weather", input={"city": "上海"}),
    ]
    messages = [
        {"role": "user", "content": "上海?"},
        {"role": "assistant", "content": blocks},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "晴"}],
        },
    ]
    view = ConversationView(messages)
    assert view.unanswered == [] and "tool_use [toolu_1] get_weather" in view.text()
    assert '"city": "上海"' in view.text()


def test_a_real_responses_round_trip_from_the_local_model_is_drawn_without_flags():
    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str) -> dict:
        """Get the current weather for a city."""
        return {"city": city, "temp": 21}

    client = make_client()
    tools = registry.schemas(format="responses")
    first = client.responses.create(model=MODEL, input="北京和上海的天气", tools=tools)
    outputs = [
        {
            "type": "function_call_output",
            "call_id": item.call_id,
            "output": registry.call(item.name, item.arguments),
        }
        for item in first.output
    ]
    final = client.responses.create(
        model=MODEL, input=outputs, previous_response_id=first.id, tools=tools
    )
    view = ConversationView(
        [{"role": "user", "content": "北京和上海的天气"}, *first.output, *outputs, *final.output]
    )
    assert view.unanswered == [] and view.orphans == []
    assert [view.colour_of(item.call_id) for item in first.output] == list(PALETTE[:2])
