"""09.6 through a real kernel, the grader's channel: the shop and the assistant live in the
kernel, the model answers from the grader's side, and the scenarios come out exactly as in the
learner's own notebook, partial credit and all."""

from __future__ import annotations

import pytest
from solution_cells import driver_kernel, notebook_source

from course_lib.checks import EXERCISES
from course_lib.checks.channel import InProcessChannel
from course_lib.checks.core import run_check
from course_lib.checks.scenarios import earned
from course_lib.grading.kernel_channel import KernelChannel

from ._assistants import notebook_with
from ._solution import CELLS, NOTEBOOK
from .test_assistant import APPROVALS, CELL, COUNT, OFFER, ROLE_ONLY_OFFER, STRICT

# A guard by role only: the offer's registry holds every tool the role may use, only the schemas
# are routed, so the injected cancel_order runs.
ROLE_ONLY_GUARD = [
    (CELL, OFFER, "            if may_use(role, tags):"),
    (
        CELL,
        "        needs_approval = NEEDS_APPROVAL & set(offer.names())"
        "  # never ask about the unoffered\n" + STRICT + "\n" + APPROVALS,
        ROLE_ONLY_OFFER,
    ),
]


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    with driver_kernel(tmp_path_factory, confine=False) as kernel:
        yield kernel


@pytest.mark.parametrize("edits", [[], ROLE_ONLY_GUARD], ids=["solution", "role-only guard"])
def test_the_scenarios_come_out_the_same_through_the_kernel_as_in_process(kernel, edits):
    assert kernel.run_quietly(notebook_source(NOTEBOOK, CELLS, edits), 120) == "ok"
    spec = EXERCISES["09.6"]
    here = run_check(spec, InProcessChannel({"ShopAssistant": notebook_with(*edits)}))
    there = run_check(spec, KernelChannel(kernel, timeout=120))
    assert str(there) == str(here)
    outcomes = list(getattr(there, "scenarios", ()) or getattr(there, "outcomes", ()))
    assert [o.record() for o in outcomes] == [
        o.record() for o in (getattr(here, "scenarios", ()) or here.outcomes)
    ]
    failed = [o.id for o in outcomes if not o.passed]
    assert (failed, earned(outcomes)) == (([], COUNT) if not edits else (["injection"], COUNT - 1))
