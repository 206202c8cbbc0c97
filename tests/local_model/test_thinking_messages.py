"""The reasoning model on Anthropic's Messages API: extended thinking through the real SDK.

A ``thinking`` block with a ``signature`` opens each reply that thinks; in a tool loop it must
come back unchanged, first in the assistant message, or the request is refused with the real
API's words. ``redacted_thinking``, ``display: "omitted"``, the budget's rules and usage too.
Every reply and stream event is validated with the SDK's types in strict mode.
"""

from __future__ import annotations

import anthropic
import pytest
from local_model_fixtures import WEATHER, for_anthropic
from strict_replies import checked_clients

from course_lib.local_model import make_anthropic_client
from course_lib.local_model.thinking_blocks import REDACTING_PROMPT

REASONING = "local-toy-reasoning"
TOOLS = [for_anthropic(WEATHER)]
QUESTION = {"role": "user", "content": "What's the weather in Beijing and 上海?"}
ENABLED = {"type": "enabled", "budget_tokens": 1024}


@pytest.fixture(params=["in-process", "http"])
def claude(request, http_server):
    base_url = None if request.param == "in-process" else http_server.base_url
    with checked_clients(base_url) as (_, anthropic_client):
        yield anthropic_client


def ask(claude, messages=None, **options):
    options.setdefault("model", REASONING)
    options.setdefault("max_tokens", 2048)
    options.setdefault("tools", TOOLS)
    return claude.messages.create(messages=messages or [QUESTION], **options)


def results(message) -> dict:
    blocks = [
        {"type": "tool_result", "tool_use_id": block.id, "content": "晴, 21°C"}
        for block in message.content
        if block.type == "tool_use"
    ]
    return {"role": "user", "content": blocks}


def loop(first, content=None) -> list[dict]:
    """The question, the assistant turn (its content, or ``content``), then the results."""
    turn = {"role": "assistant", "content": first.content if content is None else content}
    return [QUESTION, turn, results(first)]


def dumped(message) -> list[dict]:
    return [block.model_dump(exclude_none=True) for block in message.content]


# -- the reply ------------------------------------------------------------------------------------


def test_a_thinking_block_with_a_signature_comes_before_the_calls(claude):
    reply, plain = ask(claude, thinking=ENABLED), ask(claude, model="local-toy", thinking=ENABLED)
    assert [b.type for b in reply.content] == ["thinking", "tool_use", "tool_use"]
    assert [b.type for b in plain.content] == ["tool_use", "tool_use"]  # it never thinks
    thinking = reply.content[0]
    assert 'get_weather(city="Beijing")' in thinking.thinking and len(thinking.signature) > 40
    assert [b.input for b in reply.content[1:]] == [b.input for b in plain.content]
    usage = reply.usage
    assert usage.output_tokens_details.thinking_tokens > 0
    assert (
        usage.output_tokens
        == plain.usage.output_tokens + usage.output_tokens_details.thinking_tokens
    )


def test_the_reasoning_model_thinks_unless_told_not_to(claude):
    assert ask(claude).content[0].type == "thinking"  # adaptive by default
    assert ask(claude, thinking={"type": "adaptive"}).content[0].type == "thinking"
    reply = ask(claude, thinking={"type": "disabled"})
    assert [b.type for b in reply.content] == ["tool_use", "tool_use"]
    assert reply.usage.output_tokens_details is None


def test_a_chinese_question_is_thought_about_in_chinese(claude):
    reply = ask(claude, [{"role": "user", "content": "北京天气怎么样？"}])
    assert "用户问" in reply.content[0].thinking


def test_effort_sets_how_much_is_thought(claude):
    tokens = [
        ask(claude, output_config={"effort": effort}).usage.output_tokens_details.thinking_tokens
        for effort in ("low", "medium", "high")
    ]
    assert tokens == sorted(set(tokens))
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(claude, output_config={"effort": "extreme"})
    assert caught.value.body["error"]["message"] == (
        "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"
    )


