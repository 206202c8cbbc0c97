"""Kernels kept apart: attacks on other submissions, the grader and the machine, each one a real
graded submission, all in one batch beside honest ones (and a classmate's kernel that is running
while they are graded). Each attack must fail, and the honest submissions must be graded exactly
as they are alone.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import uuid
from functools import partial
from pathlib import Path

import pytest
from grading_lesson import CHECK_MODULE, SOLUTIONS, submission
from jupyter_client.manager import start_new_kernel

from attacks.batch import OPTIONS as BATCH_OPTIONS
from attacks.batch import (
    assert_blocked,
    assert_rest_graded,
    attack,
    concurrently,
    grade,
    report,
    require,
)
from attacks.isolation_attacks import (
    FORGES_RESULTS,
    LEAVES_DAEMONS,
    OPENS_NETWORK,
    REACHES_KERNELS,
    READS_CLASSMATES,
    READS_COURSE,
    READS_ENVIRONMENT,
    SIGNALS_OTHERS,
    WRITES_OUTSIDE,
)
from attacks.machine import (
    Listener,
    children_of,
    eventually,
    host_processes,
    interrupt_running_cell,
    running,
)
from course_lib.grading import kernel_zygote
from course_lib.grading.isolation import allowed_environment, gaps, kernel_environment, weakest
from course_lib.grading.kernel import GuardedKernel, KernelDied
from course_lib.grading.runner import fork_server_for
from course_lib.grading.sandbox import readable_beneath

ROOT = Path(__file__).resolve().parents[3]
TOKEN = uuid.uuid4().hex[:12]
SECRETS = {
    "OPENAI_API_KEY": f"sk-test-{TOKEN}",
    "ANTHROPIC_API_KEY": f"sk-ant-{TOKEN}",
    "COURSE_GRADER_TOKEN": f"grader-{TOKEN}",
}


def constants(**values: object) -> str:
    return "".join(f"{name} = {value!r}\n" for name, value in values.items())


MODES = {"namespaces": True, "without-namespaces": False}


class Attacked:
    """One namespace mode's batch of attacks and what they aim at: a classmate's kernel (a
    grading kernel of that mode), a kernel started as Jupyter starts kernels (over TCP), and
    listeners on the grader's loopback. Each step records its failure instead of raising it, so
    the other mode goes on and a failure fails only the tests of its own mode."""

    def __init__(self, namespaces: bool, base: Path, canonical_dir: Path) -> None:
        self.namespaces, self.base, self.canonical_dir = namespaces, base, canonical_dir
        self.scratch = base / "scratch"
        self.victim_dir = self.scratch / "course-grade-classmate" / "notebook"
        self.victim = self.tcp_km = self.tcp_kc = self.listener = None
        self.error: BaseException | None = None
        # Names of its own: the other mode's attacks run at the same time, on the same machine
        own = uuid.uuid4().hex[:12]
        self.daemon, self.nohup = f"course-attack-daemon-{own}", f"course-attack-nohup-{own}"
        self.marker = f"attack-{own}"
        self.honest = submission(SOLUTIONS)
        self.notebooks: dict[str, object] = {}
        self.targets: dict[str, int] = {}
        self.graded: dict = {}
        self.alone: dict = {}
        self.world: dict = {}

    def step(self, action) -> None:
        if self.error is None:
            try:
                action()
            except BaseException as exc:  # given back to the tests of this mode (``world``)
                self.error = exc

    def start_victim(self) -> None:
        """The classmate: a grading kernel of this mode, started in a thread that outlives it
        (a kernel's launcher dies with the thread that started it: its parent-death signal
        follows the thread)."""
        self.victim_dir.mkdir(parents=True)
        self.victim = GuardedKernel(
            str(self.victim_dir), memory_mb=1500, output_cap=10_000, namespaces=self.namespaces
        )
        assert self.victim.run_quietly("VICTIM = 'untouched'", 60) == "ok"

    def start_tcp(self) -> None:
        self.tcp_km, self.tcp_kc = start_new_kernel(kernel_name="python3")  # as Jupyter does
        self.listener = Listener()

    def arm(self) -> None:
        """The attacks, aimed at what runs now (the kernel zygote too: the batch's kernels
        will be forked from it)."""
        launcher = self.victim.km.provisioner.process.pid
        self.targets = {  # short names: the report must fit what a check shows of a value
            "grader": os.getpid(),
            "classmate": children_of(launcher)[0],
            "TCP kernel": self.tcp_km.provisioner.process.pid,
            **kernel_zygote_of_the_batch(),
        }
        victim_info = self.victim.km.get_connection_info()
        common = constants(
            CLASSMATE=str(self.base / "subs" / "honest" / "90_test.ipynb"),
            SCRATCH_ROOT=str(self.scratch),
            VICTIM_CONNECTION=self.victim.km.connection_file,
            VICTIM_SHELL=f"{victim_info['ip']}-{victim_info['shell_port']}",
            VICTIM_MARKER=str(self.victim_dir / self.marker),
            JUPYTER_CONNECTION=self.tcp_km.connection_file,
            TCP_SHELL=self.tcp_km.get_connection_info()["shell_port"],
            REPO=str(ROOT),
            CHECK_MODULE=CHECK_MODULE,
            TCP_PORT=self.listener.port,
            UDP_PORT=self.listener.udp_port,
            DAEMON=self.daemon,
            NOHUP=self.nohup,
            SECRETS=SECRETS,
            GRADER_PID=os.getpid(),
            MARKER=self.marker,
            TARGET_PIDS=self.targets,
            WRITE_TARGETS=write_targets(self.base, self.victim_dir, self.marker),
        )
        self.notebooks = {
            "honest": self.honest,
            "reads_classmates": attack(common + READS_CLASSMATES),
            "reads_course": attack(common + READS_COURSE),
            "reaches_kernels": attack(common + REACHES_KERNELS),
            "opens_network": attack(common + OPENS_NETWORK),
            "leaves_daemons": attack(common + LEAVES_DAEMONS),
            "reads_environment": attack(common + READS_ENVIRONMENT),
            "writes_outside": attack(common + WRITES_OUTSIDE),
            "signals_others": attack(common + SIGNALS_OTHERS),
            "forges_results": attack(common + FORGES_RESULTS),
        }

    def grade_batch(self) -> None:
        self.graded = grade(
            self.base / "subs",
            self.canonical_dir,
            self.notebooks,
            scratch_root=str(self.scratch),
            namespaces=self.namespaces,
            accept_isolation_gap=not self.namespaces,
        )

    def grade_alone(self) -> None:
        self.alone = grade(
            self.base / "alone",
            self.canonical_dir,
            {"honest": self.honest},
            namespaces=self.namespaces,
            accept_isolation_gap=not self.namespaces,
        )

    def look(self) -> None:
        """The machine and the classmates after the gradings."""
        self.world = {
            "graded": self.graded,
            "alone": self.alone,
            "lingering": host_processes(self.daemon, self.nohup),
            "written": list(write_targets(self.base, self.victim_dir, self.marker).values()),
            "victim": self.victim.evaluate("VICTIM"),
            "victim_alive": self.victim.is_alive(),
            "tcp_victim": _evaluate(self.tcp_kc, "globals().get('VICTIM', 'untouched')"),
            "victim_marker": (self.victim_dir / self.marker).exists(),
            "hits": list(self.listener.hits),
            "targets": sorted(self.targets),
        }

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()
        if self.tcp_km is not None:
            self.tcp_kc.stop_channels()
            self.tcp_km.shutdown_kernel(now=True)
        if self.victim is not None:
            self.victim.stop()


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory, canonical_dir) -> dict[str, Attacked]:
    """Grade every attack in one batch, with a classmate's kernel running beside them; then
    look at the machine and at the classmate. For both modes at once: with the namespaces Linux
    allows here, and without them, as on a platform that has none (Landlock and a subreaper
    remain; the grader refuses such kernels unless told to accept the gap, as here:
    test_private_view.py). First, while the classmates and the TCP kernels start, each mode's
    honest notebook is graded alone (no attacker runs yet); then both batches are graded at
    once (``concurrently``) while the grader's environment holds the secrets; then the machine
    is looked at. Each mode's attacks aim only at their own mode's targets."""
    scenes = {
        name: Attacked(namespaces, tmp_path_factory.mktemp("isolation"), canonical_dir)
        for name, namespaces in MODES.items()
    }
    aside: dict[tuple[str, str], partial] = {}
    for name, scene in scenes.items():
        aside[name, "alone"] = partial(scene.step, scene.grade_alone)
        aside[name, "tcp"] = partial(scene.step, scene.start_tcp)
    try:
        kernel_zygote_of_the_batch()  # the grader's fork server starts in this thread
        starting = threading.Thread(target=concurrently, args=(aside,))
        starting.start()
        try:
            for scene in scenes.values():
                scene.step(scene.start_victim)  # here: see start_victim
        finally:
            starting.join()
        for scene in scenes.values():
            scene.step(scene.arm)
        with pytest.MonkeyPatch.context() as patch:
            for name, value in SECRETS.items():
                patch.setenv(name, value)
            concurrently(
                {name: partial(scene.step, scene.grade_batch) for name, scene in scenes.items()}
            )
        for scene in scenes.values():
            scene.step(scene.look)
    finally:
        with contextlib.ExitStack() as stack:  # every scene closed, whichever fails to
            for scene in scenes.values():
                stack.callback(scene.close)
    return scenes


@pytest.fixture(scope="module", params=list(MODES))
def world(request: pytest.FixtureRequest, worlds: dict[str, Attacked]) -> dict:
    scene = worlds[request.param]
    if scene.error is not None:
        raise scene.error
    return scene.world


def kernel_zygote_of_the_batch() -> dict[str, int]:
    """The kernel zygote the batch's kernels will be forked from (Linux): every later kernel
    comes from it, so reaching it would reach classmates graded after the attacker."""
    server = fork_server_for(BATCH_OPTIONS.check_modules)
    if server is None:
        return {}
    with server.lock:
        process = server._ensure_started()
    for pid in children_of(process.pid):
        with contextlib.suppress(OSError):
            if b"kernel_zygote" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return {"zygote": pid}
    return {}


def write_targets(base: Path, victim_dir: Path, marker: str) -> dict[str, str]:
    return {
        "/dev/shm": f"/dev/shm/{marker}",
        "/tmp": f"/tmp/{marker}",
        "the repository": str(ROOT / marker),
        "course_lib": str(ROOT / "course_lib" / f"{marker}.py"),
        "the grader's home": str(Path.home() / marker),
        "a classmate's folder": str(victim_dir / f"{marker}-w"),
        "the submissions": str(base / "subs" / "honest" / marker),
    }


def _evaluate(client, expression: str) -> str:
    reply = client.execute_interactive(
        "", silent=True, user_expressions={"r": expression}, timeout=60
    )
    return reply["content"]["user_expressions"]["r"]["data"]["text/plain"]


def isolation(world, student: str = "honest") -> dict:
    return world["graded"][student].isolation


# --- the batch -------------------------------------------------------------------------------


def test_honest_submissions_in_the_batch_are_graded_exactly_as_alone(world):
    together, alone = world["graded"]["honest"], world["alone"]["honest"]
    assert together.exercises == alone.exercises
    assert (together.notes, together.isolation) == (alone.notes, alone.isolation)
    assert together.points == together.max_points == 6


def test_every_kernel_records_its_isolation_in_the_gradebook(world):
    record = isolation(world)
    assert record["environment"] == "allowlist"
    assert record["channels"] in ("ipc", "tcp")
    assert record["process_cleanup"] in ("pid_namespace", "subreaper", "process_group")
    for student, result in world["graded"].items():
        assert result.isolation == record, student


def test_reading_classmates_or_the_graders_files_fails(world):
    require(isolation(world), "landlock_filesystem")
    result = world["graded"]["reads_classmates"]
    assert report(result)["its own notebook"].startswith("GOT")  # reading works where allowed
    blocked = [label for label in report(result) if label != "its own notebook"]
    assert len(blocked) == 8
    assert_blocked(result, blocked, controls=("its own notebook",))


def test_reading_solutions_the_checks_and_a_reference_the_lesson_does_not_need_fails(world):
    # The tests' lesson never loads course_lib.reference, so its kernels cannot read it either
    # (course_lib.grading.reference_use); the rest of course_lib reads.
    require(isolation(world), "landlock_filesystem", "checks_hidden", "reference_hidden")
    result = world["graded"]["reads_course"]
    blocked = [
        "solutions/",
        "course_lib/checks/",
        "the lesson's check module",
        "course_lib/grading/",
        "course_lib/reference/",
        "importing the checks",
    ]
    # Even the file names of the checks and the grader are covered where the kernel's mounts are
    # its own; Landlock alone cannot hide names beneath course_lib/, which the kernel must list
    # to import from it (docs/grading.md says so): there the names show, never the contents.
    listing = ["listing course_lib/grading/", "listing course_lib/checks/"]
    private = result.isolation.get("private_mounts")
    assert_blocked(
        result,
        [*blocked, *listing] if private else blocked,
        controls=("course_lib/driver.py",) if private else ("course_lib/driver.py", *listing),
    )


def test_a_classmates_kernel_cannot_be_made_to_run_code_nor_found_where_mounts_are_private(
    world,
):
    assert world["victim_alive"]
    assert (world["victim"], world["victim_marker"]) == ("untouched", False)
    assert world["tcp_victim"] == "'untouched'"
    found = report(world["graded"]["reaches_kernels"])
    record = isolation(world)
    # Without the key (in a connection file it cannot read) nothing it sends is run.
    must_fail = ["code sent to a classmate's kernel", "code sent to a kernel over TCP"]
    if record["network_namespace"] or record["landlock_tcp"]:
        must_fail.append("a kernel's TCP port")
    if record["private_mounts"]:  # else a socket path it knows can be connected to
        must_fail.append("a classmate's shell socket")
    if record["private_proc"]:  # else /proc shows other kernels
        must_fail.append("other kernels in /proc")
    assert len(found) == 5
    assert all(found[label].startswith("blocked") for label in must_fail), found
    assert_rest_graded(world["graded"]["reaches_kernels"])


def test_no_tcp_connection_leaves_the_kernel(world):
    assert "tcp" not in world["hits"]
    record = isolation(world)
    if not (record.get("network_namespace") or record.get("landlock_tcp")):
        pytest.skip("this platform has neither a network namespace nor Landlock ABI 4")
    found = report(world["graded"]["opens_network"])
    tcp = [label for label in found if "TCP" in label]
    assert len(tcp) == 4 and all(found[label].startswith("blocked") for label in tcp), found


def test_no_udp_datagram_leaves_the_kernel(world):
    require(isolation(world), "network_namespace")
    assert "udp" not in world["hits"]
    assert report(world["graded"]["opens_network"])["UDP to the grader's loopback"].startswith(
        "blocked"
    )
    assert_rest_graded(world["graded"]["opens_network"])


def test_daemons_that_detach_do_not_outlive_their_submission(world):
    if isolation(world)["process_cleanup"] == "process_group":
        pytest.skip("without a PID namespace or a subreaper only the process group is cleaned")
    result = world["graded"]["leaves_daemons"]
    # They really ran while it was graded (both: the report names those it saw)
    assert report(result)["daemons running"] == "GOT daemon nohup"
    assert world["lingering"] == []
    assert_rest_graded(result)


def test_the_graders_environment_stays_out_of_the_kernel(world):
    result = world["graded"]["reads_environment"]
    found = report(result)
    # HOME is in the submission's scratch folder, whose random name the gradebook writes as
    # <scratch> (scrub: regrades are byte-identical); a HOME elsewhere would show as it is.
    assert found["HOME"] == "GOT <scratch>"
    assert found["os.environ"] == "blocked (nothing there)"
    assert found["the grader's own variables"] == "blocked (nothing there)"
    assert_blocked(
        result,
        ["os.environ", "/proc/*/environ", "the grader's environ", "the grader's own variables"],
        controls=("HOME",),
    )


def test_writes_outside_the_submissions_own_folder_fail(world):
    require(isolation(world), "landlock_filesystem")
    assert [path for path in world["written"] if os.path.exists(path)] == []
    result = world["graded"]["writes_outside"]
    labels = list(write_targets(Path("."), Path("."), "x"))
    assert_blocked(result, labels, controls=("its own folder",))


def test_the_grader_and_other_kernels_cannot_be_signalled_or_traced(world):
    record = isolation(world)
    if not (record["pid_namespace"] or record["landlock_signals"]):
        pytest.skip("this platform has neither a PID namespace nor Landlock ABI 6")
    result = world["graded"]["signals_others"]
    assert world["victim_alive"]
    blocked = [label for label in report(result) if label != "signal own child"]
    if kernel_zygote.wanted():  # the kernel zygote is among the targets (not with it off)
        assert "zygote" in world["targets"]
    tried = [f"{how} {name}" for name in world["targets"] for how in ("signal", "ptrace", "mem")]
    assert sorted(blocked) == sorted(tried)
    assert_blocked(result, blocked, controls=("signal own child",))


def test_the_results_pipe_is_out_of_reach_and_the_grade_is_the_real_one(world):
    assert_blocked(world["graded"]["forges_results"], ["the grader's results pipe"])


# --- one kernel at a time --------------------------------------------------------------------


def test_a_daemon_dies_with_its_kernel_before_a_restart(tmp_path):
    name = f"course-attack-restart-{TOKEN}"
    kernel = _kernel(tmp_path)
    try:
        if kernel.isolation["process_cleanup"] == "process_group":
            pytest.skip("without a PID namespace or a subreaper only the process group is cleaned")
        start = (
            "import os, shutil\nif os.fork() == 0:\n    os.setsid()\n"
            f"    os.execv(shutil.which('sleep'), [{name!r}, '3600'])\n"
        )
        assert kernel.run_quietly(start, 60) == "ok"
        assert eventually(lambda: host_processes(name))  # it really runs, outside the cell
        with pytest.raises(KernelDied):
            kernel.run_quietly("import os\nos._exit(3)", 60)
        assert kernel.exit_description() == "exit code 3"
        assert host_processes(name) == []  # gone by the time the death is noticed
    finally:
        kernel.stop()


def test_the_kernel_environment_is_the_allowlist_and_the_scratch_folders():
    source = {"PATH": "/usr/bin", "LANG": "C.UTF-8", "LC_ALL": "C", **SECRETS, "PYTEST_X": "1"}
    env = kernel_environment(source, home="/s/.home", runtime="/s/kernel-1")
    assert env == {
        "PATH": "/usr/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "HOME": "/s/.home",
        "TMPDIR": "/s/.home/tmp",
        "TMP": "/s/.home/tmp",
        "TEMP": "/s/.home/tmp",
        "JUPYTER_RUNTIME_DIR": "/s/kernel-1",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }
    assert allowed_environment(SECRETS) == {}


def test_a_readable_tree_that_holds_a_hidden_folder_is_granted_around_it(tmp_path):
    for path in ("lib/a/x.py", "lib/hidden/secret.py", "lib/b.py", "other/y.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    (tmp_path / "lib" / "link").symlink_to(tmp_path / "lib" / "hidden")
    read, list_only = readable_beneath(
        [str(tmp_path / "lib"), str(tmp_path / "other")], [str(tmp_path / "lib" / "hidden")]
    )
    assert read == [str(tmp_path / "lib" / "a"), str(tmp_path / "lib" / "b.py")] + [
        str(tmp_path / "other")
    ]
    assert list_only == [str(tmp_path / "lib")]


def test_what_a_kernel_lacked_reads_as_sentences_and_nothing_when_it_lacked_nothing(world):
    record = isolation(world)
    full = {key: True if isinstance(value, bool) else value for key, value in record.items()}
    assert gaps(full) == []
    said = gaps({**full, "network_namespace": False, "pid_namespace": False})
    assert len(said) == 2 and "network namespace" in said[0]
    assert f"({record['process_cleanup']} cleanup only)" in said[1]


def test_the_record_of_several_kernels_keeps_only_what_all_of_them_had():
    first = {"pid_namespace": True, "landlock_abi": 7, "channels": "ipc"}
    second = {"pid_namespace": False, "landlock_abi": 6, "channels": "ipc"}
    assert weakest(first, second) == {
        "channels": "ipc",
        "landlock_abi": 6,
        "pid_namespace": False,
    }
    assert weakest({}, second) == second


GRADER_THAT_DIES = """
import os, sys
from course_lib.grading.kernel import GuardedKernel
kernel = GuardedKernel(sys.argv[1], memory_mb=1500, output_cap=10_000)
start = "import os, shutil\\nif os.fork() == 0:\\n    os.setsid()\\n" + (
    f"    os.execv(shutil.which('sleep'), [{sys.argv[2]!r}, '3600'])\\n"
)
assert kernel.run_quietly(start, 60) == "ok"
print(kernel.km.provisioner.process.pid, flush=True)
sys.stdin.read()  # until the test kills this process
"""


def test_a_grader_that_is_killed_leaves_no_kernel_and_no_daemon_behind(tmp_path):
    name = f"course-attack-orphan-{TOKEN}"
    workdir = tmp_path / "notebook"
    workdir.mkdir()
    grader = subprocess.Popen(
        [sys.executable, "-c", GRADER_THAT_DIES, str(workdir), name],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        launcher = int(grader.stdout.readline())
        assert eventually(lambda: host_processes(name))  # the daemon runs
        assert running(launcher)
    finally:
        grader.kill()
        grader.wait()
    # The launcher learns of its parent's death from the kernel (Linux), then ends the rest:
    # that takes a moment, bounded generously here.
    assert eventually(lambda: not host_processes(name) and not running(launcher)) is True
    assert host_processes(name) == []


def test_an_interrupt_still_reaches_the_kernel(tmp_path):
    kernel = _kernel(tmp_path)
    try:
        reply = interrupt_running_cell(kernel, 120)
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        assert kernel.is_alive() and kernel.evaluate("1 + 1") == 2
    finally:
        kernel.stop()


def _kernel(tmp_path: Path) -> GuardedKernel:
    workdir = tmp_path / "notebook"
    workdir.mkdir()
    return GuardedKernel(str(workdir), memory_mb=1500, output_cap=10_000)


def test_a_scratch_folder_too_deep_for_socket_paths_gets_its_runtime_in_the_temp_folder(tmp_path):
    kernel = GuardedKernel(str(_deep(tmp_path)), memory_mb=1500, output_cap=10_000)
    try:
        assert kernel.isolation["channels"] == "ipc"
        assert os.path.dirname(kernel.runtime) == tempfile.gettempdir()
        assert os.stat(kernel.runtime).st_mode & 0o777 == 0o700
        assert kernel.evaluate("6 * 7") == 42
    finally:
        kernel.stop()
    assert not os.path.exists(kernel.runtime)


def test_where_no_socket_path_fits_the_channels_use_tcp_and_the_kernel_still_has_no_tcp(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(tempfile, "tempdir", str(_deep(tmp_path / "temp")))
    kernel = GuardedKernel(str(_deep(tmp_path)), memory_mb=1500, output_cap=10_000)
    listener = Listener()
    try:
        record = kernel.isolation
        assert (record["channels"], record["network_namespace"]) == ("tcp", False)
        assert kernel.evaluate("6 * 7") == 42  # the grader reaches it over loopback
        if not record["landlock_tcp"]:
            pytest.skip("this platform has no Landlock ABI 4: a TCP kernel has the network")
        connect = (
            "import socket\ndef connect(port):\n    try:\n"
            "        socket.create_connection(('127.0.0.1', port), 10)\n"
            "    except OSError as exc:\n        return type(exc).__name__\n"
            "    return 'connected'\n"
        )
        assert kernel.run_quietly(connect, 60) == "ok"
        assert kernel.evaluate(f"connect({listener.port})") == "PermissionError"
        assert listener.hits == []
    finally:
        listener.close()
        kernel.stop()


def _deep(tmp_path: Path) -> Path:
    """A working folder whose unix socket paths would not fit (more than 100 bytes)."""
    workdir = tmp_path / ("d" * 60) / ("e" * 60) / "notebook"
    workdir.mkdir(parents=True)
    return workdir


def test_a_route_that_hangs_is_cut_and_named_not_left_to_the_cells_timeout():
    """An attack's route that never returns is reported as blocked (NoAnswer) under its own
    label after ATTEMPT_SECONDS, so a hang says which route it was."""
    import time

    from attacks.batch import ATTEMPT

    scope: dict = {"ATTEMPT_SECONDS": 0.2}
    exec(ATTEMPT, scope)  # the code every attack cell starts with
    # Uncut, the sleep would end and be reported as "blocked (nothing there)".
    assert scope["attempt"]("a hang", lambda: time.sleep(30)) == "a hang: blocked (NoAnswer)"
    assert scope["attempt"]("a route", lambda: "found") == "a route: GOT found"
