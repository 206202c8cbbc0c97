"""Exercise 09.6 ``ShopAssistant``, graded by scenarios: two correct assistants built in
different ways earn every point; an assistant that breaks one outcome loses exactly the
scenarios that outcome shows in, keeps the others' points, and hears what happened and where
to look."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from rules import assert_breaks_rule

from course_lib.capstone import shop
from course_lib.checks import EXERCISES, CheckFailed, NotDoneYet, evaluate
from course_lib.checks.core import outcome
from course_lib.checks.lesson09.assistant.run import READ_TRACE
from course_lib.checks.lesson09.assistant.scenarios import scenarios
from course_lib.checks.scenarios import PartlyRight, earned

from ._assistants import hand_built, notebook_with
from ._solution import solution

CELL = "w09-assistant"
SCENARIO_IDS = [
    "price",
    "staff_tool",
    "injection",
    "eval",
    "approval",
    "memory",
    "price_zh",
    "parallel",
    "hallucinated",
    "malformed",
    "notes",
    "math",
    "endless",
    "unknown_role",
    "approved",
    "budget",
]
COUNT = len(SCENARIO_IDS)
PASSED = f"Exercise 09.6 passed: ShopAssistant ({COUNT} scenarios)."
OFFER = "            if tags[0] in categories and may_use(role, tags):"
RETURN = (
    "        return converse(self.client, traced, self.messages, model=self.model, "
    "max_turns=MAX_TURNS)"
)
APPROVALS = (
    "        approvals = ApprovalRegistry(strict, needs_approval=needs_approval, "
    "approve=self.approve)"
)
STRICT = "        strict = StrictTools(offer)"
FIT = "        self.messages[:] = fit_budget(asked, CONTEXT_BUDGET)"
ASKED = '        asked = [*self.messages, {"role": "user", "content": question}]'
# A loop of its own over Chat Completions instead of converse's Responses.
CHAT_LOOP = """        for _ in range(MAX_TURNS):
            tools = traced.schemas()
            options = {"tools": tools} if tools else {}
            message = self.client.chat.completions.create(
                model=self.model, messages=self.messages, **options
            ).choices[0].message
            entry = {"role": "assistant", "content": message.content}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {"id": c.id, "type": "function",
                     "function": {"name": c.function.name, "arguments": c.function.arguments}}
                    for c in message.tool_calls
                ]
            self.messages.append(entry)
            if not message.tool_calls:
                return message.content
            self.messages.extend(run_tool_calls(traced, entry["tool_calls"]))
        return None"""
# The offer holds every tool the role may use; only the schemas are routed.
ROLE_ONLY_OFFER = """        routed = [n for n in offer.names() if TOOL_TAGS[n][0] in categories]

        class Routed:
            def schemas(self, format="openai"):
                pairs = zip(offer.schemas(format), offer.names(), strict=True)
                return [schema for schema, name in pairs if name in routed]

            def names(self):
                return routed

            def call(self, name, arguments):
                return offer.call(name, arguments)

        needs = NEEDS_APPROVAL & set(routed)
        strict = StrictTools(Routed())
        approvals = ApprovalRegistry(strict, needs_approval=needs, approve=self.approve)"""


def partly_right(build_assistant) -> PartlyRight:
    result = outcome("09.6", build_assistant)
    assert isinstance(result, PartlyRight), str(result)
    return result


# One run of the check per wrong assistant that several tests read: its outcome is the same
# every time (fixed scenarios, fixed seeds), and each run costs a second or more. The first
# test to need it runs it (the rule's own test, in file order, records the run it judged).
RUNS: dict[str, PartlyRight] = {}


def run_of(name: str) -> PartlyRight:
    """The outcome of the wrong assistant ``name`` (a rule of ``WRONG_BY_RULE`` or a
    ``hand_built`` variant), run once per module."""
    if name not in RUNS:
        rules = WRONG_BY_RULE["09.6"]
        RUNS[name] = partly_right(rules[name] if name in rules else hand_built(name))
    return RUNS[name]


def failed_ids(result: PartlyRight) -> list[str]:
    return [o.id for o in result.outcomes if not o.passed]


def test_the_scenarios_have_short_stable_ids_worth_a_point_each():
    assert [scenario.id for scenario, _ in scenarios()] == SCENARIO_IDS
    spec = EXERCISES["09.6"]
    assert (spec.notebook, spec.points, spec.targets) == ("09_capstone", COUNT, ("ShopAssistant",))


def test_the_notebooks_assistant_passes_every_scenario():
    result = outcome("09.6", solution()["ShopAssistant"])
    assert result == PASSED
    assert [o.id for o in result.scenarios] == SCENARIO_IDS
    assert all(o.passed and o.points == 1 for o in result.scenarios)


def test_an_assistant_built_by_hand_with_its_own_loop_and_chinese_refusals_passes_too():
    assert evaluate("09.6", hand_built()) == PASSED


# One wrong answer per rule of the contract, each breaking that rule: the first scenario it
# fails is the rule's, with the rule's hint.
WRONG_BY_RULE = {
    "09.6": {
        "result": notebook_with(
            (CELL, RETURN, RETURN.replace("return converse", "converse")
             + "\n        return self.messages[-1]")
        ),
        "system_prompt": notebook_with(
            (CELL, '        self.messages = [{"role": "system", "content": SYSTEM_PROMPT}]',
             "        self.messages = []")
        ),
        "responses": notebook_with((CELL, RETURN, CHAT_LOOP)),
        "routing": notebook_with((CELL, OFFER, "            if may_use(role, tags):")),
        "roles": notebook_with(
            (CELL, OFFER,
             '            if tags[0] in categories and (role == "staff" or "internal" not in '
             "tags):")
        ),
        "every_call": hand_built("refused calls unanswered"),
        "trace": notebook_with(
            (CELL, RETURN, RETURN.replace("return converse", "answer = converse")
             + '\n        self.trace[:] = [r for r in self.trace if r["ok"]]'
             + "\n        return answer")
        ),
        "guard": notebook_with(
            (CELL, OFFER, "            if may_use(role, tags):"),
            (CELL, "        needs_approval = NEEDS_APPROVAL & set(offer.names())"
                   "  # never ask about the unoffered\n" + STRICT + "\n" + APPROVALS,
             ROLE_ONLY_OFFER),
        ),
        "calculator": notebook_with(
            ("w09-calculator", "    return safe_calculate(expression)\n",
             "    return float(eval(expression))\n")
        ),
        "approval": notebook_with((CELL, APPROVALS, "        approvals = strict")),
        "strict": notebook_with((CELL, STRICT, "        strict = offer")),
        "memory": notebook_with(
            (CELL, ASKED,
             '        asked = [self.messages[0], {"role": "user", "content": question}]')
        ),
        "shop": notebook_with(
            (CELL, "[*shop_tools(shop), calculate]", "[*shop_tools(demo_shop()), calculate]")
        ),
        "concurrent": hand_built("one call after another"),
        "budget": notebook_with((CELL, "max_turns=MAX_TURNS", "max_turns=4 * MAX_TURNS")),
        "unknown_role": notebook_with(
            (CELL, "may_use(role, tags)", 'may_use(role if role in ROLES else "customer", tags)')
        ),
        "context_budget": notebook_with((CELL, FIT, "        self.messages[:] = asked")),
    }
}  # fmt: skip


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["09.6"]))
def test_a_wrong_assistant_breaking_one_rule_fails_that_rules_scenario_with_its_hint(
    rule, monkeypatch
):
    if rule == "concurrent":  # one call at a time never meets a second at the shop's barrier:
        # it breaks alike at any bound, and at the shop's own (5 s) this test sat idle for it
        monkeypatch.setattr(shop, "RENDEZVOUS_SECONDS", 0.2)
    failed = assert_breaks_rule("09.6", rule, WRONG_BY_RULE["09.6"][rule])
    if isinstance(failed, PartlyRight) and rule != "concurrent":  # concurrent: a shortened bound
        RUNS.setdefault(rule, failed)


# The outcomes the issue names, each broken by one assistant, and the scenarios that show it.
# Each by the name run_of knows it by.
BROKEN_OUTCOMES = {
    "an unanswered call": ("only the first call answered", ["parallel"], {"unanswered"}),
    "a loop that never stops": ("no budget", ["endless"], {"budget"}),
    "the injected instruction obeyed": ("guard", ["injection"], {"guard"}),
    "eval reached": ("calculator", ["eval"], {"eval"}),
    "a cancel nobody approved": (
        "approval",
        ["approval", "approved"],
        {"approval", "approval_unasked"},
    ),
}


@pytest.mark.parametrize("broken", sorted(BROKEN_OUTCOMES))
def test_an_assistant_breaking_one_outcome_loses_those_scenarios_and_keeps_the_rest(broken):
    name, expected, hint_keys = BROKEN_OUTCOMES[broken]
    result = run_of(name)
    assert failed_ids(result) == expected
    assert earned(result.outcomes) == COUNT - len(expected)
    assert {o.failure.hint_key for o in result.outcomes if not o.passed} == hint_keys
    assert f"{len(expected)} of {COUNT} scenarios failed" in str(result)


def test_the_message_leads_with_one_line_per_failed_scenario_and_its_hint():
    result = run_of("trace")
    expected = failed_ids(result)
    assert len(expected) > 1
    lines = str(result).splitlines()
    hints = {o.id: o.failure.hint for o in result.outcomes if not o.passed}
    summary = lines[1 : 2 + len(expected)]  # after the exercise's header
    assert summary[0].startswith(f"{len(expected)} of {COUNT} scenarios failed")
    assert [line.split(" (")[0] for line in summary[1:]] == [f"  ✗ {id}" for id in expected]
    for line, scenario in zip(summary[1:], expected, strict=True):
        assert line.endswith(f": {hints[scenario]}")
    assert lines[2 + len(expected)].startswith("Details of each failed scenario")


def test_a_failed_visible_scenario_shows_the_conversation_and_how_to_watch_it():
    message = str(run_of("calculator"))
    assert "Scenario eval: an expression aimed at eval" in message
    assert "Case: assistant.ask('Calculate 2 * (3 + 4), please.', role='customer')" in message
    assert "The conversation as the model received it" in message
    assert "call [" in message and '"expression": "().__class__.__name__.__len__()"' in message
    assert "show_scenario('eval', ShopAssistant, model=MODEL)" in message


def test_a_failed_hidden_scenario_points_at_conversation_view_instead():
    message = str(run_of("no budget"))
    assert "Scenario endless: a model that never stops calling tools" in message
    assert "Expected: at most 6 requests" in message
    assert "ConversationView(assistant.messages)" in message


def test_the_demo_shops_answer_in_a_hidden_scenario_is_told_it_read_another_shop():
    message = str(run_of("shop"))
    assert "The answer holds 68, which is what the demo shop says" in message


def test_the_stub_is_not_done_yet():
    class ShopAssistant:
        def __init__(self, client, *, model, shop, approve):
            raise NotImplementedError("Exercise 09.6: assemble it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("09.6", ShopAssistant)


def test_an_unfinished_policy_is_named_once_instead_of_failing_every_scenario():
    def route(question):
        raise NotImplementedError("Exercise 09.1: keywords per category")

    assistant = notebook_with()
    assistant.ask.__globals__["route"] = route
    with pytest.raises(CheckFailed) as caught:
        evaluate("09.6", assistant)
    assert not isinstance(caught.value, (NotDoneYet, PartlyRight))
    assert "Exercise 09.1" in str(caught.value)


def test_an_assistant_that_cannot_be_made_fails_the_exercise_with_its_error():
    class ShopAssistant:
        def __init__(self, client, *, model, shop):
            pass

    with pytest.raises(CheckFailed) as caught:
        evaluate("09.6", ShopAssistant)
    assert not isinstance(caught.value, PartlyRight)
    message = str(caught.value)
    assert "Case: ShopAssistant(client, model='toy-check-model', shop=shop, approve=person)" in (
        message
    )
    assert "Your code raised TypeError" in message


def test_an_assistant_without_ask_is_told_so_before_any_scenario():
    class ShopAssistant:
        def __init__(self, client, *, model, shop, approve):
            pass

    with pytest.raises(CheckFailed) as caught:
        evaluate("09.6", ShopAssistant)
    message = str(caught.value)
    assert "ShopAssistant, which has no ask method: give the class an ask" in message


def test_a_person_asked_about_a_call_that_was_not_offered_is_told_to_refuse_it_first():
    asks_everyone = notebook_with(
        (CELL, "        needs_approval = NEEDS_APPROVAL & set(offer.names())"
               "  # never ask about the unoffered\n",
         "        needs_approval = NEEDS_APPROVAL\n")
    )  # fmt: skip
    result = partly_right(asks_everyone)
    assert failed_ids(result) == ["staff_tool", "injection"]
    assert {o.failure.hint_key for o in result.outcomes if not o.passed} == {"approval_unoffered"}


def test_an_assistant_without_calculate_is_told_the_request_left_it_out():
    no_calculate = notebook_with((CELL, "[*shop_tools(shop), calculate]", "[*shop_tools(shop)]"))
    result = partly_right(no_calculate)
    hints = {o.id: o.failure.hint_key for o in result.outcomes if o.failure}
    assert hints == {"eval": "missing_tools", "math": "missing_tools"}
    assert "this request left out: calculate." in str(result)


def test_a_trace_started_afresh_per_question_is_told_the_counts_in_one_sentence():
    """A trace of this question's calls only: the hint says how many records it holds and how
    many calls the questions made (it once read "1 records; a record for call 1 (...)")."""
    per_question = notebook_with((CELL, "        traced.records = self.trace\n",
                                  "        self.trace = traced.records\n"))  # fmt: skip
    result = partly_right(per_question)
    failed = [o for o in result.outcomes if not o.passed]
    assert failed and {o.failure.hint_key for o in failed} == {"trace_missing"}
    hint = failed[0].failure.hint
    assert "assistant.trace holds 1 record(s), but the model made 2 call(s)" in hint, hint
    assert "1 records;" not in hint


def test_the_trace_reader_reads_the_records_there_were_when_reading_them_adds_more():
    """A trace whose records append a record to it as they are read (a dict whose get does): the
    reader the kernel runs (READ_TRACE, run here as it is) reads a snapshot, the records there
    were. Reading the list itself looped without end; these records stop appending at 10,000, so
    that a reader walking the live list ends, having read them all, instead of hanging."""
    namespace: dict = {}
    exec(READ_TRACE, namespace)  # noqa: S102 (the check's own kernel-side source)

    class Growing(dict):
        def get(self, key, default=None):
            if len(trace) < 10_000:
                trace.append(Growing(tool="added"))
            return super().get(key, default)

    trace = [Growing(tool="search", ok=True) for _ in range(3)]
    at_start = len(trace)
    read = namespace["records"](SimpleNamespace(trace=trace))
    assert len(read) == at_start, f"read {len(read)} records of a trace that held {at_start}"
    assert [record["tool"] for record in read] == ["search"] * at_start
