"""Helpers for the red-team tests: attack notebooks, one graded batch, and a look at the rows.

An attack is a submission of the tests' lesson ``90_test`` whose 90.1 cell runs the attack and
then defines ``double`` to return a report of what the attack achieved: the check fails on its
first case, and that case's ``Got`` is the report, read back from the gradebook row. Each part
of an attack is tried with ``attempt(label, action)``, which reports ``label: blocked (...)``
when the action raised or found nothing, and ``label: GOT ...`` when it got something (which
only the controls, the things a notebook may do, should). The attacks also solve 90.2 and
90.3, which must keep their points.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable, Hashable
from pathlib import Path

import pytest
from grading_lesson import CHECK_MODULE, SLUG, SOLUTIONS, submission, write

from course_lib.grading import GradeOptions, grade_all
from course_lib.grading.canonical import load_lessons
from course_lib.grading.discover import discover
from course_lib.grading.isolation import GAP_MESSAGES
from course_lib.grading.results import SubmissionResult

HERE = Path(__file__).resolve().parent.parent  # tests/grading: the tests' lesson and checks
# Generous: the attacks wait for nothing, but the CI box is a loaded 2-core machine.
OPTIONS = GradeOptions(cell_timeout=120, memory_mb=1500, jobs=2, check_modules=(CHECK_MODULE,))

ATTEMPT = """
import signal as _signal

class NoAnswer(Exception):
    pass

def _no_answer(signum, frame):
    raise NoAnswer

def attempt(label, action):
    # Each route is given ATTEMPT_SECONDS: one that hangs is reported as blocked (NoAnswer), by
    # name, rather than the cell's timeout hiding which one it was.
    previous = _signal.signal(_signal.SIGALRM, _no_answer)
    _signal.setitimer(_signal.ITIMER_REAL, ATTEMPT_SECONDS)
    try:
        found = action()
    except BaseException as exc:  # the attack reports every refusal as data
        return f"{label}: blocked ({type(exc).__name__})"
    finally:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _signal.signal(_signal.SIGALRM, previous)
    if not found:
        return f"{label}: blocked (nothing there)"
    return f"{label}: GOT {str(found)[:200]}"

"""
REPORT = """
REPORT = "; ".join(ATTEMPTS)

def double(x):
    return REPORT
