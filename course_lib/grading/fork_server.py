"""A warm parent that forks one pytest process per submission (a fork server).

Starting ``python -m pytest`` for every submission pays, each time, for importing pytest, nbval,
nbformat, jupyter_client, zmq and every check module before the first cell runs. This server
imports them once and then, for each submission, forks a child that runs ``pytest.main`` for
that submission alone. The child is a new process in its own session: a crash, a hang or a leak
stays with it (the server kills its process group at the deadline), it gets a fresh kernel as
before, and its results come back through a pipe made for it alone, which the kernel does not
inherit (jupyter_client starts kernels with ``close_fds``). The server itself never runs a
notebook, holds no zmq context and no thread when it forks, and answers on its stdout, one JSON
line per finished child.

A child can also read a submission's sources instead (``analysis``: under a memory and a time
limit, before its notebook runs). The server also starts the kernel zygote (``kernel_zygote``)
that its children's kernels are forked from; each child keeps the socket to it.

The grader's side is ``ForkServer``: one server per set of check modules, shared by the
grading threads, restarted if it ever dies. Where ``fork`` does not exist, the runner starts
pytest as a fresh process instead (the same arguments, the same results channel).

One module because the server and its client (``ForkServer``) are the two ends of one
JSON-lines protocol, and the server is this module run as ``python -m``: what it imports
before it forks, what a child sends back and what the client reads are kept in one reading.

    python -m course_lib.grading.fork_server [CHECK_MODULE...]   # speaks JSON lines
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty, Queue
from typing import Any

# the standard library only, like this module:
from course_lib.grading import kernel_zygote, syntax_tree

READY = "ready"
GRACE_SECONDS = 30  # beyond a job's own deadline, before the grader stops waiting for the server
KILL_GRACE_SECONDS = 5  # after killing a child at its deadline, before giving up on its pipe


def base_imports(check_modules: list[str]) -> None:
    """What every child imports before its first cell: imported before the server says it is
    ready."""
    importlib.import_module("course_lib.grading.without_iri_grammar")  # before nbformat
    import _pytest.config
    import nbformat  # noqa: F401
    import nbval.plugin  # noqa: F401
    import pytest  # noqa: F401

    from course_lib.grading import analysis, plugin  # noqa: F401 (analysis: for its children)

    for name in _pytest.config.default_plugins:
        with contextlib.suppress(ImportError):
            __import__(f"_pytest.{name}")
    plugin.load_check_modules(check_modules)


def warm_steps(lessons: Iterable[str] | None = None) -> list[Callable[[], object]]:
    """What some child will import, in steps the server takes between jobs: the checks of
    ``lessons`` (``"lesson04"``; ``None``: every lesson's; ``check()`` imports a lesson's checks
    on first use, so that a learner's notebook pays only for its own lesson) and what those
    checks import inside their functions (the openai SDK, the MCP SDK, the local model: about a
    second a lesson if each child imported them anew). The last step freezes the garbage
    collector (see :func:`_freeze`)."""
    from course_lib.checks.core import import_lesson, lesson_modules

    names = lesson_modules() if lessons is None else sorted(set(lessons) & set(lesson_modules()))
    steps: list[Callable[[], object]] = [functools.partial(import_lesson, name) for name in names]
    steps.append(functools.partial(_import_deferred, names))
    steps.append(_freeze)
    return steps


def _import_deferred(lessons: list[str]) -> None:
    for name in deferred_imports_of_checks(lessons):
        _import_if_module(name)


def warm_imports(check_modules: list[str]) -> None:
    """Everything at once: the base imports and every warm step."""
    base_imports(check_modules)
    for step in warm_steps():
        step()


class Warming:
    """The warm steps still to take. A job names the lessons whose checks its child will use
    (``lessons``; none named: every lesson): the server warms up for those, so a class run of
    one lesson never imports the other lessons' checks, and a class of every lesson imports
    them all, as each lesson's first job comes."""

    def __init__(self) -> None:
        self.steps: list[Callable[[], object]] = []
        self.planned: set[str] = set()
        self.everything = False

    def plan(self, lessons: Iterable[str] | None) -> None:
        if self.everything:
            return
        if lessons is None:
            from course_lib.checks.core import lesson_modules

            self.everything = True
            lessons = lesson_modules()
        new = sorted(set(lessons) - self.planned)
        if not new:
            return
        self.planned.update(new)
        if self.steps and self.steps[-1] is _freeze:
            self.steps.pop()  # one freeze, after the last step
        self.steps.extend(warm_steps(new))

    def __bool__(self) -> bool:
        return bool(self.steps)


def _take_step(steps: list[Callable[[], object]]) -> None:
    """Take the next warm step. One that fails is not the server's end: a child that needs
    what it would have imported imports it itself, and reports what goes wrong there."""
    with contextlib.suppress(Exception):
        steps.pop(0)()


def _import_if_module(name: str) -> None:
    with contextlib.suppress(ImportError):  # a name that is not a module is not imported
        importlib.import_module(name)


def _freeze() -> None:
    """Every child would otherwise walk (and so copy, page by page) all that the imports made,
    at its first full garbage collection: those objects live as long as the server anyway."""
    gc.collect()
    gc.freeze()


def deferred_imports_of_checks(lessons: Iterable[str] | None = None) -> list[str]:
    """The modules the course's check modules import inside functions (deferred so that a
    learner's ``check()`` loads only what its own exercise needs), read from their source: of
    the shared modules and of ``lessons``' packages (``None``: every lesson's)."""
    import ast

    import course_lib.checks as package

    top = Path(package.__path__[0])
    paths = sorted(top.glob("*.py"))
    for folder in sorted(path for path in top.iterdir() if path.is_dir()):
        if lessons is None or folder.name in lessons:
            paths += sorted(folder.rglob("*.py"))
    names: set[str] = set()
    for path in paths:
        tree = syntax_tree.parse(path.read_text(encoding="utf-8"))
        # Only a function's body waits for a call: every other statement (a ``with`` or ``if``
        # at the top, a class body) runs with the module's import.
        functions = (
            n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        )
        for function in functions:
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    names.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names.add(node.module)  # and any submodule it names, if it is one:
                    names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return sorted(names)


# --- the server ---------------------------------------------------------------------------------


@dataclass
class Child:
    job: str
    pid: int
    read_fd: int
    deadline: float
    chunks: list[bytes] = field(default_factory=list)
    eof: bool = False
    timed_out: bool = False


def serve(check_modules: list[str]) -> None:
    """Read job lines on stdin, fork a child per job, write one reply line per finished child;
    end (killing what still runs) when stdin closes."""
    # Replies go to a copy of stdout; stdout itself goes to stderr, so nothing a module prints
    # while it is imported (or a child prints before its own redirection) mixes with them.
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    start_kernel_zygote()
    base_imports(check_modules)
    # The rest of the warm-up happens while the first children run: the first job does not
    # wait for it (its child imports what it needs itself), and the next ones find it done.
    warming = Warming()
    requests = os.fdopen(sys.stdin.fileno(), "rb", buffering=0, closefd=False)
    os.set_blocking(requests.fileno(), False)
    replies.write(READY + "\n")
    replies.flush()
    selector = selectors.DefaultSelector()
    selector.register(requests.fileno(), selectors.EVENT_READ, None)
    children: dict[int, Child] = {}  # by process id (a closed pipe's number is reused)
    pending = b""
    open_requests = True
    while open_requests or children:
        timeout = 0 if warming and children else _next_timeout(children)
        for key, _ in selector.select(timeout):
            if key.data is None:
                data = _read_some(requests.fileno())
                if data is None:
                    continue
                if not data:
                    open_requests = False
                    selector.unregister(requests.fileno())
                    _kill_all(children)
                    continue
                pending += data
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    job = json.loads(line)
                    warming.plan(job.get("lessons"))
                    while job.get("warm") and warming:  # the job asks for a warm parent
                        _take_step(warming.steps)
                    child = _start(job, replies, selector)
                    children[child.pid] = child
            else:
                _collect(key.data, selector)
        if warming and children and not pending:  # while a child runs: never before a job
            _take_step(warming.steps)
        now = time.monotonic()
        for child in list(children.values()):
            if not child.timed_out and now >= child.deadline:
                child.timed_out = True
                _kill_group(child.pid)
            # A child that was killed is reaped even if something it started still holds its
            # pipe open (nothing should: kernels do not inherit it).
            abandoned = child.timed_out and now >= child.deadline + KILL_GRACE_SECONDS
            if (child.eof or abandoned) and _reap(child, replies):
                if not child.eof:
                    selector.unregister(child.read_fd)
                    os.close(child.read_fd)
                del children[child.pid]
    kernel_zygote.stop()


def _next_timeout(children: dict[int, Child]) -> float | None:
    if not children:
        return None
    if any(child.eof or child.timed_out for child in children.values()):
        return 0.05  # waiting for a child that closed its pipe (or was killed) to exit
    return max(0.0, min(child.deadline for child in children.values()) - time.monotonic())


def _read_some(fd: int) -> bytes | None:
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None


def _start(job: dict[str, Any], replies: Any, selector: selectors.BaseSelector) -> Child:
    read_fd, write_fd = os.pipe()
    replies.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _run_child(job, write_fd)
    os.close(write_fd)
    os.set_blocking(read_fd, False)
    child = Child(job["id"], pid, read_fd, time.monotonic() + float(job["budget"]))
    selector.register(read_fd, selectors.EVENT_READ, child)
    return child


def _run_child(job: dict[str, Any], results_fd: int) -> None:
    """Run pytest for one job in this fresh process, and end it without running anything of
    the server's (``os._exit``)."""
    code = 70
    try:
        os.setsid()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        log = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        _close_other_fds(results_fd, kernel_zygote.control_fd())
        os.environ.clear()  # the environment of this submission, as a fresh process would get
        os.environ.update(job["env"])
        os.chdir(job["cwd"])
        if job.get("analysis"):  # a submission's sources to read (``analysis``), not pytest
            from course_lib.grading.analysis import run_job

            code = run_job(job["analysis"], results_fd)
        else:
            import pytest

            code = int(pytest.main([*job["args"], f"--grading-results-fd={results_fd}"]))
    except BaseException:  # noqa: BLE001 (anything at all: the child reports and ends)
        with contextlib.suppress(Exception):
            import traceback

            traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _close_other_fds(*keep: int | None) -> None:
    """Close every descriptor but 0-2 and ``keep``: the server's request and reply pipes and
    the other children's result pipes are not this child's business."""
    top = os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536
    low = 3
    for fd in sorted(fd for fd in keep if fd is not None and fd >= 3):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, max(low, top))


