"""The pytest plugin that turns an nbval run into a grading run (``-p course_lib.grading.plugin``).

nbval runs each code cell as one pytest item, in order, in one kernel. This plugin adds what a
grader needs and nbval lacks:

- the kernel is a ``GuardedKernel`` (kept apart from the grader and other kernels, memory
  limit, death noticed within a fraction of a second, output cap), with the check driver
  installed before the first cell;
- a dead kernel (or one that ran out of memory, or stopped answering) is replaced before the
  next cell, and the cells that had run are replayed quietly, so later exercises are still
  graded;
- a kernel that does not become ready within ``kernel.READY_SECONDS`` is started once more; if
  that one fails too, every cell left says that the grader could not start a kernel (status
  ``error``: the grader's fault, never the learner's);
- a timeout costs its own cell only (nbval would mark every later cell as expected to fail);
- a check cell does not run in the kernel at all: its check runs here, in the grader's process,
  and reaches the learner's code only through the driver (``kernel_channel.py``); the verdict is
  decided here, where nothing the notebook does can reach it;
- one record per cell is written as JSON to the file descriptor the runner passed, a channel
  the kernel does not inherit.
"""

from __future__ import annotations

import functools
import json
import os
from queue import Empty
from typing import Any

import nbval.plugin
import pytest
from nbval.plugin import IPyNbCell, NbCellError

from course_lib.grading.isolation import weakest
from course_lib.grading.kernel import (
    READY_SECONDS,
    GuardedKernel,
    KernelDied,
    KernelNotReady,
    KernelRefused,
)
from course_lib.grading.kernel_channel import CheckTimeout, KernelChannel
from course_lib.grading.toolkit_plan import configure_expression
from course_lib.i18n import set_language

DRIVER = "__import__('course_lib.driver', fromlist=['_']).install()"
MAX_MESSAGE = 4000
KERNEL_STARTS = 2  # attempts at a kernel that becomes ready, each time one is needed


class KernelStartFailed(RuntimeError):
    """No kernel became ready in ``KERNEL_STARTS`` attempts: the cells left cannot be graded."""


class OutOfTime(RuntimeError):
    """The notebook's cells have spent the time its lesson's cells get (``bounds.cell_seconds``):
    no cell starts any more."""


