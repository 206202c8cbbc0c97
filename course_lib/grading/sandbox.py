"""Limits for the grading kernel, set in the kernel process before IPython loads.

- ``RLIMIT_AS``: a memory limit, per process (a runaway allocation gets ``MemoryError`` or
  dies); ``RLIMIT_FSIZE``: no single file larger than ``MAX_FILE_MB``; no core dumps;
- ``RLIMIT_NPROC``: at most ``MAX_PROCESSES`` processes and threads (a fork bomb gets
  ``BlockingIOError``), only in a kernel with a user namespace of its own, where the count is
  of that namespace's processes alone (elsewhere it counts every process of the grader's user,
  the grader's own too); not enforced on a kernel that is host root;
- Landlock (Linux 5.13+, no privileges needed), an allowlist: the kernel and everything it
  starts may read only what ``Grants.read`` names (the Python installation, system libraries,
  the parts of ``course_lib`` a lesson imports, ...), write only beneath ``Grants.write`` (the
  submission's scratch folder) and ``/dev/null``. From Landlock ABI 4 it may neither connect nor
  bind TCP (except the ports it is given); from ABI 6 it may not signal, nor reach the abstract
  unix sockets of, processes outside its sandbox (the grader, other kernels).

Where Landlock is missing nothing here is enforced; ``confine`` says what was.
"""

from __future__ import annotations

import ctypes
import os
import resource
import stat
from dataclasses import dataclass

MAX_FILE_MB = 256
MAX_PROCESSES = 256

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # same on x86_64/arm64
_PR_SET_NO_NEW_PRIVS = 38
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2

# Filesystem rights (include/uapi/linux/landlock.h), and the ABI that introduced the later ones.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: REFER, 3: TRUNCATE, 5: IOCTL_DEV}
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # all a file rule may hold
_BIND_TCP, _CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

READ = EXECUTE | READ_FILE | READ_DIR
WRITE = (
    READ | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO
) | (MAKE_SYM | REFER | TRUNCATE)
DEVICE = READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV


@dataclass(frozen=True)
class Grants:
    """What a confined process may still do; everything else Landlock handles is refused."""

    read: tuple[str, ...] = ()  # read and execute beneath each (folders or single files)
    list_only: tuple[str, ...] = ()  # folders whose entries may be listed, not read
    write: tuple[str, ...] = ()  # read, create, change and remove beneath each
    sockets: tuple[str, ...] = ()  # folders to read and bind unix sockets in
    devices: tuple[str, ...] = ()  # device files to read and write (``/dev/null``)
    tcp_bind: tuple[int, ...] = ()  # the only TCP ports that may be bound; no TCP connects


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPortAttr(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The Landlock ABI version the running kernel offers, 0 if none (or not Linux x86/arm)."""
    if os.uname().sysname != "Linux" or os.uname().machine not in ("x86_64", "aarch64"):
        return 0
    version = _libc().syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(version), 0)


def handled_rights(abi: int) -> int:
    """Every filesystem right Landlock ABI ``abi`` knows: what a ruleset refuses unless granted."""
    rights = 0
    for version, bits in _FS_RIGHTS_BY_ABI.items():
        if abi >= version:
            rights |= bits
    return rights


def not_confined(abi: int = 0) -> dict[str, object]:
    return {
        "landlock_abi": abi,
        "landlock_filesystem": False,
        "landlock_tcp": False,
        "landlock_signals": False,
        "landlock_abstract_unix": False,
    }


def confine(grants: Grants) -> dict[str, object]:
    """Restrict this process (and all it starts) to ``grants``; say what is enforced.

    Must run before the process starts a thread: Landlock applies to the calling thread and to
    what it creates afterwards. A path that does not exist is skipped (fewer grants only make
    the sandbox stricter)."""
    abi = landlock_abi()
    if abi == 0:
        return not_confined()
    fs = handled_rights(abi)
    net = _BIND_TCP | _CONNECT_TCP if abi >= 4 else 0
    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0
    libc = _libc()
    attr = _RulesetAttr(fs, net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        return not_confined(abi)
    try:
        for paths, rights in (
            (grants.list_only, READ_DIR),
            (grants.read, READ),
            (grants.sockets, READ | MAKE_SOCK),
            (grants.write, WRITE),
            (grants.devices, DEVICE),
        ):
            for path in paths:
                _add_path_rule(libc, ruleset, path, rights & fs)
        for port in grants.tcp_bind if net else ():
            rule = _NetPortAttr(_BIND_TCP, port)
            libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_NET_PORT, ctypes.byref(rule), 0)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) or libc.syscall(
            _SYS_RESTRICT_SELF, ruleset, 0
        ):
            return not_confined(abi)
    finally:
        os.close(ruleset)
    return {
        "landlock_abi": abi,
        "landlock_filesystem": True,
        "landlock_tcp": bool(net),
        "landlock_signals": bool(scoped),
        "landlock_abstract_unix": bool(scoped),
    }


def _add_path_rule(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= _FILE_RIGHTS
        if rights:
            rule = _PathBeneathAttr(rights, fd)
            libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
    finally:
        os.close(fd)


def readable_beneath(roots: list[str], hidden: list[str]) -> tuple[list[str], list[str]]:
    """Grants that make everything beneath ``roots`` readable except ``hidden``.

    Landlock can only add rights, never take some away beneath a grant, so a root that holds a
    hidden path is not granted itself: its entries are, one by one, except the hidden ones (and
    entries that hold hidden paths, recursively). Returns ``(read, list_only)``: the folders on
    the way to a hidden path may still be listed, which shows names, never contents."""
    hidden_real = [os.path.realpath(path) for path in hidden]
    read: list[str] = []
    list_only: list[str] = []
    for root in dict.fromkeys(os.path.realpath(root) for root in roots):
        _split(root, hidden_real, read, list_only)
    return read, list_only


def _split(root: str, hidden: list[str], read: list[str], list_only: list[str]) -> None:
    if root in hidden:
        return
    inside = [path for path in hidden if path.startswith(root.rstrip(os.sep) + os.sep)]
    if not inside:
        read.append(root)
        return
    list_only.append(root)
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        return
    for entry in entries:
        path = os.path.join(root, entry)
        if not os.path.islink(path):  # a link is followed when used; granting it would grant
            _split(path, inside, read, list_only)  # where it leads


def limit_resources(memory_mb: int, processes: int = 0) -> None:
    """Memory (address space) and file-size limits, no core files; 0 leaves memory unlimited.
    ``processes``: at most that many processes and threads (``RLIMIT_NPROC``), 0 no limit; only
    for a process in a user namespace of its own, where it counts that namespace's alone."""
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    size = MAX_FILE_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if processes > 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
