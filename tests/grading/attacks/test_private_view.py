"""Kernels that cannot see each other: the red team's sniffer (issue 25) against each protection.

The sniffer is a grading kernel that watches the scratch root (where the course's venv and
checkout lie too, as they often do in ``/tmp``) with inotify, follows each new folder down to a
classmate's IOPub socket, subscribes and reads every cell the classmate runs; and, given the
socket's path, connects to it directly. Four protections stand in its way (``isolation``):
private mounts, a user id of its own, no inotify/fanotify (seccomp) and encrypted channels.
Each is proven by the attack: with all four taken away (``without``) the sniffer reads the
classmate's cell; with any one of them back, it does not get that far (except that seccomp alone
cannot stop a sniffer that already knows the path, which the other three do). Then the same
attack as a notebook graded beside honest classmates, as a class is graded, with and without
namespaces (where the grader refuses unless told to accept the gap).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import tempfile
import threading
import uuid
from pathlib import Path

import pytest
from grading_lesson import SOLUTIONS, submission

from attacks.batch import attack, concurrently, grade, outcome, report
from attacks.isolation_attacks import SNIFFER
from attacks.machine import eventually
from course_lib.grading.isolation import MEASURES, private_view, refused
from course_lib.grading.kernel import GuardedKernel
from course_lib.grading.sandbox import landlock_abi

ROOT = Path(__file__).resolve().parents[3]  # holds .venv and course_lib: the layout
MARKER = f"classmate-secret-{uuid.uuid4().hex[:12]}"
pytestmark = pytest.mark.skipif(
    os.uname().sysname != "Linux" or os.geteuid() != 0 or landlock_abi() == 0,
    reason="the protections are measured as the red team found them: Linux, as root, Landlock",
)


def _scratch_folder() -> Path:
    """A submission's scratch folder as the runner makes it (mode 0700), in the scratch root."""
    folder = Path(tempfile.mkdtemp(prefix="course-grade-", dir=ROOT))
    (folder / "notebook").mkdir()
    return folder


def _kernel(folder: Path, without: tuple[str, ...]) -> GuardedKernel:
    return GuardedKernel(
        str(folder / "notebook"), memory_mb=1500, output_cap=100_000, without=without
    )


def _settle(attacker: GuardedKernel) -> None:
    assert eventually(lambda: attacker.evaluate("settled()")), "the sniffer never settled"


def _read(attacker: GuardedKernel, victim: GuardedKernel, path: str | None = None) -> bool:
    """Whether the sniffer reads the classmate's next cell (its subscriptions, or ``path``)."""
    if path is not None:
        attacker.evaluate(f"subscribe({path!r})")
        _settle(attacker)
    if "succeeded" not in attacker.evaluate("list(SNIFFED['handshakes'].values())"):
        return False
    for _ in range(20):  # a subscription reaches the publisher just after its handshake
        assert victim.run_quietly(f"SECRET = {MARKER!r}", 60) == "ok"
        attacker.evaluate("sniff(1, lambda: bool(stolen(SECRET_MARKER)))")
        if attacker.evaluate("bool(stolen(SECRET_MARKER))"):
            return True
    return False


