"""The local model's fast paths give exactly what the plain code they replace gives.

Ids, schema checks and the policy's reading of tools are cached or computed a faster way (see
``benchmarks/bench_local_model.py`` for what that buys); every reply must stay byte-identical,
because stored notebook outputs print those ids and replies.
"""

from __future__ import annotations

import copy
import json
import math
import pickle
import random
import sys

import pytest

from course_lib.local_model import memo, protocol, strict_default, tool_schemas, wire
from course_lib.local_model.policy import HeuristicPolicy
from course_lib.local_model.turns import ChatRequest

WEATHER_FUNCTION = {
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}


@pytest.mark.parametrize("alphabet", sorted({style[1] for style in wire.ID_STYLES.values()}))
@pytest.mark.parametrize("seed", [0, 1, 2**40 + 7])
def test_ids_drawn_inline_are_the_characters_random_choice_draws(alphabet, seed):
    fast, reference = random.Random(seed), random.Random(seed)
    for length in (1, 2, 22, 29, 48, 300):
        assert wire.draw_inline(fast, alphabet, length) == wire.draw_by_choice(
            reference, alphabet, length
        )
    assert fast.getstate() == reference.getstate()  # the same bits were consumed


def test_ids_drawn_inline_match_choice_for_an_alphabet_that_is_not_a_power_of_two():
    fast, reference = random.Random(3), random.Random(3)
    for size in (1, 3, 5, 17, 33, 100):
        alphabet = "".join(chr(0x4E00 + i) for i in range(size))
        assert wire.draw_inline(fast, alphabet, 64) == wire.draw_by_choice(reference, alphabet, 64)


@pytest.mark.parametrize("alphabet", sorted({style[1] for style in wire.ID_STYLES.values()}))
@pytest.mark.parametrize("seed", [0, 1, 2**40 + 7])
def test_ids_drawn_many_at_a_time_are_the_characters_random_choice_draws(alphabet, seed):
    fast, reference = random.Random(seed), random.Random(seed)
    for length in (1, 2, 3, 22, 29, 48, 300, 1):
        assert wire.draw_words(fast, alphabet, length) == wire.draw_by_choice(
            reference, alphabet, length
        )
    assert fast.getstate() == reference.getstate()  # not one output more or less was drawn


@pytest.mark.parametrize("size", [1, 2, 3, 5, 17, 63, 64, 65, 127, 128, 200, 255, 256, 300])
def test_ids_drawn_many_at_a_time_match_choice_for_any_alphabet_size(size):
    ascii_alphabet = "".join(chr(33 + i % 94) for i in range(size))  # repeats beyond 94
    for alphabet in (ascii_alphabet, "".join(chr(0x4E00 + i) for i in range(size))):
        fast, reference = random.Random(size), random.Random(size)
        for length in (1, 5, 64):
            assert wire.draw_words(fast, alphabet, length) == wire.draw_by_choice(
                reference, alphabet, length
            )
        assert fast.getstate() == reference.getstate()


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the check is for CPython")
def test_cpython_draws_ids_many_at_a_time_after_checking_that_against_choice():
    assert wire._DRAW is wire.draw_words


def test_the_quick_encoder_writes_what_json_dumps_writes():
    values = [
        {"a": 1, "b": [1.5, -0.0, 1e300, None, True, False], "c": {"d": '北京\n"\u2028'}},
        {1: "int key", 2.5: "float key", None: "null key", False: "bool key"},
        [math.inf, -math.inf, math.nan, 10**30, "\x00\x1f", "\ud800"],
        "a bare string: 上海",
        3.0,
        [],
        {},
        (1, 2),
    ]
    for value in values:
        assert wire.to_json(value) == json.dumps(value, ensure_ascii=False)
    with pytest.raises(TypeError, match="not JSON serializable"):
        wire.to_json({"a": object()})


def _nested(levels: int, leaf: object) -> object:
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def _random_body(generator: random.Random, depth: int = 1) -> object:
    roll = generator.random()
    if depth > 70 or roll < 0.3:
        return generator.choice(["a", "北京", "\ud800x", 1, None, "ok\udfff", ""])
    if roll < 0.65:
        return [_random_body(generator, depth + 1) for _ in range(generator.randint(0, 3))]
    keys = ("k", "键", "\udc00")
    return {
        generator.choice(keys) + str(i): _random_body(generator, depth + 1)
        for i in range(generator.randint(0, 3))
    }


