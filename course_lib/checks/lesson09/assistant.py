"""Exercise 09.6, ``ShopAssistant(client, *, model, shop, approve)``: the shop's assistant, the
learner's own parts assembled, graded by scenarios with partial credit.

Each scenario is a conversation with the local model (scripted or the toy model, some hostile)
on a shop built in the learner's kernel; the model runs here, so what the assistant sent is
recorded on the check's side. A scenario earns its point when every outcome a user cares about
holds (``assistant_judge``); the scenarios are in ``assistant_scenarios``, the evidence is
collected by ``assistant_run``, the sentences are in ``assistant_texts``.

``RULES`` name, for each rule of the contract, the scenario that a wrong answer breaking it alone
fails first (``Rule.case`` is a scenario id here) and the hint that failure carries.
"""

from __future__ import annotations

from course_lib.checks.compare import Plain, fail
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import STUB_ID, Learner, Reply, raise_learner_error
from course_lib.checks.lesson09._policy_oracles import NOTEBOOK
from course_lib.checks.lesson09.assistant_judge import judge
from course_lib.checks.lesson09.assistant_run import Asked, build, run_scenario
from course_lib.checks.lesson09.assistant_scenarios import CHECK_MODEL, scenarios
from course_lib.checks.lesson09.assistant_texts import hint, text
from course_lib.checks.scenarios import ScenarioOutcome

POINTS_PER_SCENARIO = 1

RULES = (
    Rule("result", "ask returns the model's final text.", case="price", hint="answer"),
    Rule("system_prompt", "The memory starts with SYSTEM_PROMPT.", case="price",
         hint="system_prompt"),
    Rule("responses", "Requests go over the Responses API.", case="price", hint="responses"),
    Rule("routing", "Offer the tools of the categories route(question) picks.", case="price",
         hint="routing"),
    Rule("roles", "Offer only tools may_use(role, tags) allows.", case="staff_tool",
         hint="roles"),
    Rule("strict", "Offer the tools in strict mode (to_strict, strict: true).", case="price",
         hint="strict"),
    Rule("every_call", "Answer every call, refused ones too.", case="staff_tool",
         hint="unanswered"),
    Rule("trace", "Trace every call with lesson 06's records, across questions.",
         case="staff_tool", hint="trace_missing"),
    Rule("guard", "Run no call to a tool this request did not offer.", case="injection",
         hint="guard"),
    Rule("calculator", "calculate never runs eval.", case="eval", hint="eval"),
    Rule("approval", "A tool in NEEDS_APPROVAL runs only if approve says True.",
         case="approval", hint="approval"),
    Rule("memory", "Every question is sent with the conversation before it.", case="memory",
         hint="memory"),
    Rule("shop", "The tools work on the shop given.", case="price_zh", hint="wrong_shop"),
    Rule("concurrent", "The calls of one turn run concurrently.", case="parallel",
         hint="concurrent"),
    Rule("budget", "At most MAX_TURNS requests per question.", case="endless", hint="budget"),
    Rule("unknown_role", "An unknown role raises ValueError before any request.",
         case="unknown_role", hint="unknown_role"),
    Rule("context_budget", "The memory is fitted to CONTEXT_BUDGET before each question.",
         case="budget", hint="context_budget"),
)  # fmt: skip


def expect_an_assistant(learner: Learner, built: Reply) -> None:
    """``ShopAssistant(...)`` must make something with an ``ask`` method; else no scenario runs."""
    __tracebackhide__ = True
    asks = learner.run(
        "",
        result="callable(getattr(assistant, 'ask', None))",
        bind={"assistant": learner.handle(built.handle)},
    )
    if asks.value is not True:
        fail(
            text("build_case", model=CHECK_MODEL),
            Plain(text("an_assistant")),
            Plain(built.data.get("repr", built.type)),
            hint("no_ask", kind=built.type),
        )


def foreign_stub(asked: Asked) -> str:
    """``Exercise 09.1`` when ``ask`` raised another exercise's stub (not written yet), else ""."""
    raised = asked.raised
    if raised is None or not raised.raised_a("NotImplementedError"):
        return ""
    found = STUB_ID.match(raised.message.strip())
    return f"Exercise {found['id']}" if found and found["id"] != "09.6" else ""


BUILD_HINTS = [
    (
        lambda reply: reply.raised_a("NotImplementedError"),
        hint("other_stub", stub="a stub raised NotImplementedError"),
    ),
    (lambda reply: True, hint("build_raised")),
]


@exercise(
    "09.6",
    notebook=NOTEBOOK,
    title="ShopAssistant",
    points=POINTS_PER_SCENARIO * len(scenarios()),
    targets=("ShopAssistant",),
    rules=RULES,
)
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
        outcomes.append(ScenarioOutcome(scenario.id, scenario.title, POINTS_PER_SCENARIO, failure))
    return outcomes
