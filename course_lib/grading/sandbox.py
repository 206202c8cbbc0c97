"""Limits for the kernel process, set by the kernel launcher before IPython loads.

- ``RLIMIT_AS``: a memory limit (a runaway allocation gets ``MemoryError`` or dies);
- ``RLIMIT_FSIZE``: no single file larger than ``MAX_FILE_MB``;
- Landlock (Linux 5.13+, no privileges needed): the process and its children may write only
  beneath the folders they are given (the submission's scratch folder) and ``/dev``, and (from
  Landlock ABI 6) may not send signals to processes outside the sandbox, such as the grader.

This is not a container: reading files, the network and the process count are not limited.
Where Landlock is missing, writes are not confined; ``landlock_abi()`` says which case holds.
"""

from __future__ import annotations

import ctypes
import os
import resource

MAX_FILE_MB = 256

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # same on x86_64/arm64
_PR_SET_NO_NEW_PRIVS = 38
_RULE_PATH_BENEATH = 1
_SCOPE_SIGNAL = 1 << 1
# Write-side filesystem rights, by the ABI version that introduced them.
_WRITE_RIGHTS = {
    1: (1 << 1)
    | (1 << 4)
    | (1 << 5)
    | (1 << 6)
    | (1 << 7)
    | (1 << 8)
    | (1 << 9)
    | (1 << 10)
    | (1 << 11)
    | (1 << 12),
    2: 1 << 13,  # REFER
    3: 1 << 14,  # TRUNCATE
}


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The Landlock ABI version the running kernel offers, 0 if none (or not Linux x86/arm)."""
    if os.uname().sysname != "Linux" or os.uname().machine not in ("x86_64", "aarch64"):
        return 0
    version = _libc().syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(version), 0)


def confine_writes(writable: list[str]) -> bool:
    """Allow writes only beneath ``writable`` (and ``/dev``) from now on; False if unsupported."""
    abi = landlock_abi()
    if abi == 0:
        return False
    rights = 0
    for version, bits in _WRITE_RIGHTS.items():
        if abi >= version:
            rights |= bits
    libc = _libc()
    attr = _RulesetAttr(rights, 0, _SCOPE_SIGNAL if abi >= 6 else 0)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else 8 if abi < 4 else 16
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        return False
    try:
        for path in [*writable, "/dev"]:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneathAttr(rights, fd)
                if libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0):
                    return False
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0):
            return False
        return libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) == 0
    finally:
        os.close(ruleset)


def limit_resources(memory_mb: int) -> None:
    """Memory (address space) and file-size limits; 0 leaves memory unlimited."""
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    size = MAX_FILE_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
