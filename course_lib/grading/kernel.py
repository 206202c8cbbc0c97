"""The kernel nbval talks to while grading: nbval's own ``RunningKernel``, made to notice death.

nbval blocks on the kernel's reply for the whole cell timeout, so a kernel killed by
``os._exit``, a segfault or the memory limit costs the full timeout and every later cell fails.
``GuardedKernel`` waits in short slices and checks in between that the process is alive, so a
death is noticed within ``POLL_SECONDS`` and reported as ``KernelDied``; the grading plugin then
starts a new kernel and goes on. It also caps how much output one cell may send, so a cell that
prints gigabytes cannot exhaust the grader, and it runs the grader's silent requests.

Each kernel is started through ``kernel_launcher`` (kept apart, see ``isolation``; forked by the
kernel zygote where there is one, see ``kernel_zygote``), with a
private runtime folder beside its working folder (mode 0700, removed when it stops) holding
its connection file and, where unix sockets can be used, its channels (``ipc`` transport):
no TCP port to find, and the kernel can run without any network (where the socket paths would
not fit, the runtime folder is made in the system temp folder, and failing that the channels
use TCP on loopback). The channels are encrypted (CurveZMQ, ipykernel 7.4+; the keys are in the
connection file, which no other kernel can read): signing alone kept others from sending, not
from reading. Where the grader runs as root, the kernel's folders belong to a user id of its
own (``isolation.kernel_uid``), which the launcher maps it to. ``isolation`` is the record of
what the kernel actually got; with ``require_private`` a kernel without a private view
(``isolation.private_view``) is stopped before any learner code runs (``KernelRefused``).

A kernel given a ``seed`` has ``random`` seeded with it before the first cell (and again after
a restart, so the replayed cells draw what they drew before): an answer that uses ``random``
grades the same on every regrade.

One module because it is one object's life: the ``GuardedKernel`` nbval drives, and the
pieces only its start uses (the kernel spec, the private runtime folder, the channels'
transport and encryption, the zygote provisioner). Apart, each would be read only from the
others, and the order in which a kernel is made private, started and watched would be spread
over several files.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable
from queue import Empty
from typing import Any

import zmq
from jupyter_client.connect import KernelConnectionInfo
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from jupyter_client.provisioning import LocalProvisioner
from nbval.kernel import RunningKernel

from course_lib.grading import kernel_zygote, syntax_tree
from course_lib.grading.bounds import KEPT_ERROR_CHARS, MAX_MESSAGE_BYTES
from course_lib.grading.isolation import RECORD_FILE, kernel_environment, kernel_uid, refusal
from course_lib.grading.kernel_client import close_client, grading_client
from course_lib.grading.kernel_launcher import LAUNCH
from course_lib.grading.own_time import OwnDeadline, Task, main_thread, only_child, this_thread
from course_lib.grading.texts import say

POLL_SECONDS = 0.2
# How long a new kernel may take to answer on every channel before it counts as not started
# (the grader then starts it once more; see ``plugin.GradingSession.new_kernel``). A kernel
# forked from the zygote answers in about 0.25 s, an exec'd one without bytecode in about 2 s.
READY_SECONDS = 15.0
# How long a running kernel's heartbeat may go unanswered before the kernel counts as dead: it
# is pinged once a second, and one missed beat on a busy machine is not silence.
HEARTBEAT_SILENCE = 10.0
STOP_SECONDS = 10  # how long a launcher may take to end its kernel after SIGTERM
KERNEL_NAME = "course-grading"
CONNECTION_NAME = "k"  # short: the channels' socket paths are built from it
# ipykernel answers "aborted", without running it, to a request that reaches it while it is
# still cancelling what was queued behind a cell that failed (a race a loaded machine loses now
# and then): such a request is sent again, a few times at most.
ABORTED_RETRIES = 5
# How long a kernel whose connection dropped is given to end before the drop is put down to a
# message larger than the grader reads (``oversized``) rather than to its death.
OVERSIZED_GRACE = 1.0
MAX_SOCKET_PATH = 100  # a unix socket's path must fit sun_path (108 bytes on Linux, 104 macOS)


class KernelDied(RuntimeError):
    """The kernel process ended (or stopped answering) while a cell was running."""


class KernelNotReady(RuntimeError):
    """A new kernel did not answer on every channel within its time (``READY_SECONDS``)."""


class KernelRefused(RuntimeError):
    """The kernel lacked a private view (``isolation.refusal``); it was stopped unused."""

    def __init__(self, message: str, record: dict[str, Any]) -> None:
        super().__init__(message)
        self.record = record


class GradingSpecManager(KernelSpecManager):
    """Knows one kernel: this Python, started through the isolating launcher."""

    memory_mb = 2048
    workdir = ""
    runtime = ""
    confine = True
    namespaces = True
    uid = 0  # 0: the launcher keeps the grader's own user
    without: tuple[str, ...] = ()
    hide_reference = False

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        argv = [sys.executable, "-s", "-c", LAUNCH, "--memory-mb", str(self.memory_mb)]
        argv += ["--workdir", self.workdir, "--runtime", self.runtime]
        argv += ["--parent-pid", str(os.getpid())]
        argv += ["--confine"] if self.confine else []
        argv += [] if self.namespaces else ["--no-namespaces"]
        argv += ["--uid", str(self.uid)] if self.uid else []
        argv += ["--without", ",".join(self.without)] if self.without else []
        argv += ["--hide-reference"] if self.hide_reference else []
        argv += ["--", "-f", "{connection_file}"]
        # ipykernel 7.4 encrypts its channels when the connection file holds CurveZMQ keys.
        metadata = {"supported_encryption": ["curve"]}
        return KernelSpec(
            argv=argv, display_name="course grading", language="python", metadata=metadata
        )


def submission_seed(sources: list[str]) -> int:
    """The seed of ``random`` in a submission's kernels: from its code cells' sources, so the
    same files draw the same numbers on every regrade (and two students' kernels differ)."""
    digest = hashlib.sha256("\0".join(sources).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big")


def encryption(without: tuple[str, ...]) -> str:
    """jupyter_client's ``transport_encryption`` for a grading kernel: required wherever
    libzmq has CurveZMQ (a kernel that cannot encrypt then fails to start, it is not left
    unencrypted)."""
    return "required" if zmq.has("curve") and "encryption" not in without else "disabled"


def own_folders(uid: int, *folders: str) -> None:
    """Give the kernel's folders (and what an earlier kernel of the same folder left in them)
    to its own user id; nothing else of the grader's is its."""
    for folder in folders:
        for path, dirs, files in os.walk(folder):
            for name in [path, *(os.path.join(path, f) for f in [*dirs, *files])]:
                os.chown(name, uid, uid, follow_symlinks=False)


def private_runtime(workdir: str) -> str:
    """A new runtime folder (mode 0700) beside ``workdir``, in the submission's scratch folder;
    where a unix socket's path there would be too long (a deep scratch root), one in the system
    temp folder instead."""
    runtime = tempfile.mkdtemp(prefix="k-", dir=os.path.dirname(workdir))
    if _sockets_fit(runtime):
        return runtime
    os.rmdir(runtime)
    return tempfile.mkdtemp(prefix="k-")


def channel_transport(runtime: str) -> str:
    """``ipc`` (unix sockets in the private runtime folder) where the platform has them and the
    paths fit, else ``tcp`` on loopback."""
    return "ipc" if os.name == "posix" and zmq.has("ipc") and _sockets_fit(runtime) else "tcp"


def _sockets_fit(runtime: str) -> bool:
    longest = os.path.join(runtime, f"{CONNECTION_NAME}-ipc-99")
    return len(longest.encode()) <= MAX_SOCKET_PATH


class ZygoteProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, with the launcher forked by the kernel zygote
    (``kernel_zygote``) instead of started with ``Popen``; ``Popen`` where the zygote cannot."""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> KernelConnectionInfo:
        env = kwargs.get("env") or dict(os.environ)
        cwd = str(kwargs.get("cwd") or os.getcwd())
        try:
            process = kernel_zygote.LauncherProcess(kernel_zygote.launcher_args(cmd), env, cwd)
        except kernel_zygote.ZygoteGone:
            return await super().launch_kernel(cmd, **kwargs)
        self.process = process
        self.pid = self.pgid = process.pid
        self.cwd = cwd
        return self.connection_info

    async def cleanup(self, restart: bool = False) -> None:
        if isinstance(self.process, kernel_zygote.LauncherProcess):
            self.process.close()
        await super().cleanup(restart)


class GuardedKernel(RunningKernel):
    def __init__(
        self,
        cwd: str,
        *,
        memory_mb: int,
        output_cap: int,
        confine: bool = True,
        namespaces: bool = True,
        hide_reference: bool = False,
        startup_timeout: float | None = None,
        seed: int | None = None,
        require_private: bool = False,
        without: tuple[str, ...] = (),
        keep_outputs: bool = True,
    ) -> None:
        """``keep_outputs``: off, no output but errors reaches nbval (none is compared when
        grading: see ``_within_cap``); ``confine``: Landlock (writes only in ``cwd``, reads
        only what a lesson needs);
        ``namespaces``: Linux namespaces where the platform allows them (off: what a platform
        without them gets, a subreaper instead of a PID namespace); ``hide_reference``:
        ``course_lib/reference`` unreadable too (a lesson that does not need it: ``reference_use``);
        ``seed``: for ``random``; ``require_private``: refuse a kernel without a private view;
        ``without``: protections taken away (``isolation.MEASURES``, for the tests only).
        Start it from a thread that outlives it: the launcher ends
        its kernel when the thread that started it ends (so a killed grader leaves nothing)."""
        workdir = os.path.abspath(cwd)
        self.output_cap = output_cap
        self.keep_outputs = keep_outputs
        self._kernel_of: tuple[int | None, int | None] = (None, None)
        self._output_sizes: dict[str, int] = {}
        self.isolation: dict[str, Any] = {}
        # HOME and TMPDIR inside the scratch folder keep stray writes there.
        home = os.path.join(workdir, ".home")
        os.makedirs(os.path.join(home, "tmp"), mode=0o700, exist_ok=True)
        self.runtime = private_runtime(workdir)
        specs = GradingSpecManager()
        specs.memory_mb, specs.workdir, specs.runtime = memory_mb, workdir, self.runtime
        specs.confine, specs.namespaces, specs.without = confine, namespaces, tuple(without)
        if os.geteuid() == 0 and sys.platform == "linux" and namespaces and "uid" not in without:
            specs.uid = kernel_uid(workdir)
            own_folders(specs.uid, workdir, self.runtime)
        specs.confine, specs.namespaces = confine, namespaces
        specs.hide_reference = hide_reference
        self.km = KernelManager(
            kernel_name=KERNEL_NAME,
            kernel_spec_manager=specs,
            transport=channel_transport(self.runtime),
            connection_file=os.path.join(self.runtime, f"{CONNECTION_NAME}.json"),
            transport_encryption=encryption(tuple(without)),
        )
        if kernel_zygote.available():
            self.km.kernel_id = str(uuid.uuid4())
            self.km.provisioner = ZygoteProvisioner(
                kernel_id=self.km.kernel_id, kernel_spec=self.km.kernel_spec, parent=self.km
            )
        env = kernel_environment(dict(os.environ), home=home, runtime=self.runtime)
        try:
            self.km.start_kernel(
                cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            self.kc = grading_client(self.km)
            self.kc.start_channels()
            self._wait_until_ready(READY_SECONDS if startup_timeout is None else startup_timeout)
            self.isolation = self._read_isolation()
            refused = refusal(self.isolation) if require_private else None
            if refused is not None:
                raise KernelRefused(refused, self.isolation)
            if seed is not None:
                self.evaluate(f"__import__('random').seed({int(seed)})", READY_SECONDS)
        except BaseException:
            self.stop()
            raise

    def _wait_until_ready(self, timeout: float) -> None:
        """Until the kernel answers on shell and IOPub and its stdin channel has connected: a
        ``kernel_info`` request, sent again after 0.1 s, 0.2 s, 0.4 s ... (at most a second
        apart; one sent before the kernel listens, or whose status went out before IOPub was
        subscribed, is not answered in full) until one's reply and its idle status arrive; then
        the channels' handshakes (see ``kernel_client``: a check's first ``input_request`` must
        not go out before stdin has connected). ``wait_for_ready`` would then wait 0.2 s more
        for IOPub to fall silent; nothing read here later needs that (every wait matches
        replies to its own request)."""
        deadline = self.deadline(timeout)
        wait = 0.1
        while True:
            msg_id = self.kc.kernel_info()
            try:
                self._reply(msg_id, min(wait, deadline.left()))
                self.await_idle(msg_id, min(wait, deadline.left()))
                break
            except Empty:
                if deadline.expired():
                    raise KernelNotReady(say("kernel_no_answer", seconds=timeout)) from None
            wait = min(1.0, wait * 2)
        if not self.kc.wait_connected(deadline.left()):
            raise KernelNotReady(say("kernel_not_connected", seconds=timeout))
        self.kc.hb_channel.arm()  # from now on a silent heartbeat means a kernel gone quiet

    def _read_isolation(self) -> dict[str, Any]:
        """The launcher's record, written before the kernel went on to start IPython."""
        try:
            with open(os.path.join(self.runtime, RECORD_FILE), encoding="utf-8") as handle:
                record = json.load(handle)
        except (OSError, ValueError):
            return {}
        return record if isinstance(record, dict) else {}

    def exit_description(self) -> str:
        """How the process ended, e.g. ``killed by signal SIGSEGV`` or ``exit code 3``."""
        if self.oversized() and not self._ended():
            return say("kernel_oversized", mib=MAX_MESSAGE_BYTES >> 20)
        silent = self.heartbeat_silence()
        if silent >= HEARTBEAT_SILENCE:
            return say("kernel_silent", seconds=HEARTBEAT_SILENCE)
        process = getattr(getattr(self, "km", None), "provisioner", None)
        code = getattr(getattr(process, "process", None), "returncode", None)
        if code is None:
            return say("kernel_stopped")
        if code < 0:
            try:
                return say("kernel_signal", signal=signal.Signals(-code).name)
            except ValueError:
                return say("kernel_signal", signal=-code)
        return say("kernel_exit", code=code)

    def deadline(self, seconds: float) -> OwnDeadline:
        """A limit of ``seconds`` of own time (``own_time``) for work that goes through this
        thread of the grader, the kernel's launcher and the kernel's main thread."""
        waiter = this_thread()
        return OwnDeadline(seconds, lambda: [waiter, *self._kernel_tasks()])

    def _kernel_tasks(self) -> list[Task]:
        """The launcher's and the kernel's main threads (the kernel is the launcher's one child,
        found once per launcher)."""
        provisioner = getattr(getattr(self, "km", None), "provisioner", None)
        launcher = getattr(getattr(provisioner, "process", None), "pid", None)
        known, kernel = self._kernel_of
        # Found again when the one found is gone: a short-lived child of the launcher (before
        # the kernel started) can be its only child for a moment.
        if launcher != known or kernel is None or not os.path.exists(f"/proc/{kernel}"):
            kernel = only_child(launcher)
            self._kernel_of = (launcher, kernel)
        return main_thread(launcher) + main_thread(kernel)

    def get_message(self, stream: str, timeout: float | None = None) -> dict[str, Any]:
        deadline = None if timeout is None else self.deadline(timeout)
        while True:
            left = POLL_SECONDS if deadline is None else deadline.left()
            try:
                msg = super().get_message(stream, timeout=min(POLL_SECONDS, left))
            except Empty:
                if not self.is_alive():
                    reason = self.exit_description()
                    raise KernelDied(say("kernel_died_because", reason=reason)) from None
                if deadline is not None and deadline.expired():
                    raise
                continue
            if stream == "iopub" and not self._within_cap(msg):
                continue
            return msg

    def _within_cap(self, msg: dict[str, Any]) -> bool:
        """Count every byte of every message a request caused (``message_size``: metadata,
        transient, data, an error's name, value and traceback) toward the output cap. An error
        is always kept (it fails the cell), cut to ``KEPT_ERROR_CHARS``; other output is kept
        only with ``keep_outputs`` (nothing in grading compares outputs) and until the cap:
        past it, the stream crossing it is cut and the rest dropped."""
        kind = msg["msg_type"]
        if kind in ("status", "execute_input"):
            return True
        parent = msg["parent_header"].get("msg_id", "")
        size = message_size(msg)
        used = self._output_sizes.get(parent, 0)
        self._output_sizes[parent] = used + size
        content = msg["content"]
        if kind == "error":
            cut_error(content)
            return True
        if not self.keep_outputs or used >= self.output_cap:
            return False
        if used + size <= self.output_cap:
            return True
        if kind == "stream" and isinstance(content.get("text"), str):
            content["text"] = (
                content["text"][: max(0, self.output_cap - used)]
                + "\n"
                + say("output_cut", limit=self.output_cap)
                + "\n"
            )
            return True
        return False

    def is_alive(self) -> bool:
        """The process runs and its heartbeat has not been silent for ``HEARTBEAT_SILENCE``."""
        km = getattr(self, "km", None)
        if km is None or not km.is_alive() or self.oversized():
            return False
        return self.heartbeat_silence() < HEARTBEAT_SILENCE

    def _ended(self) -> bool:
        """Whether the kernel's process has ended (waiting a moment: a kernel that dies drops
        its connections too, an instant before its end is seen)."""
        process = getattr(getattr(getattr(self, "km", None), "provisioner", None), "process", None)
        try:
            return process is None or process.wait(timeout=OVERSIZED_GRACE) is not None
        except subprocess.TimeoutExpired:
            return False

    def oversized(self) -> bool:
        """Whether the kernel sent a message larger than ``MAX_MESSAGE_BYTES`` (it was not
        received, and the channel lost what followed it: the kernel is of no more use)."""
        kc = getattr(self, "kc", None)
        return kc is not None and kc.lost_connection()

    def heartbeat_silence(self) -> float:
        """Seconds the kernel's heartbeat has gone unanswered (0 while it answers)."""
        kc = getattr(self, "kc", None)
        channel = getattr(kc, "_hb_channel", None) if kc is not None else None
        return channel.silent_for() if channel is not None else 0.0

    def stop(self) -> None:
        """Stop the channels and the process, even when the process is already gone, and
        remove the runtime folder."""
        try:
            kc = getattr(self, "kc", None)
            if kc is not None:
                close_client(kc)
        finally:
            self.kill()
            shutil.rmtree(getattr(self, "runtime", ""), ignore_errors=True)

    def kill(self) -> None:
        """End the kernel at once (after a MemoryError its state cannot be trusted), and every
        process it started: the launcher does that on SIGTERM (jupyter_client's own kill would
        SIGKILL the launcher, leaving the cleanup to the PID namespace alone)."""
        km = getattr(self, "km", None)
        if km is None:
            return
        process = getattr(km.provisioner, "process", None) if km.has_kernel else None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                pass
        try:
            km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001 (a dead kernel can fail to shut down twice)
            pass

    def run_quietly(self, code: str, timeout: float) -> str:
        """Run ``code`` (a replayed cell) without showing anything; return the reply status."""

        def execute() -> str:
            return self.kc.execute(code, silent=False, store_history=False, allow_stdin=False)

        status = "timeout"
        try:
            msg_id, reply = self._unaborted(execute, timeout)
            status = reply["content"]["status"]
        except _NoReply as missing:
            msg_id = missing.msg_id
            self.interrupt()
        try:
            self.await_idle(msg_id, 5)
        except Empty:
            pass
        return status

    def evaluate(self, expression: str, timeout: float = 20) -> Any:
        """Evaluate one expression through ``user_expressions`` (nothing shows); the result as
        a Python literal, or a ``RuntimeError`` that says what went wrong."""

        def execute() -> str:
            return self.kc.execute(
                "", silent=True, store_history=False, user_expressions={"r": expression}
            )

        _, reply = self._unaborted(execute, timeout)
        result = reply["content"].get("user_expressions", {}).get("r", {})
        if result.get("status") != "ok":
            raise RuntimeError(f"{result.get('ename')}: {result.get('evalue')}")
        return ast.literal_eval(syntax_tree.parse(result["data"]["text/plain"], mode="eval"))

    def _unaborted(self, execute: Callable[[], str], timeout: float) -> tuple[str, dict[str, Any]]:
        """``execute()`` (which sends one request and returns its id) and its reply, sent again
        while the kernel answers "aborted" (see ``ABORTED_RETRIES``); ``_NoReply`` (an
        ``Empty``) when no reply comes within ``timeout``."""
        deadline = self.deadline(timeout)
        for _ in range(ABORTED_RETRIES):
            msg_id = execute()
            try:
                reply = self._reply(msg_id, deadline.left())
            except Empty:
                raise _NoReply(msg_id) from None
            if reply["content"].get("status") != "aborted":
                break
        return msg_id, reply

    def _reply(self, msg_id: str, timeout: float) -> dict[str, Any]:
        deadline = self.deadline(timeout)
        while True:
            msg = self.get_message("shell", timeout=deadline.left())
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg


def message_size(msg: dict[str, Any]) -> int:
    """The bytes a message carries: its content's and metadata's text (every key and string in
    UTF-8, a few bytes for every other value, as serialized) and its buffers; counted without
    making a copy of it (a message may be many megabytes)."""
    size = sum(memoryview(buffer).nbytes for buffer in msg.get("buffers") or ())
    stack: list[Any] = [msg.get("content"), msg.get("metadata")]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            size += len(value) if value.isascii() else len(value.encode("utf-8", "replace"))
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
        else:
            size += 8  # a number, true, false or null
    return size


def cut_error(content: dict[str, Any]) -> None:
    """An error's name, value and traceback cut to ``KEPT_ERROR_CHARS`` each (the traceback
    keeps its last lines, where the error is)."""
    for key in ("ename", "evalue"):
        if isinstance(content.get(key), str):
            content[key] = content[key][:KEPT_ERROR_CHARS]
    lines = content.get("traceback")
    kept: list[str] = []
    room = KEPT_ERROR_CHARS
    for line in reversed(lines if isinstance(lines, list) else []):
        text = str(line)[:room]
        kept.insert(0, text)
        room -= len(text)
        if room <= 0:
            break
    content["traceback"] = kept


class _NoReply(Empty):
    """No reply to ``msg_id`` in time (an ``Empty``, as ``_reply`` raises)."""

    def __init__(self, msg_id: str) -> None:
        super().__init__(msg_id)
        self.msg_id = msg_id
