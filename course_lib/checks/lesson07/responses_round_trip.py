"""Exercise 07.1, ``responses_round_trip(client, registry, question, *, model) -> str``: one
tool round trip over the OpenAI Responses API.

The learner's function gets a real ``openai.OpenAI`` client whose requests a model session on
the check's side answers and records (``session.exchanges``); the registry is built beside the
learner's code from the source text the check runs too (``_shared.REGISTRY_SOURCE``). The check
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

from course_lib.checks.compare import HintText, Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson07._shared import (
    CHECK_MODEL,
    NOTEBOOK,
    random_questions,
    registry_spec,
    text_of_response,
    tool_result,
    tools,
)

TEXTS = {
    "case": "responses_round_trip(client, registry, {question}, model={model})",
    "a_request": "a request to the model",
    "no_request": "no request",
    "request_number": "request {number} of {count} your function sent",
    "no_tools": "no tools (tools= not passed)",
    "the_tools": 'registry.schemas(format="responses")',
    "first_input": "the first request's input",
    "first_succeeds": "a successful first request",
    "requests": "{count} request(s)",
    "second_input": "the second request's input (previous_response_id={previous})",
    "outputs_for": "one function_call_output for each call_id: {call_ids}",
    "whole_conversation": (
        "the question, the reply's function_call items ({call_ids}), then their outputs"
    ),
    "every_item": "the question, every item of the reply ({items}), then the outputs",
    "text_beside": "a reply with text beside its calls ({count} call(s)): run them first",
    "only_outputs": "only the function_call_output items (previous_response_id holds the rest)",
    "output_of": "the output answering {name}({arguments})",
    "summary": "{count} conversations",
}


def text(key: str, **fields: object) -> str:
    return TEXTS[key].format(**fields)


def case_label(question: str, model: str = CHECK_MODEL) -> str:
    return text("case", question=repr(question), model=repr(model))


REASONING_MODEL = "local-toy-reasoning"
WEATHER_QUESTION = "北京和上海的天气怎么样？"
WEATHER_CASE = case_label(WEATHER_QUESTION)
HELLO_CASE = case_label("Hello!")
MORE_QUESTION = "Weather and time in Paris?"
MORE_CASE = case_label(MORE_QUESTION)
BESIDE_QUESTION = "Is it sunny in 北京 or in Paris?"
BESIDE_CASE = case_label(BESIDE_QUESTION)
REASONING_CASE = case_label(WEATHER_QUESTION, REASONING_MODEL)

RULES = (
    Rule("model", "Pass model=model to every request.", case=WEATHER_CASE, hint="model"),
    Rule(
        "tools",
        'Pass tools=registry.schemas(format="responses") to every request.',
        case=WEATHER_CASE,
        hint="tools",
    ),
    Rule(
        "first_input",
        "The first request's input is the question.",
        case=WEATHER_CASE,
        hint="first_input",
    ),
    Rule(
        "no_calls",
        "A reply without function_call items: return its output_text.",
        case=HELLO_CASE,
        hint="no_calls",
    ),
    Rule(
        "text_beside",
        "A reply with text beside its calls is not the answer: run the calls.",
        case=BESIDE_CASE,
        hint="text_beside",
    ),
    Rule(
        "every_call",
        "Run every function_call item with registry.call: one output each.",
        case=WEATHER_CASE,
        hint="every_call",
    ),
    Rule(
        "call_id",
        "Each output carries its call's call_id, not the item's id.",
        case=WEATHER_CASE,
        hint="call_id_not_id",
    ),
    Rule(
        "output",
        "The output is the string registry.call returns, unchanged.",
        case=WEATHER_CASE,
        hint="output",
    ),
    Rule(
        "continue",
        "Continue with previous_response_id and the outputs, or the whole conversation: not both.",
        case=WEATHER_CASE,
        hint="both",
    ),
    Rule(
        "reasoning",
        "The whole conversation holds every item of the reply, its reasoning items too.",
        case=REASONING_CASE,
        hint="reasoning_dropped",
    ),
    Rule(
        "second_request",
        "Send the second request and return its output_text.",
        case=WEATHER_CASE,
        hint="send_again",
    ),
    Rule(
        "no_third",
        "No third request, even when the second reply asks for more calls.",
        case=MORE_CASE,
        hint="one_round_trip",
    ),
    Rule("returns_text", "Return the text, a str.", case=WEATHER_CASE, hint="return_text"),
)

HINTS = {
    "no_request": "Call client.responses.create.",
    "model": "Pass model=model to every request.",
    "tools": (
        'Pass tools=registry.schemas(format="responses") to every request: the tools are not '
        "carried over by previous_response_id."
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
    "first_failed": "Fix the first request.",
    "no_calls": "The reply has no function_call items: return its output_text right away.",
    "text_beside": (
        "This reply holds text beside its function_call items, so it is not the answer yet: "
        "run its calls and send the outputs. Only a reply without function_call items is the "
        "answer; look for them, not for output_text."
    ),
    "reasoning_dropped": (
        "The reply began with a reasoning item ({ids}), and its calls belong to it: a reasoning "
        "model refuses them sent back without it (400: provided without its required "
        "'reasoning' item). Send every item of the reply as it came (first.output, reasoning "
        "items included), or continue with previous_response_id=first.id."
    ),
    "send_again": (
        "After running the calls, send one more request with the outputs and return its "
        "output_text."
    ),
    "one_round_trip": (
        "One round trip: at most two requests. Return the second reply's output_text even when "
        "it asks for more calls (looping until the answer is lesson 05's run_agent)."
    ),
    "every_call": (
        "Answer every function_call item of the reply, not only the first: one "
        "function_call_output per call."
    ),
    "call_id_not_id": (
        "An output answers a call by its call_id (call_...), not by the item's id (fc_...)."
    ),
    "own_call_id": "Each output carries the call_id of the call it answers, its own one.",
    "output_type": (
        'Each output is {{"type": "function_call_output", "call_id": ..., "output": ...}}.'
    ),
    "output": (
        "The output is the text registry.call(item.name, item.arguments) returns, sent unchanged "
        "(it is already a string)."
    ),
    "output_swapped": (
        "This output holds the result of another call: run each call with its own name and "
        "arguments, and send that result with that call's call_id."
    ),
    "both": (
        "previous_response_id already holds the question and the calls: with it, send only the "
        "outputs. Or leave it out and send the whole conversation. Not both."
    ),
    "wrong_previous": "previous_response_id is the id of the first response (first.id).",
    "unknown_call": (
        "The outputs answer calls this request does not hold: pass "
        "previous_response_id=first.id, or send the question and the function_call items too."
    ),
    "whole_input": (
        "Without previous_response_id, send the whole conversation: the question, the reply's "
        "function_call items, then the outputs."
    ),
    "return_text": "Return the text: the last response's output_text.",
    "return_content": "Return the output_text of the last response, unchanged.",
    "flat_items": (
        "Responses items are flat: item.name, item.arguments and item.call_id (there is no "
        ".function)."
    ),
    "not_chat": (
        "client.responses.create returns a Response: read .output and .output_text, not .choices."
    ),
}


def hint(key: str, **fields: object) -> HintText:
    return HintText.of(HINTS, key, **fields)


EXCEPTION_HINTS = [
    (lambda r: r.raised_a("AttributeError") and "'function'" in r.message, hint("flat_items")),
    (lambda r: r.raised_a("AttributeError") and "'choices'" in r.message, hint("not_chat")),
    (lambda r: r.raised_a("TypeError") and "subscriptable" in r.message, hint("flat_items")),
]


def conversations(learner: Learner) -> list[tuple[str, Any, str]]:
    """(question, policy or None for the default toy model, model), the visible ones first."""
    from course_lib.local_model import HeuristicPolicy, ScriptedPolicy, Turn, call

    three = [
        call("get_weather", city="北京"),
        call("get_time", city="上海"),
        call("get_weather", city="东京"),
    ]
    # The second reply asks for one more call beside its text: a loop would send a third request.
    more = Turn(
        "Paris is cloudy. Let me look up the time there too.", (call("get_time", city="Paris"),)
    )
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
        (MORE_QUESTION, ScriptedPolicy([call("get_weather", city="Paris"), more]), CHECK_MODEL),
        (BESIDE_QUESTION, ScriptedPolicy([beside], then=HeuristicPolicy()), CHECK_MODEL),
        (WEATHER_QUESTION, None, REASONING_MODEL),
        ("Hello!", None, REASONING_MODEL),
    ]
    hidden = random_questions(hidden_rng("07.1"), 3)
    return cases + [(q, None, CHECK_MODEL) for q in hidden]


@exercise(
    "07.1",
    notebook=NOTEBOOK,
    title="responses_round_trip",
    points=3,
    targets=("responses_round_trip",),
    rules=RULES,
)
def check_responses_round_trip(learner: Learner) -> str:
    from course_lib.local_model import HeuristicPolicy

    table = conversations(learner)
    for index, (question, policy, model) in enumerate(table):
        session = learner.model(
            policy or HeuristicPolicy(), model_name=CHECK_MODEL, seed=700 + index
        )
        case = case_label(question, model)
        reply = learner.attempt(
            "responses_round_trip",
            learner.client(session),
            registry_spec(learner),
            question,
            model=model,
        )
        if reply.raised:
            diagnose(case, question, session.exchanges, finished=False, model=model)
            raise_learner_error(case, reply, EXCEPTION_HINTS)
        diagnose(case, question, session.exchanges, model=model)
        expect_final_text(case, session.exchanges, reply)
    return text("summary", count=len(table))


def expect_final_text(case: str, exchanges: list, reply: Reply) -> None:
    __tracebackhide__ = True
    expected = text_of_response(exchanges[-1].reply)
    if reply.type != "str":
        shown = Plain(reply.data.get("repr", "")[:200]) if "unjson" in reply.data else reply.value
        fail(case, expected, shown, hint("return_text"))
    expect_equal(case, expected, reply.value, hint=hint("return_content"))


def diagnose(
    case: str, question: str, exchanges: list, *, finished: bool = True, model: str = CHECK_MODEL
) -> None:
    """Fail with a fitting hint on the first thing the recorded requests show to be wrong."""
    __tracebackhide__ = True
    if not exchanges and not finished:
        return  # it raised before sending anything: the exception says what went wrong
    if not exchanges:
        fail(case, Plain(text("a_request")), Plain(text("no_request")), hint("no_request"))
    expected_tools = tools("responses")
    for number, exchange in enumerate(exchanges, start=1):
        where = text("request_number", number=number, count=len(exchanges))
        body = exchange.request
        if body.get("model") != model:
            fail(case, model, body.get("model"), hint("model"), where=where)
        if body.get("tools") != expected_tools:
            sent = body.get("tools")
            chat = isinstance(sent, list) and any(
                isinstance(t, dict) and "function" in t for t in sent
            )
            got = sent if "tools" in body else Plain(text("no_tools"))
            key = "tools_chat" if chat else "tools_strict" if only_strict_differs(sent) else "tools"
            fail(case, Plain(text("the_tools")), got, hint(key), where=where)
    first = exchanges[0]
    if not is_the_question(first.request.get("input"), question) or (
        first.request.get("previous_response_id") is not None
    ):
        fail(
            case,
            question,
            first.request.get("input"),
            hint("first_input"),
            where=text("first_input"),
        )
    if first.status != 200:
        fail(case, Plain(text("first_succeeds")), first.reply, hint("first_failed"))
    calls = [i for i in first.reply.get("output") or [] if i.get("type") == "function_call"]
    wanted = 2 if calls else 1
    if calls and finished and len(exchanges) < 2 and text_of_response(first.reply):
        shown = Plain(text("text_beside", count=len(calls)))
        fail(case, shown, Plain(text("requests", count=1)), hint("text_beside"))
    if len(exchanges) > wanted or (finished and len(exchanges) < wanted):
        key = "no_calls" if not calls else "send_again" if len(exchanges) < 2 else "one_round_trip"
        expected, got = text("requests", count=wanted), text("requests", count=len(exchanges))
        fail(case, Plain(expected), Plain(got), hint(key))
    if calls and len(exchanges) > 1:
        diagnose_second_request(case, question, first.reply, exchanges[1].request)


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


def is_the_question(value: Any, question: str) -> bool:
    """``input`` is the question: the string, or one user message holding it (any spelling)."""
    if value == question:
        return True
    if not isinstance(value, list) or len(value) != 1 or not isinstance(value[0], dict):
        return False
    message = value[0]
    if message.get("role") != "user" or message.get("type", "message") != "message":
        return False
    content = message.get("content")
    parts = content if isinstance(content, list) else [{"type": "input_text", "text": content}]
    return [p.get("text") for p in parts if isinstance(p, dict)] == [question]


def _kind(item: Any) -> str | None:
    return (
        item.get("type", "message" if "role" in item else None) if isinstance(item, dict) else None
    )


def diagnose_second_request(case: str, question: str, first: dict, request: dict) -> None:
    __tracebackhide__ = True
    calls = [i for i in first.get("output") or [] if i.get("type") == "function_call"]
    call_ids = [c["call_id"] for c in calls]
    expected = Plain(text("outputs_for", call_ids=", ".join(call_ids)))
    previous = request.get("previous_response_id")
    items = request.get("input")
    items = items if isinstance(items, list) else [items]
    where = text("second_input", previous=repr(previous))
    if previous is not None and previous != first.get("id"):
        fail(case, first.get("id"), previous, hint("wrong_previous"), where=where)
    if any(isinstance(i, dict) and "output" in i and _kind(i) is None for i in items):
        fail(case, expected, items, hint("output_type"), where=where)
    outputs = [i for i in items if _kind(i) == "function_call_output"]
    if previous is not None and len(outputs) < len(items):
        fail(case, Plain(text("only_outputs")), items, hint("both"), where=where)
    if previous is None:
        diagnose_whole_input(case, question, call_ids, items, where)
        diagnose_reasoning(case, first, items, where)
    diagnose_outputs(case, calls, outputs, items, where)


def diagnose_whole_input(case: str, question: str, call_ids: list, items: list, where: str) -> None:
    """Without ``previous_response_id``: the question, the reply's calls, then the outputs."""
    __tracebackhide__ = True
    expected = Plain(text("outputs_for", call_ids=", ".join(call_ids)))
    whole = Plain(text("whole_conversation", call_ids=", ".join(call_ids)))
    kinds = [_kind(item) for item in items]
    if all(kind == "function_call_output" for kind in kinds):
        fail(case, expected, items, hint("unknown_call"), where=where)
    resent = [i.get("call_id") for i in items if _kind(i) == "function_call"]
    last_call = max((n for n, kind in enumerate(kinds) if kind == "function_call"), default=-1)
    first_output = min(
        (n for n, kind in enumerate(kinds) if kind == "function_call_output"), default=len(items)
    )
    if not is_the_question(items[:1], question) or resent != call_ids or first_output < last_call:
        fail(case, whole, items, hint("whole_input"), where=where)


