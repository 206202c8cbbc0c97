"""Exercise 05.4, ``collect_stream(chunks) -> dict``: a streamed reply joined back into its text
and its complete tool calls, fragments joined by ``index``.

The chunks are the SDK's own ``ChatCompletionChunk`` objects, built beside the learner's code
from plain dicts (``cases.py``), and one real stream from a local-model session on the
check's side. Rules, the case that breaks each, and the hint that names it: see ``RULES``.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import HintText, Plain, expect_equal, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson05._agent_tools import (
    CHECK_MODEL,
    NOTEBOOK,
    check_tools,
    oracle_client,
)
from course_lib.checks.lesson05.agent_loop.cases import heuristic
from course_lib.checks.lesson05.stream import cases as streams
from course_lib.i18n import spoken_label

TEXTS = Catalog() | {
    "case": "collect_stream(<{count} chunks: {label}>)",
    "case_local": "collect_stream(<{label}>)",
    "summary": "{count} streams",
}
text = TEXTS.text


CASES = streams.stream_cases(hidden_rng("05.4"))


def case_label(label: str, chunks: list[dict] | None) -> str:
    if chunks is None:
        return text("case_local", label=spoken_label(streams.CASE_TEXTS, label))
    return text("case", count=len(chunks), label=spoken_label(streams.CASE_TEXTS, label))


def case_of(label: str) -> str:
    return next(case_label(found, chunks) for found, chunks, _ in CASES if found == label)


RULES = (
    Rule("result", 'return `{"content": ..., "tool_calls": [...]}` (extra keys such as '
         "`finish_reason` are allowed)", case=case_of(streams.TEXT_ONLY), hint="result_dict"),
    Rule("content", "`content` is every piece of text joined in arrival order",
         case=case_of(streams.TEXT_ONLY), hint="content_joined"),
    Rule("content_none", "it is `None` when no text arrived, as in a reply that was not streamed "
         '(an empty piece `""` is no text)', case=case_of(streams.INTERLEAVED),
         hint="content_none"),
    Rule("none_fields", "fields a chunk does not carry are `None` (`delta.content`, a later "
         "fragment's `id` and `function.name`): skip them", case=case_of(streams.TEXT_ONLY),
         hint="none_fields"),
    Rule("no_choices", "the final usage chunk (sent when a request asks for usage) has an "
         "**empty** `choices` list: skip it", case=case_of(streams.USAGE), hint="no_choices"),
    Rule("by_index", '`tool_calls` holds one `{"id": ..., "name": ..., "arguments": ...}` per '
         "`index`, ordered by `index`", case=case_of(streams.LATER_FIRST), hint="order_by_index"),
    Rule("first_fragment", "`id` and `name` arrive only in a call's first fragment; a later `None` "
         "must not overwrite them", case=case_of(streams.INTERLEAVED), hint="keep_first"),
    Rule("arguments", "each call's `arguments` is the pieces of *its* `index` joined in arrival "
         "order", case=case_of(streams.INTERLEAVED), hint="join_by_index"),
)  # fmt: skip

HINTS = Catalog() | {
    "result_dict": (
        'Return a dict {{"content": text or None, "tool_calls": [{{"id", "name", "arguments"}}]}}.'
    ),
    "content_none": (
        'content is None when no text arrived (as in a reply that was not streamed), not "".'
    ),
    "content_joined": "content is every delta.content piece joined in arrival order (skip None).",
    "calls_list": "tool_calls is a list ordered by index, not a dict.",
    "one_per_index": (
        "One entry per index: a new call starts when a fragment brings an index you have not "
        "seen; later fragments of the same index continue it."
    ),
    "call_dict": 'Each tool call is a dict {{"id": ..., "name": ..., "arguments": ...}}.',
    "call_keys": (
        'Each tool call is a dict with exactly the keys "id", "name" and "arguments" (extra '
        "keys are allowed only beside content and tool_calls); this one also has {extra}."
    ),
    "keep_first": (
        "The id and name arrive only in a call's first fragment; later fragments carry id=None "
        "and name=None. Keep the first values (do not overwrite them with None)."
    ),
    "order_by_index": (
        "Order the tool calls by their index, not by when their first fragment arrived."
    ),
    "join_by_index": (
        "The argument fragments were joined in arrival order: fragments of different calls "
        "interleave, so add each fragment to the call with the same index."
    ),
    "arguments_joined": (
        "Each call's arguments are all its fragments' arguments joined, in arrival order."
    ),
    "no_choices": (
        "The last chunk of a stream with usage has an empty choices list: skip chunks without "
        "choices."
    ),
    "none_fields": (
        "Fields a fragment does not carry are None (delta.content, a later fragment's id, name "
        "and even function): check for None before joining."
    ),
}
hint = HINTS.hint


CHUNKS_CODE = """\
from openai.types.chat import ChatCompletionChunk

