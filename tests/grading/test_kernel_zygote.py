"""The kernel zygote: grading kernels forked (through a launcher each) from a clean process that
has already imported IPython's kernel, instead of started with ``exec``.

What must hold: a kernel started this way is kept apart exactly as an exec'd one (the same
isolation record, its own environment, nothing of the grader's in it); the grader sees its
launcher as it would see a child (exit codes and signals, interrupts, a process id that is not
reused while the grader holds it); the kernel ends when the grader does; and where the zygote
is gone the kernel is started the ordinary way.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from attacks.machine import children_of, eventually, interrupt_running_cell, process_state

from course_lib.grading import kernel_zygote
from course_lib.grading.isolation import kernel_environment
from course_lib.grading.kernel import GuardedKernel, KernelDied

pytestmark = pytest.mark.skipif(not kernel_zygote.wanted(), reason="the zygote is Linux-only")

SECRET = "COURSE_TEST_GRADER_SECRET"


@contextlib.contextmanager
def running_zygote(patch: pytest.MonkeyPatch):
    """A zygote started while the grader's environment holds a secret (which stays there while
    it runs); stopped, and the grader's side left without one, at the end."""
    patch.setenv(SECRET, "sk-the-graders-own-key")
    kernel_zygote.start(kernel_environment(dict(os.environ), home="/", runtime="/"))
    assert kernel_zygote.available()
    yield kernel_zygote._process
    kernel_zygote.stop()
    assert not kernel_zygote.available()


@pytest.fixture(scope="module")
def shared_zygote():
    """One zygote for the tests that only use it (each test asserts that it is still serving:
    see ``zygote``), started while the grader's environment holds a secret, which stays there
    while the tests run."""
    with pytest.MonkeyPatch.context() as patch, running_zygote(patch) as process:
        yield process


@pytest.fixture
def zygote(shared_zygote):
    """The shared zygote, still running and the one kernels are forked from."""
    assert shared_zygote.poll() is None
    assert kernel_zygote.available() and kernel_zygote._process is shared_zygote
    yield shared_zygote
    assert kernel_zygote._process is shared_zygote


@pytest.fixture
def own_zygote(monkeypatch):
    """A zygote for this test alone (it kills or stops it), started while the grader's
    environment holds a secret; the shared one, if any, is set aside meanwhile."""
    set_aside(monkeypatch)
    with running_zygote(monkeypatch) as process:
        yield process


@pytest.fixture
def no_zygote(monkeypatch):
    """No zygote for this test's kernels: the grader's side holds none (as after ``stop``),
    while the shared one, if any, is set aside."""
    set_aside(monkeypatch)


def set_aside(monkeypatch) -> None:
    """The grader's side holds no zygote until the test ends (as after ``stop``); one it held
    goes on running, and is the grader's again afterwards."""
    monkeypatch.setattr(kernel_zygote, "_control", None)
    monkeypatch.setattr(kernel_zygote, "_process", None)
    assert not kernel_zygote.available()


def start_kernel(tmp_path: Path, name: str = "w", **options) -> GuardedKernel:
    """A grading kernel, started from the main thread (which outlives it, as a started kernel
    needs: see ``GuardedKernel``)."""
    workdir = tmp_path / name
    workdir.mkdir()
    return GuardedKernel(str(workdir), memory_mb=2048, output_cap=100_000, **options)


def launcher_of(kernel: GuardedKernel):
    return kernel.km.provisioner.process


def gone(pid: int, within: float = 60) -> bool:
    """``pid`` no longer exists (not even as a zombie), waiting at most ``within`` seconds."""
    return eventually(lambda: not process_state(pid), within)


SURROUNDINGS = (
    "(sorted(__import__('os').environ), tuple(__import__('sys').flags), __import__('sys').path,"
    " __import__('os').getcwd(), __import__('sys').argv[0], __import__('os').umask(0o22))"
)


