"""Run one sanitized notebook as ``pytest --nbval-lax`` items, in its own scratch folder.

One pytest process per submission: a crash, a leak or a hung kernel stays with that submission.
The process is forked from a warm parent that already imported pytest, nbval and the checks of
the lessons it was asked to grade (``fork_server``); where ``fork`` is missing, or with
``COURSE_GRADE_FORK=0``, it is a fresh ``python`` process instead. The notebook runs from
``SCRATCH/notebook/`` (its working directory, where its writes are confined); the plan and the
log sit in ``SCRATCH/grader/``. Results come back through a pipe the kernel does not inherit,
not through a file the notebook could overwrite.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from course_lib.grading.bounds import cell_seconds, lesson_code_cells, run_seconds
from course_lib.grading.canonical import Lesson
from course_lib.grading.fork_server import ForkServer, ServerGone
from course_lib.grading.kernel import submission_seed
from course_lib.grading.parse import edition
from course_lib.grading.reference_use import needs_reference
from course_lib.grading.sanitize import Sanitized
from course_lib.grading.scrub import scrub_log
from course_lib.grading.toolkit_plan import empty_manifest

# Learner-facing message, a whole sentence (one place, for the translation).
MESSAGES = {
    "out_of_time": (
        "the notebook ran for more than {seconds:g} s, the most a notebook of this lesson may "
        "take, and was stopped; nobody else's grading was affected. Make every cell finish "
        "quickly, and remove the cells you added for experiments"
    ),
}


@dataclass(frozen=True)
class RunOptions:
    cell_timeout: float = 30.0
    memory_mb: int = 2048
    output_cap: int = 1_000_000  # bytes of output messages (all of each) counted per cell
    confine: bool = True  # Landlock, where the platform has it
    namespaces: bool = True  # Linux namespaces for each kernel, where the platform allows them
    # Grade even where a kernel could find other kernels' folders and sockets (isolation.refusal)
    accept_isolation_gap: bool = False
    scratch_root: str | None = None  # where scratch folders go (default: the system temp dir)
    # Python files that register more exercises (an instructor's own lessons, the tests' lesson),
    # loaded into the grader's process beside course_lib.checks.
    check_modules: tuple[str, ...] = ()


@dataclass
class RunResult:
    records: dict[int, dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    failure: str | None = None  # the grader itself could not run this notebook
    isolation: dict[str, Any] = field(default_factory=dict)  # see course_lib.grading.isolation


def plan_for(
    sanitized: Sanitized, lesson: Lesson, options: RunOptions, toolkit: str = ""
) -> dict[str, Any]:
    """What the plugin needs to know about each cell, and the run's limits."""
    cells = [
        {"index": role.index, "kind": role.kind, "exercise": role.exercise}
        for role in sanitized.roles
    ]
    return {
        "cells": cells,
        "cell_timeout": options.cell_timeout,
        # What the cells may spend in all: from the lesson, however many cells the submission has.
        "cell_seconds": cell_seconds(lesson, options.cell_timeout),
        "lesson_cells": lesson_code_cells(lesson),
        "memory_mb": options.memory_mb,
        "output_cap": options.output_cap,
        "confine": options.confine,
        "namespaces": options.namespaces,
        "accept_isolation_gap": options.accept_isolation_gap,
        "seed": submission_seed(
            [cell.source for cell in sanitized.notebook.cells if cell.cell_type == "code"]
        ),
        "hide_reference": not needs_reference(lesson),
        "check_modules": [str(Path(path).resolve()) for path in options.check_modules],
        # What the kernel's toolkit uses (course_lib.grading.toolkit_plan); never empty, so
        # that a kernel never reads a course folder's toolkit state.
        "toolkit": toolkit or empty_manifest(lesson.slug),
        "language": submission_language(sanitized.notebook),
    }


def submission_language(nb: nbformat.NotebookNode) -> str:
    """The edition a submission was made from (its ``course.lang``), English if it names none
    the course knows: the checks speak it to this learner (``course_lib.i18n``)."""
    return edition(nb)


def run_sanitized(
    sanitized: Sanitized, lesson: Lesson, options: RunOptions, toolkit: str = ""
) -> RunResult:
    """Run the notebook; always returns, with ``failure`` set if pytest itself broke.
    ``toolkit``: the manifest of the student's parts this lesson uses (``toolkit_plan``)."""
    try:
        root = run_folder(options.scratch_root)
        scratch = Path(tempfile.mkdtemp(prefix="course-grade-", dir=root))
    except OSError as exc:
        return RunResult({}, failure=f"the grader could not make a scratch folder: {exc}")
    try:
        return _run_in(scratch, sanitized, lesson, options, toolkit)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


_RUN_FOLDERS: dict[str | None, str] = {}
_RUN_FOLDERS_LOCK = threading.Lock()


def run_folder(scratch_root: str | None) -> str:
    """The folder this grader's scratch folders go in: made for this process alone inside
    ``scratch_root`` (the system temp folder by default), removed at exit. It holds nothing a
    kernel must read (``scratch_root`` may hold the course's venv or checkout: ``/tmp`` often
    does), so a kernel's mount namespace can always cover it; mode 0711: a kernel may pass
    through to its own folder, and never list the others."""
    with _RUN_FOLDERS_LOCK:
        folder = _RUN_FOLDERS.get(scratch_root)
        if folder is None or not os.path.isdir(folder):
            folder = tempfile.mkdtemp(prefix="course-grade-run-", dir=scratch_root)
            os.chmod(folder, 0o711)
            if not _RUN_FOLDERS:
                atexit.register(_remove_run_folders)
            _RUN_FOLDERS[scratch_root] = folder
        return folder