def sniff_a_classmate(without: tuple[str, ...]) -> dict[str, object]:
    """The attack with the protections ``without`` taken away from both kernels."""
    folders = [_scratch_folder()]
    attacker = _kernel(folders[0], without)
    victim = None
    try:
        setup = f"SECRET_MARKER = {MARKER!r}\n"
        assert attacker.run_quietly(SNIFFER + setup, 60) == "ok"
        watch = "watch_in_background([os.path.dirname(_mine), '/tmp', '/dev/shm'])"
        assert attacker.run_quietly(watch, 60) == "ok"
        folders.append(Path(tempfile.mkdtemp(prefix="course-grade-", dir=ROOT)))
        _settle(attacker)  # the grader takes its time before a kernel starts: so may the sniffer
        (folders[1] / "notebook").mkdir()
        victim = _kernel(folders[1], without)
        _settle(attacker)
        assert attacker.run_quietly("stop_watching()", 60) == "ok"
        found = attacker.evaluate("{k: v for k, v in SNIFFED.items() if k != 'read'}")
        by_inotify = _read(attacker, victim)
        info = victim.km.get_connection_info()
        iopub = f"{info['ip']}-{info['iopub_port']}"
        by_path = _read(attacker, victim, iopub)
        return {
            "iopub": os.path.basename(iopub),
            "found": found,
            # What the known path met; a folder that appeared after the sniffer's first look (how
            # late depends on how fast kernels start: forked or exec'd, busy or not) may add a
            # refused watch of its own, which says the same.
            "refused_by_path": [
                line
                for line in attacker.evaluate("SNIFFED['refused']")[len(found["refused"]) :]
                if line.startswith("connect ")
            ],
            "refused_later": attacker.evaluate("SNIFFED['refused']")[len(found["refused"]) :],
            "by_inotify": by_inotify,
            "by_path": by_path,
            "record": attacker.isolation,
            "victim": victim.isolation,
        }
    finally:
        for kernel in (attacker, victim):
            if kernel is not None:
                kernel.stop()
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


def _only(measure: str) -> tuple[str, ...]:
    return tuple(m for m in MEASURES if m != measure)


def test_without_any_protection_the_sniffer_reads_a_classmates_cells():
    got = sniff_a_classmate(MEASURES)
    assert not private_view(got["record"])
    assert got["found"]["sockets"], got["found"]  # found by watching folders it cannot list
    assert got["by_inotify"] and got["by_path"]


def test_private_mounts_alone_hide_the_classmate_even_with_the_venv_in_the_scratch_root():
    got = sniff_a_classmate(_only("mounts"))
    assert not got["by_inotify"] and not got["by_path"]
    assert got["found"]["folders"] == [] and got["found"]["sockets"] == []
    assert got["record"]["private_mounts"] and private_view(got["record"])
    assert got["refused_by_path"] == [f"connect {got['iopub']}: FileNotFoundError"]


def test_a_user_id_of_its_own_alone_keeps_the_sniffer_out_of_the_classmates_folders():
    got = sniff_a_classmate(_only("uid"))
    assert got["record"]["own_uid"] and not got["record"]["private_mounts"]
    assert got["found"]["sockets"] == []
    assert any("Permission denied" in line for line in got["found"]["refused"]), got["found"]
    assert not got["by_inotify"] and not got["by_path"]
    assert got["refused_by_path"] == [f"connect {got['iopub']}: PermissionError"]
    assert all("Permission" in line for line in got["refused_later"]), got["refused_later"]


def test_seccomp_alone_refuses_inotify_but_not_a_path_the_sniffer_knows():
    got = sniff_a_classmate(_only("seccomp"))
    assert got["record"]["watch_blocked"]
    assert got["found"]["watching"] == [] and got["found"]["sockets"] == []
    assert any(
        line.startswith("inotify: Operation not permitted") for line in got["found"]["refused"]
    )
    assert not got["by_inotify"]
    assert got["by_path"]  # which is why the other three protections exist


def test_encrypted_channels_alone_leave_the_sniffer_nothing_to_read():
    got = sniff_a_classmate(_only("encryption"))
    assert got["victim"]["channels_encrypted"]
    assert got["found"]["sockets"], got  # found, and connected to,
    assert set(got["found"]["handshakes"].values()) == {"failed"}, got  # no handshake passes
    assert not got["by_inotify"] and not got["by_path"]


def test_with_every_protection_the_sniffer_finds_nothing():
    got = sniff_a_classmate(())
    record = got["record"]
    assert all(record[key] for key in ("private_mounts", "own_uid", "watch_blocked"))
    assert record["channels_encrypted"]
    assert got["found"]["sockets"] == [] and got["found"]["folders"] == []
    assert not got["by_inotify"] and not got["by_path"]


