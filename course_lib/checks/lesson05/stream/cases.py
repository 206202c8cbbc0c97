"""The streams 05.4's check joins: chunks as a provider sends them, as plain dicts.

The dicts become the SDK's own ``ChatCompletionChunk`` objects beside the learner's code
(``CHUNKS_CODE``); one case is a real stream from a local-model session on the check's side.
Each case is ``(label, chunk dicts or None for the local stream, expected)``.
"""

from __future__ import annotations

import json
from itertools import zip_longest
from random import Random

from course_lib.checks.lesson05._agent_tools import CITIES
from course_lib.i18n import translate

# A case's label, said in the learner's language when a check fails (``spoken_label``): the hidden
# streams' and the visible ones the rules of 05.4 name (see ``RULES`` in ``__init__.py``).
CASE_TEXTS = {
    "hidden": "hidden stream {number}",
    "text_only": "text only",
    "interleaved": "two calls whose fragments interleave",
    "local": "a stream from the local model (three parallel calls)",
    "later_first": "index 1 starts before index 0",
    "usage": "text, one call and a final usage chunk without choices",
}

TWO = [
    {"id": "call_a", "name": "get_weather", "arguments": '{"city": "北京"}'},
    {"id": "call_b", "name": "get_time", "arguments": '{"city": "上海"}'},
]

# A visible case is known by its label's key in CASE_TEXTS; those the rules name, by name too.
TEXT_ONLY = "text_only"
INTERLEAVED = "interleaved"
LATER_FIRST = "later_first"
USAGE = "usage"


def chunk(delta: dict | None, finish_reason: str | None = None, *, usage: dict | None = None):
    choices = (
        [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    )
    data = {"id": "chatcmpl-05", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return {**data, "choices": choices, "usage": usage}


def pieces(text: str, rng: Random, most: int = 4) -> list[str]:
    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, most - 1))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def stream(rng: Random, text: str | None, calls: list[dict], *, usage: bool) -> list[dict]:
    """Chunks: the role, text pieces, call fragments interleaved at random by index."""
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": piece}) for piece in (pieces(text, rng) if text else [])]
    queues = []
    for index, call in enumerate(calls):
        parts = pieces(call["arguments"], rng)
        first_arguments = parts.pop(0) if rng.random() < 0.3 else ""
        function = {"name": call["name"], "arguments": first_arguments}
        first = {"index": index, "id": call["id"], "type": "function", "function": function}
        queues.append([first] + [{"index": index, "function": {"arguments": p}} for p in parts])
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        chunks.append(chunk({"tool_calls": [queue.pop(0)]}))
    chunks.append(chunk({}, "tool_calls" if calls else "stop"))
    if usage:
        chunks.append(
            chunk(None, usage={"prompt_tokens": 9, "completion_tokens": 5, "total_tokens": 14})
        )
    return chunks


def random_call(rng: Random, number: int) -> dict:
    city = rng.choice(CITIES)
    name, arguments = rng.choice(
        [
            ("get_weather", {"city": city, "unit": rng.choice(["c", "f"])}),
            ("get_time", {"city": city}),
            ("search_notes", {"keyword": f"{city} 旅行", "limit": rng.randint(1, 9)}),
        ]
    )
    call_id = f"call_{number}{rng.randint(1000, 9999)}"
    return {"id": call_id, "name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}


def _by_index(chunks: list[dict]) -> tuple[list[dict], list[dict]]:
    """The fragments of a two-call stream (between its first and last chunk), by index."""
    found: tuple[list[dict], list[dict]] = ([], [])
    for item in chunks[1:-1]:
        found[item["choices"][0]["delta"]["tool_calls"][0]["index"]].append(item)
    return found


def interleave_two(chunks: list[dict]) -> list[dict]:
    """Two calls' stream: both started, then their argument fragments alternating, index 1 first."""
    zero, one = _by_index(chunks)
    rest = [f for pair in zip_longest(one[1:], zero[1:]) for f in pair if f is not None]
    return [chunks[0], zero[0], one[0], *rest, chunks[-1]]


def later_index_first(chunks: list[dict]) -> list[dict]:
    zero, one = _by_index(chunks)
    return [chunks[0], *one, *zero, chunks[-1]]


def stream_cases(rng: Random) -> list[tuple[str, list[dict] | None, dict | None]]:
    """Visible cases, the local stream (its expected value comes from the model), hidden ones."""
    fixed, text = Random(5), "北京今天晴，最高 31 度。"
    text_only, two = stream(fixed, text, [], usage=False), stream(fixed, None, TWO, usage=False)
    usage = stream(fixed, "Let me check.", TWO[:1], usage=True)
    cases: list[tuple[str, list[dict] | None, dict | None]] = [
        (TEXT_ONLY, text_only, {"content": text, "tool_calls": []}),
        (INTERLEAVED, interleave_two(two), {"content": None, "tool_calls": TWO}),
        ("local", None, None),
        (LATER_FIRST, later_index_first(two), {"content": None, "tool_calls": TWO}),
        (USAGE, usage, {"content": "Let me check.", "tool_calls": TWO[:1]}),
    ]
    for number in range(10):
        calls = [random_call(rng, n) for n in range(rng.randint(0, 4))]
        text = rng.choice([None, None, "好的，我查一下。", "Checking the weather for you."])
        if not calls and text is None:
            text = "北京晴。"
        chunks = stream(rng, text, calls, usage=rng.random() < 0.5)
        label = translate(CASE_TEXTS, "hidden", number=number + 1)
        cases.append((label, chunks, {"content": text, "tool_calls": calls}))
    return cases
