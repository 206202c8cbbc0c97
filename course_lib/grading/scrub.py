"""Text that would differ between two gradings of the same file, taken out of what is written.

Regrading must write byte-identical files, so nothing the gradebook holds may carry a memory
address (``<object at 0x7f...>``), a scratch or temporary folder's random name, a kernel's
connection file or message id, a clock reading (``datetime.now()``, ``time.time()`` in a
learner's exception) or a duration. The driver already scrubs addresses in the kernel; this is the
grader's side of the same rule, applied to every message, failure field and note of a result
(including text the grader itself produced, such as a pytest log tail).
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import replace
from typing import Any

from course_lib.grading.results import ExerciseResult, SubmissionResult

ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
PATH_CHARS = r"[^\s'\"<>()\[\],;:]"
SCRATCH = re.compile(rf"(?:{PATH_CHARS}*/)?course-grade-{PATH_CHARS}*")
TEMP = re.compile(re.escape(tempfile.gettempdir().rstrip("/")) + rf"/{PATH_CHARS}+")
TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
EPOCH = re.compile(r"\b1[5-9]\d{8}\.\d+\b")  # time.time() between 2017 and 2033
UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:s|ms|seconds)\b")
PROCESS_ID = re.compile(r"\b(pid|PID) \d+\b")


def scrub(text: str) -> str:
    """``text`` with addresses, scratch and temporary paths, ids and process ids made constant
    (none of them is ever data a check compares)."""
    text = SCRATCH.sub("<scratch>", text)
    text = TEMP.sub("<temp>", text)
    text = ADDRESS.sub("0x…", text)
    text = UUID.sub("<id>", text)
    text = PROCESS_ID.sub(r"\1 <n>", text)
    return text


def scrub_clock(text: str) -> str:
    """Also without clock readings (``datetime.now()``, ``time.time()``). Only for exception
    text: a date in a check's expected or returned value is data and stays."""
    return EPOCH.sub("<time>", TIMESTAMP.sub("<time>", scrub(text)))


def scrub_log(text: str) -> str:
    """A log tail shown in a message: also without clock readings and durations."""
    return DURATION.sub("<time>", scrub_clock(text))


def stable(result: SubmissionResult) -> SubmissionResult:
    """``result`` with every text it holds scrubbed."""
    return replace(
        result,
        exercises=[_stable_row(row) for row in result.exercises],
        notes=[scrub(note) for note in result.notes],
    )


def _stable_row(row: ExerciseResult) -> ExerciseResult:
    """The row scrubbed; clock readings go only from what an exception said (an error row's
    message, a failure's ``raised`` field and its line in the message), and the same for each
    scenario of a scenario-graded exercise."""
    message = scrub_clock(row.message) if row.status == "error" else scrub(row.message)
    failure, message = _stable_failure(row.failure, message)
    scenarios = None
    if row.scenarios is not None:
        scenarios = []
        for scenario in row.scenarios:
            scenario_failure, message = _stable_failure(scenario.get("failure"), message)
            scenario = {key: scrub(v) if isinstance(v, str) else v for key, v in scenario.items()}
            if scenario_failure is not None:
                scenario["failure"] = scenario_failure
            scenarios.append(scenario)
    return replace(row, message=message, failure=failure, scenarios=scenarios)


def _stable_failure(failure: dict[str, Any] | None, message: str) -> tuple[dict | None, str]:
    """A failure's fields scrubbed, and ``message`` with its ``raised`` text scrubbed alike."""
    if not isinstance(failure, dict):
        return failure, message
    stable_failure = {
        key: scrub(value) if isinstance(value, str) else value
        for key, value in sorted(failure.items())
    }
    raised = stable_failure.get("raised")
    if isinstance(raised, str):
        stable_failure["raised"] = scrub_clock(raised)
        message = message.replace(raised, stable_failure["raised"])
    return stable_failure, message