def test_a_kernel_forked_by_the_zygote_is_kept_apart_as_an_execd_one(zygote, tmp_path, monkeypatch):
    """The same isolation record, and the same surroundings for the learner's code (the
    environment's names, interpreter flags, import path, working folder, umask)."""
    seen = {}
    for how in ("forked", "execd"):
        if how == "execd":
            set_aside(monkeypatch)
        kernel = start_kernel(tmp_path, how)
        try:
            expected = kernel_zygote.LauncherProcess if how == "forked" else subprocess.Popen
            assert isinstance(launcher_of(kernel), expected)
            assert kernel.evaluate("6 * 7") == 42
            text = repr((kernel.isolation, kernel.evaluate(SURROUNDINGS)))
            seen[how] = text.replace(str(tmp_path / how), "WORKDIR")
        finally:
            kernel.stop()
    assert seen["forked"] == seen["execd"]
    assert "'environment': 'allowlist'" in seen["forked"]


GRADER_SIDE = (
    "course_lib.checks",
    "course_lib.grading.plugin",
    "course_lib.reference",
    "pytest",
    "nbformat",
)


def test_the_kernel_has_its_own_environment_and_nothing_of_the_graders(zygote, tmp_path):
    kernel = start_kernel(tmp_path)
    try:
        environ = kernel.evaluate("dict(__import__('os').environ)")
        raw = kernel.evaluate("open('/proc/self/environ', 'rb').read().decode('utf-8', 'replace')")
        # the grader's side, as the kernel's sys.modules holds it (all its names would pass the
        # size cap on what a kernel sends back: the zygote imports the openai SDK)
        held = kernel.evaluate(
            f"[m for m in __import__('sys').modules if m.startswith({GRADER_SIDE!r})]"
        )
        home = kernel.evaluate("__import__('os').path.expanduser('~')")
    finally:
        kernel.stop()
    assert SECRET not in environ and SECRET not in raw
    assert home == str(tmp_path / "w" / ".home")
    assert held == []
    zygote_environ = Path(f"/proc/{zygote.pid}/environ").read_bytes()
    assert SECRET.encode() not in zygote_environ


def kernel_pid(kernel: GuardedKernel) -> int:
    """The kernel's own process id (outside its PID namespace): its launcher's child."""
    [pid] = children_of(launcher_of(kernel).pid)
    return pid


EXITS = (
    ("import os; os._exit(3)", "exit code 3"),
    ("import ctypes; ctypes.string_at(0)", "killed by signal SIGSEGV"),
    ("raise SystemExit(5)", None),  # IPython catches it: the kernel lives on
    ("exit()", "exit code 0"),  # the kernel's own way out: it ends cleanly
    (None, "killed by signal SIGKILL"),
)


@pytest.mark.parametrize("how", ["forked", "execd"])
def test_exit_codes_and_signals_are_reported_as_for_a_child(how, request, tmp_path):
    """(The kernel is the init of its PID namespace: a signal it sends itself is ignored, so
    the signals here are a real fault and a kill from outside.) A kernel that lives on serves
    the next case."""
    request.getfixturevalue("zygote" if how == "forked" else "no_zygote")
    kernel = None
    try:
        for number, (code, said) in enumerate(EXITS):
            if kernel is None:
                kernel = start_kernel(tmp_path, f"k{number}")
                expected = kernel_zygote.LauncherProcess if how == "forked" else subprocess.Popen
                assert isinstance(launcher_of(kernel), expected)
            if code is None:
                os.kill(kernel_pid(kernel), 9)
            else:
                kernel.kc.execute(code)
            if said is None:
                assert kernel.evaluate("'alive'", timeout=60) == "alive"
                continue
            with pytest.raises(KernelDied, match=said):
                for _ in range(100):
                    kernel.evaluate("'still here?'", timeout=60)
            kernel.stop()
            kernel = None
    finally:
        if kernel is not None:
            kernel.stop()


