"""The part map: each part of the toolkit, the exercise that makes it the learner's, and the
course's own version it stands in for. This table is the one place these facts live.

A part's learner-side name and lesson are derived from the exercise's registered check
(``course_lib.checks.EXERCISES``: its ``targets`` and ``notebook``): the part ``run_agent`` is
the target of 05.1, so the learner's ``run_agent`` of ``05_agent_loop`` is it. Where the part's
name is not a target (the learner's registry with ``call`` is 04.4's ``DispatchRegistry``), the
exercise's only target is the learner's object. ``after`` lists the exercises the part's code
also calls (04.4's ``call`` validates with 04.3's ``validate_arguments``): a part is the
learner's only when all of them have passed, and the line that says otherwise names the first
one that has not.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Part:
    name: str
    exercise: str  # the exercise whose target the part is
    reference: str | None  # "module:attribute" of the course's version, or None
    after: tuple[str, ...] = ()  # earlier exercises its code calls

    @property
    def exercises(self) -> tuple[str, ...]:
        """Every exercise that must pass for the part to be the learner's, in course order."""
        return (*self.after, self.exercise)

    @property
    def lesson(self) -> str:
        """``"04"`` for a part of exercise 04.4."""
        return self.exercise.partition(".")[0]

    @property
    def notebook(self) -> str:
        """The lesson's notebook slug (``04_registry``), from the exercise's registered check."""
        from course_lib.checks import EXERCISES

        return EXERCISES[self.exercise].notebook

    @property
    def target(self) -> str:
        """The name of the learner's object in their lesson's code."""
        from course_lib.checks import EXERCISES

        targets = EXERCISES[self.exercise].targets
        return self.name if self.name in targets else targets[0]

    def course_version(self) -> Any:
        """The course's object (imported on demand); ``LookupError`` when there is none."""
        if self.reference is None:
            raise LookupError(self.name)
        module, _, attribute = self.reference.partition(":")
        return getattr(importlib.import_module(module), attribute)


REF = "course_lib.reference"
REGISTRY_CHAIN = ("04.1", "04.2", "04.3")

PARTS: dict[str, Part] = {
    part.name: part
    for part in (
        Part("ToolRegistry", "04.4", f"{REF}.registry:ToolRegistry", after=REGISTRY_CHAIN),
        Part("validate_arguments", "04.3", f"{REF}.validation:validate_arguments", ("04.2",)),
        Part("to_text", "04.5", f"{REF}.results:to_text"),
        Part("run_agent", "05.1", f"{REF}.loop:run_agent"),
        Part("run_tool_calls", "05.3", f"{REF}.loop:run_tool_calls"),
        Part("collect_stream", "05.4", f"{REF}.streaming:collect_stream"),
        Part("arun_tool_calls", "05.5", f"{REF}.loop:arun_tool_calls"),
        Part("ask_with_choice", "05.6", None),
        Part("safe_calculate", "06.1", f"{REF}.calculator:safe_calculate"),
        Part("to_strict", "06.2", f"{REF}.strict:to_strict"),
        Part("select_tools", "06.3", None),
        Part("call_as", "06.3", None),
        Part("TracedRegistry", "06.4", f"{REF}.tracing:TracedRegistry"),
        Part("anthropic_strict", "06.5", None),
        Part("responses_round_trip", "07.1", None),
        Part("chat_to_responses_input", "07.2", f"{REF}.responses_input:chat_to_responses_input"),
        Part("anthropic_round_trip", "07.3", None),
        Part("extract", "07.4", None),
        Part("serve_registry", "08.1", f"{REF}.mcp_server:serve_registry"),
        Part("mcp_tools_to_openai", "08.2", f"{REF}.mcp_client:mcp_tools_to_openai"),
        Part("run_agent_with_mcp", "08.3", f"{REF}.mcp_client:run_agent_with_mcp"),
        Part("structured_result", "08.4", None),
    )
}


def part_named(name: str) -> Part:
    """The part ``name``; ``KeyError`` naming the known parts otherwise."""
    from course_lib.toolkit.messages import say

    if name not in PARTS:
        raise KeyError(say("unknown_part", name=name, known=", ".join(PARTS)))
    return PARTS[name]
