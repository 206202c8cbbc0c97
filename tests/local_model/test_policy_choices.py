"""The heuristic policy's choices on a table of requests, English and Chinese.

Each row is a request sent through the real SDK with the same seven tools, and what the toy model
is meant to do: the exact calls (single, parallel, to several tools), or a text reply of a kind:
"clarify" (a required argument is missing), "ambiguous" (two tools tie), "none" (no tool fits).
"""

from __future__ import annotations

import json

import pytest
from local_model_fixtures import CALC, CONVERT, EMAIL, NOTES, TIME, VAGUE, WEATHER, WEB, user

from course_lib.local_model import MODEL, explain_choice, make_client

TOOLS = [WEATHER, NOTES, WEB, CALC, TIME, CONVERT, EMAIL]
W, N, S, C, T, X, E = (t["function"]["name"] for t in TOOLS)

TABLE = [
    # single calls
    ("What's the weather in Beijing?", [(W, {"city": "Beijing"})]),
    ("北京今天天气怎么样？", [(W, {"city": "北京"})]),
    ("Is it going to rain in London tomorrow?", [(W, {"city": "London"})]),
    ("What's the weather in Atlantis in celsius?", [(W, {"city": "Atlantis", "unit": "c"})]),
    ("上海的气温是多少，用华氏度", [(W, {"city": "上海", "unit": "f"})]),
    (
        "Find my notes about python decorators, limit 3",
        [(N, {"keyword": "python decorators", "limit": 3})],
    ),
    ("找一下关于旅行的笔记，最多五条", [(N, {"keyword": "旅行", "limit": 5})]),
    (
        "Search my notes tagged work, travel about budget",
        [(N, {"keyword": "budget", "tags": ["work", "travel"]})],
    ),
    ("What is 12 * (3 + 4)?", [(C, {"expression": "12 * (3 + 4)"})]),
    ("计算 (3 + 4) * 5", [(C, {"expression": "(3 + 4) * 5"})]),
    ("What time is it in Tokyo?", [(T, {"city": "Tokyo"})]),
    ("东京现在几点？", [(T, {"city": "东京"})]),
    (
        "Convert 100 USD to CNY",
        [(X, {"amount": 100, "from_currency": "USD", "to_currency": "CNY"})],
    ),
    ("把200美元换成人民币", [(X, {"amount": 200, "from_currency": "USD", "to_currency": "CNY"})]),
    (
        'Send an email to Alice with the subject "Lunch on Friday"',
        [(E, {"recipient": "Alice", "subject": "Lunch on Friday"})],
    ),
    ("给张三发邮件，主题是“周五开会”", [(E, {"recipient": "张三", "subject": "周五开会"})]),
    ('Search the web for "tool calling"', [(S, {"query": "tool calling"})]),
    ("上网搜索“大模型工具调用”", [(S, {"query": "大模型工具调用"})]),
    # several things for one single-valued parameter: parallel calls
    (
        "Weather in Beijing, Shanghai and Shenzhen in fahrenheit",
        [(W, {"city": c, "unit": "f"}) for c in ("Beijing", "Shanghai", "Shenzhen")],
    ),
    ("北京、上海和深圳的天气", [(W, {"city": c}) for c in ("北京", "上海", "深圳")]),
    (
        "Look up the time in New York and San Francisco",
        [(T, {"city": "New York"}), (T, {"city": "San Francisco"})],
    ),
    # one clause per tool: calls to different tools in one turn
    (
        "What's the weather in Paris? Also what time is it in London?",
        [(W, {"city": "Paris"}), (T, {"city": "London"})],
    ),
    ("北京天气怎么样？另外帮我算一下 2+3", [(W, {"city": "北京"}), (C, {"expression": "2+3"})]),
    # no tool fits
    ("Hello!", "none"),
    ("你好", "none"),
    ("Tell me a joke", "none"),
    ("What is the capital of France?", "none"),
    ("Tell me about Beijing", "none"),
    ("给我讲个笑话", "none"),
    # ambiguous: two tools fit equally
    ("Search for python", "ambiguous"),
    ("搜索一下 Python", "ambiguous"),
    # a required argument is missing: ask, do not guess
    ("What's the weather like?", "clarify"),
    ("天气怎么样？", "clarify"),
    ("Search my notes", "clarify"),
    ("Send an email to Bob", "clarify"),
    ("Convert some dollars to euros", "clarify"),
]
TEXT_MARKERS = {
    "clarify": ("I need the", "我还需要知道"),
    "ambiguous": ("more than one tool", "多个工具"),
    "none": ("could not find a tool", "没有找到", "Hello!", "你好！"),
}


def test_the_table_is_big_enough_and_covers_both_languages():
    assert len(TABLE) >= 30
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in q) for q, _ in TABLE) >= 10