def test_an_interrupt_reaches_the_kernel(zygote, tmp_path):
    kernel = start_kernel(tmp_path)
    try:
        reply = interrupt_running_cell(kernel, 60)
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        assert kernel.evaluate("1 + 1") == 2
    finally:
        kernel.stop()


def test_an_ended_launcher_keeps_its_id_until_the_grader_has_its_status(zygote, tmp_path):
    """As with a child of the grader's own: until the grader has read how the launcher ended,
    its process id stays taken (a zombie), so a late signal from the grader reaches nobody
    else; once read, the zygote reaps it."""
    kernel = start_kernel(tmp_path, "a")
    launcher = launcher_of(kernel)
    try:
        kernel.kc.execute("import os; os._exit(4)")
        eventually(lambda: process_state(launcher.pid) == "Z")
        other = start_kernel(tmp_path, "b")  # the zygote has gone round its loop since
        try:
            assert process_state(launcher.pid) == "Z"
        finally:
            other.stop()
        assert launcher.poll() == 4
        assert gone(launcher.pid)
    finally:
        kernel.stop()


def test_the_kernel_ends_when_the_grader_that_asked_for_it_ends(zygote, tmp_path):
    """A grader process killed outright (no cleanup at all): its kernel's lifeline closes, and
    the launcher ends the kernel; the zygote, and the grader's other kernels, go on."""
    script = tmp_path / "grader.py"
    script.write_text(
        "import os, socket, sys, threading, time\n"
        "from course_lib.grading import kernel_zygote\n"
        "from course_lib.grading.kernel import GuardedKernel\n"
        "kernel_zygote._control = socket.socket(fileno=int(sys.argv[1]))\n"
        "os.makedirs(sys.argv[2])\n"
        "box = {}\n"
        "def start():\n"
        "    box['k'] = GuardedKernel(sys.argv[2], memory_mb=2048, output_cap=1000)\n"
        "    print(box['k'].km.provisioner.process.pid, flush=True)\n"
        "    time.sleep(600)\n"
        "threading.Thread(target=start).start()\n",
        encoding="utf-8",
    )
    control = kernel_zygote.control_fd()
    grader = subprocess.Popen(
        [sys.executable, str(script), str(control), str(tmp_path / "w")],
        stdout=subprocess.PIPE, text=True, pass_fds=(control,),
    )  # fmt: skip
    try:
        launcher = int(grader.stdout.readline())
        assert not gone(launcher, 0)
    finally:
        grader.kill()
        grader.wait()
    assert gone(launcher)
    assert zygote.poll() is None
    kernel = start_kernel(tmp_path, "after")
    try:
        assert kernel.evaluate("'still serving'") == "still serving"
    finally:
        kernel.stop()


def test_a_running_kernel_outlives_the_zygote(own_zygote, tmp_path):
    """Where a kernel could signal the zygote (no PID namespace, no Landlock scoping), killing it
    must not take the other submissions' running kernels with it: they go on, and their end is
    still noticed; new kernels start the ordinary way."""
    kernel = start_kernel(tmp_path, "running")
    try:
        own_zygote.kill()
        own_zygote.wait()
        assert kernel.evaluate("'goes on'", timeout=60) == "goes on"
        kernel.kc.execute("import os; os._exit(6)")
        with pytest.raises(KernelDied):
            for _ in range(100):
                kernel.evaluate("'still here?'", timeout=60)
    finally:
        kernel.stop()
    later = start_kernel(tmp_path, "later")
    try:
        assert isinstance(launcher_of(later), subprocess.Popen)
    finally:
        later.stop()


def test_kernels_of_one_grader_are_separate_processes_with_separate_state(zygote, tmp_path):
    first, second = start_kernel(tmp_path, "a"), start_kernel(tmp_path, "b")
    try:
        first.evaluate("__import__('builtins').__dict__.setdefault('planted', 1)")
        assert second.evaluate("'planted' in __import__('builtins').__dict__") is False
        pids = {launcher_of(first).pid, launcher_of(second).pid}
        assert len(pids) == 2
        numbers = [k.evaluate("__import__('random').random()") for k in (first, second)]
        assert numbers[0] != numbers[1]  # forked children reseed: no shared random stream
    finally:
        first.stop()
        second.stop()