def _shape_verdict(check, body: object) -> str | None:
    try:
        check(body)
    except protocol.ProtocolError as error:
        return f"{error.message} / {error.param}"
    return None


def test_the_quick_body_walk_refuses_exactly_what_the_naming_walk_refuses():
    bodies = [
        _nested(levels, leaf)
        for levels in (62, 63, 64, 65)
        for leaf in (1, {}, [], "\ud800", [1], "北")
    ]
    for seed in range(400):
        generator = random.Random(seed)
        body = {"x": _random_body(generator)}
        bodies.append(_nested(generator.randint(55, 70), body) if seed % 4 == 0 else body)
    verdicts = [_shape_verdict(protocol._find_shape_error, body) for body in bodies]
    assert [_shape_verdict(protocol._check_shape, body) for body in bodies] == verdicts
    assert 50 < sum(v is not None for v in verdicts) < len(bodies) - 50  # both kinds covered


def _parse_verdict(raw: bytes) -> str | None:
    try:
        protocol.parse_body(raw)
    except protocol.ProtocolError as error:
        return f"{error.message} / {error.param}"
    return None


def test_a_body_that_skips_the_walk_is_refused_exactly_when_the_walk_refuses_it():
    bodies = [_nested(levels, leaf) for levels in (30, 62, 63, 64, 65) for leaf in ({}, [1], "x")]
    bodies += [{"x": "a" + "[" * 70}, {"k": "\U0001f600"}, {"\ud83d": 1}, {"k": "\udfff"}]
    for seed in range(300):
        generator = random.Random(seed)
        body = {"x": _random_body(generator)}
        bodies.append(_nested(generator.randint(40, 70), body) if seed % 4 == 0 else body)
    skipped = 0
    for body in bodies:
        expected = _shape_verdict(protocol._find_shape_error, body)
        for ascii_only in (True, False):
            text = json.dumps(body, ensure_ascii=ascii_only)
            for encoding in ("utf-8", "utf-16", "utf-16-le", "utf-32-be"):
                raw = text.encode(encoding, "surrogatepass")
                skipped += protocol._plainly_shaped(raw)
                assert _parse_verdict(raw) == expected, raw[:200]
    assert 100 < skipped < 8 * len(bodies) - 100  # both ways taken


def test_exact_keys_tell_apart_values_json_would_print_differently():
    values = [1, 1.0, True, "1", [1], (1,), {"a": 1, "b": 2}, {"b": 2, "a": 1}, None]
    assert len({memo.exact_key(value) for value in values}) == len(values)
    assert memo.exact_key("x" * (memo.MAX_KEY_CHARS + 1)) is None


def test_a_memo_forgets_the_oldest_beyond_its_size_and_never_keeps_a_failure():
    kept: memo.Memo[int] = memo.Memo(2)
    assert [kept.get_or_make(k, lambda k=k: len(k)) for k in ("a", "bb", "a", "ccc")] == [
        1,
        2,
        1,
        3,
    ]
    assert len(kept) == 2 and kept.hits == 1
    assert kept.get_or_make("bb", lambda: 99) == 99  # "bb" was the least recently used

    def refuse() -> int:
        raise ValueError("no")

    with pytest.raises(ValueError):
        kept.get_or_make("bad", refuse)
    assert kept.get_or_make("bad", lambda: 5) == 5
    assert kept.get_or_make(None, lambda: 6) == 6 and len(kept) == 2


def test_each_caller_gets_its_own_copy_of_a_kept_strict_reading():
    parameters = {"type": "object", "properties": {"city": {"type": "string"}}}
    first = strict_default.strict_reading(parameters)
    first["properties"]["city"]["type"] = "spoiled"  # a policy that changes what it was given
    assert strict_default.strict_reading(parameters) == strict_default.as_the_model_reads_it(
        parameters, strict_default.normalize(parameters)
    )
    assert strict_default.strict_reading({"type": "object"}) is None  # an open map stays loose


def test_a_schema_refused_once_is_refused_again_with_the_wording_for_where_it_is():
    schema = {"type": "object", "properties": {"a": {"enum": "c"}}}
    for label in ("function 'x'", "function 'y'"):
        with pytest.raises(protocol.ProtocolError) as refused:
            tool_schemas.check_keywords(label, schema, param=f"p.{label}", code=None)
        assert label in refused.value.message and refused.value.param == f"p.{label}"


def test_a_copied_or_pickled_policy_answers_alike_with_an_empty_memory_of_its_own():
    policy = HeuristicPolicy()
    request = ChatRequest(
        "m", [{"role": "user", "content": "Weather in 北京?"}], [WEATHER_FUNCTION]
    )
    first = policy.respond(request)
    for twin in (copy.deepcopy(policy), pickle.loads(pickle.dumps(policy))):
        assert len(twin.plans) == 0
        assert twin.respond(request) == first


def test_bypassing_one_memory_leaves_the_others_working():
    one, other = memo.Memo[int](4), memo.Memo[int](4)
    one.get_or_make("k", lambda: 1)
    other.get_or_make("k", lambda: 1)
    with memo.bypassed(one):
        assert one.get_or_make("k", lambda: 2) == 2
        assert other.get_or_make("k", lambda: 2) == 1
    assert one.get_or_make("k", lambda: 3) == 1  # kept again once the block is left


def test_a_memo_forgets_its_oldest_once_its_keys_hold_too_many_characters(monkeypatch):
    monkeypatch.setattr(memo, "MAX_KEPT_CHARS", 25)
    kept: memo.Memo[int] = memo.Memo(100)
    for key in ("a" * 10, "b" * 10, "c" * 10):
        kept.get_or_make(key, lambda: 1)
    assert len(kept) == 2  # 30 characters of keys would be over 25: "aaaaaaaaaa" went
    assert kept.get_or_make("a" * 10, lambda: 2) == 2


TRICKY_STRINGS = ["", " word", '"quoted"\\', "北京\n\t\u2028\x00\x1f", "emoji 🌤", "\ud800"]


def test_a_run_of_events_written_from_one_template_is_each_event_encoded():
    def make(value):
        return {"type": "content_block_delta", "index": 3, "delta": {"type": "t", "text": value}}

    plain = TRICKY_STRINGS[:-1]
    assert list(wire.sse_named_run(make, plain)) == list(wire.sse_named(make(v) for v in plain))
    with pytest.raises(UnicodeEncodeError) as templated:  # a lone surrogate: the same failure
        list(wire.sse_named_run(make, TRICKY_STRINGS[-1:]))
    with pytest.raises(UnicodeEncodeError) as encoded:
        list(wire.sse_named(make(v) for v in TRICKY_STRINGS[-1:]))
    assert str(templated.value) == str(encoded.value)


def test_a_template_refuses_an_event_that_holds_its_value_twice_or_not_at_all():
    for make in (lambda v: {"type": "x", "a": v, "b": v}, lambda v: {"type": "x"}):
        with pytest.raises(ValueError):
            list(wire.sse_named_run(make, ["v"]))


def test_a_messages_stream_is_its_events_encoded_one_by_one():
    from course_lib.local_model import messages_reply

    usage = {"input_tokens": 5, "output_tokens": 9, "output_tokens_details": None}
    content = [
        {"type": "thinking", "thinking": "I think.\n\n北京 first", "signature": "c2ln"},
        {"type": "redacted_thinking", "data": "ZGF0YQ=="},
        {"type": "text", "text": 'Say "hi"\\ 你好', "citations": None},
        {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"城市": "上海", "n": 1.5}},
        {"type": "thinking", "thinking": "", "signature": "b21pdHRlZA=="},
    ]
    message = {"id": "msg_1", "content": content, "stop_reason": "tool_use"}
    message.update(stop_sequence=None, usage=usage)
    expected = list(wire.sse_named(messages_reply.events(message)))
    assert list(messages_reply.stream(message)) == expected
    assert sum(b"content_block_delta" in event for event in expected) > len(content)