def _remove_run_folders() -> None:
    for folder in _RUN_FOLDERS.values():
        shutil.rmtree(folder, ignore_errors=True)


# How the grader starts pytest for one submission: without the IRI grammar jsonschema would build
# for nbformat (see ``without_iri_grammar``).
PYTEST_MAIN = (
    "import course_lib.grading.without_iri_grammar; import pytest; raise SystemExit(pytest.main())"
)


def pytest_args(grader_dir: Path, notebook: Path, plan: Path, cell_timeout: float) -> list[str]:
    """pytest's arguments for one submission (the results descriptor is added by the caller)."""
    return [
        "-q", "-p", "nbval.plugin", "-p", "course_lib.grading.plugin", "-p", "no:cacheprovider",
        "-c", str(grader_dir / "pytest.ini"), "--rootdir", str(grader_dir),
        "--nbval-lax", "--nbval-current-env", f"--nbval-cell-timeout={cell_timeout}",
        f"--grading-plan={plan}", str(notebook),
    ]  # fmt: skip


def check_packages(lesson: Lesson) -> list[str]:
    """The packages of course_lib.checks that ``lesson``'s checks live in (``"lesson04"``)."""
    from course_lib.checks.core import lesson_package

    return sorted({package for spec in lesson.exercises if (package := lesson_package(spec.id))})


def grading_env() -> dict[str, str]:
    """The environment of the pytest process: no plugins found by chance, a fixed hash seed
    (set and dict orders, and so messages, are the same on every run)."""
    return {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONHASHSEED": "0"}


def _run_in(
    scratch: Path, sanitized: Sanitized, lesson: Lesson, options: RunOptions, toolkit: str
) -> RunResult:
    notebook_dir, grader_dir = scratch / "notebook", scratch / "grader"
    notebook_dir.mkdir()
    grader_dir.mkdir()
    notebook = notebook_dir / f"{lesson.slug}.ipynb"
    nbformat.write(sanitized.notebook, notebook)
    plan = grader_dir / "plan.json"
    plan.write_text(json.dumps(plan_for(sanitized, lesson, options, toolkit)), encoding="utf-8")
    (grader_dir / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    args = pytest_args(grader_dir, notebook, plan, options.cell_timeout)
    log_path = grader_dir / "pytest.log"
    budget = run_seconds(lesson, options.cell_timeout)  # the lesson's, not the submission's
    server = fork_server_for(options.check_modules)
    text, timed_out = None, False
    if server is not None:
        try:
            env, lessons = grading_env(), check_packages(lesson)
            reply = server.run(args, str(grader_dir), str(log_path), budget, env, lessons=lessons)
            text, timed_out = reply["results"], bool(reply.get("timed_out"))
        except ServerGone:
            text = None  # the server died (not this notebook's doing): run it the slow way
    if text is None:
        text, timed_out = _run_fresh_process(args, grader_dir, log_path, budget)
    try:
        payload = json.loads(text)
    except ValueError:  # nothing arrived, or pytest was killed while writing it
        if timed_out:
            return RunResult({}, failure=MESSAGES["out_of_time"].format(seconds=budget))
        tail = log_path.read_text(encoding="utf-8", errors="replace")[-1500:]
        return RunResult({}, failure=f"the grader could not run this notebook:\n{scrub_log(tail)}")
    records = {r["index"]: r for r in payload["records"]}
    return RunResult(records, payload["notes"], isolation=payload.get("isolation") or {})


def _run_fresh_process(
    args: list[str], grader_dir: Path, log_path: Path, budget: float
) -> tuple[str, bool]:
    """pytest in a new Python process (where there is no fork server): the results' text, and
    whether it was killed at ``budget``."""
    read_end, write_end = os.pipe()
    command = [sys.executable, "-c", PYTEST_MAIN, *args, f"--grading-results-fd={write_end}"]
    chunks: list[bytes] = []
    timed_out = False
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=grader_dir, env=grading_env(), stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, pass_fds=(write_end,), start_new_session=True,
        )  # fmt: skip
        os.close(write_end)
        reader = threading.Thread(target=_read_all, args=(read_end, chunks), daemon=True)
        reader.start()
        try:
            process.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            timed_out = True
            # pytest's kernels are in sessions of their own: each launcher ends its kernel, and
            # every process the kernel started, when pytest dies (kernel_launcher).
            with contextlib.suppress(ProcessLookupError):  # the group may have just ended
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        reader.join(timeout=10)
    return b"".join(chunks).decode("utf-8", "replace"), timed_out


_SERVERS: dict[tuple[str, ...], ForkServer] = {}
_SERVERS_LOCK = threading.Lock()


def fork_server_for(check_modules: tuple[str, ...]) -> ForkServer | None:
    """The fork server that has ``check_modules`` loaded (started on first use, stopped at
    exit); ``None`` where there is no ``fork`` or ``COURSE_GRADE_FORK=0`` asks for a fresh
    process per submission."""
    if not hasattr(os, "fork") or os.environ.get("COURSE_GRADE_FORK", "1") == "0":
        return None
    key = tuple(str(Path(path).resolve()) for path in check_modules)
    with _SERVERS_LOCK:
        if not _SERVERS:
            atexit.register(stop_fork_servers)
        if key not in _SERVERS:
            _SERVERS[key] = ForkServer(key, grading_env())
        return _SERVERS[key]


def stop_fork_servers() -> None:
    with _SERVERS_LOCK:
        servers = list(_SERVERS.values())
        _SERVERS.clear()
    for server in servers:
        server.stop()


def _read_all(fd: int, chunks: list[bytes]) -> None:
    with os.fdopen(fd, "rb") as handle:
        chunks.append(handle.read())
