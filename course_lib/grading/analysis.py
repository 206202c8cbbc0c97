"""Read a submission's sources in a child process with a memory and a time limit.

Everything that parses what the learner wrote (the JSON and nbformat's validation in
``sanitize``, the answers in ``answers``, borrowing and routes in ``ownership``, the fingerprints
of ``similarity``) costs memory and time that grow with the source: a notebook holding one long
list literal once took the grader's own process to 4 GB. The code is capped before anything
parses it (``parse.MAX_CELL_SOURCE``, ``parse.MAX_CODE_SOURCE``), and the reading itself runs
here, in a child of its own for this submission: forked by the grader's fork server
(``fork_server``, which imported this module once; the grader's threads are never forked), or
a fresh Python process where there is none (``COURSE_GRADE_FORK=0``), under
``RLIMIT_AS`` (``bounds.ANALYSIS_MEMORY_MB`` beyond what the child starts with) and
``bounds.ANALYSIS_SECONDS`` of CPU time beyond what it spent starting (a fresh process spends
seconds importing on a busy machine; a forked one nothing), and that many seconds on the clock
plus ``STOP_SECONDS``. A child that runs out becomes ``AnalysisFailed``, that submission's
``invalid`` rows with a note naming the limit it reached: time when the clock ran out or the
CPU time's signal ended it (``TIME_SIGNALS``), memory when it said so (a ``MemoryError``) or
ended without a word otherwise (the kernel's out-of-memory killer, an allocation that failed
where Python cannot raise). A fault of the grader's own in the child is that file's ``error``
rows (a ``RuntimeError``), never blamed on a limit. The grader's main process holds only the
child's result, whose size the source caps bound. The caches of the parsers live and die with
the child.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import json
import math
import os
import pickle
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nbformat import NotebookNode

from course_lib.grading.answers import Cell, learner_cells
from course_lib.grading.bounds import ANALYSIS_MEMORY_MB, ANALYSIS_SECONDS
from course_lib.grading.canonical import Lesson
from course_lib.grading.discover import UnreadableSubmission, read_submission
from course_lib.grading.fingerprint import fingerprints
from course_lib.grading.fork_server import ServerGone
from course_lib.grading.live_names import answer_live
from course_lib.grading.ownership import SourceFindings, read_sources
from course_lib.grading.parse import InvalidSubmission, edition
from course_lib.grading.runner import check_packages, fork_server_for, grading_env, run_folder
from course_lib.grading.sanitize import Sanitized, sanitize
from course_lib.grading.toolkit_plan import manifest
from course_lib.i18n import speaking, translate

# Learner-facing messages, whole sentences (one place, for the translation).
MESSAGES = {
    "memory": (
        "the grader could not read this notebook within {limit} MB of memory; nobody else's "
        "grading was affected. Submit the course's notebook with your answers in it, without "
        "large data pasted into cells."
    ),
    "time": (
        "the grader could not read this notebook within {limit} s; nobody else's grading was "
        "affected. Submit the course's notebook with your answers in it, without large data "
        "pasted into cells."
    ),
}
STOP_SECONDS = 5  # after the time limit, for a killed child to end
# How the CPU time limit ends a child: ``signal.ITIMER_PROF``'s signal at its seconds of CPU
# time, or where that is missing ``RLIMIT_CPU``'s (whole seconds, a second later).
TIME_SIGNALS = frozenset(
    -getattr(signal, name) for name in ("SIGPROF", "SIGXCPU") if hasattr(signal, name)
)
NOTEBOOK_KEYS = ("course", "kernelspec", "language_info")  # the metadata a run reads
MAX_KEPT_METADATA = 4000  # characters of JSON (the course's own blocks hold under 500)
MAX_TAGS = 20


class AnalysisFailed(RuntimeError):
    """The child ran out of memory or time; the message says which, for the learner."""


class AnalysisBroke(RuntimeError):
    """The child failed for a reason of the grader's own (no limit was reached)."""


@dataclass(frozen=True)
class Analysis:
    """What the grader needs of a submission's sources: the notebook to run (``sanitize``), the
    learner's cells, what the sources show about each answer, each answer's fingerprints, and
    the toolkit its kernel uses (``toolkit_plan.manifest``: made of the same student's answers
    to earlier lessons, which are parsed too)."""

    sanitized: Sanitized
    cells: list[Cell]
    read: SourceFindings
    prints: dict[str, frozenset[int]]
    toolkit: str = ""