"""


# The most one route of an attack may take (the longest waits are 10 s connect timeouts): a
# route that hangs is cut there and named, inside the cell's timeout (OPTIONS).
ATTEMPT_SECONDS = 30


def attack(source: str) -> object:
    """A submission whose 90.1 cell runs ``source``, which fills the list ``ATTEMPTS``."""
    head = f"ATTEMPT_SECONDS = {ATTEMPT_SECONDS}\n" + ATTEMPT + "ATTEMPTS = []\n"
    cell = head + source.strip("\n") + "\n" + REPORT
    return submission({**SOLUTIONS, "90.1": cell})


def concurrently(runs: dict[Hashable, Callable[[], object]]) -> dict[Hashable, object]:
    """Run each of ``runs`` in a thread of its own, all at the same time; by key, what each one
    returned or the exception it raised (``outcome`` gives it back or raises it, so a failing
    run fails only the tests that read it).

    For gradings that mostly wait (test_private_view's sniff windows): two at once take little
    more than one. Not for CPU-bound ones (lesson 04's kernels: test_answers_stashed, measured),
    which a 2-core machine runs no faster side by side. The grader is made to be shared by
    threads: ``grade_all`` grades ``jobs`` submissions at a time in threads of one process,
    sharing its fork server (a lock and a queue per job), its run folder (a lock) and its
    kernel zygote; each grading's options travel with its calls, none is kept in module
    state."""
    done: dict[Hashable, object] = {}

    def run(key: Hashable, function: Callable[[], object]) -> None:
        try:
            done[key] = function()
        except BaseException as exc:  # given back to the tests that read this run
            done[key] = exc

    threads = [threading.Thread(target=run, args=item) for item in runs.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return done


def outcome(value: object) -> object:
    """What a run of ``concurrently`` returned, or the exception it raised, raised again."""
    if isinstance(value, BaseException):
        raise value
    return value


def grade(
    root: Path,
    canonical_dir: Path,
    notebooks: dict[str, object],
    progress: Callable[[SubmissionResult], None] | None = None,
    **options,
):
    """Grade ``notebooks`` (student -> notebook) as one class; results by student.
    ``progress``: called with each result as soon as it is graded (``grade_all``'s)."""
    for student, nb in notebooks.items():
        write(root / student / f"{SLUG}.ipynb", nb)
    settings = GradeOptions(**{**OPTIONS.__dict__, **options})
    results = grade_all(discover(root), load_lessons(canonical_dir), settings, progress)
    return {result.student: result for result in results}


# Grades a class in a process of its own and reports, besides the results, the peak resident
# memory of the grader's main process and of the largest process it started (every descendant
# that was waited for: the fork servers, each submission's pytest process and analysis child,
# the kernels), in KiB; and how long ``grade_all`` took. Like ``course_lib grade``, it imports
# jsonschema without the IRI grammar (1.5 s of CPU per process).
MEASURED = """
import pickle, resource, sys, time
from multiprocessing import forkserver
from pathlib import Path

from course_lib.schema_library import hide_grammar_for_good

hide_grammar_for_good()  # as the grader's command line: nbformat's jsonschema needs no IRIs
from course_lib.grading import grade_all
from course_lib.grading.canonical import load_lessons
from course_lib.grading.discover import discover
from course_lib.grading.runner import stop_fork_servers

root, canonical, out = map(Path, sys.argv[1:4])
options = pickle.loads(out.read_bytes())
start = time.monotonic()
results = grade_all(discover(root), load_lessons(canonical), options)
seconds = time.monotonic() - start
stop_fork_servers()
forkserver._forkserver._stop()  # the analysis children's server: waited, so it is counted
peaks = {
    "grader": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    "children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
}
out.write_bytes(pickle.dumps((results, peaks, seconds)))
"""


def grade_measured(root: Path, canonical_dir: Path, options: GradeOptions):
    """Grade the class under ``root`` in a process of its own (see ``MEASURED``): its results
    by student, its peaks (KiB) and how long the grading took (s)."""
    out = root.parent / f"{root.name}-measured.pickle"
    out.write_bytes(pickle.dumps(options))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, str(root), str(canonical_dir), str(out)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results, peaks, seconds = pickle.loads(out.read_bytes())
    return {result.student: result for result in results}, peaks, seconds


def report(result: SubmissionResult) -> dict[str, str]:
    """The attack's report, label -> what happened (``blocked (...)`` or ``GOT ...``)."""
    row = next(row for row in result.exercises if row.exercise == "90.1")
    assert row.status == "failed" and row.failure, f"no report came back: {row.message}"
    assert "more characters)" not in row.failure["got"], "the report is too long to be shown"
    text = json.loads(row.failure["got"])
    return dict(part.split(": ", 1) for part in text.split("; "))


def assert_blocked(
    result: SubmissionResult, labels: list[str], controls: tuple[str, ...] = ()
) -> None:
    """Every part of the attack was tried and refused, every control worked (so a refusal is
    the sandbox's, not a broken attack's), and the rest was graded as usual."""
    found = report(result)
    assert sorted(found) == sorted([*labels, *controls]), found
    leaked = {label: found[label] for label in labels if not found[label].startswith("blocked")}
    assert not leaked, leaked
    failed = {label: found[label] for label in controls if not found[label].startswith("GOT")}
    assert not failed, failed
    assert_rest_graded(result)


def assert_rest_graded(result: SubmissionResult) -> None:
    rows = {row.exercise: row for row in result.exercises}
    assert (rows["90.1"].status, rows["90.1"].points) == ("failed", 0)
    assert (rows["90.2"].status, rows["90.3"].status) == ("passed", "passed")


def require(record: dict, *fields: str) -> None:
    """Skip unless the kernel that ran the attack had all of ``fields`` (an isolation record)."""
    missing = [field for field in fields if not record.get(field)]
    if missing:
        reasons = "; ".join(GAP_MESSAGES.get(field, field).format(**record) for field in missing)
        pytest.skip(f"this platform lacks what the test needs: {reasons}")
