"""Where a reply ends, and what it costs: token limits, stop sequences, and the token counts.

**Counting** (one way for all three APIs, with ``wire.count_tokens``): a reply costs its text,
plus for each tool call 3 tokens of framing, its name and its arguments; a request costs 3
tokens, plus for each message 4 tokens and its JSON, plus its tools' JSON. Usage reports these
numbers for what actually came back, so a cut reply costs less.

**Ending.** The model writes its text first, then its calls in order; a turn ends where it was
meant to, unless a limit ends it earlier:

* a **stop sequence** (Chat ``stop``, Anthropic ``stop_sequences``) found in the text ends it
  just before the first one found (the sequence itself is not returned), and no call follows;
* a **token limit** (``max_tokens``, ``max_completion_tokens``, ``max_output_tokens``) keeps
  what fits: the text up to the last streaming piece that fits, the calls that fit whole, and
  the arguments of the first call that does not, cut at the last character that fits
  (invalid JSON then, as a real model's would be); nothing after it.

Whichever comes first in the text wins. Each API names the ending its own way (``length`` /
``incomplete`` / ``max_tokens``; ``stop`` / ``stop_sequence``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from course_lib.local_model.turns import ToolCall, Turn
from course_lib.local_model.wire import count_tokens, json_tokens, text_pieces

FINISHED, LENGTH, STOP_SEQUENCE = "finished", "length", "stop_sequence"


@dataclass(frozen=True)
class Limits:
    """What a request allows: at most ``max_tokens`` (None: no limit) and the ``stop``
    sequences that end the text."""

    max_tokens: int | None = None
    stop: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ending:
    """A turn as it came back: ``reason`` is ``finished``, ``length`` or ``stop_sequence``
    (then ``stop_sequence`` is the one found); ``cut_call`` says the last call's arguments were
    cut short."""

    turn: Turn
    reason: str = FINISHED
    stop_sequence: str | None = None
    cut_call: bool = False

    @property
    def tokens(self) -> int:
        return turn_tokens(self.turn)


# -- counting -------------------------------------------------------------------------------------


def call_tokens(call: ToolCall) -> int:
    return 3 + count_tokens(call.name) + count_tokens(call.arguments)


def turn_tokens(turn: Turn) -> int:
    """What a reply costs: its text and its calls."""
    return count_tokens(turn.content or "") + sum(call_tokens(c) for c in turn.tool_calls)


def prompt_tokens(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], tools_counted: int | None = None
) -> int:
    """What a request costs: 3, plus 4 and the JSON of each message, plus the tools' JSON
    (``tools_counted`` when the caller has counted it already, with :func:`tools_tokens`)."""
    if tools_counted is None:
        tools_counted = tools_tokens(tools)
    return 3 + sum(4 + json_tokens(m) for m in messages) + tools_counted


def tools_tokens(tools: list[dict[str, Any]]) -> int:
    """What a request's tools cost: their JSON."""
    return json_tokens(tools) if tools else 0


# -- ending ---------------------------------------------------------------------------------------


def end(turn: Turn, limits: Limits) -> Ending:
    """The turn as it comes back under ``limits`` (see the module docstring)."""
    text, stop_sequence = _before_stop(turn.content, limits.stop)
    budget = limits.max_tokens
    if text is not None and budget is not None and count_tokens(text) > budget:
        return Ending(Turn(_fit_text(text, budget)), LENGTH)
    if stop_sequence is not None:
        return Ending(Turn(text), STOP_SEQUENCE, stop_sequence)
    if budget is None or turn_tokens(turn) <= budget:
        return Ending(turn)
    left = budget - count_tokens(text or "")
    calls: list[ToolCall] = []
    for call in turn.tool_calls:
        if call_tokens(call) <= left:
            calls.append(call)
            left -= call_tokens(call)
            continue
        room = left - 3 - count_tokens(call.name)
        if room >= 0:
            calls.append(replace(call, arguments=_fit_chars(call.arguments, room)))
        return Ending(_turn(text, calls), LENGTH, cut_call=room >= 0)
    return Ending(turn)  # not reached: the whole turn did not fit, so some call did not


def _turn(text: str | None, calls: list[ToolCall]) -> Turn:
    return Turn("" if text is None and not calls else text, tuple(calls))


def _before_stop(text: str | None, stops: tuple[str, ...]) -> tuple[str | None, str | None]:
    """The text before the earliest stop sequence in it, and that sequence (or None)."""
    if text is None or not stops:
        return text, None
    found = [(text.find(s), n, s) for n, s in enumerate(stops) if s and s in text]
    if not found:
        return text, None
    at, _, sequence = min(found)
    return text[:at], sequence


def fit(text: str, budget: int) -> tuple[str, bool]:
    """The text cut (between streaming pieces) to at most ``budget`` tokens; whether it was cut."""
    if count_tokens(text) <= budget:
        return text, False
    return _fit_text(text, budget), True


def _fit_text(text: str, budget: int) -> str:
    """The text up to the last streaming piece that fits in ``budget`` tokens."""
    kept = ""
    for piece in text_pieces(text):
        if count_tokens(kept + piece) > budget:
            break
        kept += piece
    return kept


def _fit_chars(text: str, budget: int) -> str:
    """The longest prefix of ``text`` within ``budget`` tokens (counted as ``count_tokens``
    counts: a token per 4 ASCII characters, rounded up, and one per other character)."""
    ascii_chars = other = 0
    for index, char in enumerate(text):
        if char.isascii():
            ascii_chars += 1
        else:
            other += 1
        if -(-ascii_chars // 4) + other > budget:
            return text[:index]
    return text