# Learner-facing messages, whole sentences (one place, for the translation).
MESSAGES = {
    "out_of_time": (
        "not run: the notebook's cells had used up their time ({seconds:g} s in all: the cell "
        "timeout for each of the lesson's {cells} code cells). Cells that wait or loop for long "
        "use it up; make them finish, and remove the ones you added for experiments"
    ),
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("course-grading", "course_lib grading")
    group.addoption("--grading-plan", default=None, help="JSON file: what each cell is")
    group.addoption("--grading-results-fd", type=int, default=None, help="write results here")


def pytest_configure(config: pytest.Config) -> None:
    plan_path = config.getoption("grading_plan")
    if plan_path:
        with open(plan_path, encoding="utf-8") as handle:
            plan = json.load(handle)
        load_check_modules(plan.get("check_modules", []))
        set_language(plan.get("language"))  # this process grades one submission
        grading = GradingSession(plan, config.getoption("grading_results_fd"))
        config.pluginmanager.register(grading, "course-grading-session")
        nbval.plugin.RunningKernel = grading.new_kernel


_LOADED_CHECK_MODULES: set[str] = set()


def load_check_modules(paths: list[str]) -> None:
    """Import the checks the grader runs: the course's, then any extra files the plan names
    (each once per process: the fork server loads them before it forks)."""
    import importlib.util

    import course_lib.checks  # noqa: F401 (registers the course's exercises)

    for path in paths:
        if path in _LOADED_CHECK_MODULES:
            continue
        number = len(_LOADED_CHECK_MODULES)
        _LOADED_CHECK_MODULES.add(path)
        spec = importlib.util.spec_from_file_location(f"course_extra_checks_{number}", path)
        if spec is None or spec.loader is None:
            raise pytest.UsageError(f"cannot load the check module {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


class GradingSession:
    def __init__(self, plan: dict[str, Any], results_fd: int | None) -> None:
        self.plan = plan
        self.results_fd = results_fd
        self.roles = {cell["index"]: cell for cell in plan["cells"]}
        self.timeout = float(plan["cell_timeout"])
        self.records: dict[int, dict[str, Any]] = {}
        self.history: list[str] = []  # sources of cells to replay after a restart
        self.verdicts: dict[int, dict[str, Any]] = {}
        self.notes: list[str] = []
        self.isolation: dict[str, Any] = {}  # the weakest any of this notebook's kernels got
        self.start_failure: str | None = None  # why no kernel could be started, once it failed
        # The time the cells may spend in all (bounds.cell_seconds; none in an older plan).
        self.cell_seconds = plan.get("cell_seconds")
        self.spent = 0.0  # what the cells have spent so far

    # --- kernels ---------------------------------------------------------------------------

    def new_kernel(self, kernel_name: str, cwd: str | None = None, startup_timeout: float = 0):
        """A ready kernel with the driver installed (nbval's ``RunningKernel``; its startup
        timeout is not used: ``kernel.READY_SECONDS`` is); ``KernelStartFailed`` after
        ``KERNEL_STARTS`` attempts."""
        if self.start_failure is not None:
            raise KernelStartFailed(self.start_failure)
        problems = []
        for _ in range(KERNEL_STARTS):
            try:
                return self._start_kernel(cwd or os.getcwd())
            except KernelRefused as exc:  # not the machine's chance: no second attempt
                self.isolation = weakest(self.isolation, exc.record)
                problems = [str(exc)]
                break
            except (KernelNotReady, KernelDied) as exc:
                problems.append(str(exc))
        self.start_failure = "; then ".join(problems)
        raise KernelStartFailed(self.start_failure)

    def _start_kernel(self, cwd: str) -> GuardedKernel:
        kernel = GuardedKernel(
            cwd,
            memory_mb=int(self.plan["memory_mb"]),
            output_cap=int(self.plan["output_cap"]),
            confine=bool(self.plan.get("confine", True)),
            namespaces=bool(self.plan.get("namespaces", True)),
            seed=self.plan.get("seed"),
            require_private=not self.plan.get("accept_isolation_gap", False),
            hide_reference=bool(self.plan.get("hide_reference", False)),
            keep_outputs=False,  # --nbval-lax on outputs the sanitizer dropped: none compared
        )
        try:
            kernel.evaluate(DRIVER, timeout=READY_SECONDS)
            if self.plan.get("toolkit"):  # the student's earlier parts (toolkit_plan)
                kernel.evaluate(configure_expression(self.plan["toolkit"]), timeout=READY_SECONDS)
        except (RuntimeError, Empty) as exc:
            kernel.stop()
            raise KernelNotReady(f"the check driver could not be installed ({exc})") from None
        self.isolation = weakest(self.isolation, kernel.isolation)
        return kernel

    # --- checks: run here, not in the kernel -----------------------------------------------

    def _check_of(self, item: pytest.Item) -> str | None:
        role = self.roles.get(getattr(item, "cell_num", -1), {})
        return role.get("exercise") if role.get("kind") == "check" else None

    def _run_check(self, item: IPyNbCell, exercise_id: str) -> None:
        """The check cell's test: the check itself, run in this process against the kernel."""
        from course_lib.checks import EXERCISES
        from course_lib.checks.core import run_check, unknown_exercise

        spec = EXERCISES.get(exercise_id)
        if spec is None:  # the canonical lesson has an exercise no check module registers
            raise unknown_exercise(exercise_id)
        channel = KernelChannel(item.parent.kernel, timeout=self.timeout)
        result = run_check(spec, channel)
        verdict: dict[str, Any]
        if isinstance(result, str):
            verdict = {"status": "passed", "message": "passed"}
        else:
            status = "not_attempted" if type(result).__name__ == "NotDoneYet" else "failed"
            verdict = {"status": status, "message": str(result), "failure": result.failure.fields()}
        outcomes = getattr(result, "scenarios", None) or getattr(result, "outcomes", None)
        if outcomes:  # a scenario check: partial credit, and every scenario's outcome
            from course_lib.checks.scenarios import earned

            verdict["points"] = earned(list(outcomes))
            verdict["scenarios"] = [outcome.record() for outcome in outcomes]
        verdict["origins"] = channel.origins
        self.verdicts[item.cell_num] = verdict
        if not isinstance(result, str):
            raise result

    def _restart(self, parent: Any, index: int) -> None:
        if parent.kernel is not None:
            parent.kernel.stop()
            parent.kernel = None
        parent.kernel = self.new_kernel("", str(parent.fspath.dirname))
        replayed = 0
        for source in self.history:
            try:
                parent.kernel.run_quietly(source, self.timeout)
            except KernelDied:
                self.notes.append(f"the kernel died again while replaying the cells before {index}")
                break
            replayed += 1
        self.notes.append(
            f"the kernel was restarted before cell {index}; {replayed} earlier cell(s) were run "
            "again so later exercises could be graded"
        )

    # --- hooks -----------------------------------------------------------------------------

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            exercise_id = self._check_of(item) if isinstance(item, IPyNbCell) else None
            if exercise_id is not None:
                item.runtest = functools.partial(self._run_check, item, exercise_id)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if not isinstance(item, IPyNbCell):
            return
        parent = item.parent
        parent.timed_out = False  # a timeout costs its own cell, not every later one
        if self.start_failure is not None:
            raise KernelStartFailed(self.start_failure)
        if self.cell_seconds is not None and self.spent >= self.cell_seconds:
            cells = self.plan.get("lesson_cells", 0)
            raise OutOfTime(MESSAGES["out_of_time"].format(seconds=self.cell_seconds, cells=cells))
        if parent.kernel is not None and not parent.kernel.is_alive():
            self._restart(parent, item.cell_num)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        if not isinstance(item, IPyNbCell) or call.when == "teardown":
            return
        report = outcome.get_result()
        if call.when == "call":
            self.spent += call.duration
        if call.when == "setup" and report.passed:
            return
        record = self._record(item, call, report)
        if item.cell_num in self.verdicts:
            record["verdict"] = self.verdicts[item.cell_num]
        self.records[item.cell_num] = record
        if record.get("ename") == "MemoryError" and item.parent.kernel is not None:
            item.parent.kernel.kill()  # its memory is still held by the traceback: start afresh
        elif (
            record["kind"] in ("passed", "error")
            and self.roles.get(item.cell_num, {}).get("kind") != "check"
        ):
            self.history.append(item.cell.source)

    def _record(self, item: IPyNbCell, call: pytest.CallInfo, report: Any) -> dict[str, Any]:
        record: dict[str, Any] = {"index": item.cell_num, "kind": "passed"}
        if report.skipped:
            record["kind"] = "skipped"
            return record
        if report.passed:
            return record
        exc = call.excinfo.value if call.excinfo else None
        if isinstance(exc, OutOfTime):
            record.update(kind="out_of_time", message=str(exc))
        elif isinstance(exc, KernelStartFailed):
            record.update(kind="no_kernel", message=str(exc)[:MAX_MESSAGE])
        elif isinstance(exc, KernelDied) or (
            isinstance(exc, RuntimeError) and "Kernel dead" in str(exc)
        ):
            record.update(kind="kernel_died", message=str(exc))
        elif isinstance(exc, CheckTimeout) or (
            isinstance(exc, NbCellError) and "Timeout" in str(exc)
        ):
            record.update(kind="timeout", message=str(exc))
        else:
            error = next(
                (out for out in reversed(item.test_outputs or []) if out.output_type == "error"),
                None,
            )
            record["kind"] = "error"
            if error is not None:
                record.update(ename=error.ename, evalue=str(error.evalue)[:MAX_MESSAGE])
            else:
                record["message"] = f"{type(exc).__name__}: {exc}"[:MAX_MESSAGE]
            if record.get("ename") == "MemoryError":
                record["kind"] = "kernel_died"
        return record

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        payload = {
            "records": [self.records[index] for index in sorted(self.records)],
            "notes": self.notes,
            "isolation": self.isolation,
        }
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        if self.results_fd is None:
            return
        with os.fdopen(self.results_fd, "wb", closefd=True) as handle:
            handle.write(data)