def test_where_the_zygote_is_gone_the_kernel_starts_the_ordinary_way(own_zygote, tmp_path):
    own_zygote.kill()
    own_zygote.wait()
    kernel = start_kernel(tmp_path)
    try:
        assert isinstance(launcher_of(kernel), subprocess.Popen)
        assert kernel.evaluate("'started anyway'") == "started anyway"
    finally:
        kernel.stop()


def test_the_zygote_forks_only_with_a_single_thread():
    assert kernel_zygote.single_threaded() is (threading.active_count() == 1)
    stop = threading.Event()
    extra = threading.Thread(target=stop.wait)
    extra.start()
    try:
        assert kernel_zygote.single_threaded() is False
    finally:
        stop.set()
        extra.join()


def test_the_zygote_itself_is_single_threaded_after_its_imports_and_loads_no_course_part(
    tmp_path,
):
    """Its imports: IPython's kernel and the openai SDK the lessons import first, and nothing
    of course_lib but the launcher and its messages (a confined kernel may not read the
    reference or the checks)."""
    code = (
        "import sys, threading\n"
        "from course_lib.grading import kernel_zygote\n"
        "kernel_zygote.preload()\n"
        "print(threading.active_count(), kernel_zygote.single_threaded())\n"
        "print('openai' in sys.modules, 'ipykernel.kernelapp' in sys.modules)\n"
        "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('course_lib.')}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-s", "-c", code], capture_output=True, text=True, check=True
    )  # no time limit: only the imports run, however long a busy machine takes
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["1", "True"]
    assert lines[1].split() == ["True", "True"]
    assert lines[2] == "['grading', 'i18n']", lines[2]  # the launcher and the words it says


def test_the_zygote_never_reads_a_request_itself(zygote, tmp_path):
    """The launcher's arguments, folder and environment reach only the forked launcher: the
    zygote's memory, which later kernels are forked from, holds none of them."""
    kernel = start_kernel(tmp_path, "marked-folder-7f3a")
    kernel.stop()
    maps = Path(f"/proc/{zygote.pid}/maps").read_text().splitlines()
    heap = [line for line in maps if line.split()[1].startswith("rw")]
    assert heap
    memory = bytearray()  # grown in place: adding to bytes copies it all each time
    with open(f"/proc/{zygote.pid}/mem", "rb") as handle:
        for line in heap:
            start, end = (int(part, 16) for part in line.split()[0].split("-"))
            try:
                handle.seek(start)
                memory += handle.read(end - start)
            except OSError:
                continue
    assert b"marked-folder-7f3a" not in memory


def test_a_request_it_cannot_serve_is_refused_without_stopping_it(zygote, tmp_path):
    """A socket whose other end sends garbage (or nothing) costs that launcher only."""
    import socket

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    socket.send_fds(kernel_zygote._control, [b"k"], [theirs.fileno()])
    theirs.close()
    ours.sendall(b"not json\n")
    first = json.loads(ours.makefile().readline())
    assert "pid" in first
    ours.close()
    assert gone(first["pid"])
    kernel = start_kernel(tmp_path)
    try:
        assert kernel.evaluate("2 ** 10") == 1024
    finally:
        kernel.stop()


def test_stopping_the_grader_side_ends_the_zygote(own_zygote):
    kernel_zygote.stop()
    assert own_zygote.poll() is not None


def test_interrupt_signal_goes_to_the_launchers_group(zygote, tmp_path):
    kernel = start_kernel(tmp_path)
    try:
        launcher = launcher_of(kernel)
        assert os.getpgid(launcher.pid) == launcher.pid  # a session and group of its own
        assert kernel.km.provisioner.pgid == launcher.pid
    finally:
        kernel.stop()
    assert gone(launcher.pid)