# -- the tool-use turn ----------------------------------------------------------------------------


def test_the_thinking_block_sent_back_unchanged_completes_the_tool_loop(claude):
    first = ask(claude, thinking=ENABLED)
    final = ask(claude, loop(first), thinking=ENABLED)
    assert [b.type for b in final.content] == ["text"]  # enabled: one thought per turn
    assert "晴" in final.content[0].text
    adaptive = ask(claude, loop(first))
    assert [b.type for b in adaptive.content] == ["thinking", "text"]  # interleaved


def test_the_blocks_round_trip_as_plain_dicts_too(claude):
    first = ask(claude, thinking=ENABLED)
    assert ask(claude, loop(first, dumped(first)), thinking=ENABLED).content[0].type == "text"


def test_dropping_the_thinking_block_is_the_real_400(claude):
    first = ask(claude, thinking=ENABLED)
    for content in (dumped(first)[1:], [*dumped(first)[1:], dumped(first)[0]]):  # dropped, moved
        with pytest.raises(anthropic.BadRequestError) as caught:
            ask(claude, loop(first, content), thinking=ENABLED)
        assert caught.value.body["error"]["message"] == (
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            "`tool_use`. When `thinking` is enabled, a final `assistant` message must start with "
            "a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` "
            "blocks). We recommend you include thinking blocks from previous turns. To avoid "
            "this requirement, disable `thinking`. Please consult our documentation at "
            "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
        )


def test_without_thinking_on_the_block_may_be_left_out(claude):
    first = ask(claude, thinking=ENABLED)
    content = dumped(first)[1:]
    assert ask(claude, loop(first, content), thinking={"type": "disabled"}).content
    assert ask(claude, loop(first, content), model="local-toy").content


def test_a_new_question_may_leave_earlier_thinking_out(claude):
    first = ask(claude, thinking=ENABLED)
    final = ask(claude, loop(first), thinking=ENABLED)
    history = [*loop(first, dumped(first)[1:]), {"role": "assistant", "content": final.content}]
    follow_up = [*history, {"role": "user", "content": "And in Tokyo?"}]
    assert ask(claude, follow_up, thinking=ENABLED).content[0].type == "thinking"


@pytest.mark.parametrize("part", ["thinking", "signature"])
def test_a_changed_thinking_block_is_refused(claude, part):
    first = ask(claude, thinking=ENABLED)
    block = dumped(first)[0]
    block[part] = block[part][:-4] + ("AAAA" if part == "signature" else " ok.")
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(claude, loop(first, [block, *dumped(first)[1:]]), thinking=ENABLED)
    assert caught.value.body["error"]["message"] == (
        "messages.1.content.0: Invalid `signature` in `thinking` block"
    )


def test_a_made_up_thinking_block_is_refused_even_in_an_earlier_turn(claude):
    first = ask(claude, thinking=ENABLED)
    fake = {"type": "thinking", "thinking": "I will call it.", "signature": "c2lnbmF0dXJl"}
    history = [*loop(first, [fake, *dumped(first)[1:]]), {"role": "assistant", "content": "ok"}]
    with pytest.raises(anthropic.BadRequestError):
        ask(claude, [*history, {"role": "user", "content": "thanks"}], thinking=ENABLED)


# -- redacted and omitted thinking ----------------------------------------------------------------


def test_the_documented_test_string_gets_redacted_thinking_that_round_trips(claude):
    question = {"role": "user", "content": f"What's the weather in Paris?\n\n{REDACTING_PROMPT}"}
    first = ask(claude, [question], thinking=ENABLED)
    assert [b.type for b in first.content] == ["redacted_thinking", "tool_use"]
    turn = {"role": "assistant", "content": dumped(first)}
    assert ask(claude, [question, turn, results(first)], thinking=ENABLED).content
    changed = {**dumped(first)[0], "data": dumped(first)[0]["data"][:-4] + "AAAA"}
    turn = {"role": "assistant", "content": [changed, *dumped(first)[1:]]}
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(claude, [question, turn, results(first)], thinking=ENABLED)
    assert "cannot be modified" in caught.value.body["error"]["message"]


