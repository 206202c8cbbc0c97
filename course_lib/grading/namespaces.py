"""The process-level half of a grading kernel's isolation (Linux): namespaces, an unprivileged
user id of its own, private mounts, capabilities, and cleaning up after a kernel where there is
no PID namespace.

Every function says whether it worked and never raises for a missing feature (macOS, a kernel
without user namespaces): the launcher records what held (``isolation``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import stat
import sys
from pathlib import Path

_CLONE_NEWNS, _CLONE_NEWIPC, _CLONE_NEWUSER = 0x00020000, 0x08000000, 0x10000000
_CLONE_NEWPID, _CLONE_NEWNET = 0x20000000, 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC = 2, 4, 8, 1 << 12, 1 << 14
_MS_PRIVATE, _MNT_DETACH = 1 << 18, 2
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_CAPBSET_DROP, _PR_SET_CHILD_SUBREAPER = 1, 4, 24, 36
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAPABILITY_VERSION_3 = 0x20080522


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def close_inherited_fds() -> None:
    """Close every descriptor this process inherited beyond stdin/out/err: whatever starts the
    launcher (jupyter_client closes them on POSIX, not on Windows; another provisioner might
    not), the grader's pipes never reach the kernel."""
    folder = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
    try:
        fds = [int(name) for name in os.listdir(folder)]
    except OSError:
        return
    for fd in fds:
        try:
            if fd > 2 and os.get_inheritable(fd):
                os.close(fd)
        except OSError:
            pass  # the listing's own descriptor, already closed


def die_with_parent(sig: int) -> bool:
    """Have ``sig`` sent to this process when its parent ends (Linux)."""
    return sys.platform == "linux" and _libc().prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0) == 0


def become_subreaper() -> bool:
    """Orphaned descendants become this process's children instead of init's (Linux)."""
    return sys.platform == "linux" and _libc().prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def enter_namespaces(
    *, network: bool = True, wanted: bool = True, uid: int | None = None
) -> dict[str, bool]:
    """New user, network, IPC and PID namespaces for this process (the PID one for the children
    it forks next). The user namespace maps one id: ``uid`` (an unprivileged host id of this
    kernel's own, see ``isolation.kernel_uid``) where this process may map another id (as root),
    else our own, so nothing changes on disk, and what the kernel may do as "root" inside stays
    inside; as root without user namespaces the others are still tried. ``network=False`` keeps
    the network (for channels over TCP); ``wanted=False`` enters none (what a platform without
    them gets). ``own_uid``: ``uid`` was mapped (``become`` then switches to it)."""
    got = dict.fromkeys(
        ("user_namespace", "network_namespace", "ipc_namespace", "pid_namespace", "own_uid"),
        False,
    )
    if sys.platform != "linux" or not wanted:
        return got
    libc = _libc()
    mine, group = os.geteuid(), os.getegid()  # before unshare: then they read as "nobody"
    others = _CLONE_NEWIPC | _CLONE_NEWPID | (_CLONE_NEWNET if network else 0)
    writer = _MapWriter(uid) if uid is not None and mine == 0 else None
    if libc.unshare(_CLONE_NEWUSER | others) == 0:
        got["own_uid"] = writer is not None and writer.finish(go=True)
        if not got["own_uid"]:
            # Always allowed for one's own ids; without the map the kernel would be "nobody",
            # unable to use its own scratch folder, so a failure here stops the launch.
            Path("/proc/self/setgroups").write_text("deny")
            Path("/proc/self/uid_map").write_text(f"{mine} {mine} 1")
            Path("/proc/self/gid_map").write_text(f"{group} {group} 1")
        got["user_namespace"] = True
    else:
        if writer is not None:
            writer.finish(go=False)
        if mine != 0 or libc.unshare(others) != 0:
            return got
    got.update(network_namespace=network, ipc_namespace=True, pid_namespace=True)
    return got


class _MapWriter:
    """A child that stays in the grader's user namespace to write our new one's id maps: only
    a process holding ``CAP_SETUID`` *there* may map an id other than its own, and after
    ``unshare`` this process holds capabilities only in the new namespace."""

    def __init__(self, uid: int) -> None:
        self._go, go = os.pipe()
        parent = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(go)
            code = 1
            try:
                if os.read(self._go, 1) == b"1":
                    for name in ("uid_map", "gid_map"):
                        Path(f"/proc/{parent}/{name}").write_text(f"{uid} {uid} 1")
                    code = 0
            finally:
                os._exit(code)
        os.close(self._go)
        self._go = go

    def finish(self, *, go: bool) -> bool:
        """Have the maps written (``go``) or not; True if they were."""
        try:
            os.write(self._go, b"1" if go else b"0")
        finally:
            os.close(self._go)
        _, status = os.waitpid(self.pid, 0)
        return go and os.waitstatus_to_exitcode(status) == 0