# --- as a class is graded ----------------------------------------------------------------------

# The sniffing cell watches while its classmates' kernels start, run and end: until it has
# stolen a cell, or until the test tells it (SIGUSR1, sent by the process name WAITING) that
# every classmate of the three gradings has been graded, so that no classmate is left to watch.
# WINDOW is only the bound for a hang (the windows were a fixed 30 s, which also covered them).
WINDOW = 60
WAITING = f"sniff-{MARKER[-8:]}"  # a process name (at most 15 characters)
SNIFFING_CELL = (
    SNIFFER
    + f"""
import signal
SECRET_MARKER = {MARKER!r}
CLASS_GRADED = []
signal.signal(signal.SIGUSR1, lambda *_: CLASS_GRADED.append(True))
_libc.prctl(15, {WAITING.encode()!r}, 0, 0, 0)  # PR_SET_NAME: the test finds it by this name
SCRATCH = os.path.dirname(_mine)  # this kernel's scratch root: its classmates' too
start_watching([SCRATCH, SCRATCH_ROOT, '/tmp', '/dev/shm'])
for path in named_in_proc_net_unix() + [p + '/k-ipc-2' for p in runtime_paths_in_proc()]:
    subscribe(path)
sniff({WINDOW}, lambda: bool(stolen(SECRET_MARKER)) or bool(CLASS_GRADED))
# Counts: the report must fit what a check shows of a value.
ATTEMPTS.append(attempt("watching folders", lambda: len(SNIFFED["watching"])))
ATTEMPTS.append(attempt("a classmate's scratch folder", lambda: len(SNIFFED["folders"])))
ATTEMPTS.append(attempt("sockets named in /proc/net/unix", lambda: len(named_in_proc_net_unix())))
ATTEMPTS.append(attempt("runtime folders in /proc", lambda: len(runtime_paths_in_proc())))
ATTEMPTS.append(attempt("abstract unix sockets", lambda: len(abstract_sockets())))
ATTEMPTS.append(attempt("guessed folder names", lambda: len(guessed_folders(SCRATCH))))
# Classmates are those graded in this batch (in its scratch root, their cells marked): without
# a network namespace /proc/net/unix also names other Jupyter kernels of the machine.
ATTEMPTS.append(attempt("a classmate's IOPub", lambda: sum(
    verdict == "succeeded" and path.startswith(SCRATCH)
    for path, verdict in SNIFFED["handshakes"].items())))
ATTEMPTS.append(attempt("a classmate's cell", lambda: len(stolen(SECRET_MARKER))))
STOLEN = "\\n".join(stolen(SECRET_MARKER))
"""
)
# Its 90.2 is whatever it read of a classmate's: it earns points only if it stole them.
SNIFFER_90_2 = "exec(STOLEN)"


HONEST = ("honest_1", "honest_2", "honest_3")


def class_notebooks() -> dict:
    """The sniffer first, then honest classmates whose cells carry a marker."""
    honest = {
        **SOLUTIONS,
        "90.2": f"# {MARKER}\n" + SOLUTIONS["90.2"],
    }
    sniffer = attack(f"SCRATCH_ROOT = {str(ROOT)!r}\n" + SNIFFING_CELL)
    sniffer.cells[[c.get("id") for c in sniffer.cells].index("t-ex2")].source = SNIFFER_90_2
    notebooks = {"a_sniffer": sniffer}
    notebooks.update({student: submission(honest) for student in HONEST})
    return notebooks