def test_omitted_display_sends_empty_thinking_whose_signature_still_holds_it(claude):
    first = ask(claude, thinking={**ENABLED, "display": "omitted"})
    block = first.content[0]
    assert block.type == "thinking" and block.thinking == "" and block.signature
    assert first.usage.output_tokens_details.thinking_tokens > 0
    assert ask(claude, loop(first), thinking=ENABLED).content
    forged = {**dumped(first)[0], "thinking": "I thought something else."}
    with pytest.raises(anthropic.BadRequestError):
        ask(claude, loop(first, [forged, *dumped(first)[1:]]), thinking=ENABLED)


# -- the budget's rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"thinking": {"type": "enabled", "budget_tokens": 1023}},
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 2048}},
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
            "documentation at https://docs.claude.com/en/docs/build-with-claude/"
            "extended-thinking#max-tokens-and-context-window-size",
        ),
        (
            {"thinking": {"type": "enabled"}},
            "thinking.enabled.budget_tokens: Field required",
        ),
        (
            {"thinking": ENABLED, "tool_choice": {"type": "any"}},
            "Thinking may not be enabled when tool_choice forces tool use.",
        ),
        (
            {"thinking": {"type": "sometimes"}},
            "thinking: Input tag 'sometimes' found using 'type' does not match any of the "
            "expected tags: 'enabled', 'disabled', 'adaptive', 'between_tools'",
        ),
    ],
)
def test_the_thinking_budgets_rules_are_the_real_apis(claude, options, message):
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(claude, **options)
    assert caught.value.body["error"]["message"] == message


def test_the_rules_hold_for_the_default_model_too(claude):
    with pytest.raises(anthropic.BadRequestError):
        ask(claude, model="local-toy", thinking={"type": "enabled", "budget_tokens": 100})


def test_thinking_counts_toward_max_tokens(claude):
    cut = ask(claude, max_tokens=20)
    assert [b.type for b in cut.content] == ["thinking"] and cut.stop_reason == "max_tokens"
    assert cut.usage.output_tokens == cut.usage.output_tokens_details.thinking_tokens <= 20
    answer = [{"role": "user", "content": "Tell me a joke about databases."}]
    roomy = claude.messages.create(model=REASONING, max_tokens=4000, messages=answer)
    room = roomy.usage.output_tokens_details.thinking_tokens + 5
    short = claude.messages.create(model=REASONING, max_tokens=room, messages=answer)
    assert [b.type for b in short.content] == ["thinking", "text"]
    assert short.stop_reason == "max_tokens" and short.usage.output_tokens <= room


# -- streaming ------------------------------------------------------------------------------------


def test_the_stream_helper_assembles_thinking_and_its_signature(claude):
    plain = ask(claude, thinking=ENABLED)
    with claude.messages.stream(
        model=REASONING, max_tokens=2048, messages=[QUESTION], tools=TOOLS, thinking=ENABLED
    ) as stream:
        kinds = [e.delta.type for e in stream if e.type == "content_block_delta"]
        streamed = stream.get_final_message()
    assert "thinking_delta" in kinds and kinds.count("signature_delta") == 1
    assert dumped(streamed)[0] == dumped(plain)[0]  # the same text, the same signature
    assert ask(claude, loop(streamed), thinking=ENABLED).content


def test_the_models_endpoint_lists_the_reasoning_model_in_anthropics_shape():
    claude = make_anthropic_client()
    listed = claude.models.list()
    assert [m.id for m in listed.data] == ["local-toy", REASONING]
    assert listed.last_id == REASONING
    card = claude.models.retrieve(REASONING)
    assert card.display_name == "Local toy reasoning model (course_lib)"
