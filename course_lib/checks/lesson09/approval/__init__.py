"""Exercise 09.3, ``ApprovalRegistry``: a person approves each call to a destructive tool
before it runs, and a refusal is what the model reads instead of a result.

Each case builds a fresh world beside the learner's code (``cases.WORLD_SOURCE``: a
registry whose tools log each run, a person who logs each question), wraps its registry in the
learner's class, makes one call, and reads the world's log back: whether the person was asked,
with what, before or after the tool ran, and whether it ran at all. The expected result comes
from the check's own copy of the world. A refusal's wording is the learner's: it must be an
error result that names the tool and says, in English or Chinese, that a person refused it
(``meaning.says(message, "refused")``), with the person's reason when they gave one.
"""

from __future__ import annotations

import json
from typing import Any

from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, fail
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply, raise_learner_error
from course_lib.checks.lesson09._policy_oracles import NOTEBOOK
from course_lib.checks.lesson09.approval.cases import (
    NEEDS_APPROVAL,
    RAISES,
    VISIBLE,
    WORLD_SOURCE,
    Case,
    check_world,
    hidden_cases,
)
from course_lib.checks.meaning import names, says, shown
from course_lib.reference.tracing import parsed_arguments

TEXTS = Catalog() | {
    "asked_once": "the person asked once, with {arguments}, before the tool runs",
    "not_asked": "the person not asked",
    "asked": "asked {count} time(s): {asked}",
    "ran_first": "the tool ran before the person was asked",
    "not_run": "{name} not run",
    "ran": "{name} ran",
    "refusal": "an error result naming {name} and saying a person refused it ({refused})",
    "refusal_reason": "an error result holding the reason {reason!r}",
    "a_str": "a str",
    "summary": "{visible} visible and {hidden} hidden calls",
}
text = TEXTS.text


CASE = {index: case.label for index, case in enumerate(VISIBLE)}
RULES = (
    Rule("passthrough", "A tool not in `needs_approval` runs at once: "
         "`self.registry.call(name, arguments)`, unchanged, nobody asked", case=CASE[0],
         hint="passthrough"),
    Rule("ask_once", "Ask `approve` exactly once per call", case=CASE[1], hint="ask_once"),
    Rule("ask_before", "before the tool runs", case=CASE[1], hint="ask_before"),
    Rule("arguments_dict", "with the arguments as a dict: `parsed_arguments(arguments)`",
         case=CASE[1], hint="arguments_dict"),
    Rule("approved_runs", "`approve` returned `True`: return the registry's result unchanged",
         case=CASE[1], hint="approved_runs"),
    Rule("not_run", "A refused call runs nothing", case=CASE[2], hint="not_run"),
    Rule("refusal_error", "its answer is an error result, `error_text(message)`", case=CASE[2],
         hint="refusal_error"),
    Rule("names_tool", "whose message names the tool", case=CASE[2], hint="names_tool"),
    Rule("says_refused", "and says a person refused it (`refused`, or `拒绝`)", case=CASE[2],
         hint="says_refused"),
    Rule("only_true", "Only `True` approves (`is True`): `False` or a `str` refuses", case=CASE[3],
         hint="only_true"),
    Rule("reason", "holding the person's reason word for word when `approve` returned a `str`",
         case=CASE[3], hint="reason"),
    Rule("malformed", "Arguments that are not a JSON object (`'{\"order_id\": '`, `\"[1, 2]\"`) "
         "are shown to nobody: return `self.registry.call(...)`'s answer, its error", case=CASE[4],
         hint="malformed"),
    Rule("empty", '`""` means `{}` (as in 04.4; `parsed_arguments("")` gives `""` back): ask '
         'about it too', case=CASE[5], hint="empty"),
    Rule("never_raise", "`approve` raising is a refusal too: `call` never raises", case=CASE[6],
         hint="never_raise"),
)  # fmt: skip

HINTS = Catalog() | {
    "passthrough": (
        "{name} needs no approval: return self.registry.call(name, arguments) unchanged, "
        "without asking anyone."
    ),
    "ask": "{name} needs approval: ask approve(name, arguments) before it runs.",
    "ask_once": (
        "Ask the person once per call: store what approve returned and decide on that "
        "(this call asked {count} times)."
    ),
    "ask_before": (
        "The tool ran before the person was asked: ask approve first, and call the registry "
        "only when the answer is True."
    ),
    "arguments_dict": (
        "approve gets the arguments as a dict, as a person reads them: parsed_arguments(arguments) "
        "turns JSON text into one (it got {got})."
    ),
    "approved_runs": (
        "The person approved: return self.registry.call(name, arguments), unchanged."
    ),
    "not_run": (
        "The person refused, yet {name} ran: a refused call must not reach the registry at all."
    ),
    "only_true": (
        "approve returned {answer!r}, not True, yet {name} ran: only True approves (test "
        "`decision is True`, not `if decision:`); a str is the person's reason for refusing."
    ),
    "refusal_error": (
        'Answer a refusal with an error result, error_text(message) ({{"error": ...}}), so the '
        "model and the trace can tell it from a result."
    ),
    "names_tool": "The refusal's message must name the tool it refuses ({name}).",
    "says_refused": (
        "The refusal's message must say that a person refused the call ({refused}), so the "
        "model tells the customer instead of trying again."
    ),
    "reason": (
        "The person gave a reason ({reason!r}): put it in the refusal's message word for word, "
        "so the model can pass it on."
    ),
    "malformed": (
        "These arguments are not a JSON object, so there is nothing to show a person: return "
        "self.registry.call(name, arguments), which answers with its error and runs nothing."
    ),
    "empty": (
        '"" means no arguments, {{}} (as in 04.4): ask the person about this call too, with {{}}; '
        "passing it straight to the registry ran {name} without asking."
    ),
    "never_raise": (
        "approve raised; call must never raise: treat it as a refusal (try/except around "
        "approve) and answer with an error result."
    ),
    "returns_str": "call returns a str (got a {kind}).",
}
hint = HINTS.hint