def start_kernel_zygote() -> None:
    """The kernel zygote (``kernel_zygote``) every child's kernels are forked from, started
    with a kernel's own environment: it boots while this server imports."""
    from course_lib.grading.isolation import kernel_environment

    neutral = os.path.realpath(os.sep)
    kernel_zygote.start(kernel_environment(dict(os.environ), home=neutral, runtime=neutral))


def _collect(child: Child, selector: selectors.BaseSelector) -> None:
    data = _read_some(child.read_fd)
    if data is None:
        return
    if data:
        child.chunks.append(data)
        return
    child.eof = True
    selector.unregister(child.read_fd)
    os.close(child.read_fd)


def _reap(child: Child, replies: Any) -> bool:
    """Reply for ``child`` if it has exited (after its pipe closed); False if not yet.

    Whatever the child left in its session is killed while the child is still a zombie, so its
    process id cannot have been reused by anyone else yet."""
    if hasattr(os, "waitid"):
        try:
            exited = os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # already reaped: nothing left to kill by its id
            exited = None
        else:
            if exited is None:
                return False
            _kill_group(child.pid)
    try:
        pid, status = os.waitpid(child.pid, os.WNOHANG)
    except ChildProcessError:
        pid, status = child.pid, 0
    if pid == 0:
        return False
    reply = {
        "id": child.job,
        "exit": os.waitstatus_to_exitcode(status),
        "timed_out": child.timed_out,
        "results": b"".join(child.chunks).decode("utf-8", "replace"),
    }
    replies.write(json.dumps(reply) + "\n")
    replies.flush()
    return True


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _kill_all(children: dict[int, Child]) -> None:
    for child in children.values():
        child.timed_out = True
        _kill_group(child.pid)