@pytest.mark.parametrize("request_text, expected", TABLE, ids=[q for q, _ in TABLE])
def test_the_heuristic_policy_does_what_the_table_says(request_text, expected):
    reply = make_client().chat.completions.create(
        model=MODEL, messages=user(request_text), tools=TOOLS
    )
    message = reply.choices[0].message
    if isinstance(expected, list):
        got = [
            (c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []
        ]
        assert got == expected, message.content
        assert message.content is None and reply.choices[0].finish_reason == "tool_calls"
    else:
        assert message.tool_calls is None, message.tool_calls
        assert any(marker in message.content for marker in TEXT_MARKERS[expected]), message.content


QUESTIONS = ["What's the weather in Beijing?", "北京今天天气怎么样？", "Is it sunny in Shanghai?"]


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_vague_description_makes_the_model_miss_the_tool(question):
    reply = make_client().chat.completions.create(
        model=MODEL, messages=user(question), tools=[VAGUE, NOTES]
    )
    assert reply.choices[0].message.tool_calls is None


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_good_description_of_the_same_tool_makes_it_hit(question):
    better = json.loads(json.dumps(VAGUE))
    better["function"]["description"] = "Get the current weather (temperature, sky) for a city."
    reply = make_client().chat.completions.create(
        model=MODEL, messages=user(question), tools=[better, NOTES]
    )
    assert [c.function.name for c in reply.choices[0].message.tool_calls] == ["lookup"]


def test_explain_choice_shows_scores_threshold_choice_and_a_table():
    explanation = explain_choice("What's the weather in Beijing?", [VAGUE, WEATHER, NOTES])
    assert explanation.chosen == ["get_weather"]
    assert list(explanation.scores)[0] == "get_weather"
    assert explanation.scores["get_weather"] >= explanation.threshold > explanation.scores["lookup"]
    assert explanation.scores["search_notes"] == 0
    table = repr(explanation)
    assert table == str(explanation)
    assert "threshold: 0.40" in table and "calls: get_weather" in table
    assert "weather→description" in table
    row = next(line for line in table.splitlines() if line.startswith("get_weather"))
    assert "yes" in row


def test_explain_choice_reports_ties_and_misses():
    tie = explain_choice("Search for python", [NOTES, WEB])
    assert tie.chosen == [] and tie.ambiguous == ["search_notes", "search_web"]
    assert "ambiguous" in str(tie)
    miss = explain_choice("Tell me a joke", [NOTES, WEB])
    assert miss.chosen == [] and "no tool reaches the threshold" in str(miss)


def test_explain_choice_agrees_with_what_the_model_calls():
    for request_text, expected in TABLE:
        if isinstance(expected, list):
            names = list(dict.fromkeys(name for name, _ in expected))
            assert explain_choice(request_text, TOOLS).chosen == names, request_text


def _field_text(tool: dict, field_name: str) -> str:
    function = tool["function"]
    if field_name != "parameters":
        return function[field_name]
    return json.dumps(function["parameters"]["properties"], ensure_ascii=False)


def _occurs(word: str, text: str) -> bool:
    """``word`` is in ``text``, as it is or (English) with the same crude stem."""
    from course_lib.local_model.text import WORD, stem

    return word.lower() in text.lower() or stem(word) in {stem(w) for w in WORD.findall(text)}


def test_every_matched_word_names_a_word_the_tool_really_has():
    """A label is "word→field" when the word is in that field, "word→field (tool word)" for a
    synonym, and "place→argument (tool word)" for a place or person; the named word is there."""
    checked = 0
    for request_text, _expected in TABLE:
        explanation = explain_choice(request_text, TOOLS)
        for tool in TOOLS:
            for label in explanation.matched[tool["function"]["name"]]:
                word, _, where = label.partition("→")
                field_name, _, bracket = where.partition(" (")
                tool_word = bracket.rstrip(")") or word
                fields = ["description", "name", "parameters"]
                texts = [_field_text(tool, f) for f in fields if field_name in (f, "argument")]
                assert any(_occurs(tool_word, text) for text in texts), (request_text, label)
                checked += 1
    assert checked > 40


def test_a_synonym_and_a_place_are_labelled_with_the_tool_word_they_matched():
    shipping = json.loads(json.dumps(WEB))
    shipping["function"]["description"] = "Search the web for shipping times."
    explanation = explain_choice("快递 88812 到哪里了? Will it rain in 北京?", [shipping, WEATHER])
    assert "快递→description (shipping)" in explanation.matched["search_web"]
    assert "北京→argument (city)" in explanation.matched["get_weather"]
    assert "rain→description (weather)" in explanation.matched["get_weather"]


def test_a_tie_says_how_close_the_scores_must_be():
    assert "within 0.05" in str(explain_choice("Search for python", [NOTES, WEB]))
