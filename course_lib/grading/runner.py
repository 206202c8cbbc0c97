"""Run one sanitized notebook as ``pytest --nbval-lax`` items, in its own scratch folder.

One pytest process per submission: a crash, a leak or a hung kernel stays with that submission.
The notebook runs from ``SCRATCH/notebook/`` (its working directory, where its writes are
confined); the plan and the log sit in ``SCRATCH/grader/``. Results come back through a pipe
the kernel does not inherit, not through a file the notebook could overwrite.
"""

from __future__ import annotations

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

from course_lib.grading.canonical import Lesson
from course_lib.grading.sanitize import Sanitized


@dataclass(frozen=True)
class RunOptions:
    cell_timeout: float = 30.0
    memory_mb: int = 2048
    output_cap: int = 1_000_000  # characters of output kept per cell
    confine: bool = True  # Landlock, where the platform has it
    namespaces: bool = True  # Linux namespaces for each kernel, where the platform allows them
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


def plan_for(sanitized: Sanitized, lesson: Lesson, options: RunOptions) -> dict[str, Any]:
    """What the plugin needs to know about each cell, and the run's limits."""
    cells = [
        {"index": role.index, "kind": role.kind, "exercise": role.exercise}
        for role in sanitized.roles
    ]
    return {
        "cells": cells,
        "cell_timeout": options.cell_timeout,
        "memory_mb": options.memory_mb,
        "output_cap": options.output_cap,
        "confine": options.confine,
        "namespaces": options.namespaces,
        "check_modules": [str(Path(path).resolve()) for path in options.check_modules],
    }


def run_sanitized(sanitized: Sanitized, lesson: Lesson, options: RunOptions) -> RunResult:
    """Run the notebook; always returns, with ``failure`` set if pytest itself broke."""
    try:
        scratch = Path(tempfile.mkdtemp(prefix="course-grade-", dir=options.scratch_root))
    except OSError as exc:
        return RunResult({}, failure=f"the grader could not make a scratch folder: {exc}")
    try:
        return _run_in(scratch, sanitized, lesson, options)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# How the grader starts pytest for one submission. nbformat imports jsonschema, which imports the
# IRI format checker rfc3987_syntax when it is installed (JupyterLab's dependencies install it);
# building its grammar takes about 0.7 s, paid again for every submission. Neither nbformat nor
# the grader checks IRIs, so this process goes without it. The learner's kernel is not affected.
PYTEST_MAIN = (
    "import sys; sys.modules.setdefault('rfc3987_syntax', None); "
    "import pytest; raise SystemExit(pytest.main())"
)


def _run_in(scratch: Path, sanitized: Sanitized, lesson: Lesson, options: RunOptions) -> RunResult:
    notebook_dir, grader_dir = scratch / "notebook", scratch / "grader"
    notebook_dir.mkdir()
    grader_dir.mkdir()
    notebook = notebook_dir / f"{lesson.slug}.ipynb"
    nbformat.write(sanitized.notebook, notebook)
    plan = grader_dir / "plan.json"
    plan.write_text(json.dumps(plan_for(sanitized, lesson, options)), encoding="utf-8")
    (grader_dir / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    read_end, write_end = os.pipe()
    command = [
        sys.executable, "-c", PYTEST_MAIN, "-q", "-p", "nbval.plugin",
        "-p", "course_lib.grading.plugin", "-p", "no:cacheprovider",
        "-c", str(grader_dir / "pytest.ini"), "--rootdir", str(grader_dir),
        "--nbval-lax", "--nbval-current-env", f"--nbval-cell-timeout={options.cell_timeout}",
        f"--grading-plan={plan}", f"--grading-results-fd={write_end}", str(notebook),
    ]  # fmt: skip
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONHASHSEED": "0"}
    log_path = grader_dir / "pytest.log"
    budget = len(sanitized.roles) * (options.cell_timeout + 15) + 120
    chunks: list[bytes] = []
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=grader_dir, env=env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, pass_fds=(write_end,), start_new_session=True,
        )  # fmt: skip
        os.close(write_end)
        reader = threading.Thread(target=_read_all, args=(read_end, chunks), daemon=True)
        reader.start()
        try:
            process.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            # pytest's kernels are in sessions of their own: each launcher ends its kernel, and
            # every process the kernel started, when pytest dies (kernel_launcher).
            with contextlib.suppress(ProcessLookupError):  # the group may have just ended
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        reader.join(timeout=10)
    try:
        payload = json.loads(b"".join(chunks).decode("utf-8"))
    except ValueError:  # nothing arrived, or pytest was killed while writing it
        tail = log_path.read_text(encoding="utf-8", errors="replace")[-1500:]
        return RunResult({}, failure=f"the grader could not run this notebook:\n{tail}")
    records = {r["index"]: r for r in payload["records"]}
    return RunResult(records, payload["notes"], isolation=payload.get("isolation") or {})


def _read_all(fd: int, chunks: list[bytes]) -> None:
    with os.fdopen(fd, "rb") as handle:
        chunks.append(handle.read())
