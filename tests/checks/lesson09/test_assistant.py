"""Exercise 09.6 ``build_assistant``, graded by scenarios: two correct assistants built in
different ways earn every point; an assistant that breaks one outcome loses exactly the
scenarios that outcome shows in, keeps the others' points, and hears what happened and where
to look."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule

from course_lib.checks import EXERCISES, CheckFailed, NotDoneYet, evaluate
from course_lib.checks.core import outcome
from course_lib.checks.lesson09.assistant_scenarios import scenarios
from course_lib.checks.scenarios import PartlyRight, earned

from ._assistants import hand_built, notebook_with
from ._solution import solution

CELL = "w09-assistant"
SCENARIO_IDS = [
    "price",
    "staff_tool",
    "injection",
    "eval",
    "price_zh",
    "parallel",
    "hallucinated",
    "malformed",
    "notes",
    "math",
    "endless",
    "unknown_role",
]
OFFER = "            if tool.tags & categories and may_use(role, tool.tags)"
GUARD = "        if name not in self.names:"
MAKE_OFFER = "        offer = OfferedTools(self.registry, names)\n"


def partly_right(build_assistant) -> PartlyRight:
    result = outcome("09.6", build_assistant)
    assert isinstance(result, PartlyRight), str(result)
    return result


def failed_ids(result: PartlyRight) -> list[str]:
    return [o.id for o in result.outcomes if not o.passed]


def test_the_scenarios_have_short_stable_ids_worth_a_point_each():
    assert [scenario.id for scenario, _ in scenarios()] == SCENARIO_IDS
    spec = EXERCISES["09.6"]
    assert (spec.notebook, spec.points, spec.targets) == (
        "09_capstone",
        12,
        ("build_assistant",),
    )


def test_the_notebooks_assistant_passes_every_scenario():
    result = outcome("09.6", solution()["build_assistant"])
    assert result == "Exercise 09.6 passed: build_assistant (12 scenarios)."
    assert [o.id for o in result.scenarios] == SCENARIO_IDS
    assert all(o.passed and o.points == 1 for o in result.scenarios)


def test_an_assistant_built_by_hand_without_the_reference_registry_or_loop_passes_too():
    assert evaluate("09.6", hand_built()) == "Exercise 09.6 passed: build_assistant (12 scenarios)."


# One wrong answer per rule of the contract, each breaking that rule: the first scenario it
# fails is the rule's, with the rule's hint.
WRONG_BY_RULE = {
    "09.6": {
        "result": notebook_with(
            (CELL, "        return result\n        # END",
             "        return result.answer\n        # END")
        ),
        "routing": notebook_with((CELL, OFFER, "            if may_use(role, tool.tags)")),
        "roles": notebook_with(
            (CELL, OFFER,
             '            if tool.tags & categories and (role == "staff" or "internal" not in '
             "tool.tags)")
        ),
        "every_call": hand_built("refused calls unanswered"),
        "trace": notebook_with(
            (CELL, "for step in result.steps:",
             "for step in [s for s in result.steps if not is_error(s.result)]:")
        ),
        "guard": notebook_with(
            (CELL, MAKE_OFFER, MAKE_OFFER + "        offer.role = role\n"),
            (CELL, GUARD,
             "        tool = self.registry.get(name)\n"
             "        if tool is None or not may_use(self.role, tool.tags):"),
        ),
        "calculator": notebook_with(
            (CELL, "    return safe_calculate(expression)", "    return float(eval(expression))")
        ),
        "shop": notebook_with(
            (CELL, "[*shop_tools(shop), calculate]", "[*shop_tools(demo_shop()), calculate]")
        ),
        "concurrent": hand_built("one call after another"),
        "budget": notebook_with(
            (CELL, "max_iterations=MAX_TURNS", "max_iterations=4 * MAX_TURNS")
        ),
        "unknown_role": notebook_with(
            (CELL, "may_use(role, tool.tags)",
             'may_use(role if role in ROLES else "customer", tool.tags)')
        ),
    }
}  # fmt: skip


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["09.6"]))
def test_a_wrong_assistant_breaking_one_rule_fails_that_rules_scenario_with_its_hint(rule):
    assert_breaks_rule("09.6", rule, WRONG_BY_RULE["09.6"][rule])


# The outcomes the issue names, each broken by one assistant, and the scenarios that show it.
BROKEN_OUTCOMES = {
    "a forbidden tool run": (
        notebook_with((CELL, GUARD, "        if self.registry.get(name) is None:")),
        ["staff_tool", "injection"],
        "guard",
    ),
    "an unanswered call": (hand_built("only the first call answered"), ["parallel"], "unanswered"),
    "a trace missing calls": (
        WRONG_BY_RULE["09.6"]["trace"],
        ["staff_tool", "injection", "eval", "hallucinated", "malformed"],
        "trace_missing",
    ),
    "a loop that never stops": (hand_built("no budget"), ["endless"], "budget"),
    "the injected instruction obeyed": (WRONG_BY_RULE["09.6"]["guard"], ["injection"], "guard"),
    "eval reached": (WRONG_BY_RULE["09.6"]["calculator"], ["eval"], "eval"),
}


@pytest.mark.parametrize("broken", sorted(BROKEN_OUTCOMES))
def test_an_assistant_breaking_one_outcome_loses_those_scenarios_and_keeps_the_rest(broken):
    build_assistant, expected, hint_key = BROKEN_OUTCOMES[broken]
    result = partly_right(build_assistant)
    assert failed_ids(result) == expected
    assert earned(result.outcomes) == 12 - len(expected)
    assert {o.failure.hint_key for o in result.outcomes if not o.passed} == {hint_key}
    assert f"{len(expected)} of 12 scenarios failed" in str(result)


def test_the_message_leads_with_one_line_per_failed_scenario_and_its_hint():
    build_assistant, expected, _ = BROKEN_OUTCOMES["a trace missing calls"]
    result = partly_right(build_assistant)
    lines = str(result).splitlines()
    hints = {o.id: o.failure.hint for o in result.outcomes if not o.passed}
    summary = lines[1 : 2 + len(expected)]  # after the exercise's header
    assert summary[0].startswith(f"{len(expected)} of 12 scenarios failed")
    assert [line.split(" (")[0] for line in summary[1:]] == [f"  ✗ {id}" for id in expected]
    for line, scenario in zip(summary[1:], expected, strict=True):
        assert line.endswith(f": {hints[scenario]}")
    assert lines[2 + len(expected)].startswith("Details of each failed scenario")
    assert str(result).index("Scenario staff_tool:") > str(result).index("  ✗ malformed")


def test_a_failed_visible_scenario_shows_the_conversation_and_how_to_watch_it():
    message = str(partly_right(WRONG_BY_RULE["09.6"]["calculator"]))
    assert "Scenario eval: an expression aimed at eval" in message
    assert "Case: assistant.ask('Calculate 2 * (3 + 4), please.', role='customer')" in message
    assert "The conversation as the model received it" in message
    assert "call [" in message and '"expression": "().__class__.__name__.__len__()"' in message
    assert "show_scenario('eval', build_assistant, model=MODEL)" in message


def test_a_failed_hidden_scenario_points_at_conversation_view_instead():
    message = str(partly_right(hand_built("no budget")))
    assert "Scenario endless: a model that never stops calling tools" in message
    assert "Expected: at most 6 requests" in message
    assert "ConversationView(result)" in message


def test_the_demo_shops_answer_in_a_hidden_scenario_is_told_it_read_another_shop():
    message = str(partly_right(WRONG_BY_RULE["09.6"]["shop"]))
    assert "The answer holds 68, which is what the demo shop says" in message


def test_the_stub_is_not_done_yet():
    def build_assistant(client, *, model, shop):
        raise NotImplementedError("Exercise 09.6: assemble it")

    with pytest.raises(NotDoneYet, match="not done yet"):
        evaluate("09.6", build_assistant)


def test_an_unfinished_policy_is_named_once_instead_of_failing_every_scenario():
    def route(question):
        raise NotImplementedError("Exercise 09.1: keywords per category")

    build_assistant = notebook_with()
    build_assistant.__globals__["route"] = route
    with pytest.raises(CheckFailed) as caught:
        evaluate("09.6", build_assistant)
    assert not isinstance(caught.value, (NotDoneYet, PartlyRight))
    assert "Exercise 09.1" in str(caught.value)


def test_a_build_assistant_that_raises_fails_the_exercise_with_its_error():
    def build_assistant(client, *, model, shop):
        raise TypeError("shop_tools() takes 1 positional argument")

    with pytest.raises(CheckFailed) as caught:
        evaluate("09.6", build_assistant)
    assert not isinstance(caught.value, PartlyRight)
    assert "Case: build_assistant(client, model='toy-check-model', shop=shop)" in str(caught.value)
    assert "Your code raised TypeError" in str(caught.value)


def test_a_build_assistant_that_forgets_to_return_it_is_told_so_before_any_scenario():
    def build_assistant(client, *, model, shop):
        solution()["build_assistant"](client, model=model, shop=shop)

    with pytest.raises(CheckFailed) as caught:
        evaluate("09.6", build_assistant)
    assert "build_assistant returned a NoneType, which has no ask method" in str(caught.value)


def test_an_assistant_offering_its_tools_in_strict_mode_passes_too():
    strict = notebook_with(
        (
            CELL,
            "[self.registry.get(name).schema(format) for name in self.names]",
            "[self.registry.get(name).schema(format, strict=True) for name in self.names]",
        )
    )
    assert evaluate("09.6", strict) == "Exercise 09.6 passed: build_assistant (12 scenarios)."


REFUSAL = (
    '            return error_text(f"{name!r} is not one of the tools offered for this request")'
)


def refusal_hints(build_assistant) -> dict[str, str]:
    return {o.id: o.failure.hint_key for o in partly_right(build_assistant).outcomes if o.failure}


def test_a_refusal_answered_as_plain_text_is_told_it_did_not_run_but_is_no_error_result():
    plain = notebook_with((CELL, REFUSAL, '            return f"{name} is not offered"'))
    assert refusal_hints(plain) == {
        "staff_tool": "refusal_not_error",
        "injection": "refusal_not_error",
        "hallucinated": "refusal_not_error",
    }
    message = str(partly_right(plain))
    assert "cancel_order was not offered in this request and did not run" in message
    assert "yet it ran" not in message


def test_a_refusal_that_does_not_name_the_tool_is_told_to_name_it():
    unnamed = notebook_with((CELL, REFUSAL, '            return error_text("not allowed")'))
    assert refusal_hints(unnamed) == {
        "staff_tool": "refusal_unnamed",
        "injection": "refusal_unnamed",
        "hallucinated": "refusal_unnamed",
    }
    assert "Expected: an error result naming cancel_order" in str(partly_right(unnamed))


def test_a_trace_with_every_call_in_the_wrong_order_is_told_the_order_not_a_missing_call():
    backwards = notebook_with(
        (CELL, "for step in result.steps:", "for step in result.steps[::-1]:")
    )
    hints = set(refusal_hints(backwards).values())
    assert hints == {"trace_order"}
    assert "not in the order the model made them" in str(partly_right(backwards))


def test_a_customer_offered_a_staff_only_reading_tool_loses_the_scenario_that_routes_notes():
    reads_notes = notebook_with(
        (CELL, OFFER,
         '            if tool.tags & categories and (role == "staff" or "write" not in tool.tags)')
    )  # fmt: skip
    assert refusal_hints(reads_notes) == {"hallucinated": "roles", "unknown_role": "unknown_role"}
    assert "The customer was offered read_notes" in str(partly_right(reads_notes))


def test_an_assistant_without_calculate_is_told_the_request_left_it_out():
    no_calculate = notebook_with((CELL, "[*shop_tools(shop), calculate]", "[*shop_tools(shop)]"))
    assert refusal_hints(no_calculate) == {"eval": "missing_tools", "math": "missing_tools"}
    assert "this request left out: calculate." in str(partly_right(no_calculate))