@dataclass(frozen=True)
class Toolkit:
    """What the toolkit's manifest is made from: the student's earlier results, the lessons."""

    earlier: list[Any] = field(default_factory=list)
    lessons: dict[str, Lesson] = field(default_factory=dict)


def analyse(raw: bytes, lesson: Lesson, toolkit: Toolkit | None = None) -> Analysis:
    """Read a submission of ``lesson`` (in this process); ``InvalidSubmission`` if it is not one."""
    sanitized = sanitize(raw, lesson)
    with speaking(edition(sanitized.notebook)):  # what it says, it says to this learner
        slim(sanitized.notebook)
        cells = learner_cells(sanitized, lesson)
        read = read_sources(sanitized, lesson, cells)
        live = answer_live(sanitized, lesson, cells)
        prints = {
            exercise: fingerprints(source, live.get(exercise, frozenset()))
            for exercise, source in read.answers.items()
        }
        toolkit = toolkit or Toolkit()
        plan = manifest(lesson.slug, toolkit.earlier, toolkit.lessons) if toolkit.lessons else ""
    return Analysis(sanitized, cells, read, prints, plan)


def analyse_apart(
    path: Path,
    lesson: Lesson,
    toolkit: Toolkit | None = None,
    *,
    check_modules: tuple[str, ...] = (),
    scratch_root: str | None = None,
    memory_mb: int = ANALYSIS_MEMORY_MB,
    seconds: float = ANALYSIS_SECONDS,
) -> Analysis:
    """``analyse`` of the file at ``path``, in a child with ``memory_mb`` and ``seconds``;
    ``InvalidSubmission`` or ``UnreadableSubmission`` as the file deserves, ``AnalysisFailed``
    when the child ran out. The child is forked by the grader's fork server for
    ``check_modules`` (``runner.fork_server_for``: the one the submission's pytest process
    comes from), or is a fresh Python process where there is none."""
    try:
        folder = Path(tempfile.mkdtemp(prefix="analysis-", dir=run_folder(scratch_root)))
    except OSError:  # no scratch folder: the run says so; the job file needs none (mode 0700)
        folder = Path(tempfile.mkdtemp(prefix="course-analysis-"))
    try:
        job = folder / "job.pickle"
        job.write_bytes(pickle.dumps((str(path), lesson, toolkit, memory_mb, seconds)))
        lessons = check_packages(lesson)  # the server warms up for them meanwhile
        text, stopped = _run_job(job, folder, seconds + STOP_SECONDS, check_modules, lessons)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    kind, value = _outcome(text)
    if kind == "ok":
        return value
    if kind == "invalid":
        raise InvalidSubmission(value)
    if kind == "unreadable":
        raise UnreadableSubmission(value)
    if kind == "error":
        raise AnalysisBroke(value)
    if kind == "time" or (kind is None and stopped):
        raise AnalysisFailed(translate(MESSAGES, "time", limit=f"{seconds:g}"))
    raise AnalysisFailed(translate(MESSAGES, "memory", limit=memory_mb))