# --- the grader's side --------------------------------------------------------------------------


class ServerGone(RuntimeError):
    """The fork server ended or could not start; the message says how."""


class ForkServer:
    """A running server, shared by threads: ``run(job)`` blocks until that job's reply."""

    def __init__(self, check_modules: tuple[str, ...], env: dict[str, str]) -> None:
        self.check_modules = check_modules
        self.env = env
        self.lock = threading.Lock()
        self.process: subprocess.Popen | None = None
        # Each waiting job's queue, and the server process it was sent to.
        self.waiting: dict[str, tuple[Queue, subprocess.Popen]] = {}
        self.counter = 0

    def _ensure_started(self) -> subprocess.Popen:
        if self.process is not None and self.process.poll() is None:
            return self.process
        command = [sys.executable, "-m", "course_lib.grading.fork_server", *self.check_modules]
        process = subprocess.Popen(
            command, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        ready = process.stdout.readline().decode("utf-8", "replace").strip()
        if ready != READY:
            process.kill()
            process.wait()
            raise ServerGone(f"the fork server did not start (it said {ready[:200]!r})")
        self.process = process
        threading.Thread(target=self._read_replies, args=(process,), daemon=True).start()
        return process

    def _read_replies(self, process: subprocess.Popen) -> None:
        for line in process.stdout:
            try:
                reply = json.loads(line)
            except ValueError:
                continue
            with self.lock:
                waiting = self.waiting.pop(str(reply.get("id")), None)
            if waiting is not None:
                waiting[0].put(reply)
        # This server ended: nobody will answer the jobs sent to it (a job already sent to the
        # server started after it is not this reader's to fail).
        with self.lock:
            gone = [job for job, (_, sent_to) in self.waiting.items() if sent_to is process]
            queues = [self.waiting.pop(job)[0] for job in gone]
        for queue in queues:
            queue.put(None)

    def run(
        self,
        args: list[str],
        cwd: str,
        log: str,
        budget: float,
        env: dict[str, str] | None = None,
        *,
        warm: bool = False,
        analysis: str | None = None,
        lessons: list[str] | None = None,
    ) -> dict[str, Any]:
        """Run one pytest child in ``cwd`` with ``env`` (default: the server's); its reply
        (``exit``, ``timed_out``, ``results``). With ``warm``, the child is forked only once
        the server has taken every warm step (otherwise it may come sooner, less warm). With
        ``analysis`` (a job file of ``analysis``), the child reads a submission instead.
        ``lessons``: the check packages the job's notebook uses (``"lesson04"``), which the
        server warms up for (``None``: every lesson's)."""
        queue: Queue = Queue()
        with self.lock:
            process = self._ensure_started()
            self.counter += 1
            job = str(self.counter)
            self.waiting[job] = (queue, process)
            line = {"id": job, "args": args, "cwd": cwd, "log": log, "budget": budget}
            line["warm"] = warm
            line["analysis"] = analysis
            line["lessons"] = lessons
            line["env"] = dict(self.env if env is None else env)
            try:
                process.stdin.write((json.dumps(line) + "\n").encode("utf-8"))
                process.stdin.flush()
            except OSError as exc:
                self.waiting.pop(job, None)
                raise ServerGone(f"the fork server stopped taking work ({exc})") from None
        try:
            reply = queue.get(timeout=budget + GRACE_SECONDS)
        except Empty:
            raise ServerGone("the fork server did not answer in time") from None
        if reply is None:
            raise ServerGone("the fork server ended while this notebook was graded")
        return reply

    def stop(self) -> None:
        with self.lock:
            process, self.process = self.process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


if __name__ == "__main__":
    serve(sys.argv[1:])
