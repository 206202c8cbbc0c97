"""The verdict on 07.3's second request: the reply sent back, then the results answering it.

The messages must be the question, the assistant message holding the reply's content unchanged
(its ``thinking`` blocks first, exactly as they came: their ``signature`` seals their text), then
one user message whose ``tool_result`` blocks answer every ``tool_use`` block by its id, with the
registry's result and ``is_error`` exactly on error results.

A signature is sealed under a key only the model's process knows, so it differs from one run to
the next: every value this module shows a learner has the reply's signatures replaced by where
they sit (``masked``), so a regrade says the same words.
"""

from __future__ import annotations

from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail
from course_lib.checks.lesson07._registry import is_error_result, replaced, tool_result

TEXTS = Catalog() | {
    "roles": "the roles of the second request's messages",
    "assistant_content": "the assistant message you sent back",
    "the_reply_content": "the reply's content blocks, unchanged",
    "results_for": "one tool_result for each tool_use id: {ids}",
    "results": "the tool_result blocks of the user message you sent",
    "results_then_text": "the tool_result blocks first, then any text",
    "result_of": "the tool_result answering {name}({arguments})",
    "sealed": "<the {field} of the reply's block {position}>",
}
text = TEXTS.text


HINTS = Catalog() | {
    "assistant_missing": (
        'Send the reply back as the assistant message, {{"role": "assistant", "content": '
        "reply.content}}, before the results."
    ),
    "assistant_changed": (
        "Send the reply's content back unchanged, every block of it (its text too): "
        '{{"role": "assistant", "content": reply.content}}.'
    ),
    "thinking_dropped": (
        "The reply began with a thinking block, and the assistant message you sent back lacks "
        "it: while its tools run, a thinking model refuses that turn without its thinking "
        "(400: Expected `thinking` or `redacted_thinking`). Send reply.content back as it is, "
        "every block."
    ),
    "thinking_changed": (
        "The thinking block you sent back differs from the one the reply held: its signature "
        "seals its text, so the API refuses a touched block (400: Invalid `signature`). Send "
        "reply.content back as it is."
    ),
    "tool_role": (
        "Anthropic has no tool role: the results go in the next user message, as tool_result "
        "blocks."
    ),
    "one_user_message": (
        "Put every tool_result in one user message, right after the assistant message: not one "
        "message per result. The API combines consecutive user messages, but Anthropic warns "
        "that results sent one message each teach the model to stop making parallel calls."
    ),
    "results_first": (
        "Put the tool_result blocks first in the user message; any text comes after them (the "
        "API refuses a message that answers tool_use blocks with text first)."
    ),
    "content_blocks": (
        "Your tool_result content is a list of text blocks. The API accepts that too, but this "
        "exercise asks for the string registry.call returns, as it is."
    ),
    "result_swapped": (
        "This tool_result holds the result of another call: run each tool_use block with its own "
        "name and input, and send that result with that block's id."
    ),
    "every_call": "Answer every tool_use block, not only the first: one tool_result each.",
    "tool_use_id": (
        'Each tool_result names the call it answers with "tool_use_id": the tool_use block\'s id.'
    ),
    "content": (
        "The content is the text registry.call(block.name, block.input) returns, sent unchanged."
    ),
    "is_error": (
        'When registry.call returns an error object ({{"error": ...}}), add "is_error": True to '
        "that tool_result."
    ),
    "is_error_only": (
        '"is_error": True belongs only on results that are errors: JSON objects with an '
        '"error" key, which is_error_result recognises. A result that merely holds the word '
        '"error" is not one.'
    ),
}
hint = HINTS.hint


