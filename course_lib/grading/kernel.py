"""The kernel nbval talks to while grading: nbval's own ``RunningKernel``, made to notice death.

nbval blocks on the kernel's reply for the whole cell timeout, so a kernel killed by
``os._exit``, a segfault or the memory limit costs the full timeout and every later cell fails.
``GuardedKernel`` waits in short slices and checks in between that the process is alive, so a
death is noticed within ``POLL_SECONDS`` and reported as ``KernelDied``; the grading plugin then
starts a new kernel and goes on. It also caps how much output one cell may send, so a cell that
prints gigabytes cannot exhaust the grader, and it runs the guard's silent requests.
"""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import time
from queue import Empty
from typing import Any

from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from nbval.kernel import RunningKernel

POLL_SECONDS = 0.2
KERNEL_NAME = "course-grading"


class KernelDied(RuntimeError):
    """The kernel process ended while a cell was running."""


class GradingSpecManager(KernelSpecManager):
    """Knows one kernel: this Python, started through the memory-limiting launcher."""

    memory_mb = 2048
    writable = ""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        argv = [sys.executable, "-m", "course_lib.grading.kernel_launcher"]
        argv += ["--memory-mb", str(self.memory_mb)]
        argv += ["--writable", self.writable] if self.writable else []
        argv += ["--", "-f", "{connection_file}"]
        return KernelSpec(argv=argv, display_name="course grading", language="python")


class GuardedKernel(RunningKernel):
    def __init__(
        self,
        cwd: str,
        *,
        memory_mb: int,
        output_cap: int,
        confine: bool = True,
        startup_timeout: float = 60,
    ) -> None:
        specs = GradingSpecManager()
        specs.memory_mb = memory_mb
        specs.writable = cwd if confine else ""
        self.output_cap = output_cap
        self._output_sizes: dict[str, int] = {}
        self.km = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)
        # A fixed hash seed keeps set and dict orders (and so messages) the same on every run;
        # HOME and TMPDIR inside the scratch folder keep stray writes there.
        home = os.path.join(cwd, ".home")
        os.makedirs(os.path.join(home, "tmp"), exist_ok=True)
        env = {**os.environ, "PYTHONHASHSEED": "0", "HOME": home, "TMPDIR": f"{home}/tmp"}
        self.km.start_kernel(cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.kc = self.km.client()
        self.kc.start_channels()
        try:
            self.kc.wait_for_ready(timeout=startup_timeout)
        except RuntimeError:
            self.stop()
            raise
        self._ensure_iopub_up()

    def exit_description(self) -> str:
        """How the process ended, e.g. ``killed by signal SIGSEGV`` or ``exit code 3``."""
        process = getattr(getattr(self, "km", None), "provisioner", None)
        code = getattr(getattr(process, "process", None), "returncode", None)
        if code is None:
            return "it was stopped"
        if code < 0:
            try:
                return f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit code {code}"

    def get_message(self, stream: str, timeout: float | None = None) -> dict[str, Any]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = POLL_SECONDS if deadline is None else deadline - time.monotonic()
            try:
                msg = super().get_message(stream, timeout=max(0.0, min(POLL_SECONDS, left)))
            except Empty:
                if not self.is_alive():
                    raise KernelDied(f"the kernel died ({self.exit_description()})") from None
                if deadline is not None and time.monotonic() >= deadline:
                    raise
                continue
            if stream == "iopub" and not self._within_cap(msg):
                continue
            return msg

    def _within_cap(self, msg: dict[str, Any]) -> bool:
        """Count output per request; past the cap, cut the message crossing it, drop the rest."""
        kind = msg["msg_type"]
        if kind not in ("stream", "display_data", "execute_result", "update_display_data"):
            return True
        parent = msg["parent_header"].get("msg_id", "")
        content = msg["content"]
        size = len(content.get("text", "")) + sum(
            len(str(value)) for value in content.get("data", {}).values()
        )
        used = self._output_sizes.get(parent, 0)
        self._output_sizes[parent] = used + size
        if used > self.output_cap:
            return False
        if used + size > self.output_cap and kind == "stream":
            content["text"] = (
                content["text"][: max(0, self.output_cap - used)]
                + f"\n[the grader cut this output: more than {self.output_cap} characters]\n"
            )
        return True

    def is_alive(self) -> bool:
        km = getattr(self, "km", None)
        return km is not None and km.is_alive()

    def stop(self) -> None:
        """Stop the channels and the process, even when the process is already gone."""
        try:
            self.kc.stop_channels()
        finally:
            km = getattr(self, "km", None)
            if km is not None:
                try:
                    km.shutdown_kernel(now=True)
                except Exception:  # noqa: BLE001 (a dead kernel can fail to shut down twice)
                    pass

    def kill(self) -> None:
        """End the kernel at once (after a MemoryError its state cannot be trusted)."""
        km = getattr(self, "km", None)
        if km is not None and km.is_alive():
            km.shutdown_kernel(now=True)

    def run_quietly(self, code: str, timeout: float) -> str:
        """Run ``code`` (a replayed cell) without showing anything; return the reply status."""
        msg_id = self.kc.execute(code, silent=False, store_history=False, allow_stdin=False)
        status = "timeout"
        try:
            reply = self._reply(msg_id, timeout)
            status = reply["content"]["status"]
        except Empty:
            self.interrupt()
        try:
            self.await_idle(msg_id, 5)
        except Empty:
            pass
        return status

    def evaluate(self, expression: str, timeout: float = 20) -> Any:
        """Evaluate one expression through ``user_expressions`` (nothing shows); the result as
        a Python literal, or a ``RuntimeError`` that says what went wrong."""
        msg_id = self.kc.execute(
            "", silent=True, store_history=False, user_expressions={"r": expression}
        )
        reply = self._reply(msg_id, timeout)
        result = reply["content"].get("user_expressions", {}).get("r", {})
        if result.get("status") != "ok":
            raise RuntimeError(f"{result.get('ename')}: {result.get('evalue')}")
        return ast.literal_eval(result["data"]["text/plain"])

    def _reply(self, msg_id: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            msg = self.get_message("shell", timeout=max(0.0, deadline - time.monotonic()))
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg
