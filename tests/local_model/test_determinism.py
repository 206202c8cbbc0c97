"""Ids, timestamps and usage are deterministic under a seed, so notebook outputs never change."""

from __future__ import annotations

from local_model_fixtures import WEATHER, user

from course_lib.local_model import MODEL, make_client
from course_lib.local_model.wire import count_tokens

REQUEST = dict(model=MODEL, messages=user("Weather in Beijing and Shanghai?"), tools=[WEATHER])


def replies(seed: int, n: int = 3):
    client = make_client(seed=seed)
    return [client.chat.completions.create(**REQUEST) for _ in range(n)]


def test_the_same_seed_gives_the_same_ids_timestamps_and_usage_on_a_fresh_client():
    first = [r.model_dump() for r in replies(0)]
    second = [r.model_dump() for r in replies(0)]
    assert first == second


def test_ids_have_the_real_prefixes_and_differ_between_replies_of_one_client():
    made = replies(0)
    ids = [r.id for r in made]
    call_ids = [c.id for r in made for c in r.choices[0].message.tool_calls]
    assert all(i.startswith("chatcmpl-") for i in ids) and len(set(ids)) == 3
    assert all(i.startswith("call_") for i in call_ids) and len(set(call_ids)) == 6
    assert [r.created for r in made] == sorted({r.created for r in made})


def test_a_different_seed_gives_different_ids():
    assert replies(0, 1)[0].id != replies(1, 1)[0].id


def test_token_counts_are_a_quarter_of_ascii_characters_plus_one_per_chinese_character():
    assert count_tokens("abcd") == 1
    assert count_tokens("abcde") == 2
    assert count_tokens("北京") == 2
    assert count_tokens("") == 0


def test_the_model_name_is_echoed_back_whatever_it_is():
    reply = make_client().chat.completions.create(model="any-name-at-all", messages=user("hi"))
    assert reply.model == "any-name-at-all"
