"""What a learner's loop sent (05.1 and 05.2), read from the model session's ``exchanges``: the
model name, the tools, and the first request's messages, the same on every turn."""

from __future__ import annotations

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import expect_model_and_tools, fail, first_difference
from course_lib.checks.lesson05._agent_tools import CHECK_MODEL, check_tools

HINTS = Catalog() | {
    "no_request": "Call client.chat.completions.create: the loop never asked the model.",
    "request": (
        "Every turn calls client.chat.completions.create(model=model, messages=messages, "
        "tools=registry.schemas()): pass model=model and the registry's tools each time."
    ),
    "whole_conversation": (
        "This request did not send the whole conversation so far: every turn sends every "
        "message from the question on (messages=messages), each earlier one as it was, never a "
        "part of them."
    ),
    "first_message": (
        'Start with messages = [{{"role": "user", "content": question}}], nothing else before '
        "the first request."
    ),
}
hint = HINTS.hint
TEXTS = Catalog() | {
    "a_request": "a request to the model",
    "no_request": "no request",
    "request_number": "request {number} of {count} your loop sent",
    "no_tools": "no tools (tools= not passed)",
    "the_tools": "the registry's tools, registry.schemas()",
    "first_messages": "the first request's messages",
}
text = TEXTS.text


def diagnose_requests(case: str, question: str, exchanges: list) -> None:
    """Fail on the first request that did not pass the model, the tools or the question."""
    __tracebackhide__ = True
    hints = (hint("no_request"), hint("request"), hint("request"))
    expect_model_and_tools(case, exchanges, CHECK_MODEL, check_tools(), text=text, hints=hints)
    user = [{"role": "user", "content": question}]
    sent = exchanges[0].request.get("messages")
    if first_difference(user, sent) is not None:
        fail(case, user, sent, hint("first_message"), where=text("first_messages"))
    for number, (before, after) in enumerate(zip(exchanges, exchanges[1:], strict=False), start=2):
        earlier = before.request.get("messages") or []
        later = after.request.get("messages") or []
        if not isinstance(later, list) or later[: len(earlier)] != earlier:
            where = text("request_number", number=number, count=len(exchanges))
            fail(case, earlier, later, hint("whole_conversation"), where=where)
