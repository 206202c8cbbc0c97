"""Exercise 07.2, ``chat_to_responses_input(messages) -> list[dict]``: a Chat Completions
conversation as Responses API input items.

The conversations are plain JSON; the function runs on each beside the learner's code, which
also reports whether the list it was given changed. The oracle is the contract as code
(``expected_items``). Rules, the case that breaks each, and the hint that names it: see
``RULES``.

One module because it is one exercise's check: the contract and hint tables and the visible
conversations are most of its lines, and the oracle (``expected_items``) and the hints read
the same conversation shapes (``call``, ``tool``, ``shape``); apart, each would import the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from random import Random
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, raise_learner_error
from course_lib.checks.lesson07._registry import NOTEBOOK, PLACES
from course_lib.reference.responses_input import chat_to_responses_input

TEXTS = Catalog() | {
    "case": "chat_to_responses_input(<{shape}>)",
    "with_calls": "assistant with {count} call(s)",
    "with_text_and_calls": "assistant with text and {count} call(s)",
    "unchanged": "the messages you were given, unchanged",
    "changed": "they were changed",
    "a_list": "a list of items",
    "summary": "{count} conversations",
}
text = TEXTS.text


def call(call_id: str, name: str, arguments: dict) -> dict:
    arguments_text = json.dumps(arguments, ensure_ascii=False)
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments_text},
    }


def tool(call_id: str, content: Any) -> dict:
    content = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": call_id, "content": content}


TEXT_ONLY = [
    {"role": "user", "content": "你好"},
    {"role": "assistant", "content": "你好！有什么可以帮你？"},
]
ROUND_TRIP = [
    {"role": "user", "content": "北京和上海的天气怎么样？"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            call("call_a1", "get_weather", {"city": "北京"}),
            call("call_b2", "get_weather", {"city": "上海"}),
        ],
    },
    tool("call_a1", {"city": "北京", "sky": "晴"}),
    tool("call_b2", {"city": "上海", "sky": "多云"}),
    {"role": "assistant", "content": "北京晴，上海多云。"},
]
TEXT_AND_CALL = [
    {"role": "system", "content": "Answer briefly."},
    {"role": "user", "content": "What time is it in Paris?"},
    {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [call("call_t1", "get_time", {"city": "Paris"})],
    },
    tool("call_t1", "06:00"),
    {"role": "assistant", "content": "It is 06:00 in Paris."},
]


def shape(messages: list[dict]) -> str:
    """A conversation's shape, e.g. ``user, assistant with 2 call(s), tool, tool, assistant``."""
    parts = []
    for message in messages:
        calls = message.get("tool_calls") or []
        if not calls:
            parts.append(message["role"])
        elif message.get("content"):
            parts.append(text("with_text_and_calls", count=len(calls)))
        else:
            parts.append(text("with_calls", count=len(calls)))
    return ", ".join(parts)


def case_label(messages: list[dict]) -> str:
    return text("case", shape=shape(messages))


TEXT_CASE, ROUND_TRIP_CASE, TEXT_AND_CALL_CASE = map(
    case_label, (TEXT_ONLY, ROUND_TRIP, TEXT_AND_CALL)
)

RULES = (
    Rule("message", 'a system, developer, user or assistant message with text becomes '
         '`{"type": "message", "role": <its role>, "content": <its content>}`, with the `"type"` '
         'written out', case=TEXT_CASE, hint="missing_type"),
    Rule("no_empty_message", 'an assistant message without text (content `None` or `""`) adds no '
         'message item', case=ROUND_TRIP_CASE, hint="empty_message"),
    Rule("text_then_calls", "an assistant message with text and calls gives its message item "
         "first, then its calls", case=TEXT_AND_CALL_CASE, hint="text_first"),
    Rule("function_call", "each tool call becomes `{\"type\": \"function_call\", \"call_id\": "
         "<the call's id>, \"name\": ..., \"arguments\": ...}`", case=ROUND_TRIP_CASE,
         hint="call_id_key"),
    Rule("arguments", '`"arguments"` stays the JSON string it is', case=ROUND_TRIP_CASE,
         hint="arguments_string"),
    Rule("output", 'each tool message becomes `{"type": "function_call_output", "call_id": <its '
         'tool_call_id>, "output": <its content>}`', case=ROUND_TRIP_CASE, hint="tool_role"),
    Rule("order", "the items keep the conversation's order", case=ROUND_TRIP_CASE, hint="order"),
    Rule("unchanged", "the messages you are given stay as they were: build new dicts",
         case=TEXT_CASE, hint="changed"),
)  # fmt: skip

