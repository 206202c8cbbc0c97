"""Exercise 09.3 ``ApprovalRegistry``: the solution and an alternative written another way (its
refusals in Chinese) pass; a wrong answer per rule, each the solution with one realistic mistake,
fails on that rule's case with its hint."""

from __future__ import annotations

import pytest
from rules import assert_breaks_rule
from solution_cells import rejected

from course_lib.checks import EXERCISES, NotDoneYet, evaluate

from ._solution import edited, solution

CELL = "w09-approval"
PASSED = "Exercise 09.3 passed: ApprovalRegistry (7 visible and 13 hidden calls)."
DECIDE = "            decision = self.approve(name, shown)\n"
APPROVED = "        if decision is True:\n            return self.registry.call(name, arguments)\n"
REFUSAL = (
    '        return error_text(f"A person refused the call to {name}{reason}; it did not run.")'
)


def wrong(*edits: tuple[str, str]):
    return edited("ApprovalRegistry", *((CELL, old, new) for old, new in edits))


# Written another way: a dict of answers to messages, no try around a helper, Chinese refusals.
IN_CHINESE = """
import json


class ApprovalRegistry:
    def __init__(self, registry, *, needs_approval, approve):
        self.registry, self.approve = registry, approve
        self.needs_approval = set(needs_approval)

    def schemas(self, format="openai"):
        return self.registry.schemas(format=format)

    def names(self):
        return self.registry.names()

    def _ask(self, name, arguments):
        try:
            return self.approve(name, arguments)
        except Exception as problem:
            return f"审批出错：{problem}"

    def call(self, name, arguments):
        if name in self.needs_approval:
            if arguments == "":
                arguments = "{}"
            try:
                shown = json.loads(arguments) if isinstance(arguments, str) else arguments
            except ValueError:
                shown = None
            if isinstance(shown, dict):
                answer = self._ask(name, dict(shown))
                if answer is not True:
                    why = f"，理由：{answer}" if isinstance(answer, str) else ""
                    return json.dumps({"error": f"工作人员拒绝了 {name} 的调用{why}。"},
                                      ensure_ascii=False)
        return self.registry.call(name, arguments)
"""


def in_chinese():
    namespace: dict = {}
    exec(IN_CHINESE, namespace)  # noqa: S102 (a test's own alternative answer)
    return namespace["ApprovalRegistry"]


def test_the_solution_passes_every_visible_and_hidden_call():
    assert evaluate("09.3", solution()["ApprovalRegistry"]) == PASSED


def test_an_alternative_written_another_way_with_chinese_refusals_passes():
    assert evaluate("09.3", in_chinese()) == PASSED


def test_the_exercise_is_registered_with_its_notebook_points_and_target():
    spec = EXERCISES["09.3"]
    assert (spec.notebook, spec.points, spec.targets) == ("09_capstone", 2, ("ApprovalRegistry",))


def test_the_stub_is_not_done_yet():
    stub = wrong(("        if name not in self.needs_approval:\n",
                  '        raise NotImplementedError("Exercise 09.3: x")\n'
                  "        if name not in self.needs_approval:\n"))  # fmt: skip
    with pytest.raises(NotDoneYet):
        evaluate("09.3", stub)


WRONG_BY_RULE = {
    "09.3": {
        # every tool is put to the person, not only those that need approval
        "passthrough": wrong(
            (
                "        if name not in self.needs_approval:\n"
                "            return self.registry.call(name, arguments)\n",
                "",
            )
        ),
        # asked once to log the question, then again to decide
        "ask_once": wrong((DECIDE, "            self.approve(name, shown)\n" + DECIDE)),
        # the tool runs first, and its result is kept only if the person agrees
        "ask_before": wrong(
            (
                "        try:\n            decision",
                "        result = self.registry.call(name, arguments)\n"
                "        try:\n            decision",
            ),
            (APPROVED, "        if decision is True:\n            return result\n"),
        ),
        # the person is shown the JSON text, not the arguments
        "arguments_dict": wrong((DECIDE, "            decision = self.approve(name, arguments)\n")),
        # the result is wrapped instead of returned unchanged
        "approved_runs": wrong(
            (
                APPROVED,
                "        if decision is True:\n            return 'approved: ' + "
                "self.registry.call(name, arguments)\n",
            )
        ),
        # the call runs, then is answered as refused
        "not_run": wrong((APPROVED, APPROVED + "        self.registry.call(name, arguments)\n")),
        # a refusal in plain text
        "refusal_error": wrong(
            (
                REFUSAL,
                '        return f"A person refused the call to {name}{reason}; it did not run."',
            )
        ),
        # the message does not say which tool
        "names_tool": wrong(
            (
                REFUSAL,
                '        return error_text(f"A person refused this call{reason}; it did not run.")',
            )
        ),
        # the message says it did not run, not that a person refused it
        "says_refused": wrong(
            (REFUSAL, '        return error_text(f"The call to {name} did not go ahead{reason}.")')
        ),
        # any truthy answer runs the call
        "only_true": wrong(("        if decision is True:\n", "        if decision:\n")),
        # the person's reason is dropped
        "reason": wrong(
            (
                REFUSAL,
                '        return error_text(f"A person refused the call to '
                '{name}; it did not run.")',
            )
        ),
        # text that does not parse is shown to the person as it is
        "malformed": wrong(
            (
                "        if not isinstance(shown, dict):\n"
                "            return self.registry.call(name, arguments)\n",
                "",
            )
        ),
        # "" is not parsed as {}, so it goes straight to the registry, unasked
        "empty": wrong(
            (
                '        shown = {} if arguments == "" else parsed_arguments(arguments)\n',
                "        shown = parsed_arguments(arguments)\n",
            )
        ),
        # an exception out of approve escapes call
        "never_raise": wrong(
            (
                "        try:\n            decision = self.approve(name, shown)\n"
                "        except Exception as exc:\n"
                '            decision = f"the approval failed: {exc}"\n',
                "        decision = self.approve(name, shown)\n",
            )
        ),
    }
}


@pytest.mark.parametrize("rule", sorted(WRONG_BY_RULE["09.3"]))
def test_a_wrong_approval_registry_breaking_one_rule_gets_that_rules_hint(rule):
    assert_breaks_rule("09.3", rule, WRONG_BY_RULE["09.3"][rule])


def test_a_refusal_in_chinese_that_does_not_say_refused_is_told_what_to_say():
    quiet = wrong((REFUSAL, '        return error_text(f"{name} 没有执行{reason}。")'))
    message = rejected("09.3", quiet)
    assert "say that a person refused the call (refused (拒绝))" in message


def test_malformed_arguments_answered_with_an_own_error_get_the_malformed_hint():
    # found by a learner walkthrough: they were told cancel_order "needs no approval"
    own_error = wrong(
        ("            return self.registry.call(name, arguments)\n        try:",
         '            return error_text("参数不是 JSON 对象")\n        try:'),
    )  # fmt: skip
    message = rejected("09.3", own_error)
    assert "Case: approvals.call('cancel_order', '{\"order_id\": \"A10')" in message
    assert "These arguments are not a JSON object, so there is nothing to show" in message
    assert "needs no approval" not in message