def diagnose_reasoning(case: str, first: dict, items: list, where: str) -> None:
    """Without ``previous_response_id``: the reply's reasoning items come back, each before the
    calls it led to (a reasoning model refuses a call sent back without its reasoning item)."""
    __tracebackhide__ = True
    output = [
        i for i in first.get("output") or [] if i.get("type") in ("reasoning", "function_call")
    ]
    wanted = [i["id"] for i in output if i.get("type") == "reasoning"]
    if not wanted:
        return
    sent = [
        i.get("id") if _kind(i) == "reasoning" else i.get("call_id")
        for i in items
        if _kind(i) in ("reasoning", "function_call")
    ]
    expected = [i["id"] if i.get("type") == "reasoning" else i["call_id"] for i in output]
    if sent != expected:
        listing = ", ".join(f"{i['type']} {i['id']}" for i in first.get("output") or [])
        shown = Plain(text("every_item", items=listing))
        fail(case, shown, items, hint("reasoning_dropped", ids=", ".join(wanted)), where=where)


def diagnose_outputs(case: str, calls: list, outputs: list, items: list, where: str) -> None:
    __tracebackhide__ = True
    call_ids = [c["call_id"] for c in calls]
    expected = Plain(text("outputs_for", call_ids=", ".join(call_ids)))
    answered = [o.get("call_id") for o in outputs]
    if not outputs and items:
        fail(case, expected, items, hint("output_type"), where=where)
    item_ids = {c["id"] for c in calls}
    if any(a in item_ids for a in answered):
        fail(case, expected, answered, hint("call_id_not_id"), where=where)
    if len(outputs) < len(calls):
        fail(case, expected, answered, hint("every_call"), where=where)
    if sorted(map(str, answered)) != sorted(call_ids):
        fail(case, expected, answered, hint("own_call_id"), where=where)
    by_id = {o["call_id"]: o for o in outputs}
    results = [tool_result(call["name"], call["arguments"]) for call in calls]
    for call, result in zip(calls, results, strict=True):
        output = by_id[call["call_id"]].get("output")
        if output != result:
            here = text("output_of", name=call["name"], arguments=call["arguments"])
            key = "output_swapped" if output in results else "output"
            fail(case, result, output, hint(key), where=here)
