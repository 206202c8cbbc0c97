"""Exercise 05.6, ``ask_with_choice(client, registry, question, *, model, tool_choice="auto",
max_turns=4)``: 05.2's loop with ``tool_choice`` steering its first turn.

The learner's loop talks to a model session on the check's side, which refuses what the real API
refuses (a tool name sent bare, a named tool that is not in ``tools``). The check reads what was
sent from ``session.exchanges`` (the choice of each request) and compares the answer returned
with the reference loop's (``course_lib.reference.loop.run_agent`` with the same choice, which
forces the first turn only). Rules, the case that breaks each, and the hint that names it: see
``RULES``.
"""

from __future__ import annotations

import json
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail, hidden_rng
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson05 import conversation, requests
from course_lib.checks.lesson05._agent_tools import (
    CHECK_MODEL,
    CITIES,
    NOTEBOOK,
    check_registry,
    run_loop,
    unwrap,
)
from course_lib.checks.lesson05.agent_loop import reference_view
from course_lib.checks.lesson05.agent_loop.cases import Endless, heuristic
from course_lib.checks.lesson05.conversation import fail_refused, turns
from course_lib.checks.lesson05.requests import diagnose_requests

MODES = ("auto", "none", "required")

# The rules of the loop name 05.1's and 05.2's hints (the requests, the messages).
HINTS = Catalog(also=(conversation.HINTS, requests.HINTS)) | {
    "named_form": (
        "A tool's name is not a tool_choice of its own: the API takes only 'auto', 'none' and "
        "'required' as strings. Name one tool as "
        '{{"type": "function", "function": {{"name": {name!r}}}}}.'
    ),
    "modes_as_is": (
        "{mode!r} is one of the three modes: send it as the string it is, not as a named tool."
    ),
    "unknown_name": (
        "{name!r} is no tool of the registry (it has {names}): raise ValueError naming it, "
        "rather than sending a choice the API refuses."
    ),
    "unknown_message": "Name the unknown tool {name!r} in the ValueError's message.",
    "validate_first": (
        "Check the name before the first request: your loop asked the model {count} time(s) "
        "before it raised. A request the API refuses still costs a round trip."
    ),
    "first_request": (
        "The first request must carry the choice: tool_choice={expected} (it sent {got})."
    ),
    "later_auto": (
        "Request {number} sent tool_choice={got}: only the first turn is forced. After the "
        'results arrive, send "auto", or a forced model must call again and never answers.'
    ),
    "answer": (
        "Return the content of the first reply without tool calls (the model's answer), as the "
        "model sent it."
    ),
    "limit": (
        "Your loop asked the model {made} times: at most max_turns={limit} requests, then return "
        "None."
    ),
    "none_without_answer": (
        "No reply without tool calls came in max_turns={limit} requests, so there is no answer: "
        "return None, not {got}."
    ),
    "too_soon": (
        "Your loop asked the model {made} time(s) and returned before an answer: keep going while "
        "the reply has tool calls, up to max_turns={limit} requests."
    ),
}
hint = HINTS.hint

TEXTS = Catalog() | {
    "case": "ask_with_choice(client, registry, {question}, model={model}, tool_choice={choice}, "
    "max_turns={limit})",
    "a_value_error": "ValueError naming {name!r}, before any request",
    "returned": "no exception: it returned {value}",
    "no_choice": "no tool_choice",
    "request_number": "request {number} of {count} your loop sent",
    "summary": "{count} conversations",
    "the_answer": "the answer",  # what must be plain data (HINTS:not_json of _agent_tools)
}
text = TEXTS.text


# (question, tool_choice as the learner is given it, policy factory, max_turns)
Case = tuple[str, str, Any, int]
TWO_CITIES = "北京和上海的天气怎么样？"
NO_FIT = "Tell me about 北京"
AUTO: Case = (TWO_CITIES, "auto", heuristic, 4)
NONE: Case = (TWO_CITIES, "none", heuristic, 4)
REQUIRED: Case = (NO_FIT, "required", heuristic, 4)
NAMED: Case = (NO_FIT, "get_time", heuristic, 4)
ENDLESS: Case = ("a model that never stops calling", "auto", Endless, 2)
UNKNOWN: Case = (NO_FIT, "get_current_time", heuristic, 4)
VISIBLE = (AUTO, NONE, REQUIRED, NAMED, (TWO_CITIES, "get_time", heuristic, 4), ENDLESS, UNKNOWN)


def case_label(item: Case) -> str:
    question, choice, _, limit = item
    return text("case", question=repr(question), model=repr(CHECK_MODEL), choice=repr(choice),
                limit=limit)  # fmt: skip


RULES = (
    Rule("requests", "every request: `model=model`, the conversation so far, "
         "`tools=registry.schemas()`", case=case_label(AUTO), hint="request"),
    Rule("loop", "each turn appends the assistant message once, then one tool message per call "
         "(`registry.call`), as in 05.2", case=case_label(AUTO), hint="assistant_twice"),
    Rule("modes_as_is", '`"auto"`, `"none"` and `"required"` are sent as they are',
         case=case_label(AUTO), hint="modes_as_is"),
    Rule("first_request", "the first request carries the choice", case=case_label(NONE),
         hint="first_request"),
    Rule("later_auto", 'every later request sends `tool_choice="auto"` or leaves it out, `"auto"` '
         "being the API's default when tools are sent (forcing every turn, the model could never "
         "answer)", case=case_label(REQUIRED), hint="later_auto"),
    Rule("named_form", 'a tool name is sent as `{"type": "function", "function": {"name": name}}`',
         case=case_label(NAMED), hint="named_form"),
    Rule("answer", "return the content of the first reply without tool calls",
         case=case_label(AUTO), hint="answer"),
    Rule("limit", "after `max_turns` requests without an answer, return `None`",
         case=case_label(ENDLESS), hint="limit"),
    Rule("unknown_name", "a name that is no tool of the registry (`registry.names()`) raises "
         "`ValueError` naming it", case=case_label(UNKNOWN), hint="unknown_name"),
    Rule("validate_first", "before any request is sent", case=case_label(UNKNOWN),
         hint="validate_first"),
)  # fmt: skip


