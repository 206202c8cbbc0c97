"""Exercise 07.3, ``anthropic_round_trip(client, registry, question, *, model) -> str``: one tool
round trip over the Anthropic Messages API.

The learner's function gets a real ``anthropic.Anthropic`` client whose requests a model session
on the check's side answers and records; the registry is built beside the learner's code from
``_registry.REGISTRY_SOURCE``. The check judges what was really sent: model, ``max_tokens``, the
Anthropic tools, the question, the assistant's content sent back unchanged, then **one** user
message holding one ``tool_result`` per ``tool_use`` (its id as ``tool_use_id``, the registry's
result as content, ``is_error`` exactly on error results). Two cases ask ``local-toy-reasoning``,
whose replies start with a signed ``thinking`` block: it must come back unchanged at the head of
the assistant message, and the final reply's text is its text blocks, not its first block. One
case's final reply holds two text blocks (the real API may split its text, around citations for
one), so code that returns only the first text block loses the rest.
Rules, the case that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import fail
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
)
from course_lib.checks.lesson07.anthropic_round_trip.results import HINTS as RESULT_HINTS
from course_lib.checks.lesson07.anthropic_round_trip.results import diagnose_second_request

TEXTS = Catalog(also=(ROUND_TRIP_TEXTS,)) | {
    "case": "anthropic_round_trip(client, registry, {question}, model={model})",
    "the_tools": 'registry.schemas(format="anthropic")',
    "first_messages": "the first request's messages",
}
text = TEXTS.text
case_label = labeller(TEXTS)

WEATHER_CASE = case_label(WEATHER_QUESTION)
HELLO_CASE = case_label("Hello!")
ERROR_QUESTION = "What's the weather in 北京 and Tokyo?"
ERROR_CASE = case_label(ERROR_QUESTION)
PREFACE_QUESTION = "Is it warmer in Paris or in London?"
PREFACE_CASE = case_label(PREFACE_QUESTION)
CUT_QUESTION = "Tell me everything about the weather."
CUT_CASE = case_label(CUT_QUESTION)
MORE_CASE = case_label(MORE_QUESTION)
THINKING_CASE = case_label(WEATHER_QUESTION, REASONING_MODEL)
BLOCKS_QUESTION = "Is it sunny in Paris or in London?"
BLOCKS_CASE = case_label(BLOCKS_QUESTION)

RULES = (
    Rule("model", "pass `model=model` to every request", case=WEATHER_CASE, hint="model"),
    Rule("max_tokens", "pass `max_tokens=1024` to every request", case=WEATHER_CASE,
         hint="max_tokens"),
    Rule("tools", 'pass `tools=registry.schemas(format="anthropic")` to every request',
         case=WEATHER_CASE, hint="tools"),
    Rule("first_messages", "the first request holds one user message with the question",
         case=WEATHER_CASE, hint="first_messages"),
    Rule("no_tool_use", 'a reply whose `stop_reason` is not `"tool_use"` is the answer: return '
         'its text', case=HELLO_CASE, hint="no_tool_use"),
    Rule("cut_short", 'so is a reply cut short (`"max_tokens"`)', case=CUT_CASE,
         hint="no_tool_use"),
    Rule("assistant", 'otherwise send its content back: '
         '`{"role": "assistant", "content": reply.content}`', case=WEATHER_CASE,
         hint="assistant_missing"),
    Rule("assistant_unchanged", "all of it, unchanged, its text blocks too", case=PREFACE_CASE,
         hint="assistant_changed"),
    Rule("thinking", "and its `thinking` blocks, first, exactly as they came", case=THINKING_CASE,
         hint="thinking_dropped"),
    Rule("one_user_message", "then **one** user message, not a `tool` role, holding one "
         "`tool_result` block per `tool_use` block (any text after them)", case=WEATHER_CASE,
         hint="tool_role"),
    Rule("tool_use_id", "each carries its block's id as `\"tool_use_id\"`", case=WEATHER_CASE,
         hint="tool_use_id"),
    Rule("content", 'its `"content"` is `registry.call(block.name, block.input)`, unchanged',
         case=WEATHER_CASE, hint="content"),
    Rule("is_error", 'an error result (`is_error_result` says which) gets `"is_error": True`',
         case=ERROR_CASE, hint="is_error"),
    Rule("is_error_only", 'other results do not, even when their text holds "error"',
         case=case_label("Berlin and 东京"), hint="is_error_only"),
    Rule("second_request", "send that second request", case=WEATHER_CASE, hint="send_again"),
    Rule("no_third", "send no third, even when the second reply asks for more calls",
         case=MORE_CASE, hint="one_round_trip"),
    Rule("returns_text", "return the second reply's text, a `str`", case=WEATHER_CASE,
         hint="return_text"),
    Rule("every_text_block", "that is every one of its text blocks, joined (`reply_text`), not "
         "only the first", case=BLOCKS_CASE, hint="first_text_only"),
)  # fmt: skip

HINTS = Catalog(also=(RESULT_HINTS, ROUND_TRIP_HINTS)) | {
    "no_request": "Call client.messages.create.",
    "max_tokens": "Pass max_tokens=1024 to every request (Anthropic requires max_tokens).",
    "tools": 'Pass tools=registry.schemas(format="anthropic") to every request.',
    "tools_openai": (
        'These are OpenAI tools; Anthropic\'s are {{"name", "description", "input_schema"}}: '
        'registry.schemas(format="anthropic").'
    ),
    "first_messages": "Start with one user message holding the question.",
    "no_tool_use": (
        'The reply\'s stop_reason is not "tool_use": it holds no call, return its text right away.'
    ),
    "send_again": (
        "After running the tools, send the conversation once more and return that reply's text."
    ),
    "one_round_trip": (
        "One round trip: at most two requests. Return the second reply's text even when it asks "
        "for more calls (looping until the answer is lesson 05's run_agent)."
    ),
    "thinking_block_read": (
        "A thinking model's reply starts with a thinking block, which has no id, name or input: "
        'pick the calls by block.type == "tool_use", not by position.'
    ),
    "thinking_no_text": (
        "This reply starts with a thinking block, which has no .text: the reply's text is its "
        "text blocks, joined (reply_text does that), not its first block."
    ),
    "input_is_dict": (
        "block.input is already a dict (Anthropic decodes the arguments for you): pass it to "
        "registry.call as it is."
    ),
    "return_text": "Return the text of the last reply (its text blocks), a str.",
    "first_text_only": (
        "This reply holds {count} text blocks and you returned only one of them: a reply may "
        "split its text into several blocks, so join the text of every text block (reply_text "
        "does that)."
    ),
    "return_content": "Return the text of the last reply, unchanged.",
    "not_openai": "client.messages.create returns a Message: read .content and .stop_reason.",
    "max_tokens_missing": (
        "The SDK refuses a request without max_tokens: pass max_tokens=1024 to every request."
    ),
}
hint = HINTS.hint


EXCEPTION_HINTS = [
    (raised_with("TypeError", "max_tokens"), hint("max_tokens_missing")),
    (raised_with("TypeError", "must be str, bytes or bytearray"), hint("input_is_dict")),
    (raised_with("AttributeError", "'choices'"), hint("not_openai")),
    (raised_with("AttributeError", "Thinking", "'text'"), hint("thinking_no_text")),
    (raised_with("AttributeError", "'ThinkingBlock'"), hint("thinking_block_read")),
]


class NoCallsAfterTwo:
    """``policy`` for the first two requests of a conversation, then a plain answer.

    A third request already breaks the rule "no third request"; what it is answered decides
    nothing. Answering it without calls ends a wrong answer that starts the round trip over
    while the reply asks for calls: fed the script's calls again each time, it made 1,919
    requests (half a minute in the learner's kernel) before Python's recursion limit stopped it.
    """

    def __init__(self, policy: Any) -> None:
        self.policy, self.answered = policy, 0

    def respond(self, request: Any) -> Any:
        from course_lib.local_model import Turn

        self.answered += 1
        if self.answered > 2:
            return Turn("Paris is cloudy; it is noon there.")
        return self.policy.respond(request)


def conversations() -> list[tuple[str, Any, str]]:
    """(question, policy or None for the default toy model, model), the visible ones first."""
    from course_lib.local_model import HeuristicPolicy, ScriptedPolicy, Turn, call

    failing = [call("get_weather", city="Berlin"), call("get_weather", city="东京")]
    both = (call("get_weather", city="Paris"), call("get_weather", city="London"))
    preface = Turn("Let me look both up.", both)
    # Longer than max_tokens=1024 (one token per Chinese character): cut short, no call.
    long_answer = "今天的天气很好，" * 160
    # The answer in two text blocks, as the real API may give it.
    in_blocks = Turn.in_blocks("Paris is cloudy, not sunny.", " London has rain.")
    plain = CHECK_MODEL
    cases: list[tuple[str, Any, str]] = [
        (WEATHER_QUESTION, None, plain),
        ("Hello!", None, plain),
        (ERROR_QUESTION, None, plain),
        ("Berlin and 东京", ScriptedPolicy([failing], then=HeuristicPolicy()), plain),
        (PREFACE_QUESTION, ScriptedPolicy([preface], then=HeuristicPolicy()), plain),
        (CUT_QUESTION, ScriptedPolicy([long_answer]), plain),
        (MORE_QUESTION, NoCallsAfterTwo(asks_for_more()), plain),
        (WEATHER_QUESTION, None, REASONING_MODEL),
        ("Hello!", None, REASONING_MODEL),
        (BLOCKS_QUESTION, ScriptedPolicy([list(both), in_blocks]), plain),
    ]
    return cases


def is_the_question(messages: Any, question: str) -> bool:
    if not isinstance(messages, list) or len(messages) != 1 or not isinstance(messages[0], dict):
        return False
    message = messages[0]
    content = message.get("content")
    parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
    texts = [p.get("text") for p in parts if isinstance(p, dict)]
    return message.get("role") == "user" and texts == [question]


def openai_tools_key(sent: Any, body: dict) -> str:
    """The hint for tools that are not the registry's Anthropic ones."""
    openai_form = isinstance(sent, list) and any(
        isinstance(t, dict) and t.get("type") == "function" for t in sent
    )
    return "tools_openai" if openai_form else "tools"


def judge_first(case: str, question: str, exchanges: list, finished: bool) -> tuple[bool, bool]:
    """The first request holds the question; whether its reply asks for calls (its
    ``stop_reason``), and whether it holds ``tool_use`` blocks."""
    __tracebackhide__ = True
    first = exchanges[0]
    messages = first.request.get("messages")
    if not is_the_question(messages, question):
        wanted = [{"role": "user", "content": question}]
        fail(case, wanted, messages, hint("first_messages"), where=text("first_messages"))
    uses = [b for b in first.reply.get("content") or [] if b.get("type") == "tool_use"]
    return first.reply.get("stop_reason") == "tool_use", bool(uses)


ROUND_TRIP = RoundTrip(
    "anthropic_round_trip",
    api="anthropic",
    seed=730,
    texts=TEXTS,
    hints=HINTS,
    judge_first=judge_first,
    judge_second=diagnose_second_request,
    tools_key=openai_tools_key,
    exception_hints=EXCEPTION_HINTS,
)
ROUND_TRIP.register("07.3", points=3, rules=RULES, conversations=conversations)