def _run_job(
    job: Path, folder: Path, budget: float, check_modules: tuple[str, ...], lessons: list[str]
) -> tuple[str, bool]:
    """Run the child: what it wrote, and whether its time stopped it (the clock, or the signal
    of its CPU time limit: ``TIME_SIGNALS``)."""
    log = str(folder / "log")
    server = fork_server_for(check_modules)
    if server is not None:
        try:
            env = grading_env()
            reply = server.run(
                [], str(folder), log, budget, env, analysis=str(job), lessons=lessons
            )
            stopped = reply.get("timed_out") or reply.get("exit") in TIME_SIGNALS
            return reply["results"], bool(stopped)
        except ServerGone:
            pass  # the server died (not this notebook's doing): a fresh process instead
    result = folder / "result"  # a file, so that nothing printed while importing mixes in
    command = [sys.executable, "-c", FRESH_MAIN, str(job), str(result)]
    with open(log, "wb") as errors:
        process = subprocess.Popen(
            command, cwd=folder, env=grading_env(), stdout=errors, stderr=errors,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        try:
            process.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            return "", True
    text = result.read_text("ascii", "replace") if result.is_file() else ""
    return text, process.returncode in TIME_SIGNALS


def _outcome(text: str) -> tuple[str | None, Any]:
    """What the child sent (a base64 pickle of ``(kind, value)``), or ``(None, None)``."""
    try:
        kind, value = pickle.loads(base64.b64decode(text.strip(), validate=True))
    except Exception:  # noqa: BLE001 (nothing, or cut short: the child was killed)
        return None, None
    return kind, value


FRESH_MAIN = (  # without the IRI grammar, as the fork server (see without_iri_grammar)
    "import os, sys; import course_lib.grading.without_iri_grammar; "
    "from course_lib.grading.analysis import run_job; "
    "run_job(sys.argv[1], os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))"
)


def run_job(job: str, results_fd: int) -> int:
    """In the child: limit memory and CPU time, read the submission, write one outcome (a
    base64 pickle) to ``results_fd``; the exit code."""
    path, lesson, toolkit, memory_mb, seconds = pickle.loads(Path(job).read_bytes())
    _limit(memory_mb, seconds)
    try:
        outcome = ("ok", analyse(read_submission(Path(path)), lesson, toolkit))
    except InvalidSubmission as exc:
        outcome = ("invalid", str(exc))
    except UnreadableSubmission as exc:
        outcome = ("unreadable", str(exc))
    except MemoryError:
        outcome = ("memory", None)
    except OSError as exc:  # an allocation the system refused (a thread, a map) is memory too
        outcome = ("memory", None) if exc.errno == errno.ENOMEM else _fault(exc)
    except Exception as exc:  # noqa: BLE001 (the grader's own fault: its error rows)
        outcome = _fault(exc)
    try:
        data = base64.b64encode(pickle.dumps(outcome))
    except MemoryError:
        data = base64.b64encode(pickle.dumps(("memory", None)))
    view = memoryview(data)
    while view:
        view = view[os.write(results_fd, view) :]
    return 0


def _fault(exc: Exception) -> tuple[str, str]:
    return ("error", f"reading the sources failed: {type(exc).__name__}: {exc}"[:1000])


def slim(nb: NotebookNode) -> None:
    """Keep of the notebook only what running and grading it read (code cells, every cell's
    id and position, small course metadata and tags: the roles were named already), so that
    what the child sends back is bounded by the source caps, not by the 50 MB a file may hold."""
    nb.metadata = NotebookNode(
        {k: v for k, v in nb.metadata.items() if k in NOTEBOOK_KEYS and _small(v)}
    )
    for cell in nb.cells:
        metadata = cell.get("metadata", {})
        kept = NotebookNode()
        if _small(metadata.get("course")):
            kept["course"] = metadata["course"]
        tags = metadata.get("tags")
        if isinstance(tags, list):
            kept["tags"] = [tag for tag in tags if isinstance(tag, str) and _small(tag)][:MAX_TAGS]
        cell.metadata = kept
        if cell.cell_type != "code":
            cell.source = ""
            cell.pop("attachments", None)


def _small(value: object) -> bool:
    """Present, and at most ``MAX_KEPT_METADATA`` characters as JSON."""
    if value is None:
        return False
    try:
        return len(json.dumps(value)) <= MAX_KEPT_METADATA
    except (TypeError, ValueError, RecursionError):
        return False


def _limit(memory_mb: int, seconds: float) -> None:
    """``memory_mb`` of address space beyond what the child already maps, and ``seconds`` of
    CPU time beyond what it already spent (``RLIMIT_CPU`` counts from the process's start: a
    fresh process's imports, seconds of it on a busy machine, must not be taken from the
    reading, nor carry it past the hard limit, whose ``SIGKILL`` would look like no limit at
    all). Where the platform has them: ``ITIMER_PROF`` ends the child with ``SIGPROF`` at
    exactly that CPU time, and ``RLIMIT_CPU``, in whole seconds, a second later with
    ``SIGXCPU`` where the timer is missing."""
    mapped = _mapped_bytes()
    spent = time.process_time()  # the whole process's CPU time, as both limits count it
    with contextlib.suppress(ValueError, OSError, AttributeError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if mapped:
        with contextlib.suppress(ValueError, OSError, AttributeError):
            limit = mapped + memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    with contextlib.suppress(ValueError, OSError, AttributeError):
        signal.signal(signal.SIGPROF, signal.SIG_DFL)  # whatever the parent had: it ends us
        signal.setitimer(signal.ITIMER_PROF, seconds)
    with contextlib.suppress(ValueError, OSError, AttributeError):
        cpu = math.ceil(spent + seconds) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def _mapped_bytes() -> int:
    """This process's address space now (Linux: ``/proc/self/statm``); 0 where unknown."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
