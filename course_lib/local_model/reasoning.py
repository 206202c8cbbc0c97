"""The reasoning model: a second model name whose replies come with the thoughts behind them.

``local-toy-reasoning`` decides exactly as the default model does (the same policy, the same
calls and answers) and, like the reasoning models of 2026, thinks first. Its thoughts are a few
deterministic sentences about the turn the policy chose: the question, what it will call (or
why it answers), and, with more effort, the details and a last check. How each API carries them:

* Responses: a ``reasoning`` item before the output (``reasoning_items.py``);
* Anthropic Messages: a ``thinking`` block with a signature (``thinking_blocks.py``);
* Chat Completions: nothing visible, only ``completion_tokens_details.reasoning_tokens``
  (the API has no reasoning items); this module holds that small part.

Why a separate name and not a switch on the default model: lessons 00-06 use ``local-toy``, and
its replies must not change; a learner opts in to reasoning as with a real provider, by model.
Effort (``reasoning.effort``, ``reasoning_effort``, Anthropic ``output_config.effort``) sets how
much is thought: ``none`` nothing, ``minimal`` the decision only, ``low`` the question too,
``medium`` the details too, ``high`` and above a final check. Reasoning tokens count the
sentences (``wire.count_tokens``), so usage adds up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from course_lib.local_model.followup import exchanges_since
from course_lib.local_model.memo import Memo, exact_key
from course_lib.local_model.policy import _latest_user
from course_lib.local_model.protocol import ProtocolError, invalid_value
from course_lib.local_model.replies import label, quote
from course_lib.local_model.text import mostly_chinese
from course_lib.local_model.turns import ChatRequest, Turn
from course_lib.local_model.wire import count_tokens

REASONING_MODEL = "local-toy-reasoning"
EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"]  # openai ReasoningEffort
DEFAULT_EFFORT = "medium"
# Which parts of the thoughts each effort keeps (every effort keeps the decision).
KEPT = {
    "minimal": {"decision"},
    "low": {"question", "decision"},
    "medium": {"question", "decision", "detail"},
    "high": {"question", "decision", "detail", "check"},
}
KEPT["xhigh"] = KEPT["max"] = KEPT["high"]
QUESTION_CHARS = 120
THOUGHTS_KEPT: Memo[Thoughts] = Memo(256)  # immutable: a memory may give them out again

THOUGHTS = {
    "en": {
        "question": 'The user asks: "{question}"',
        "calls": "To answer, I will call {calls}.",
        "more_calls": "{results} result(s) are in; next I will call {calls}.",
        "answer": (
            "The tools have answered ({results} result(s)), so I will answer from what they "
            "returned."
        ),
        "no_call": (
            "None of my tools ({tools}) can be called with what the request says, so I will "
            "reply without calling one."
        ),
        "direct": "No tool is available, so I will reply directly.",
        "parallel": "These {count} calls do not depend on each other, so I ask for them together.",
        "failed": "{failed} of the calls failed; I will say so rather than guess.",
        "format": 'The reply must be JSON that follows the schema "{name}".',
        "check_calls": "Before sending, I check every argument against its tool's schema.",
        "check_answer": "Before sending, I check that the reply says only what I was told.",
    },
    "zh": {
        "question": "用户问：“{question}”",
        "calls": "为了回答，我要调用 {calls}。",
        "more_calls": "已经有 {results} 个结果；接下来我要调用 {calls}。",
        "answer": "工具已经返回了 {results} 个结果，我根据这些结果来回答。",
        "no_call": "我的工具（{tools}）都无法根据这次请求来调用，所以我不调用工具，直接回复。",
        "direct": "这次没有可用的工具，所以我直接回复。",
        "parallel": "这 {count} 个调用互不依赖，所以我一起发出。",
        "failed": "有 {failed} 个调用失败了；我会如实说明，而不是猜测。",
        "format": "回复必须是符合“{name}”结构的 JSON。",
        "check_calls": "发出之前，我按各个工具的结构检查每个参数。",
        "check_answer": "发出之前，我检查回复只包含我得到的信息。",
    },
}
MESSAGES = {
    "max_tokens": (
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
        "'max_completion_tokens' instead."
    ),
    "temperature": (
        "Unsupported value: 'temperature' does not support {value} with this model. Only the "
        "default (1) value is supported."
    ),
}


def is_reasoning_model(model: str) -> bool:
    return model == REASONING_MODEL


@dataclass(frozen=True)
class Thoughts:
    """What the model thought before its turn: sentences, and the one that says what it does."""

    sentences: tuple[str, ...] = ()
    decision: str = ""

    @property
    def text(self) -> str:
        return "\n\n".join(self.sentences)

    @property
    def tokens(self) -> int:
        return count_tokens(self.text)


def think(request: ChatRequest, turn: Turn, effort: str = DEFAULT_EFFORT) -> Thoughts:
    """The thoughts behind ``turn`` at ``effort`` (none at ``"none"``), in the user's language.

    They depend on nothing but the conversation since the latest user message, the tools'
    names, the output format's name, the turn and the effort: thoughts worked out before for the
    same ones are given again (a tool loop asks the same question with every request)."""
    if effort not in KEPT:
        return Thoughts()
    start, user_text = _latest_user(request.messages)
    since = request.messages[start:] if start >= 0 else []
    output = request.output_format.name if request.output_format is not None else None
    names = [tool["name"] for tool in request.tools]
    calls = [(call.name, call.arguments) for call in turn.tool_calls]  # all a Turn holds,
    key = exact_key(effort, since, names, output, turn.content, calls)  # without its slow repr
    return THOUGHTS_KEPT.get_or_make(
        key, lambda: _think(user_text, since, names, output, turn, KEPT[effort])
    )


def _think(
    user_text: str, since: list, names: list[str], output: str | None, turn: Turn, kept: set
) -> Thoughts:
    exchanges = exchanges_since(since, 0)
    words = THOUGHTS["zh" if mostly_chinese(user_text) else "en"]
    parts = [("question", words["question"].format(question=_short(user_text)))]
    decision = _decision(words, names, turn, len(exchanges))
    parts.append(("decision", decision))
    if len(turn.tool_calls) > 1:
        parts.append(("detail", words["parallel"].format(count=len(turn.tool_calls))))
    failed = sum(1 for exchange in exchanges if exchange.error is not None)
    if failed and not turn.tool_calls:
        parts.append(("detail", words["failed"].format(failed=failed)))
    if output is not None and not turn.tool_calls:
        parts.append(("detail", words["format"].format(name=output)))
    parts.append(("check", words["check_calls" if turn.tool_calls else "check_answer"]))
    return Thoughts(tuple(text for part, text in parts if part in kept), decision)


def _decision(words: dict[str, str], names: list[str], turn: Turn, results: int) -> str:
    if turn.tool_calls:
        calls = ", ".join(label(call) for call in turn.tool_calls)
        key = "more_calls" if results else "calls"
        return words[key].format(calls=calls, results=results)
    if results:
        return words["answer"].format(results=results)
    if names:
        return words["no_call"].format(tools=", ".join(names))
    return words["direct"]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= QUESTION_CHARS else quote(text[:QUESTION_CHARS]) + "…"


def check_choice(param: str, value: Any, allowed: list[str]) -> str | None:
    """A parameter with a fixed set of values: ``None`` when absent, else one of ``allowed``
    (or the real 400, listing them)."""
    if value is None:
        return None
    if not isinstance(value, str) or value not in allowed:
        raise invalid_value(param, value, allowed)
    return value


# -- Chat Completions -----------------------------------------------------------------------------


def check_chat(body: dict[str, Any], request: ChatRequest) -> str:
    """``reasoning_effort`` for any model; for the reasoning model, the parameters reasoning
    models refuse on Chat Completions. Returns the effort the reply uses."""
    effort = check_choice("reasoning_effort", body.get("reasoning_effort"), EFFORTS)
    if not is_reasoning_model(request.model):
        return "none"
    if body.get("max_tokens") is not None:
        raise ProtocolError(
            MESSAGES["max_tokens"], param="max_tokens", code="unsupported_parameter"
        )
    temperature = body.get("temperature")
    if temperature is not None and temperature != 1:
        raise ProtocolError(
            MESSAGES["temperature"].format(value=temperature),
            param="temperature",
            code="unsupported_value",
        )
    return effort or DEFAULT_EFFORT


def chat_usage(
    usage: dict[str, Any], request: ChatRequest, turn: Turn, effort: str, choices: int = 1
) -> dict:
    """Chat usage with the reasoning tokens of ``turn`` added, once per choice (the same usage
    when there are none: the default model's replies do not change)."""
    tokens = think(request, turn, effort).tokens * choices
    if not tokens:
        return usage
    details = {**usage["completion_tokens_details"], "reasoning_tokens": tokens}
    return {
        **usage,
        "completion_tokens": usage["completion_tokens"] + tokens,
        "total_tokens": usage["total_tokens"] + tokens,
        "completion_tokens_details": details,
    }
