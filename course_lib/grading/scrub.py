"""Text that would differ between two gradings of the same file, taken out of what is written.

Regrading must write byte-identical files, so nothing the gradebook holds may carry a memory
address (``<object at 0x7f...>``), a scratch or temporary folder's random name, a kernel's
connection file or message id, a clock reading or a duration. The driver already scrubs addresses
in the kernel; this is the grader's side of the same rule, applied to every message, failure field
and note of a result (including text the grader itself produced, such as a pytest log tail).

Two kinds of text are told apart:

- **What an exception said** (an error row's message, a failure's ``raised``, and wherever a check
  quotes one: ``KeyError: ...`` in its ``got`` or ``detail``, see ``EXCEPTION_TEXT``) is the
  learner's own text, which they can reproduce by running the cell. Besides addresses and
  folders, every reading of a clock or of the process in it becomes a fixed placeholder
  (``volatile``): dates and times (ISO 8601, ``time.ctime()``, a time of day ``HH:MM[:SS]``, a
  day with a month's name), numbers of 10 digits or more (``time.time_ns()``, ``id()``,
  ``threading.get_ident()``, ``int(time.time())``, a ``%Y%m%d%H%M%S`` stamp), numbers with 6 to 9
  decimals (``time.process_time()``, ``time.perf_counter()``, a clock's micro- to nanoseconds),
  hex runs of 12 characters or more (``uuid4().hex``, ``secrets.token_hex()``) and
  ``tempfile.mktemp()`` names.
- **What a check compared** (its ``expected``, and the ``got`` of a value the learner's code
  returned: a date in lesson 04's ``to_text``, ``2 ** 100`` as an int in lesson 06) is data the
  learner needs as it was: only addresses and folders go. A value returned from a clock therefore
  still differs between regrades (that line only: it is a wrong answer, and the points are the
  same).
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
# A failure's fields the check wrote (not the learner's code): only ``scrub``-bed.
COURSE_FIELDS = frozenset({"case", "expected", "hint", "hint_key", "exercise", "title"})
# What an exception's text looks like where a check quotes it (``learner.Reply.raised_text``):
# ``SomeError: message`` to the end of its line.
EXCEPTION_TEXT = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt)\b(?::[^\n]*)?")
MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\.?"
# The readings of a clock or of the process in an exception's text, with their placeholders, in
# the order they are replaced (the longer forms first).
VOLATILE = (
    (re.compile(rf"\b{DAY},? +{MONTH} +\d{{1,2}} +\d{{1,2}}:\d{{2}}:\d{{2}} +\d{{4}}\b"), "<time>"),
    (re.compile(r"(?<![\d:])(?:\d{2}:\d{2}|\d{1,2}:\d{2}:\d{2})(?:[.,]\d+)?(?![\d:])"), "<time>"),
    (re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)"), "<date>"),
    (re.compile(rf"\b(?:\d{{1,2}} +{MONTH},? +\d{{4}}|{MONTH} +\d{{1,2}},? +\d{{4}})\b"), "<date>"),
    (re.compile(r"(?<![\w.])\d{10,}(?:\.\d+)?(?!\w)"), "<n>"),
    (re.compile(r"(?<![\w.])\d+\.\d{6,9}(?![\w.])"), "<n>"),
    (
        re.compile(
            r"(?<![\w-])(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{12,}(?![\w-])"
        ),
        "<id>",
    ),
    (re.compile(r"\btmp[a-z0-9_]{8}\b"), "tmp<id>"),
)


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


def volatile(text: str) -> str:
    """What an exception said, also without any reading of a clock or of the process
    (``VOLATILE``; see the module docstring)."""
    text = scrub_clock(text)
    for pattern, placeholder in VOLATILE:
        text = pattern.sub(placeholder, text)
    return text


def quoted_exceptions(text: str) -> str:
    """``text`` (a check's ``got``, ``detail`` or message) with every exception's text quoted
    in it (``EXCEPTION_TEXT``) made ``volatile``, and the rest only ``scrub``-bed."""
    return EXCEPTION_TEXT.sub(lambda found: volatile(found.group()), scrub(text))


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
    message, a failure's ``raised`` field and its line in the message, an exception a check quotes
    elsewhere), and the same for each scenario of a scenario-graded exercise."""
    if row.status == "error":
        message = volatile(row.message)
    else:
        failures = [row.failure, *(s.get("failure") for s in row.scenarios or ())]
        message = _quoted_outside(row.message, _course_lines(failures))
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
        key: _stable_field(key, value) if isinstance(value, str) else value
        for key, value in sorted(failure.items())
    }
    raised = failure.get("raised")
    if isinstance(raised, str):
        message = message.replace(quoted_exceptions(raised), stable_failure["raised"])
    return stable_failure, message


def _course_lines(failures: list[Any]) -> list[str]:
    """The lines of the checks' own fields that quote an exception (an expected ``raise``)."""
    return [
        line
        for failure in failures
        if isinstance(failure, dict)
        for key, value in failure.items()
        if key in COURSE_FIELDS and isinstance(value, str)
        for line in value.splitlines()
        if EXCEPTION_TEXT.search(line)
    ]


def _quoted_outside(message: str, course_lines: list[str]) -> str:
    """``quoted_exceptions`` of each line of ``message`` but those that show a line of the
    check's own (``_course_lines``), which are only ``scrub``-bed."""
    return "\n".join(
        scrub(line) if any(mine in line for mine in course_lines) else quoted_exceptions(line)
        for line in message.split("\n")
    )


def _stable_field(key: str, value: str) -> str:
    """The check's own fields keep all but addresses and folders (``COURSE_FIELDS``)."""
    if key == "raised":
        return volatile(value)
    return scrub(value) if key in COURSE_FIELDS else quoted_exceptions(value)
