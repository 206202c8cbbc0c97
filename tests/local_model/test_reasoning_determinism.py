"""The reasoning model is deterministic: the same requests get byte-identical replies.

A corpus of reasoning-model requests on the three APIs (calls, round trips built from the
replies, summaries, encrypted content, thinking in every mode, streams, and the refusals for
dropped or altered reasoning) is played with the model's memories bypassed, filling and full,
and over HTTP: every byte must agree. Signatures and encrypted content are sealed with a key
of this process (``seals.py``), so they agree within a process; the seal itself is checked here
too: deterministic, and any change to a sealed value is caught.
"""

from __future__ import annotations

import json

import pytest
import reply_corpus as corpus
from test_reply_corpus import in_process, over_http

from course_lib.local_model import memo, seals
from course_lib.local_model.endpoint import LocalEndpoint
from course_lib.local_model.policy import HeuristicPolicy

MODEL = "local-toy-reasoning"
TOOLS = corpus.TOOL_SETS["weather+notes"]
QUESTIONS = ["What's the weather in Beijing and 上海?", "Find my notes about 'tax return'.", "你好"]
ANTHROPIC = corpus.ANTHROPIC_HEADERS


def play(send: corpus.Send) -> list:
    player = corpus.Player(send)
    for number, question in enumerate(QUESTIONS):
        play_responses(player, f"q{number}", question)
        play_messages(player, f"q{number}", question)
        play_chat(player, f"q{number}", question)
    return player.replies


def play_responses(player: corpus.Player, label: str, question: str) -> None:
    variants = {
        "plain": {},
        "summary": {"reasoning": {"summary": "auto", "effort": "high"}},
        "stateless": {"store": False, "include": ["reasoning.encrypted_content"]},
    }
    for name, options in variants.items():
        body = {
            "model": MODEL,
            "input": question,
            "tools": corpus.responses_tools(TOOLS),
            **options,
        }
        for stream in (False, True):
            player.post(
                f"responses {label} {name} {stream}", "/v1/responses", {**body, "stream": stream}
            )
        first = json.loads(player.post(f"responses {label} {name}", "/v1/responses", body))
        items = [{"role": "user", "content": question}, *first["output"]]
        outputs = [
            {"type": "function_call_output", "call_id": i["call_id"], "output": "晴"}
            for i in first["output"]
            if i["type"] == "function_call"
        ]
        follow = {**body, "input": items + outputs}
        player.post(f"responses {label} {name} by hand", "/v1/responses", follow)
        dropped = {**follow, "input": [i for i in items + outputs if i.get("type") != "reasoning"]}
        player.post(f"responses {label} {name} dropped", "/v1/responses", dropped)
        if name != "stateless":
            chained = {**body, "input": outputs or "thanks", "previous_response_id": first["id"]}
            player.post(f"responses {label} {name} chained", "/v1/responses", chained)


def play_messages(player: corpus.Player, label: str, question: str) -> None:
    variants = {
        "adaptive": {},
        "enabled": {"thinking": {"type": "enabled", "budget_tokens": 1024}},
        "omitted": {"thinking": {"type": "adaptive", "display": "omitted"}},
        "small": {"max_tokens": 30},
    }
    for name, options in variants.items():
        body = {
            "model": MODEL,
            "max_tokens": 2048,
            "messages": [{"role": "user", "content": question}],
            "tools": corpus.anthropic_tools(TOOLS),
            **options,
        }
        for stream in (False, True):
            player.post(
                f"messages {label} {name} {stream}",
                "/v1/messages",
                {**body, "stream": stream},
                ANTHROPIC,
            )
        first = json.loads(player.post(f"messages {label} {name}", "/v1/messages", body, ANTHROPIC))
        calls = [b for b in first.get("content", []) if b["type"] == "tool_use"]
        if not calls:
            continue
        results = [{"type": "tool_result", "tool_use_id": b["id"], "content": "晴"} for b in calls]
        turn = {"role": "assistant", "content": first["content"]}
        follow = {
            **body,
            "messages": [*body["messages"], turn, {"role": "user", "content": results}],
        }
        player.post(f"messages {label} {name} results", "/v1/messages", follow, ANTHROPIC)
        altered = json.loads(json.dumps(follow))
        altered["messages"][1]["content"][0]["signature"] = "c2lnbmF0dXJl"
        player.post(f"messages {label} {name} altered", "/v1/messages", altered, ANTHROPIC)


def play_chat(player: corpus.Player, label: str, question: str) -> None:
    for effort in ("low", "high"):
        body = {
            "model": MODEL,
            "messages": [{"role": "user", "content": question}],
            "tools": corpus.chat_tools(TOOLS),
            "reasoning_effort": effort,
        }
        player.post(f"chat {label} {effort}", "/v1/chat/completions", body)
        streamed = {**body, "stream": True, "stream_options": {"include_usage": True}}
        player.post(f"chat {label} {effort} stream", "/v1/chat/completions", streamed)


@pytest.fixture(scope="module")
def plain_replies() -> list:
    with memo.bypassed():
        return play(in_process(LocalEndpoint(HeuristicPolicy())))


def test_the_corpus_covers_reasoning_thinking_refusals_and_streams(plain_replies):
    bodies = b"".join(body for _, _, _, body in plain_replies)
    statuses = {status for _, status, _, _ in plain_replies}
    for marker in (b'"reasoning"', b'"encrypted_content"', b'"thinking"', b'"signature_delta"'):
        assert marker in bodies
    assert {200, 400} <= statuses and b"required 'reasoning' item" in bodies
    assert b"Invalid `signature`" in bodies and b"summary_text" in bodies


def test_replies_are_byte_identical_with_the_memories_bypassed_filling_and_full(plain_replies):
    memo.forget_everything()
    policy = HeuristicPolicy()
    filling = play(in_process(LocalEndpoint(policy)))
    full = play(in_process(LocalEndpoint(policy)))
    assert filling == plain_replies
    assert full == plain_replies


def test_replies_over_http_are_byte_identical_to_the_ones_in_process(plain_replies):
    assert over_http(play) == plain_replies


# -- the seal -------------------------------------------------------------------------------------


def test_a_seal_is_deterministic_and_opens_only_for_its_purpose():
    payload = {"thinking": "用户问：北京天气", "shown": ""}
    sealed = seals.seal("a", payload)
    assert sealed == seals.seal("a", payload) and seals.unseal("a", sealed) == payload
    assert seals.unseal("b", sealed) is None
    assert seals.seal("a", {**payload, "shown": "x"}) != sealed


def test_any_change_to_a_sealed_value_is_caught():
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    for text in ("ab", "abc", "abcd"):  # sealed lengths 0, 1 and 2 modulo 3: every padding
        sealed = seals.seal("a", {"thinking": text})
        for position in range(len(sealed.rstrip("="))):
            for other in alphabet.replace(sealed[position], ""):
                assert seals.unseal("a", sealed[:position] + other + sealed[position + 1 :]) is None
        for broken in (sealed[:-4], sealed + "AAAA", "", "not base64!", None, 42):
            assert seals.unseal("a", broken) is None
