"""The reasoning model on the Anthropic Messages API: ``thinking`` blocks and their signatures.

``thinking`` asks for extended thinking: ``{"type": "enabled", "budget_tokens": N}`` (N at
least 1024 and below ``max_tokens``, and never with a ``tool_choice`` that forces a call),
``{"type": "adaptive"}`` or ``{"type": "disabled"}``; ``display: "omitted"`` sends the block with
empty text (its signature still holds it). ``local-toy-reasoning`` thinks unless told not to
(adaptive, as the 2026 models do); the default model never thinks, whatever the request says.

When it thinks, its reply starts with a ``thinking`` block whose ``signature`` seals the text
(``seals.py``). With ``enabled`` it thinks once per assistant turn (not after tool results);
with ``adaptive`` before every reply (interleaved thinking); ``between_tools`` only after tool
results. A request whose latest message carries the documented test string below gets a
``redacted_thinking`` block instead, as the real API does when safety systems flag a thought.

Coming back, as the real API has it: a ``thinking`` block whose text or signature was changed
is ``Invalid `signature` in `thinking` block``; a changed ``redacted_thinking`` block cannot be
modified; and while a tool loop is running with thinking on, the assistant message that opened
the turn must start with its thinking block (dropping it is the 400 ``Expected `thinking` or
`redacted_thinking`, but found `tool_use`...``). Thinking tokens count toward ``max_tokens``
and are reported in ``usage.output_tokens_details.thinking_tokens``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from course_lib.local_model.anthropic_structured import output_config
from course_lib.local_model.limits import fit
from course_lib.local_model.memo import Memo, exact_key
from course_lib.local_model.messages_request import MessagesCall, fail
from course_lib.local_model.protocol import ProtocolError
from course_lib.local_model.reasoning import is_reasoning_model, think
from course_lib.local_model.seals import seal, unseal
from course_lib.local_model.turns import Turn
from course_lib.local_model.wire import count_tokens

TYPES = ["enabled", "disabled", "adaptive", "between_tools"]  # the SDK's ThinkingConfigParam
DISPLAYS = ["summarized", "omitted"]
EFFORTS = ["low", "medium", "high", "xhigh", "max"]  # output_config.effort
DEFAULT_EFFORT = "high"
MIN_BUDGET = 1024
BLOCK_TYPES = ("thinking", "redacted_thinking")
REDACTING_PROMPT = (
    "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253"
    "D5E2D82641AC0E52CC2876CB"
)
PURPOSES = {"thinking": "anthropic thinking", "redacted_thinking": "anthropic redacted thinking"}
DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
SIGNATURES: Memo[str] = Memo(256)  # the same thoughts come back with every request of a loop

MESSAGES = {
    "budget_minimum": (
        "thinking.enabled.budget_tokens: Input should be greater than or equal to {minimum}"
    ),
    "budget_above_max": (
        "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
        "documentation at " + DOCS + "#max-tokens-and-context-window-size"
    ),
    "choice": "{field}: Input should be {listing}",
    "forced_tool": "Thinking may not be enabled when tool_choice forces tool use.",
    "signature": "messages.{index}.content.{position}: Invalid `signature` in `thinking` block",
    "modified": (
        "messages.{index}.content.{position}: `thinking` and `redacted_thinking` blocks in the "
        "latest assistant message cannot be modified. These blocks must remain exactly as "
        "received to continue the conversation."
    ),
    "dropped": (
        "messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        "`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
        "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "
        "We recommend you include thinking blocks from previous turns. To avoid this "
        "requirement, disable `thinking`. Please consult our documentation at " + DOCS
    ),
}


@dataclass(frozen=True)
class ThinkingOptions:
    """``mode`` is ``"off"`` or one of the thinking types that think."""

    mode: str = "off"
    display: str = "summarized"
    budget: int | None = None
    effort: str = DEFAULT_EFFORT


def read_options(body: dict[str, Any], call: MessagesCall) -> ThinkingOptions:
    """``thinking`` and ``output_config.effort``, checked as the real API does."""
    thinking = body.get("thinking")
    effort = _choice("output_config.effort", output_config(body).get("effort"), EFFORTS)
    effort = effort or DEFAULT_EFFORT
    if thinking is None:
        mode = "adaptive" if is_reasoning_model(call.model) else "off"
        return ThinkingOptions(mode, effort=effort)
    if not isinstance(thinking, dict):
        raise fail("dict", field="thinking")
    kind = thinking.get("type")
    if kind is None:
        raise fail("required", field="thinking.type")
    if kind not in TYPES:
        tags = ", ".join(f"'{t}'" for t in TYPES)
        raise fail("block_tag", field="thinking", tag=str(kind)[:80], tags=tags)
    budget = _budget(thinking, call) if kind == "enabled" else None
    display = _choice(f"thinking.{kind}.display", thinking.get("display"), DISPLAYS)
    if kind == "enabled" and call.request.tool_choice not in ("auto", "none"):
        raise ProtocolError(MESSAGES["forced_tool"])
    if kind == "disabled" or not is_reasoning_model(call.model):
        return ThinkingOptions(effort=effort)
    return ThinkingOptions(kind, display or "summarized", budget, effort)


def _choice(field: str, value: Any, allowed: list[str]) -> str | None:
    """A literal parameter: None when absent, else one of ``allowed`` (Anthropic's 400)."""
    if value is None or value in allowed:
        return value
    quoted = [f"'{option}'" for option in allowed]
    listing = ", ".join(quoted[:-1]) + " or " + quoted[-1]
    raise ProtocolError(MESSAGES["choice"].format(field=field, listing=listing))


def _budget(thinking: dict[str, Any], call: MessagesCall) -> int:
    budget = thinking.get("budget_tokens")
    if budget is None:
        raise fail("required", field="thinking.enabled.budget_tokens")
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise fail("integer", field="thinking.enabled.budget_tokens")
    if budget < MIN_BUDGET:
        raise ProtocolError(MESSAGES["budget_minimum"].format(minimum=MIN_BUDGET))
    if budget >= call.max_tokens:
        raise ProtocolError(MESSAGES["budget_above_max"])
    return budget


# -- what comes back ------------------------------------------------------------------------------


def check_history(messages: list[dict[str, Any]], options: ThinkingOptions) -> None:
    """Every thinking block sent back is genuine and unchanged; in a running tool loop with
    thinking on, the turn's first assistant message starts with its thinking block."""
    for index, message in enumerate(messages):
        content = message["content"]
        if message["role"] != "assistant" or not isinstance(content, list):
            continue
        for position, block in enumerate(content):
            if block["type"] in BLOCK_TYPES:
                _check_block(f"messages.{index}.content.{position}", block, index, position)
    if options.mode in ("enabled", "adaptive"):
        _check_turn_opening(messages)


def _check_block(where: str, block: dict[str, Any], index: int, position: int) -> None:
    if block["type"] == "thinking":
        for key in ("thinking", "signature"):
            if key not in block:
                raise fail("required", field=f"{where}.{key}")
            if not isinstance(block[key], str):
                raise fail("string", field=f"{where}.{key}")
        payload = unseal(PURPOSES["thinking"], block["signature"])
        if payload is None or payload.get("shown") != block["thinking"]:
            raise ProtocolError(MESSAGES["signature"].format(index=index, position=position))
        return
    if "data" not in block:
        raise fail("required", field=f"{where}.data")
    if not isinstance(block["data"], str):
        raise fail("string", field=f"{where}.data")
    if unseal(PURPOSES["redacted_thinking"], block["data"]) is None:
        raise ProtocolError(MESSAGES["modified"].format(index=index, position=position))


def _check_turn_opening(messages: list[dict[str, Any]]) -> None:
    if not _answers_tools(messages[-1]):
        return  # no tool loop running: earlier turns' thinking may be left out
    opened = max((i for i, m in enumerate(messages) if _is_question(m)), default=-1)
    first = next((i for i in range(opened + 1, len(messages)) if _is_assistant(messages[i])), None)
    if first is None:
        return
    content = messages[first]["content"]
    found = content[0]["type"] if isinstance(content, list) and content else "text"
    if found not in BLOCK_TYPES:
        raise ProtocolError(MESSAGES["dropped"].format(index=first, found=found))


def _is_assistant(message: dict[str, Any]) -> bool:
    return message["role"] == "assistant"


def _answers_tools(message: dict[str, Any]) -> bool:
    content = message["content"]
    return (
        message["role"] == "user"
        and isinstance(content, list)
        and bool(content)
        and all(block["type"] == "tool_result" for block in content)
    )


def _is_question(message: dict[str, Any]) -> bool:
    """A user message that says something new (not only tool results)."""
    return message["role"] == "user" and not _answers_tools(message)


# -- the reply ------------------------------------------------------------------------------------


def add_thinking(
    message: dict[str, Any], call: MessagesCall, turn: Turn, options: ThinkingOptions
) -> dict[str, Any]:
    """The message with its thinking block first, thinking tokens in usage and counted toward
    ``max_tokens``. Unchanged when the model does not think for this reply."""
    after_results = bool(call.request.messages) and call.request.messages[-1]["role"] == "tool"
    thinks = {"enabled": not after_results, "adaptive": True, "between_tools": after_results}
    if not thinks.get(options.mode, False):
        return message
    thoughts = think(call.request, turn, options.effort)
    limit = min(call.max_tokens, options.budget or call.max_tokens)
    text, cut = fit(thoughts.text, limit)
    block = _block(text, options, REDACTING_PROMPT in _latest_text(call))
    spent = count_tokens(text)
    usage = message["usage"]
    if cut and limit == call.max_tokens:  # max_tokens ran out while it was thinking
        rest, stop_reason, rest_tokens = [], "max_tokens", 0
    else:
        rest, stop_reason = message["content"], message["stop_reason"]
        if stop_reason != "tool_use":
            rest, stop_reason = _fit_text(rest, call.max_tokens - spent, stop_reason)
        calls_tokens = usage["output_tokens"] - _text_tokens(message["content"])
        rest_tokens = calls_tokens + _text_tokens(rest)
    usage = {
        **usage,
        "output_tokens": spent + rest_tokens,
        "output_tokens_details": {"thinking_tokens": spent},
    }
    content = [block, *rest]
    return {**message, "content": content, "stop_reason": stop_reason, "usage": usage}


def _block(text: str, options: ThinkingOptions, redacted: bool) -> dict[str, Any]:
    if redacted:
        data = seal(PURPOSES["redacted_thinking"], {"thinking": text})
        return {"type": "redacted_thinking", "data": data}
    shown = "" if options.display == "omitted" else text
    payload = {"thinking": text, "shown": shown}
    signature = SIGNATURES.get_or_make(
        exact_key(text, shown), lambda: seal(PURPOSES["thinking"], payload)
    )
    return {"type": "thinking", "thinking": shown, "signature": signature}


def _fit_text(content: list[dict], room: int, stop_reason: str) -> tuple[list[dict], str]:
    """The text blocks cut to what ``max_tokens`` leaves after thinking."""
    out = []
    for block in content:
        if block["type"] == "text":
            text, cut = fit(block["text"], max(room, 0))
            room -= count_tokens(text)
            stop_reason = "max_tokens" if cut else stop_reason
            if not text:
                continue
            block = {**block, "text": text}
        out.append(block)
    return out, stop_reason


def _text_tokens(content: list[dict]) -> int:
    return sum(count_tokens(b["text"]) for b in content if b["type"] == "text")


def _latest_text(call: MessagesCall) -> str:
    for message in reversed(call.request.messages):
        if message["role"] == "user":
            return message["content"] or ""
    return ""
