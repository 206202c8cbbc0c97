"""Start an IPython kernel kept apart (see ``isolation``) and inside the grading limits.

    python -s -c LAUNCH --memory-mb N --workdir DIR --runtime DIR [--confine]
                        [--no-namespaces] [--uid UID] [--without MEASURE,...]
                        [--parent-pid PID] -- -f CONNECTION_FILE

Two processes: this launcher, which the grader's ``KernelManager`` watches, and the kernel it
forks, which is the init of new namespaces where Linux allows it. The kernel sets its limits
(mount namespace with its own ``/proc``, resource limits, no capabilities, Landlock) before
IPython loads, so every learner cell and every process it starts inherits them; it reports what
it got (the isolation record) through a pipe, and the launcher writes the record where the
grader reads it (the kernel itself cannot write there) before the kernel goes on. Then the
launcher waits: when the kernel ends, everything it started ends (its PID namespace, or the
launcher kills what it reaped as subreaper), and the launcher exits the way the kernel did
(exit code, or the same signal), so the grader can say why it died. SIGTERM (also sent when
the grader's process ends) ends the kernel the same way; interrupts go to the whole process
group and reach the kernel directly. History is switched off: parallel kernels would all write
to one SQLite file.

With ``--uid`` (the grader runs as root and made the kernel's folders that id's), the user
namespace maps that unprivileged id instead of root, and the kernel switches to it once its
mounts are made (the folders above what it needs that such an id may not pass through, such as
``/root``, are covered and what it needs bound back). ``--without`` takes protections away
(``isolation.MEASURES``), for the tests that show what each one stops.

Where the grader has a kernel zygote (``kernel_zygote``, Linux), the launcher is not started
with ``exec`` but forked by the zygote, which has already imported IPython's kernel: ``main``
then gets a lifeline socket instead of a parent that is the grader (the kernel ends when the
grader's end closes) and the zygote reports the exit status; everything else is the same.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import select
import signal
import sys
from pathlib import Path

from course_lib.grading import isolation, namespaces, syscall_filter
from course_lib.grading.sandbox import (
    MAX_PROCESSES,
    confine,
    landlock_abi,
    limit_resources,
    not_confined,
)

# How the grader starts this module: ``-s`` keeps user site-packages (which a notebook could
# fill in its HOME) out, and the working directory (the notebook's, where an earlier kernel may
# have written a ``json.py``) leaves ``sys.path`` before anything is imported.
LAUNCH = (
    "import sys\n"
    "if sys.path[:1] == ['']:\n    del sys.path[0]\n"
    "from course_lib.grading.kernel_launcher import main\n"
    "main(sys.argv[1:])\n"
)


def main(
    argv: list[str], lifeline: int | None = None, set_by_imports: dict[str, str] | None = None
) -> None:
    """For a launcher the kernel zygote forked: ``lifeline``, a socket whose other end the
    grader holds (this launcher's parent is not the grader): when it closes, the kernel ends;
    ``set_by_imports``, what the zygote's imports of IPython's kernel put in the environment,
    which a kernel that imported them itself would have (unless already set)."""
    args = _parse(argv)
    if lifeline is not None:
        os.set_inheritable(lifeline, False)  # kept: close_inherited_fds closes the rest
    namespaces.close_inherited_fds()
    # The parent is the grader, unless the zygote forked this launcher: then the lifeline
    # stands for the grader, and the kernel does not end with the zygote.
    if lifeline is None:
        namespaces.die_with_parent(signal.SIGTERM)
        if args.parent_pid and os.getppid() != args.parent_pid:
            raise SystemExit("the grader that started this kernel has already ended")
    allowed = isolation.allowed_environment(dict(os.environ))
    os.environ.clear()
    os.environ.update(allowed)
    kernel_args = [arg for arg in args.kernel_args if arg != "--"]
    connection = _connection(kernel_args)
    channels = str(connection.get("transport", "tcp"))
    uid = args.uid if args.uid and "uid" not in args.without else None
    if uid is not None and not isolation.readable_by_anyone(isolation.readable_roots()):
        uid = None  # a Python only its owner may read: the kernel stays the grader's user
    if uid is not None:  # written by the grader (its own, mode 0600): the kernel must read it
        os.chown(_connection_file(kernel_args), uid, uid)
    spaces = namespaces.enter_namespaces(
        network=channels == "ipc", wanted=not args.no_namespaces, uid=uid
    )
    subreaper = not spaces["pid_namespace"] and namespaces.become_subreaper()
    record_read, record_write = os.pipe()
    go_read, go_write = os.pipe()
    kernel = os.fork()
    if kernel == 0:
        os.close(record_read)
        os.close(go_write)
        if lifeline is not None:
            os.close(lifeline)
        for key, value in (set_by_imports or {}).items():
            os.environ.setdefault(key, value)
        _run_kernel(args, kernel_args, spaces, connection, record_write, go_read)
        raise SystemExit(0)
    os.close(record_write)
    os.close(go_read)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the kernel gets the process group's own
    signal.signal(signal.SIGTERM, lambda *_: _kill(kernel))
    cleanup = "pid_namespace" if spaces["pid_namespace"] else "subreaper" if subreaper else ""
    facts = {"channels": channels, "process_cleanup": cleanup or "process_group", **spaces}
    del facts["own_uid"]  # the kernel says whether it switched
    facts["channels_encrypted"] = bool(connection.get("curve_secretkey"))
    _publish_record(Path(args.runtime), record_read, go_write, facts)
    status = _wait_for(kernel) if lifeline is None else _wait_watching(kernel, lifeline)
    if subreaper:
        namespaces.kill_descendants()
    _exit_like(status)


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kernel_launcher")
    parser.add_argument("--memory-mb", type=int, required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--runtime", required=True)
    parser.add_argument("--confine", action="store_true")
    parser.add_argument("--no-namespaces", action="store_true")
    parser.add_argument("--hide-reference", action="store_true")
    parser.add_argument("--parent-pid", type=int, default=0)
    parser.add_argument("--uid", type=int, default=0)
    parser.add_argument("--without", type=lambda text: set(text.split(",")) - {""}, default=set())
    parser.add_argument("kernel_args", nargs=argparse.REMAINDER)
    return parser.parse_args(argv)


def _connection(kernel_args: list[str]) -> dict:
    """The connection file ipykernel is given (``-f PATH``): its transport and ports."""
    path = _connection_file(kernel_args)
    return json.loads(Path(path).read_text(encoding="utf-8")) if path else {}


def _connection_file(kernel_args: list[str]) -> str:
    for flag, value in zip(kernel_args, kernel_args[1:], strict=False):
        if flag == "-f":
            return value
    return ""


def _run_kernel(
    args: argparse.Namespace,
    kernel_args: list[str],
    spaces: dict[str, bool],
    connection: dict,
    record_write: int,
    go_read: int,
) -> None:
    """In the forked kernel: limits, then report them, wait for the go, then IPython."""
    namespaces.die_with_parent(signal.SIGKILL)
    record = _private_mounts(args, spaces) if spaces["pid_namespace"] else {}
    record.setdefault("private_mounts", False)
    record.setdefault("private_proc", False)
    record.setdefault("own_uid", False)
    # RLIMIT_NPROC counts per user id and user namespace: only in a namespace of its own does
    # it count the kernel's processes alone (never the grader's or another kernel's).
    processes = MAX_PROCESSES if spaces["user_namespace"] else 0
    limit_resources(args.memory_mb, processes)
    record["max_processes"] = processes
    record["no_capabilities"] = namespaces.drop_capabilities()
    if args.confine:
        ports = [int(connection[key]) for key in connection if key.endswith("_port")]
        grants = isolation.grants(
            args.workdir,
            args.runtime,
            tcp_ports=ports if connection.get("transport") == "tcp" else [],
            hide_reference=args.hide_reference,
        )
        record.update(confine(grants))
    else:
        record.update(not_confined(landlock_abi()))
    record["checks_hidden"] = bool(record["landlock_filesystem"])
    record["watch_blocked"] = "seccomp" not in args.without and syscall_filter.block_fs_watch()
    if args.hide_reference:
        record["reference_hidden"] = bool(record["landlock_filesystem"])
    os.write(record_write, json.dumps(record).encode("utf-8"))
    os.close(record_write)
    go = os.read(go_read, 1)
    os.close(go_read)
    if go != b"1":  # the launcher is gone: so is the grader that wanted this kernel
        os._exit(1)
    from ipykernel import kernelapp

    # The grader wrote the connection file with every port and key, and the kernel may not
    # write in its runtime folder; ipykernel 7.4 would write it again whenever it holds
    # CurveZMQ keys (it compares its keys, bytes, with the file's text), and fail.
    kernelapp.IPKernelApp.write_connection_file = lambda self: None
    sys.argv = [sys.argv[0], *kernel_args, "--HistoryManager.enabled=False"]
    kernelapp.launch_new_instance()


def _private_mounts(args: argparse.Namespace, spaces: dict[str, bool]) -> dict[str, object]:
    """A mount namespace where the shared folders are empty (but for what the kernel needs)
    and ``/proc`` is our own; with an id of its own mapped, the switch to it, and the folders
    it could not pass through covered too (what it needs bound back)."""
    if not namespaces.enter_mount_namespace():
        return {}
    workdir, runtime = os.path.realpath(args.workdir), os.path.realpath(args.runtime)
    needed = [os.path.realpath(path) for path in isolation.readable_roots()] + [workdir, runtime]
    hide = "mounts" not in args.without
    folders = isolation.folders_to_hide(workdir, runtime, parts=args.confine) if hide else []
    folders = [os.path.realpath(path) for path in folders if os.path.isdir(path)]
    blocking = isolation.untraversable(needed) if spaces["own_uid"] else []
    handles = namespaces.open_paths(needed)
    try:
        # The new user namespace maps only that id: the tmpfs folders made next must be its.
        own = spaces["own_uid"] and namespaces.become(args.uid)
        covered = namespaces.cover_folders([*folders, *blocking], keep=handles)
        for part in isolation.hidden_parts():
            if os.path.realpath(part) in covered:
                isolation.mark_unimportable(os.path.realpath(part))
    finally:
        for handle in handles.values():
            os.close(handle)

    def is_covered(folder: str) -> bool:
        return any(namespaces.beneath(folder, done) for done in covered)

    if own and not all(is_covered(folder) for folder in blocking):
        # Its own Python is out of its reach: it could not even start; say why and stop.
        raise SystemExit(f"the kernel's user id cannot reach its Python: {blocking}")
    return {
        "private_mounts": hide and all(is_covered(folder) for folder in folders),
        "private_proc": namespaces.mount_private_proc(),
        "own_uid": bool(own),
    }


def _publish_record(runtime: Path, record_read: int, go_write: int, facts: dict) -> None:
    """What the kernel reported, with what the launcher knows, written where the grader reads
    it (the kernel can only make sockets in the runtime folder); then the go."""
    with os.fdopen(record_read, "rb") as pipe:
        text = pipe.read()
    try:
        record = json.loads(text or b"{}")
    except ValueError:
        record = {}
    record = {**(record if isinstance(record, dict) else {}), **facts}
    record.update(platform=sys.platform, environment="allowlist")
    partial = runtime / f"{isolation.RECORD_FILE}.partial"
    partial.write_text(json.dumps(record, sort_keys=True), encoding="utf-8")
    partial.replace(runtime / isolation.RECORD_FILE)
    try:
        os.write(go_write, b"1")
        os.close(go_write)
    except OSError:
        pass  # the kernel is already gone; its exit status says why


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _wait_for(kernel: int) -> int:
    """The kernel's wait status; as subreaper, orphans are reaped on the way."""
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == kernel:
            return status


def _wait_watching(kernel: int, lifeline: int) -> int:
    """``_wait_for``, and the kernel is killed when the grader's end of ``lifeline`` closes.
    (No thread: after entering a new PID namespace this process cannot start one.)"""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    poller = select.poll()
    poller.register(lifeline, select.POLLIN)
    poller.register(wake_read, select.POLLIN)
    while True:
        while True:  # reap what has ended; as subreaper, orphans too
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return 0
            if pid == kernel:
                return status
            if pid == 0:
                break
        for fd, _ in poller.poll():
            if fd == wake_read:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_read, 4096)
                continue
            try:  # the grader sends nothing after its request: data here is only skipped
                ended = not os.read(lifeline, 4096)
            except OSError:
                ended = True
            if ended:
                poller.unregister(lifeline)
                _kill(kernel)


def _exit_like(status: int) -> None:
    """End this process the way the kernel ended: the same exit code, or the same signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        with contextlib.suppress(OSError, ValueError):  # SIGKILL's action cannot be changed
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


if __name__ == "__main__":
    main(sys.argv[1:])
