"""Read a submission's sources in a child process with a memory and a time limit.

Everything that parses what the learner wrote (the JSON and nbformat's validation in
``sanitize``, the answers in ``answers``, borrowing and routes in ``ownership``, the fingerprints
of ``similarity``) costs memory and time that grow with the source: a notebook holding one long
list literal once took the grader's own process to 4 GB. The code is capped before anything
parses it (``parse.MAX_CELL_SOURCE``, ``parse.MAX_CODE_SOURCE``), and the reading itself runs
here, in a child forked for this submission alone from a small server that imported this module
once (``multiprocessing``'s fork server: the grader's threads are never forked), under
``RLIMIT_AS`` (``bounds.ANALYSIS_MEMORY_MB`` beyond what the child starts with) and
``bounds.ANALYSIS_SECONDS``. A child that runs out becomes ``AnalysisFailed``, that submission's
``invalid`` rows with a note; the grader's main process holds only the child's result, whose
size the source caps bound. The caches of the parsers live and die with the child.
"""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing
import os
import resource
import signal
import threading
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from nbformat import NotebookNode

from course_lib.grading.answers import Cell, learner_cells
from course_lib.grading.bounds import ANALYSIS_MEMORY_MB, ANALYSIS_SECONDS
from course_lib.grading.canonical import Lesson
from course_lib.grading.discover import UnreadableSubmission, read_submission
from course_lib.grading.fingerprint import fingerprints
from course_lib.grading.ownership import SourceFindings, read_sources
from course_lib.grading.parse import InvalidSubmission
from course_lib.grading.sanitize import Sanitized, sanitize
from course_lib.grading.toolkit_plan import manifest

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
NOTEBOOK_KEYS = ("course", "kernelspec", "language_info")  # the metadata a run reads
MAX_KEPT_METADATA = 4000  # characters of JSON (the course's own blocks hold under 500)
MAX_TAGS = 20


class AnalysisFailed(RuntimeError):
    """The child ran out of memory or time; the message says which, for the learner."""


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
    slim(sanitized.notebook)
    cells = learner_cells(sanitized, lesson)
    read = read_sources(sanitized, lesson, cells)
    prints = {exercise: fingerprints(source) for exercise, source in read.answers.items()}
    toolkit = toolkit or Toolkit()
    plan = manifest(lesson.slug, toolkit.earlier, toolkit.lessons) if toolkit.lessons else ""
    return Analysis(sanitized, cells, read, prints, plan)


def analyse_apart(
    path: Path,
    lesson: Lesson,
    toolkit: Toolkit | None = None,
    memory_mb: int = ANALYSIS_MEMORY_MB,
    seconds: float = ANALYSIS_SECONDS,
) -> Analysis:
    """``analyse`` of the file at ``path``, in a child with ``memory_mb`` and ``seconds``;
    ``InvalidSubmission`` or ``UnreadableSubmission`` as the file deserves, ``AnalysisFailed``
    when the child ran out."""
    context = _context()
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(
        target=_child,
        args=(sending, str(path), lesson, toolkit, memory_mb, seconds),
        daemon=True,
    )
    with _STARTING:  # the fork server is started once, by one thread
        child.start()
    sending.close()
    outcome = None
    try:
        if receiving.poll(seconds + STOP_SECONDS):
            outcome = receiving.recv()
    except (EOFError, OSError):  # the child ended without a word (killed by a limit)
        outcome = None
    finally:
        receiving.close()
        child.join(STOP_SECONDS)
        if child.is_alive():
            child.kill()
            child.join()
    if outcome is None:  # no answer: the CPU limit or the wait ended it, else memory did
        stopped = (-signal.SIGXCPU, -signal.SIGKILL, None)
        outcome = ("time" if child.exitcode in stopped else "memory", None)
    kind, value = outcome
    if kind == "ok":
        return value
    if kind == "invalid":
        raise InvalidSubmission(value)
    if kind == "unreadable":
        raise UnreadableSubmission(value)
    if kind == "memory":
        raise AnalysisFailed(MESSAGES["memory"].format(limit=memory_mb))
    raise AnalysisFailed(MESSAGES["time"].format(limit=f"{seconds:g}"))


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


_STARTING = threading.Lock()


def _context() -> multiprocessing.context.BaseContext:
    """A fork server where the platform has one (children are forked from a process that
    imported this module, not from the grader's threads), else fresh processes."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
        return context
    return multiprocessing.get_context("spawn")


def _child(
    sending: Connection,
    path: str,
    lesson: Lesson,
    toolkit: Toolkit | None,
    memory_mb: int,
    seconds: float,
) -> None:
    """In the child: limit memory and CPU time, read the file, send one outcome."""
    _limit(memory_mb, seconds)
    try:
        outcome = ("ok", analyse(read_submission(Path(path)), lesson, toolkit))
    except InvalidSubmission as exc:
        outcome = ("invalid", str(exc))
    except UnreadableSubmission as exc:
        outcome = ("unreadable", str(exc))
    except MemoryError:
        outcome = ("memory", None)
    with contextlib.suppress(MemoryError, OSError):
        sending.send(outcome)
    sending.close()


def _limit(memory_mb: int, seconds: float) -> None:
    """``memory_mb`` of address space beyond what the child already maps, and CPU time: where
    the platform has the limits (past the CPU limit, the kernel ends the child)."""
    mapped = _mapped_bytes()
    with contextlib.suppress(ValueError, OSError, AttributeError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if mapped:
            limit = mapped + memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        cpu = math.ceil(seconds)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def _mapped_bytes() -> int:
    """This process's address space now (Linux: ``/proc/self/statm``); 0 where unknown."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