THINKING = ("thinking", "redacted_thinking")
# The parts of each kind of block that must come back unchanged.
ESSENTIAL = {
    "tool_use": ("type", "id", "name", "input"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
}


def is_text_blocks_of(content: Any, result: str) -> bool:
    """``content`` is ``result`` as a list of text blocks (which the API also accepts)."""
    if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
        return False
    texts = [b.get("text") for b in content if b.get("type") == "text"]
    return len(texts) == len(content) and "".join(map(str, texts)) == result


def essential(block: dict) -> dict:
    """The parts of a reply's content block that must come back (the SDK may add or drop the
    rest, such as ``citations: null``)."""
    keys = ESSENTIAL.get(block.get("type"), ("type", "text"))
    return {key: block.get(key) for key in keys}


def masked(value: Any, first: dict) -> Any:
    """``value`` with the reply's sealed values (signatures, redacted data) replaced by where they
    sit in the reply."""
    names = {
        block[key]: text("sealed", field=key, position=position)
        for position, block in enumerate(first.get("content") or [])
        if block.get("type") in THINKING
        for key in ("signature", "data")
        if isinstance(block.get(key), str) and block[key]
    }
    return replaced(value, names) if names else value


def diagnose_thinking(case: str, first: dict, sent: Any) -> None:
    """The reply's thinking blocks came back first, exactly as they were."""
    __tracebackhide__ = True
    thoughts = [essential(b) for b in first.get("content") or [] if b.get("type") in THINKING]
    if not thoughts:
        return
    sent_blocks = [b for b in sent if isinstance(b, dict)] if isinstance(sent, list) else []
    returned = [essential(b) for b in sent_blocks if b.get("type") in THINKING]
    where, wanted = text("assistant_content"), Plain(text("the_reply_content"))
    leading = [b.get("type") for b in sent_blocks[: len(thoughts)]]
    if not returned or leading != [b["type"] for b in thoughts]:
        fail(case, wanted, sent, hint("thinking_dropped"), where=where)
    if returned != thoughts:
        fail(case, wanted, sent, hint("thinking_changed"), where=where)


def diagnose_second_request(case: str, question: str, exchanges: list) -> None:
    """Fail with a fitting hint on the first thing wrong in the second request's messages."""
    __tracebackhide__ = True
    first, messages = exchanges[0].reply, exchanges[1].request.get("messages") or []
    first, messages = masked(first, first), masked(messages, first)  # one mapping for both
    uses = [b for b in first.get("content") or [] if b.get("type") == "tool_use"]
    ids = [b["id"] for b in uses]
    sent_roles = [m.get("role") if isinstance(m, dict) else m for m in messages]
    expected_roles = ["user", "assistant", "user"]
    where = text("roles")
    if "assistant" not in sent_roles:
        fail(case, expected_roles, sent_roles, hint("assistant_missing"), where=where)
    if any(role not in ("user", "assistant") for role in sent_roles):
        fail(case, expected_roles, sent_roles, hint("tool_role"), where=where)
    if sent_roles != expected_roles:
        fail(case, expected_roles, sent_roles, hint("one_user_message"), where=where)
    sent = messages[1].get("content")
    diagnose_thinking(case, first, sent)
    reply_blocks = [essential(b) for b in first.get("content") or []]
    if (
        not isinstance(sent, list)
        or [essential(b) for b in sent if isinstance(b, dict)] != reply_blocks
    ):
        where = text("assistant_content")
        fail(case, Plain(text("the_reply_content")), sent, hint("assistant_changed"), where=where)
    content = messages[2].get("content")
    listed = content if isinstance(content, list) else []
    results = [b for b in listed if isinstance(b, dict) and b.get("type") == "tool_result"]
    answered = [r.get("tool_use_id") for r in results]
    expected = Plain(text("results_for", ids=", ".join(ids)))
    where = text("results")
    leading = listed[: len(results)]
    if results and any(not isinstance(b, dict) or b.get("type") != "tool_result" for b in leading):
        fail(case, Plain(text("results_then_text")), content, hint("results_first"), where=where)
    if len(results) < len(uses):
        fail(case, expected, answered, hint("every_call"), where=where)
    if sorted(map(str, answered)) != sorted(ids):
        fail(case, expected, answered, hint("tool_use_id"), where=where)
    by_id = {r["tool_use_id"]: r for r in results}
    every_result = [tool_result(use["name"], use["input"]) for use in uses]
    for use, result in zip(uses, every_result, strict=True):
        sent_result = by_id[use["id"]]
        here = text("result_of", name=use["name"], arguments=use["input"])
        sent_content = sent_result.get("content")
        if sent_content != result:
            key = "content_blocks" if is_text_blocks_of(sent_content, result) else "content"
            key = "result_swapped" if sent_content in every_result else key
            fail(case, result, sent_content, hint(key), where=here)
        flagged = sent_result.get("is_error") is True
        if flagged != is_error_result(result):
            if flagged:
                wanted = {k: v for k, v in sent_result.items() if k != "is_error"}
                fail(case, wanted, sent_result, hint("is_error_only"), where=here)
            fail(case, {**sent_result, "is_error": True}, sent_result, hint("is_error"), where=here)