def wire_choice(choice: str) -> Any:
    """What the API takes for the choice the learner is given: a mode, or the named form."""
    return choice if choice in MODES else {"type": "function", "function": {"name": choice}}


def hidden_cases() -> list[Case]:
    rng = hidden_rng("05.6")
    cases: list[Case] = []
    for _ in range(4):
        cities = rng.sample(CITIES[:5], 2)
        question = rng.choice(["{a}和{b}的天气怎么样？", "What is the weather in {a} and {b}?"])
        choice = rng.choice([*MODES, "get_weather", "get_time"])
        cases.append((question.format(a=cities[0], b=cities[1]), choice, heuristic, 4))
    return cases


CODE = (
    "result = ask_with_choice(client, registry, question, model=model, tool_choice=choice, "
    "max_turns=limit)"
)


def expect_refusal(case: str, name: str, reply: Reply, exchanges: list) -> None:
    """The unknown tool's case: a ValueError naming it, raised before any request."""
    __tracebackhide__ = True
    expected, raised = Plain(text("a_value_error", name=name)), Plain(reply.raised_text)
    if not reply.raised_a("ValueError"):
        got = raised if reply.raised else Plain(text("returned", value=reply.value))
        names = ", ".join(check_registry().names())
        fail(case, expected, got, hint("unknown_name", name=name, names=names))
    if name not in reply.message:
        fail(case, expected, raised, hint("unknown_message", name=name))
    if exchanges:
        fail(case, expected, raised, hint("validate_first", count=len(exchanges)))


def expect_choices(case: str, choice: str, exchanges: list) -> None:
    """The first request carries the choice in the API's form; every later one "auto"."""
    __tracebackhide__ = True
    wanted, first = wire_choice(choice), exchanges[0].request
    where = text("request_number", number=1, count=len(exchanges))
    sent = first.get("tool_choice", "auto")
    if sent != wanted:  # no tool_choice sends "auto"
        got = first["tool_choice"] if "tool_choice" in first else Plain(text("no_choice"))
        key = "modes_as_is" if choice in MODES and isinstance(sent, dict) else "first_request"
        said = json.dumps(sent) if "tool_choice" in first else text("no_choice")
        fields = {"mode": choice, "expected": json.dumps(wanted), "got": said}
        fail(case, wanted, got, hint(key, **fields), where=where)
    for number, exchange in enumerate(exchanges[1:], start=2):
        sent = exchange.request.get("tool_choice", "auto")
        if sent != "auto":
            where = text("request_number", number=number, count=len(exchanges))
            fail(case, "auto", sent, hint("later_auto", number=number, got=json.dumps(sent)),
                 where=where)  # fmt: skip


def explain_raised(case: str, choice: str, reply: Reply, exchanges: list) -> None:
    """A loop that raised: a bare tool name refused by the API, a conversation refused, else
    the learner's own error."""
    __tracebackhide__ = True
    sent = exchanges[-1].request.get("tool_choice") if exchanges else None
    if reply.raised_a("BadRequestError") and isinstance(sent, str) and sent not in MODES:
        fail(case, wire_choice(choice), sent, hint("named_form", name=choice))
    if reply.raised_a("BadRequestError") and isinstance(sent, dict) and choice in MODES:
        fail(case, choice, sent, hint("modes_as_is", mode=choice))
    if reply.raised_a("BadRequestError"):
        fail_refused(case, reply.message, exchanges)
    raise_learner_error(case, reply)


@exercise("05.6", notebook=NOTEBOOK, title="ask_with_choice", points=2, rules=RULES, hints=HINTS)
def check_tool_choice(learner: Learner) -> str:
    table = [*VISIBLE, *hidden_cases()]
    for item in table:
        question, choice, policy, limit = item
        case = case_label(item)
        reply, session = run_loop(learner, "ask_with_choice", CODE, "as_data(result)", policy(),
                                  question, choice=choice, limit=limit)  # fmt: skip
        if item is UNKNOWN:
            expect_refusal(case, choice, reply, session.exchanges)
            continue
        if reply.raised and not session.exchanges:
            raise_learner_error(case, reply)
        diagnose_requests(case, question, session.exchanges)
        if reply.raised:
            explain_raised(case, choice, reply, session.exchanges)
        expect_choices(case, choice, session.exchanges)
        view, _ = reference_view(case, question, policy, limit, tool_choice=wire_choice(choice))
        answer, requests = view["answer"]["json"], turns(view["messages"]["json"])
        got = unwrap(case, reply.value, text("the_answer"))
        made = len(session.exchanges)
        if made > requests and answer is None:
            fail(case, answer, got, hint("limit", made=made, limit=limit))
        if made < requests:
            fail(case, answer, got, hint("too_soon", made=made, limit=limit))
        if answer is None and got is not None:
            fail(case, answer, got, hint("none_without_answer", limit=limit, got=repr(got)))
        if got != answer:
            fail(case, answer, got, hint("answer"))
    return text("summary", count=len(table))