def expected_of(case: Case) -> tuple[dict | None, str | None]:
    """The arguments the person must see (None: they must not be asked), and the registry's
    result when the call must run."""
    arguments = parsed_arguments(case.arguments or "{}")  # "" means {}, as in 04.4
    shown_to_person = arguments if case.needs_approval and isinstance(arguments, dict) else None
    if shown_to_person is not None and case.answer is not True:
        return shown_to_person, None
    return shown_to_person, check_world([case.answer]).registry.call(case.name, case.arguments)


def error_of(result: Any) -> str | None:
    try:
        value = json.loads(result)
    except (TypeError, ValueError):
        return None
    if isinstance(value, dict) and "error" in value:
        return value["error"] if isinstance(value["error"], str) else json.dumps(value["error"])
    return None


def judge_person(case: Case, log: list, wanted: dict | None) -> None:
    __tracebackhide__ = True
    asked = [entry for entry in log if entry[0] == "asked"]
    got = Plain(text("asked", count=len(asked), asked=[entry[2] for entry in asked]))
    if wanted is None:
        if asked:
            key = "malformed" if case.needs_approval else "passthrough"
            fail(case.label, Plain(text("not_asked")), got, hint(key, name=case.name))
        return
    expected = Plain(text("asked_once", arguments=json.dumps(wanted, ensure_ascii=False)))
    if not asked:
        key = "empty" if case.arguments == "" else "ask"
        fail(case.label, expected, got, hint(key, name=case.name))
    if len(asked) > 1:
        fail(case.label, expected, got, hint("ask_once", count=len(asked)))
    if asked[0][2] != wanted:
        fail(case.label, expected, got, hint("arguments_dict", got=json.dumps(asked[0][2])))
    if log[0][0] == "ran":
        fail(case.label, expected, Plain(text("ran_first")), hint("ask_before"))


def judge_refusal(case: Case, log: list, reply: Reply) -> None:
    __tracebackhide__ = True
    refused = shown("refused")
    expected = Plain(text("refusal", name=case.name, refused=refused))
    if any(entry[0] == "ran" for entry in log):
        key = "only_true" if case.answer not in (False, RAISES) and case.answer else "not_run"
        got = Plain(text("ran", name=case.name))
        fail(case.label, expected, got, hint(key, name=case.name, answer=case.answer))
    message = error_of(reply.value)
    if message is None:
        fail(case.label, expected, reply.value, hint("refusal_error"))
    if not names(message, case.name):
        fail(case.label, expected, reply.value, hint("names_tool", name=case.name))
    if not says(message, "refused"):
        fail(case.label, expected, reply.value, hint("says_refused", refused=refused))
    reason = case.answer if isinstance(case.answer, str) and case.answer != RAISES else None
    if reason and reason not in message:
        wanted = Plain(text("refusal_reason", reason=reason))
        fail(case.label, wanted, reply.value, hint("reason", reason=reason))


def run_case(learner: Learner, case: Case) -> None:
    __tracebackhide__ = True
    made = learner.run(WORLD_SOURCE, result="World(answers)", bind={"answers": [case.answer]},
                       keep=True)  # fmt: skip
    world = learner.handle(made.handle)
    wrapper = learner.call("ApprovalRegistry", learner.attr(world, "registry"), keep=True,
                           needs_approval=list(NEEDS_APPROVAL),
                           approve=learner.attr(world, "person"), case=case.label)  # fmt: skip
    reply = learner.attempt(learner.attr(learner.handle(wrapper.handle), "call"), case.name,
                            case.arguments)  # fmt: skip
    log = learner.run("", result="world.log", bind={"world": world}).value or []
    learner.release(wrapper.handle, made.handle)
    if reply.raised:
        raise_learner_error(
            case.label, reply, [(lambda _: case.answer == RAISES, hint("never_raise"))]
        )
    wanted, result = expected_of(case)
    if reply.type != "str":
        got = reply.value if "unjson" not in reply.data else Plain(reply.data.get("repr", ""))
        fail(case.label, Plain(text("a_str")), got, hint("returns_str", kind=reply.type))
    judge_person(case, log, wanted)
    if result is None:
        judge_refusal(case, log, reply)
    elif reply.value != result:  # nobody to ask: no approval needed, or arguments not an object
        nobody = "malformed" if case.needs_approval else "passthrough"
        key = "approved_runs" if wanted is not None else nobody
        fail(case.label, result, reply.value, hint(key, name=case.name))


@exercise("09.3", notebook=NOTEBOOK, title="ApprovalRegistry", points=2, rules=RULES, hints=HINTS)
def check_approval_registry(learner: Learner) -> str:
    hidden = hidden_cases()
    for case in [*VISIBLE, *hidden]:
        run_case(learner, case)
    return text("summary", visible=len(VISIBLE), hidden=len(hidden))
