"""A clean process that has already imported IPython's kernel, and forks each kernel's launcher.

A grading kernel spends most of its start importing ipykernel, IPython, zmq, tornado and
debugpy: about 0.6 s of the 0.9 s before it answers, for every submission (and again after a
dead kernel), and then the openai SDK its lesson's first cells import (0.6 s more). The zygote
imports them once and forks a launcher (``kernel_launcher``) for each
kernel, so every submission still gets a fresh kernel process of its own, with nothing of any
other kernel in it, only without the imports.

What keeps this inside the trust boundary:

- The zygote is started with ``exec`` (not forked from the grader) and with the kernel's
  allowlisted environment (``isolation.kernel_environment``), so its memory holds no check, no
  expected value, no key: only the modules a kernel would import anyway and this module.
- It never reads a request. For each one it is handed a socket (one end of a pair the grader
  made for this kernel alone), forks, and the child reads the launcher's arguments, working
  folder and environment from that socket: one kernel's paths never pass through the memory
  that later kernels are forked from.
- The forked launcher closes every descriptor but that socket and does what a launcher started
  with ``exec`` does (namespaces, limits, Landlock, the isolation record); the kernel it forks
  does not keep the socket.
- The socket is the kernel's lifeline: when the grader's end closes (the grader ended, or was
  killed), the launcher ends its kernel, as a launcher whose parent died does. A launcher does
  not end with the zygote: a kernel that could kill the zygote (no PID namespace, no Landlock
  scoping) would otherwise end every other submission's running kernel with it. The zygote sends
  the launcher's process id on it, and its exit status when it ends, and reaps it only once the
  grader has closed its end, so the process id is not reused while the grader may still signal
  it (as with a child of its own).
- Where there is no zygote (not Linux, ``fork`` missing, ``COURSE_GRADE_ZYGOTE=0``, or it
  failed), kernels are started as before: ``python -s -c LAUNCH`` for each.

The grader's side is ``LauncherProcess`` (the parts of ``subprocess.Popen`` that jupyter_client
and the grader use), made by ``kernel.ZygoteProvisioner``. This module imports only the
standard library: the zygote loads nothing of the grader's.

One module because the zygote and the grader's handle on it (``LauncherProcess``) are the
two ends of one private protocol over one socket: what each side writes and the other reads,
and when each end closes, are written once, here; and the zygote may import only the standard
library, so the two halves cannot lean on a grader module for what they share.

    python -s -c ZYGOTE CONTROL_FD       # started by the fork server
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from typing import Any

ZYGOTE = (
    "import sys\n"
    "if sys.path[:1] == ['']:\n    del sys.path[0]\n"
    "from course_lib.grading.kernel_zygote import serve\n"
    "serve(int(sys.argv[1]))\n"
)
# What a kernel imports on its way to its first answer (the rest it imports itself).
PRELOAD = (
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "ipykernel.zmqshell",
    "ipykernel.iostream",
    "ipykernel.heartbeat",
    "ipykernel.eventloops",
    "ipykernel.debugger",
    "ipykernel.comm",
    "IPython.core.interactiveshell",
    "IPython.core.completer",
    "IPython.core.formatters",
    "IPython.core.magics",
    "IPython.core.history",
    "IPython.core.display",
    "IPython.core.ultratb",
    "IPython.core.inputtransformer2",
    "IPython.core.async_helpers",
    "jupyter_client.session",
    "tornado.ioloop",
    "zmq.eventloop.zmqstream",
    "comm",
    "debugpy",
    "jedi",
    "course_lib.grading.kernel_launcher",
    # What nine lessons of ten import in their first cells (course_lib.local_model's client):
    # about 0.6 s of CPU per kernel, paid once here. A third-party package only: nothing of
    # course_lib that a confined kernel may not read (its reference, checks, grader) is loaded.
    "openai",
)
MAX_REQUEST = 1 << 20  # the launcher's arguments, folder and environment
START_SECONDS = 30  # how long the grader waits for the zygote to fork a launcher


# --- the zygote --------------------------------------------------------------------------------


def preload() -> None:
    for name in PRELOAD:
        with contextlib.suppress(Exception):
            importlib.import_module(name)


def single_threaded() -> bool:
    """Forking needs one thread (a lock held by another thread would stay locked in the child;
    a new user namespace needs it too)."""
    if threading.active_count() != 1:
        return False
    with contextlib.suppress(OSError):
        return len(os.listdir("/proc/self/task")) == 1
    return True


_SET_BY_IMPORTS: dict[str, str] = {}


class _Launch:
    def __init__(self, pid: int, lifeline: socket.socket) -> None:
        self.pid = pid
        self.lifeline = lifeline
        self.exited = False
        self.grader_gone = False


# The grader's end of a lifeline closed. The zygote never reads a lifeline (the launcher it
# forked reads its request there), so it asks for the hang-up itself.
_HANGUP = getattr(select, "POLLRDHUP", 0) | select.POLLHUP | select.POLLERR | select.POLLNVAL


def serve(control_fd: int) -> None:
    """Fork a launcher for each socket that arrives on ``control_fd``; end when it closes."""
    from course_lib.grading.namespaces import die_with_parent

    control = socket.socket(fileno=control_fd)
    # The fork server ended: so does this (each launcher goes on until its grader lets go).
    die_with_parent(signal.SIGTERM)
    if os.getppid() == 1:
        raise SystemExit("the process that started the kernel zygote has already ended")
    before = dict(os.environ)
    preload()
    # What the imports put in the environment (debugpy sets PYDEVD_USE_FRAME_EVAL when it is
    # missing): a kernel that imported them itself would have it too.
    _SET_BY_IMPORTS.update(
        (key, value) for key, value in os.environ.items() if before.get(key) != value
    )
    if not single_threaded():  # a preloaded module started a thread: refuse, do not fork
        raise SystemExit("the kernel zygote would fork with more than one thread")
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    poller = select.poll()
    poller.register(control, select.POLLIN)
    poller.register(wake_read, select.POLLIN)
    launches: dict[int, _Launch] = {}
    by_fd: dict[int, _Launch] = {}
    while True:
        for fd, _events in poller.poll():
            if fd == control.fileno():
                if not _take_request(control, poller, launches, by_fd):
                    return  # the grader's side is gone: launchers end with their lifelines
            elif fd == wake_read:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_read, 4096)
            elif fd in by_fd:
                launch = by_fd.pop(fd)
                launch.grader_gone = True
                poller.unregister(fd)
        for launch in list(launches.values()):
            _settle(launch, launches)


def _take_request(control, poller, launches: dict[int, _Launch], by_fd) -> bool:
    """Fork a launcher for the socket that came; False when the grader's side has closed."""
    try:
        message, fds, _, _ = socket.recv_fds(control, 16, 1)
    except InterruptedError:
        return True
    except OSError:
        return False
    if not fds:
        return bool(message)
    os.set_inheritable(fds[0], False)
    lifeline = socket.socket(fileno=fds[0])
    pid = _fork_launcher(lifeline)
    if pid is None:
        lifeline.close()
        return True
    launch = _Launch(pid, lifeline)
    launches[pid] = launch
    by_fd[lifeline.fileno()] = launch
    _send(lifeline, {"pid": pid})
    poller.register(lifeline, _HANGUP)
    return True