def become(uid: int) -> bool:
    """Switch to ``uid`` (and the group of that number), with no supplementary groups: the
    host's root groups would otherwise stay. Call it after opening what the mounts bind back
    (the way there may pass through folders only root may enter). Changing ids makes a process
    non-dumpable, which gives its ``/proc/self`` files to root; it held nothing secret before
    the switch, so it is made dumpable again (it writes no core files: ``limit_resources``)."""
    try:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    except OSError:
        return False
    _libc().prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
    return os.getresuid() == (uid, uid, uid)


def enter_mount_namespace() -> bool:
    """A mount namespace of our own, whose changes never reach the grader's. Call it before
    Landlock (which forbids mounting)."""
    libc = _libc()
    if libc.unshare(_CLONE_NEWNS):
        return False
    return libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) == 0


def mount_private_proc() -> bool:
    """A ``/proc`` that shows only our PID namespace (call it in the namespace's init)."""
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    return _libc().mount(b"proc", b"/proc", b"proc", flags, None) == 0


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def drop_capabilities() -> bool:
    """Give up every capability, also for what this process executes later; True if none is
    left. (A user namespace's first process holds them all inside it.)"""
    if sys.platform != "linux":
        return False
    libc = _libc()
    try:
        last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header, data = _CapHeader(_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    libc.capset(ctypes.byref(header), data)
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return False
    lines = status.splitlines()
    held = [line.split()[1] for line in lines if line.startswith(("CapEff:", "CapPrm:"))]
    return len(held) == 2 and all(int(value, 16) == 0 for value in held)


def kill_descendants() -> None:
    """SIGKILL every child of this (subreaper) process until none is left: orphans of orphans
    are re-parented here as their parents die."""
    me = str(os.getpid())
    while True:
        children = [pid for pid in _children_of(me) if pid != os.getpid()]
        if not children:
            return
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in children:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _children_of(parent: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat_line = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat_line.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1] == parent:
            found.append(int(name))
    return found


def open_paths(paths: list[str]) -> dict[str, int]:
    """``O_PATH`` descriptors of ``paths`` (those that exist), opened while this process may
    still pass through every folder above them: ``cover_folders`` binds them back from these,
    after the switch to an id that could not reach them itself."""
    handles = {}
    for path in paths:
        try:
            handles[path] = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
    return handles


def cover_folders(folders: list[str], *, keep: dict[str, int]) -> list[str]:
    """In our mount namespace, cover each of ``folders`` with an empty tmpfs and bind back the
    ``keep`` paths beneath it at their own paths (what the kernel needs: its Python, its own
    scratch and runtime folders; ``open_paths`` opened them). Returns the folders now covered,
    including those that lay inside another covered folder and so vanished with it.

    This is what makes other kernels' sockets and scratch folders, the grader's plan and the
    unix sockets of other services (``/run``: D-Bus, systemd, docker) not exist for the kernel;
    Landlock cannot refuse connecting to a unix socket whose path is known. A folder that is
    itself a ``keep`` path cannot be covered; one inside a path bound back is covered again."""
    libc = _libc()
    covered: list[str] = []
    kept: list[str] = []  # bound back: real again, whatever covers them
    for folder in sorted({os.path.realpath(path) for path in folders}, key=_depth):
        if not os.path.isdir(folder) or folder in keep:
            continue
        if any(beneath(folder, done) for done in covered) and not any(
            beneath(folder, path) for path in kept
        ):
            covered.append(folder)  # gone with the folder that covers it
            continue
        inside = _outermost([path for path in keep if beneath(path, folder) and path != folder])
        if _cover(libc, folder, inside, [keep[path] for path in inside]):
            covered.append(folder)
            kept += inside
    return covered


def _depth(path: str) -> tuple[int, str]:
    return path.rstrip(os.sep).count(os.sep), path


def _outermost(paths: list[str]) -> list[str]:
    """``paths`` without those inside another of them (binding the outer one brings them)."""
    unique = set(paths)
    return sorted(p for p in unique if not any(beneath(p, o) and o != p for o in unique))


def _cover(libc: ctypes.CDLL, folder: str, keep: list[str], handles: list[int]) -> bool:
    """Mount the empty tmpfs on ``folder`` and bind ``keep`` back (by the descriptors opened
    before it was covered); if a bind fails, uncover the folder rather than lose it."""
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    if libc.mount(b"tmpfs", folder.encode(), b"tmpfs", flags, b"size=1m,mode=0755"):
        return False
    try:
        for path, handle in zip(keep, handles, strict=True):
            if stat.S_ISDIR(os.fstat(handle).st_mode):
                os.makedirs(path, exist_ok=True)
            else:  # a single file the kernel reads (a root such as /etc/ld.so.cache)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))
            source = f"/proc/self/fd/{handle}".encode()
            if libc.mount(source, path.encode(), None, _MS_BIND | _MS_REC, None):
                raise OSError(ctypes.get_errno(), "bind")
    except OSError:
        libc.umount2(folder.encode(), _MNT_DETACH)
        return False
    return True


def beneath(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
