"""Exercise 07.1, ``responses_round_trip(client, registry, question, *, model) -> str``: one
tool round trip over the OpenAI Responses API.

The learner's function gets a real ``openai.OpenAI`` client whose requests a model session on
the check's side answers and records (``session.exchanges``); the registry is built beside the
learner's code from the source text the check runs too (``_registry.REGISTRY_SOURCE``). The check
judges what was really sent: the model name, the flat tools, the question, one
``function_call_output`` per call paired by ``call_id``, each holding the registry's result, and a
second request that continues the conversation one way or the other, not both. Two cases ask
``local-toy-reasoning``, whose replies start with a ``reasoning`` item: a whole conversation sent
back without it is what the real API refuses, and the check names it whether or not the model did
(calls rebuilt without their ids pass the model, but lose the thoughts). Rules, the case that
breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail
from course_lib.checks.core import Rule
from course_lib.checks.learner import raised_with
from course_lib.checks.lesson07._registry import (
    CHECK_MODEL,
    MORE_QUESTION,
    REASONING_MODEL,
    ROUND_TRIP_HINTS,
    ROUND_TRIP_TEXTS,
    WEATHER_QUESTION,
    RoundTrip,
    asks_for_more,
    labeller,
    text_of_response,
    tools,
)
from course_lib.checks.lesson07.responses_round_trip.continuation import HINTS as CONTINUATION_HINTS
from course_lib.checks.lesson07.responses_round_trip.continuation import (
    diagnose_second_request,
    is_the_question,
)

TEXTS = Catalog(also=(ROUND_TRIP_TEXTS,)) | {
    "case": "responses_round_trip(client, registry, {question}, model={model})",
    "the_tools": 'registry.schemas(format="responses")',
    "first_input": "the first request's input",
    "text_beside": "a reply with text beside its calls ({count} call(s)): run them first",
}
text = TEXTS.text
case_label = labeller(TEXTS)

WEATHER_CASE = case_label(WEATHER_QUESTION)
HELLO_CASE = case_label("Hello!")
MORE_CASE = case_label(MORE_QUESTION)
BESIDE_QUESTION = "Is it sunny in 北京 or in Paris?"
BESIDE_CASE = case_label(BESIDE_QUESTION)
CALLS_ONLY_QUESTION = "And the time in Paris, then in 东京?"
REASONING_CASE = case_label(WEATHER_QUESTION, REASONING_MODEL)

RULES = (
    Rule("model", "pass `model=model` to every request", case=WEATHER_CASE, hint="model"),
    Rule("tools", 'pass `tools=registry.schemas(format="responses")` to every request',
         case=WEATHER_CASE, hint="tools"),
    Rule("first_input", "the first request's input is the question: `input=question`",
         case=WEATHER_CASE, hint="first_input"),
    Rule("no_calls", "a reply without `function_call` items is the answer: return its "
         "`output_text`", case=HELLO_CASE, hint="no_calls"),
    Rule("text_beside", "a reply with text beside its calls is not", case=BESIDE_CASE,
         hint="text_beside"),
    Rule("every_call", 'run every `function_call` item with '
         '`registry.call(item.name, item.arguments)`, one output each: '
         '`{"type": "function_call_output", "call_id": ..., "output": ...}`', case=WEATHER_CASE,
         hint="every_call"),
    Rule("call_id", "its `call_id` is the call's `call_id`, not the item's `id`", case=WEATHER_CASE,
         hint="call_id_not_id"),
    Rule("output", 'its `"output"` is the string `registry.call` returns, unchanged',
         case=WEATHER_CASE, hint="output"),
    Rule("continue", "continue with `previous_response_id=first.id` and only the outputs, *or* "
         "without it and with the whole conversation, never both", case=WEATHER_CASE, hint="both"),
    Rule("reasoning", "the whole conversation is the question, every item of the reply as it "
         "came, then the outputs: `reasoning` items too, since a reasoning model refuses calls "
         "sent back without them", case=REASONING_CASE, hint="reasoning_dropped"),
    Rule("second_request", "send that second request", case=WEATHER_CASE, hint="send_again"),
    Rule("no_third", "send no third, even when the second reply asks for more calls",
         case=MORE_CASE, hint="one_round_trip"),
    Rule("returns_text", "return the second response's `output_text`, a `str`", case=WEATHER_CASE,
         hint="return_text"),
)  # fmt: skip

HINTS = Catalog(also=(CONTINUATION_HINTS, ROUND_TRIP_HINTS)) | {
    "no_request": "Call client.responses.create.",
    "tools": (
        'Pass tools=registry.schemas(format="responses") to every request: the tools are not '
        "carried over by previous_response_id."
    ),
    "tools_every": (
        'Pass tools=registry.schemas(format="responses") to every request, this one too: a '
        "request offers the model only the tools it carries itself; the conversation you send "
        "in input holds the calls and their outputs, never the tools."
    ),
    "tools_strict": (
        'These tools differ from registry.schemas(format="responses") in "strict": send them '
        'as the registry gives them. A tool without "strict" is made strict by the Responses '
        'API, and "strict": true on a schema that is not to_strict\'s makes optional '
        "parameters mandatory."
    ),
    "tools_chat": (
        'These are Chat Completions tools (nested under "function"); the Responses API wants '
        'the flat ones: registry.schemas(format="responses").'
    ),
    "first_input": "The first request's input is the question itself (input=question).",
    "no_calls": "The reply has no function_call items: return its output_text right away.",
    "text_beside": (
        "This reply holds text beside its function_call items, so it is not the answer yet: "
        "run its calls and send the outputs. Only a reply without function_call items is the "
        "answer; look for them, not for output_text."
    ),
    "send_again": (
        "After running the calls, send one more request with the outputs and return its "
        "output_text."
    ),
    "one_round_trip": (
        "One round trip: at most two requests. Return the second reply's output_text even when "
        "it asks for more calls (looping until the answer is lesson 05's run_agent)."
    ),
    "return_text": "Return the text: the last response's output_text.",
    "return_content": "Return the output_text of the last response, unchanged.",
    "flat_items": (
        "Responses items are flat: item.name, item.arguments and item.call_id (there is no "
        ".function)."
    ),
    "item_not_a_call": (
        "Not every item of a reply is a call: a message item (text beside the calls) or a "
        "reasoning item (a reasoning model's thoughts, first) has no call_id, name or "
        'arguments. Pick the calls by item.type == "function_call".'
    ),
    "not_chat": (
        "client.responses.create returns a Response: read .output and .output_text, not .choices."
    ),
}
hint = HINTS.hint


EXCEPTION_HINTS = [
    (raised_with("AttributeError", "'ResponseReasoningItem'"), hint("item_not_a_call")),
    (raised_with("AttributeError", "'ResponseOutputMessage'"), hint("item_not_a_call")),
    (raised_with("AttributeError", "'function'"), hint("flat_items")),
    (raised_with("AttributeError", "'choices'"), hint("not_chat")),
    (raised_with("TypeError", "subscriptable"), hint("flat_items")),
]


def conversations() -> list[tuple[str, Any, str]]:
    """(question, policy or None for the default toy model, model), the visible ones first."""
    from course_lib.local_model import HeuristicPolicy, ScriptedPolicy, Turn, call

    three = [
        call("get_weather", city="北京"),
        call("get_time", city="上海"),
        call("get_weather", city="东京"),
    ]
    paris = call("get_time", city="Paris")
    # Text beside the calls of the first reply: not the answer yet.
    beside = Turn(
        "Let me look both up.",
        (call("get_weather", city="北京"), call("get_weather", city="Paris")),
    )
    cases: list[tuple[str, Any, str]] = [
        (WEATHER_QUESTION, None, CHECK_MODEL),
        ("Hello!", None, CHECK_MODEL),
        ("What time is it in Paris?", None, CHECK_MODEL),
        ("北京、上海和东京", ScriptedPolicy([three], then=HeuristicPolicy()), CHECK_MODEL),
        (MORE_QUESTION, asks_for_more(), CHECK_MODEL),
        (BESIDE_QUESTION, ScriptedPolicy([beside], then=HeuristicPolicy()), CHECK_MODEL),
        # The second reply only asks for more calls: its output_text is "", still the answer.
        (CALLS_ONLY_QUESTION, ScriptedPolicy([paris, call("get_time", city="东京")]), CHECK_MODEL),
        (WEATHER_QUESTION, None, REASONING_MODEL),
        ("Hello!", None, REASONING_MODEL),
    ]
    return cases


def chat_tools_key(sent: Any, body: dict) -> str:
    """The hint for tools that are not the registry's Responses ones."""
    chat = isinstance(sent, list) and any(isinstance(t, dict) and "function" in t for t in sent)
    key = "tools_chat" if chat else "tools_strict" if only_strict_differs(sent) else ""
    return key or ("tools" if body.get("previous_response_id") else "tools_every")