got = collect_stream(iter([ChatCompletionChunk.model_validate(c) for c in data]))
"""
LOCAL_CODE = """\
got = collect_stream(client.chat.completions.create(stream=True, **request))
"""
# Other keys (finish_reason, usage) are the learner's choice: only these two are judged.
RESULT = (
    "{k: got[k] for k in ('content', 'tool_calls') if k in got} if isinstance(got, dict) else got"
)


@exercise("05.4", notebook=NOTEBOOK, title="collect_stream", points=3, rules=RULES, hints=HINTS)
def check_collect_stream(learner: Learner) -> str:
    target = learner.target("collect_stream")
    for label, chunks, expected in CASES:
        case = case_label(label, chunks)
        if chunks is None:
            request, expected = _local_case()
            session = learner.model(heuristic(), model_name=CHECK_MODEL)
            code, bind = LOCAL_CODE, {"client": learner.client(session), "request": request}
        else:
            code, bind = CHUNKS_CODE, {"data": chunks}
        reply = learner.run(code, result=RESULT, bind={"collect_stream": target, **bind})
        if reply.raised:
            explain_raised(case, reply, chunks or [], expected)
        if not reply.returned:
            fail(case, expected, Plain(reply.data.get("repr", "")), hint("result_dict"))
        expect_equal(case, expected, reply.value, hint=stream_hint(expected, reply.value))
    return text("summary", count=len(CASES))


def _local_case() -> tuple[dict, dict]:
    """The local stream's request, and what to expect: the same request, not streamed, on a
    session with the same seed, gives the same reply."""
    messages = [{"role": "user", "content": "What is the weather in 北京, 上海 and Paris?"}]
    request = {"model": CHECK_MODEL, "messages": messages, "tools": check_tools()}
    message = oracle_client(heuristic()).chat.completions.create(**request).choices[0].message
    calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
             for c in message.tool_calls or []]  # fmt: skip
    return request, {"content": message.content, "tool_calls": calls}


def explain_raised(case: str, reply: Reply, chunks: list[dict], expected: Any) -> None:
    __tracebackhide__ = True
    if reply.raised_a("IndexError") and any(not c["choices"] for c in chunks):
        fail(case, expected, Plain(reply.raised_text), hint("no_choices"))
    if reply.raised_a("TypeError") and "NoneType" in reply.message:
        fail(case, expected, Plain(reply.raised_text), hint("none_fields"))
    raise_learner_error(case, reply)


def stream_hint(expected: dict, got: Any) -> HintText:
    if not isinstance(got, dict) or "tool_calls" not in got or "content" not in got:
        return hint("result_dict")
    if expected["content"] is None and got["content"] == "":
        return hint("content_none")
    if expected["content"] != got["content"]:
        return hint("content_joined")
    calls = got["tool_calls"]
    if not isinstance(calls, list):
        return hint("calls_list")
    want = expected["tool_calls"]
    if len(calls) != len(want):
        return hint("one_per_index")
    if any(not isinstance(c, dict) for c in calls):
        return hint("call_dict")
    if any(not c.get("id") or not c.get("name") for c in calls):
        return hint("keep_first")
    extra = sorted({key for c in calls for key in c} - {"id", "name", "arguments"})
    if extra:
        return hint("call_keys", extra=", ".join(map(repr, extra)))
    got_ids, want_ids = [c.get("id") for c in calls], [c["id"] for c in want]
    if got_ids != want_ids and sorted(got_ids) == sorted(want_ids):
        return hint("order_by_index")
    joined = sorted("".join(c.get("arguments") or "" for c in calls))
    if joined == sorted("".join(c["arguments"] for c in want)):
        return hint("join_by_index")
    return hint("arguments_joined")
