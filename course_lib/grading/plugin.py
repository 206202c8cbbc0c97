"""The pytest plugin that turns an nbval run into a grading run (``-p course_lib.grading.plugin``).

nbval runs each code cell as one pytest item, in order, in one kernel. This plugin adds what a
grader needs and nbval lacks:

- the kernel is a ``GuardedKernel`` (memory limit, death noticed within a fraction of a second,
  output cap), and the tamper guard is installed in it before the first cell;
- a dead kernel (or one that ran out of memory) is replaced before the next cell, and the
  cells that had run are replayed quietly, so later exercises are still graded;
- a timeout costs its own cell only (nbval would mark every later cell as expected to fail);
- a check cell of a trusted exercise does not run in the kernel at all: its check runs here, in
  the grader's process, and reaches the learner's code only through the driver the plugin installs
  in the kernel (``kernel_channel.py``); the verdict is decided here;
- a check cell of an older (legacy) exercise runs in the kernel between the guard's
  ``before_check`` and ``after_check``;
- one record per cell is written as JSON to the file descriptor the runner passed, a channel
  the kernel does not inherit.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

import nbval.plugin
import pytest
from nbval.plugin import IPyNbCell, NbCellError

from course_lib.grading.kernel import GuardedKernel, KernelDied
from course_lib.grading.kernel_channel import CheckTimeout, KernelChannel

GUARD = "__import__('course_lib.grading.tamper', fromlist=['_'])"
DRIVER = "__import__('course_lib.driver', fromlist=['_']).install()"
MAX_MESSAGE = 4000


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
        self.guards: dict[int, dict[str, Any]] = {}
        self.verdicts: dict[int, dict[str, Any]] = {}
        self.notes: list[str] = []

    # --- kernels ---------------------------------------------------------------------------

    def new_kernel(self, kernel_name: str, cwd: str | None = None, startup_timeout: float = 60):
        kernel = GuardedKernel(
            cwd or os.getcwd(),
            memory_mb=int(self.plan["memory_mb"]),
            output_cap=int(self.plan["output_cap"]),
            confine=bool(self.plan.get("confine", True)),
            startup_timeout=startup_timeout,
        )
        kernel.evaluate(DRIVER)
        if self.plan.get("guard", True):
            kernel.evaluate(f"{GUARD}.install()")
        return kernel

    # --- trusted checks: run here, not in the kernel ----------------------------------------

    def _trusted(self, item: pytest.Item) -> Any:
        role = self.roles.get(getattr(item, "cell_num", -1), {})
        if role.get("kind") != "check":
            return None
        from course_lib.checks import EXERCISES

        spec = EXERCISES.get(role.get("exercise"))
        return spec if spec is not None and not spec.legacy else None

    def _run_check(self, item: IPyNbCell, spec: Any) -> None:
        """The check cell's test: the check itself, run in this process against the kernel."""
        from course_lib.checks.core import run_check

        channel = KernelChannel(item.parent.kernel, timeout=self.timeout)
        result = run_check(spec, channel)
        if isinstance(result, str):
            self.verdicts[item.cell_num] = {"status": "passed", "message": "passed"}
            return
        failure = result.failure.fields()
        status = "not_attempted" if type(result).__name__ == "NotDoneYet" else "failed"
        self.verdicts[item.cell_num] = {
            "status": status,
            "message": str(result),
            "failure": failure,
        }
        raise result

    def _restart(self, parent: Any, index: int) -> None:
        if parent.kernel is not None:
            parent.kernel.stop()
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
            spec = self._trusted(item) if isinstance(item, IPyNbCell) else None
            if spec is not None:
                item.runtest = functools.partial(self._run_check, item, spec)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if not isinstance(item, IPyNbCell):
            return
        parent = item.parent
        parent.timed_out = False  # a timeout costs its own cell, not every later one
        if parent.kernel is not None and not parent.kernel.is_alive():
            self._restart(parent, item.cell_num)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        role = self.roles.get(getattr(item, "cell_num", -1), {})
        guarded = (
            role.get("kind") == "check"
            and self.plan.get("guard", True)
            and self._trusted(item) is None
        )
        if guarded:
            self.guards[item.cell_num] = guard = {}
            try:
                guard["before"] = json.loads(
                    item.parent.kernel.evaluate(
                        f"{GUARD}.before_check({role['exercise']!r}, {role['targets']!r}, "
                        f"{role['exercise_source']!r}, {self.plan['allowed_reference']!r})"
                    )
                )
            except Exception as exc:  # noqa: BLE001 (a broken guard is reported, not fatal)
                guard["error"] = f"{type(exc).__name__}: {exc}"[:MAX_MESSAGE]
        outcome = yield
        if guarded and "error" not in guard:
            kernel = item.parent.kernel
            if outcome.excinfo and isinstance(outcome.excinfo[1], KernelDied):
                return
            try:
                guard["after"] = json.loads(
                    kernel.evaluate(f"{GUARD}.after_check({role['exercise']!r})")
                )
            except Exception as exc:  # noqa: BLE001
                guard["error"] = f"{type(exc).__name__}: {exc}"[:MAX_MESSAGE]

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        if not isinstance(item, IPyNbCell) or call.when == "teardown":
            return
        report = outcome.get_result()
        if call.when == "setup" and report.passed:
            return
        record = self._record(item, call, report)
        record["guard"] = self.guards.get(item.cell_num)
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
        if isinstance(exc, KernelDied) or (
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
        }
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        if self.results_fd is None:
            return
        with os.fdopen(self.results_fd, "wb", closefd=True) as handle:
            handle.write(data)