HINTS = Catalog() | {
    "not_list": "Return a list of items (dicts), one list for the whole conversation.",
    "missing_type": (
        'Your message items have no "type". The Responses API accepts that (a role makes it a '
        "message), so they are equivalent, but this exercise asks for the explicit "
        '"type": "message" on each.'
    ),
    "parts": (
        "Your message content is a list of text parts. The API accepts that too, but this "
        "exercise asks you to keep the content string as it is."
    ),
    "empty_message": (
        "An assistant message whose content is None (or empty) holds only calls: it becomes no "
        "message item, only its function_call items."
    ),
    "text_first": (
        "An assistant message with text and calls becomes its message item first, then one "
        "function_call item per call."
    ),
    "split_calls": (
        "Responses has no tool_calls list: each call becomes an item of its own, "
        '{{"type": "function_call", "call_id", "name", "arguments"}}.'
    ),
    "call_id_key": (
        'The call\'s id goes under "call_id" (an item\'s "id" is the API\'s own, fc_...).'
    ),
    "arguments_string": (
        "Keep arguments as the JSON string the call holds: do not json.loads it, or encode it "
        "again (json.dumps would also turn 北京 into \\u5317\\u4eac)."
    ),
    "flat_call": (
        'A function_call item is flat: "name" and "arguments" sit beside "call_id", not under '
        '"function".'
    ),
    "item_id": (
        'Leave "id" out of a function_call item: it is the API\'s own item id (fc_...), and the '
        'real API refuses one that does not begin with fc. The call\'s id goes under "call_id".'
    ),
    "call_id_value": (
        'A function_call item\'s "call_id" is the id of the call it comes from, '
        "tool_call[\"id\"], unchanged; a function_call_output's is the tool message's "
        "tool_call_id."
    ),
    "output_string": (
        "A function_call_output's \"output\" is the tool message's content, the string it is: "
        "do not decode it."
    ),
    "roles": (
        "Every system, developer, user or assistant message with text becomes one message item "
        "with its role as it is (an assistant's text too when it also has calls)."
    ),
    "extra_keys": (
        "Write only the keys the table shows for each kind of item (Where names the extra one)."
    ),
    "tool_role": (
        'Responses has no tool role: a tool message becomes {{"type": "function_call_output", '
        '"call_id": <its tool_call_id>, "output": <its content>}}.'
    ),
    "order": "Keep the conversation's order: one message after the other, as they came.",
    "changed": (
        "Your function changed the messages it was given. Build new dicts for the items and "
        "leave the conversation as it was."
    ),
}
hint = HINTS.hint


def expected_items(messages: list[dict]) -> list[dict]:
    """The oracle: the contract as code, which is the reference's conversion."""
    return chat_to_responses_input(messages)


def hidden_conversations(rng: Random, count: int = 4) -> list[list[dict]]:
    conversations = []
    for number in range(count):
        messages: list[dict] = []
        if rng.random() < 0.5:
            messages.append({"role": rng.choice(["system", "developer"]), "content": "Be brief."})
        for turn in range(rng.randint(1, 2)):
            places = rng.sample(PLACES, rng.randint(1, 3))
            messages.append({"role": "user", "content": "、".join(places) + "的天气？"})
            calls = [
                call(f"call_{number}{turn}{i}x{rng.randint(100, 999)}", "get_weather", {"city": p})
                for i, p in enumerate(places)
            ]
            preface = rng.choice([None, "", "我查一下。"])
            messages.append({"role": "assistant", "content": preface, "tool_calls": calls})
            for tool_call, place in zip(calls, places, strict=True):
                messages.append(tool(tool_call["id"], {"city": place, "temperature": 20 + turn}))
            messages.append({"role": "assistant", "content": f"{places[0]} 20 °C."})
        conversations.append(messages)
    return conversations