def _settle(launch: _Launch, launches: dict[int, _Launch]) -> None:
    """Report an ended launcher's status (it stays a zombie); reap it once the grader is gone."""
    if not launch.exited:
        try:
            info = os.waitid(os.P_PID, launch.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            info = None
            launch.exited = True
        if info is not None:
            launch.exited = True
            code = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
            _send(launch.lifeline, {"status": code})
    if launch.exited and launch.grader_gone:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(launch.pid, 0)
        launch.lifeline.close()
        del launches[launch.pid]


def _send(lifeline: socket.socket, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        lifeline.sendall(json.dumps(message).encode("utf-8") + b"\n")


def _fork_launcher(lifeline: socket.socket) -> int | None:
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid:
        return pid
    code = 1
    try:  # the launcher: never returns into the zygote's loop
        signal.set_wakeup_fd(-1)
        for number in (signal.SIGCHLD, signal.SIGINT):
            signal.signal(number, signal.SIG_DFL)
        keep = lifeline.fileno()
        os.closerange(3, keep)
        os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        os.setsid()  # a process group of its own, as jupyter_client starts a kernel
        request = _read_request(lifeline)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        from course_lib.grading.kernel_launcher import main

        sys.argv = ["-c", *request["argv"]]
        # Returns (or raises SystemExit) only in the kernel, when IPython has ended.
        main(list(request["argv"]), lifeline=keep, set_by_imports=_SET_BY_IMPORTS)
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc)
    except BaseException:  # noqa: BLE001 (anything: the status says the launcher failed)
        with contextlib.suppress(Exception):
            traceback.print_exc()
        code = 1
    finally:
        _end_like_an_interpreter(code)


def _exit_code(exc: SystemExit) -> int:
    """The exit status Python gives ``raise SystemExit(code)``."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    with contextlib.suppress(Exception):
        print(exc.code, file=sys.stderr)
    return 1


def _end_like_an_interpreter(code: int) -> None:
    """What an exec'd kernel does as it exits (atexit handlers, flushed streams), then exit:
    never back into the zygote's loop."""
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    os._exit(code)


def _read_request(lifeline: socket.socket) -> dict[str, Any]:
    data = b""
    while not data.endswith(b"\n"):
        chunk = lifeline.recv(1 << 16)
        if not chunk or len(data) > MAX_REQUEST:
            raise SystemExit(1)
        data += chunk
    return json.loads(data)


# --- the grader's side -------------------------------------------------------------------------

_control: socket.socket | None = None  # set in the fork server, inherited by its children
_process: subprocess.Popen | None = None


def wanted() -> bool:
    return (
        sys.platform == "linux"
        and hasattr(os, "fork")
        and os.environ.get("COURSE_GRADE_ZYGOTE", "1") != "0"
    )


def start(env: dict[str, str]) -> None:
    """Start the zygote (``env``: a kernel's environment), for this process and every child it
    forks afterwards; nothing happens where it is not wanted."""
    global _control, _process
    if not wanted() or _control is not None:
        return
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        _process = subprocess.Popen(
            [sys.executable, "-s", "-c", ZYGOTE, str(theirs.fileno())],
            env=env, cwd="/", pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    except OSError:
        ours.close()
        return
    finally:
        theirs.close()
    _control = ours


def control_fd() -> int | None:
    """The descriptor a forked child must keep open to use the zygote."""
    return None if _control is None else _control.fileno()


def stop() -> None:
    global _control, _process
    if _control is not None:
        _control.close()
        _control = None
    if _process is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            _process.wait(timeout=10)
        if _process.poll() is None:
            _process.kill()
            _process.wait()
        _process = None


def available() -> bool:
    return _control is not None


class ZygoteGone(RuntimeError):
    """The zygote could not fork a launcher: start the kernel the ordinary way."""


class LauncherProcess:
    """A launcher the zygote forked, seen as ``subprocess.Popen`` would show a child."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str) -> None:
        if _control is None:
            raise ZygoteGone("there is no kernel zygote")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(_control, [b"k"], [theirs.fileno()])
        except OSError as exc:
            ours.close()
            raise ZygoteGone(f"the kernel zygote is gone ({exc})") from None
        finally:
            theirs.close()
        self._lifeline = ours
        self._buffer = b""
        self.returncode: int | None = None
        self.stdin = self.stdout = self.stderr = None
        request = {"argv": argv, "env": env, "cwd": cwd}
        try:
            ours.sendall(json.dumps(request).encode("utf-8") + b"\n")
            first = self._next_message(START_SECONDS)
        except (OSError, TimeoutError):
            first = None
        if not first or "pid" not in first:
            ours.close()
            raise ZygoteGone("the kernel zygote did not start a launcher")
        self.pid = int(first["pid"])
        self.args = argv

    def _next_message(self, timeout: float | None) -> dict[str, Any] | None:
        """The next line from the zygote; ``None`` at the end of the stream; ``TimeoutError``
        when nothing comes within ``timeout`` (0: do not wait)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            self._lifeline.settimeout(left)
            try:
                chunk = self._lifeline.recv(4096)
            except (TimeoutError, BlockingIOError):
                raise TimeoutError from None
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def _settle(self, timeout: float | None) -> int | None:
        if self.returncode is None and self._lifeline.fileno() >= 0:
            try:
                message = self._next_message(timeout)
            except TimeoutError:
                return None
            except (OSError, ValueError):
                message = None
            # No status before the end: the zygote died with the launcher (SIGKILL's code).
            self.returncode = int(message["status"]) if message else -signal.SIGKILL
            self.close()  # the launcher has ended: the zygote may reap it now
        return self.returncode

    def poll(self) -> int | None:
        return self._settle(0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._settle(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:  # still a zombie at worst: its id is not anyone else's
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def close(self) -> None:
        """Let the zygote reap the launcher (and end it, if it still runs)."""
        self._lifeline.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self._lifeline.close()


def launcher_args(cmd: list[str]) -> list[str]:
    """The launcher's own arguments, from the kernel spec's command (``python -s -c LAUNCH
    ARGS...``); the grader's process id is no use to a launcher whose parent is the zygote (its
    lifeline does that job)."""
    from course_lib.grading.kernel_launcher import LAUNCH

    if LAUNCH not in cmd:
        raise ZygoteGone("not a grading kernel's command")
    args = list(cmd[cmd.index(LAUNCH) + 1 :])
    if "--parent-pid" in args:
        at = args.index("--parent-pid")
        del args[at : at + 2]
    return args