def judge_first(case: str, question: str, exchanges: list, finished: bool) -> tuple[bool, bool]:
    """The first request's input is the question, and text beside calls is not taken for the
    answer. Its reply asks for calls when it holds ``function_call`` items (both answers)."""
    __tracebackhide__ = True
    first = exchanges[0]
    sent = first.request.get("input")
    if not is_the_question(sent, question) or first.request.get("previous_response_id"):
        fail(case, question, sent, hint("first_input"), where=text("first_input"))
    calls = [i for i in first.reply.get("output") or [] if i.get("type") == "function_call"]
    if calls and finished and len(exchanges) < 2 and text_of_response(first.reply):
        shown = Plain(text("text_beside", count=len(calls)))
        fail(case, shown, Plain(text("requests", count=1)), hint("text_beside"))
    return bool(calls), bool(calls)


def only_strict_differs(sent: Any) -> bool:
    """The tools are the registry's but for their ``strict`` key (left out, or flipped)."""
    expected = tools("responses")
    if not isinstance(sent, list) or len(sent) != len(expected):
        return False
    if not all(isinstance(tool, dict) for tool in sent):
        return False
    bare = [{k: v for k, v in t.items() if k not in ("strict", "parameters")} for t in sent]
    wanted = [{k: v for k, v in t.items() if k not in ("strict", "parameters")} for t in expected]
    return bare == wanted and [t.get("strict") for t in sent] != [t["strict"] for t in expected]


ROUND_TRIP = RoundTrip(
    "responses_round_trip",
    api="openai",
    seed=700,
    texts=TEXTS,
    hints=HINTS,
    judge_first=judge_first,
    judge_second=diagnose_second_request,
    tools_key=chat_tools_key,
    exception_hints=EXCEPTION_HINTS,
)
ROUND_TRIP.register("07.1", points=3, rules=RULES, conversations=conversations)