def hints(expected: list[dict]) -> list[tuple]:
    """Likely mistakes, most specific first; each predicate sees the returned JSON."""

    def items_of(got: Any, kind: str) -> list[dict]:
        return [i for i in got if isinstance(i, dict) and i.get("type", "message") == kind]

    def some(kind: str | None, test: Callable[[dict], bool]) -> Callable[[Any], bool]:
        """Whether an item of ``kind`` (or any dict, for ``None``) passes ``test``."""
        of_kind = (lambda i: True) if kind is None else (lambda i: i.get("type", "message") == kind)
        return lambda got: any(test(i) for i in got if isinstance(i, dict) and of_kind(i))

    def without_type(items: list) -> list:
        return [
            {k: v for k, v in i.items() if k != "type"} if i.get("type") == "message" else i
            for i in items
        ]

    def text_after_calls() -> list[dict]:
        moved = list(expected)
        for index in range(len(moved) - 1):
            item, after = moved[index], moved[index + 1]
            if item.get("role") == "assistant" and after.get("type") == "function_call":
                end = index + 1
                while end < len(moved) and moved[end].get("type") == "function_call":
                    end += 1
                moved[index:end] = [*moved[index + 1 : end], item]
        return moved

    def messages_of(items: list) -> list:
        return [(i.get("role"), i.get("content")) for i in items_of(items, "message")]

    def bad_output(got: list) -> bool:
        outputs = items_of(got, "function_call_output")
        wrong_keys = any(
            "output" not in i or "call_id" not in i or "tool_call_id" in i for i in outputs
        )
        return wrong_keys or len(outputs) < len(items_of(expected, "function_call_output"))

    def call_ids(items: list) -> list:
        paired = items_of(items, "function_call") + items_of(items, "function_call_output")
        return sorted(f"{i['type']} {i.get('call_id')}" for i in paired)

    def reencoded(got: list) -> bool:
        sent = [i.get("arguments") for i in items_of(got, "function_call")]
        wanted = [i["arguments"] for i in items_of(expected, "function_call")]
        return sorted(map(str, sent)) != sorted(wanted)

    def extra_keys(got: list) -> str:
        allowed = {kind: set(i) for i in expected for kind in [i["type"]]}
        extra = {
            key
            for i in got
            if isinstance(i, dict) and i.get("type") in allowed
            for key in set(i) - allowed[i["type"]]
        }
        return ", ".join(sorted(extra))

    def same_items(got: Any) -> bool:
        canon = sorted(json.dumps(i, sort_keys=True, ensure_ascii=False) for i in got)
        return canon == sorted(json.dumps(i, sort_keys=True, ensure_ascii=False) for i in expected)

    return [
        (lambda got: not isinstance(got, list), hint("not_list")),
        (some(None, lambda i: i.get("role") == "tool"), hint("tool_role")),
        (some(None, lambda i: "tool_calls" in i), hint("split_calls")),
        (lambda got: without_type(expected) == got, hint("missing_type")),
        (some("message", lambda i: isinstance(i.get("content"), list)), hint("parts")),
        (some("message", lambda i: not i.get("content")), hint("empty_message")),
        (some("function_call", lambda i: "function" in i), hint("flat_call")),
        (some("function_call", lambda i: "call_id" not in i), hint("call_id_key")),
        (some("function_call", lambda i: "id" in i), hint("item_id")),
        (bad_output, hint("tool_role")),
        (
            some("function_call_output", lambda i: not isinstance(i.get("output"), str)),
            hint("output_string"),
        ),
        (
            some("function_call", lambda i: not isinstance(i.get("arguments"), str)),
            hint("arguments_string"),
        ),
        (lambda got: got == text_after_calls() and got != expected, hint("text_first")),
        (lambda got: messages_of(got) != messages_of(expected), hint("roles")),
        (lambda got: call_ids(got) != call_ids(expected), hint("call_id_value")),
        (reencoded, hint("arguments_string")),
        (same_items, hint("order")),
        (extra_keys, hint("extra_keys")),
    ]


RUN = """\
import copy
given = copy.deepcopy(messages)
got = chat_to_responses_input(messages)
changed = messages != given
"""


@exercise(
    "07.2", notebook=NOTEBOOK, title="chat_to_responses_input", points=2, rules=RULES, hints=HINTS
)
def check_chat_to_responses_input(learner: Learner) -> str:
    visible = [TEXT_ONLY, ROUND_TRIP, TEXT_AND_CALL]
    table = [*visible, *hidden_conversations(hidden_rng("07.2"))]
    for messages in table:
        case = case_label(messages)
        reply = learner.run(
            RUN,
            result="{'got': got, 'changed': changed}",
            bind={
                "chat_to_responses_input": learner.target("chat_to_responses_input"),
                "messages": messages,
            },
        )
        if reply.raised:
            raise_learner_error(case, reply)
        if "unjson" in reply.data:
            shown = Plain(reply.data.get("repr", "")[:300])
            fail(case, Plain(text("a_list")), shown, hint("not_list"), where=reply.data["unjson"])
        got = reply.value["got"]
        expected = expected_items(messages)
        expect_equal(case, expected, got, hints=hints(expected))
        if reply.value["changed"]:
            fail(case, Plain(text("unchanged")), Plain(text("changed")), hint("changed"))
    return text("summary", count=len(table))