class SniffingWindows:
    """Ends the sniffers' windows once every honest classmate of the three gradings has been
    graded (its cells run, its scratch folder removed with the sockets in it): a sniffer that
    watched until then has watched each classmate's whole life, however long that took."""

    def __init__(self, classmates: int) -> None:
        self.left = classmates
        self.lock = threading.Lock()
        self.every_classmate_graded = threading.Event()
        self.finished = threading.Event()  # the gradings returned: nobody is left to tell

    def graded(self, result) -> None:  # grade_all's progress, from its threads
        if result.student in HONEST:
            with self.lock:
                self.left -= 1
                if self.left == 0:
                    self.every_classmate_graded.set()

    def close_when_every_classmate_is_graded(self) -> None:
        told: set[int] = set()
        while not self.finished.wait(0.1):
            if not self.every_classmate_graded.is_set():
                continue
            for pid in named(WAITING):  # each sniffer once: it has its handler by then
                if pid not in told:
                    told.add(pid)
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGUSR1)


def named(name: str) -> list[int]:
    """The host's processes whose name (``/proc/<pid>/comm``) is ``name``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == name:
                found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def gradings(tmp_path_factory, canonical_dir):
    """A class graded two at a time with the scratch root holding the venv and the checkout,
    with namespaces and without, and without them once more unless the instructor accepts the
    gap (refused). The three gradings run at once (``concurrently``), in the same scratch root:
    each sniffer also faces the other gradings' kernels, which are no more its to read than its
    own classmates'."""
    runs = {}
    window = SniffingWindows(classmates=3 * len(HONEST))
    for namespaces, accepted in ((True, False), (False, True), (False, False)):
        root = tmp_path_factory.mktemp("private-view") / ("subs" if accepted else "refused")
        options = {"scratch_root": str(ROOT), "namespaces": namespaces, "jobs": 2}
        options["accept_isolation_gap"] = accepted
        runs[namespaces, accepted] = functools.partial(
            grade, root, canonical_dir, class_notebooks(), window.graded, **options
        )
    closer = threading.Thread(target=window.close_when_every_classmate_is_graded)
    closer.start()
    try:
        return concurrently(runs)
    finally:
        window.finished.set()
        closer.join()


@pytest.fixture(scope="module", params=[True, False], ids=["namespaces", "without-namespaces"])
def graded_class(request, gradings):
    namespaces = request.param
    graded = outcome(gradings[namespaces, not namespaces])
    refused_run = None if namespaces else outcome(gradings[False, False])
    return {"graded": graded, "refused": refused_run, "namespaces": namespaces}


def test_the_sniffer_reads_nothing_of_a_classmate_and_earns_nothing_it_did_not(graded_class):
    result = graded_class["graded"]["a_sniffer"]
    found = report(result)
    record = result.isolation
    must_fail = [
        "watching folders",
        "a classmate's scratch folder",
        "abstract unix sockets",
        "guessed folder names",
        "a classmate's IOPub",
        "a classmate's cell",
    ]
    if record["network_namespace"]:  # else the socket table names every socket (not inside)
        must_fail.append("sockets named in /proc/net/unix")
    if record["private_proc"]:  # else an exec'd launcher's command line names its folder
        must_fail.append("runtime folders in /proc")
    assert len(found) == 8
    leaked = {label: found[label] for label in must_fail if not found[label].startswith("blocked")}
    assert not leaked, leaked
    rows = {row.exercise: row for row in result.exercises}
    assert rows["90.2"].points == 0 and rows["90.2"].status != "passed"
    assert result.points == rows["90.3"].points == 1


def test_honest_classmates_are_graded_in_full_beside_the_sniffer(graded_class):
    for student, result in graded_class["graded"].items():
        if student.startswith("honest"):
            assert result.points == result.max_points == 6, student


def test_the_grader_refuses_kernels_that_could_find_each_other_unless_told_to_accept(
    graded_class,
):
    if graded_class["namespaces"]:
        record = graded_class["graded"]["a_sniffer"].isolation
        assert private_view(record) and not refused(record, accepted=False)
        return
    for student, result in graded_class["refused"].items():
        assert refused(result.isolation, accepted=False), student
        assert {row.status for row in result.exercises} == {"error"}, student
        assert "could not keep the kernel from finding" in result.exercises[0].message
    for result in graded_class["graded"].values():
        assert not refused(result.isolation, accepted=True)
