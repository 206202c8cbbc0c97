"""Exercise 09.6, ``ShopAssistant(client, *, model, shop, approve)``: the shop's assistant, the
learner's own parts assembled, graded by scenarios with partial credit.

Each scenario is a conversation with the local model (scripted or the toy model, some hostile)
on a shop built in the learner's kernel; the model runs here, so what the assistant sent is
recorded on the check's side. A scenario earns its point when every outcome a user cares about
holds (``judge``); the scenarios are in ``scenarios``, the evidence is
collected by ``run``, the sentences are in ``texts``.

``RULES`` name, for each rule of the contract, the scenario that a wrong answer breaking it alone
fails first (``Rule.case`` is a scenario id here) and the hint that failure carries.
"""

from __future__ import annotations

from course_lib.checks.compare import HintText, Plain, fail
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import STUB_ID, Learner, Reply, raise_learner_error
from course_lib.checks.lesson09._policy_oracles import NOTEBOOK
from course_lib.checks.lesson09.assistant.judge import judge
from course_lib.checks.lesson09.assistant.run import Asked, build, run_scenario
from course_lib.checks.lesson09.assistant.scenarios import CHECK_MODEL, scenarios, spoken_title
from course_lib.checks.lesson09.assistant.texts import HINTS, TEXTS, hint, text
from course_lib.checks.scenarios import ScenarioOutcome

POINTS_PER_SCENARIO = 1

RULES = (
    Rule("result", "otherwise the model's final text", case="price", hint="answer"),
    Rule("system_prompt", '`assistant.messages` is the memory, starting with '
         '`{"role": "system", "content": SYSTEM_PROMPT}`', case="price", hint="system_prompt"),
    Rule("responses", "over the Responses API (`converse`)", case="price", hint="responses"),
    Rule("routing", "Each request offers the tools of the categories `route(question)` picks",
         case="price", hint="routing"),
    Rule("roles", "that `may_use(role, tags)` allows", case="staff_tool", hint="roles"),
    Rule("strict", "in strict mode (`StrictTools`)", case="price", hint="strict"),
    Rule("every_call", "Every call gets one tool message", case="staff_tool", hint="unanswered"),
    Rule("trace", "`assistant.trace` holds lesson 06's records (`TracedRegistry`), one per call, "
         "across questions", case="staff_tool", hint="trace_missing"),
    Rule("guard", "a call to any other tool never runs: an error result naming it answers it",
         case="injection", hint="guard"),
    Rule("calculator", "and `calculate` (never `eval`), each tagged `TOOL_TAGS[name]`", case="eval",
         hint="eval"),
    Rule("approval", "An offered tool in `NEEDS_APPROVAL` runs only when `approve` says `True` "
         "(`ApprovalRegistry`); nobody is asked about a call that was not offered", case="approval",
         hint="approval"),
    Rule("memory", "every question goes with the conversation before it", case="memory",
         hint="memory"),
    Rule("shop", "The tools: every function of `shop_tools(shop)`, the shop given", case="price_zh",
         hint="wrong_shop"),
    Rule("concurrent", "the calls of a turn run concurrently", case="parallel", hint="concurrent"),
    Rule("budget", "At most `MAX_TURNS` requests per question, then `ask` returns `None`",
         case="endless", hint="budget"),
    Rule("unknown_role", "An unknown role: `may_use`'s `ValueError` leaves `ask` before any "
         "request", case="unknown_role", hint="unknown_role"),
    Rule("context_budget", "fitted to `CONTEXT_BUDGET` first (`fit_budget`)", case="budget",
         hint="context_budget"),
)  # fmt: skip


def expect_an_assistant(learner: Learner, built: Reply) -> None:
    """``ShopAssistant(...)`` must make something with an ``ask`` method; else no scenario runs."""
    __tracebackhide__ = True
    bind = {"assistant": learner.handle(built.handle)}
    asks = learner.run("", result="callable(getattr(assistant, 'ask', None))", bind=bind)
    if asks.value is not True:
        got = Plain(built.data.get("repr", built.type))
        case, expected = text("build_case", model=CHECK_MODEL), Plain(text("an_assistant"))
        fail(case, expected, got, hint("no_ask", kind=built.type))


def foreign_stub(asked: Asked) -> str:
    """``Exercise 09.1`` when ``ask`` raised another exercise's stub (not written yet), else ""."""
    raised = asked.raised
    if raised is None or not raised.raised_a("NotImplementedError"):
        return ""
    found = STUB_ID.match(raised.message.strip())
    return text("exercise", id=found["id"]) if found and found["id"] != "09.6" else ""


BUILD_HINTS = [
    (lambda reply: reply.raised_a("NotImplementedError"),
     hint("other_stub", stub=HintText.of(TEXTS, "a_stub"))),  # said again when it fails
    (lambda reply: True, hint("build_raised")),
]  # fmt: skip


@exercise("09.6", notebook=NOTEBOOK, title="ShopAssistant",
          points=POINTS_PER_SCENARIO * len(scenarios()), rules=RULES, hints=HINTS)  # fmt: skip
def check_shop_assistant(learner: Learner) -> list[ScenarioOutcome]:
    outcomes = []
    for index, (scenario, expectation) in enumerate(scenarios()):
        session, shop, person, built = build(learner, scenario, index)
        if built.raised:  # no scenario can run: the whole exercise fails on it
            raise_learner_error(text("build_case", model=CHECK_MODEL), built, BUILD_HINTS)
        expect_an_assistant(learner, built)
        evidence = run_scenario(learner, scenario, session, (shop, person, built.handle))
        unfinished = next((a for a in evidence.asks if foreign_stub(a)), None)
        if unfinished is not None:  # an earlier part is a stub: say so once, not per scenario
            case = text("case", question=unfinished.question, role=scenario.role)
            chosen = hint("other_stub", stub=foreign_stub(unfinished))
            raise_learner_error(case, unfinished.raised, [(lambda reply: True, chosen)])
        failure = judge(evidence, expectation)
        said = spoken_title(scenario)  # the learner's language; the grader records the English
        outcomes.append(
            ScenarioOutcome(scenario.id, scenario.title, POINTS_PER_SCENARIO, failure, said)
        )
    return outcomes
