"""A seccomp filter that takes filesystem watching away from a grading kernel (Linux).

Landlock decides what a kernel may open, not what it may *watch*: ``inotify_add_watch`` on a
folder Landlock forbids listing (``/tmp``, the scratch root) is still allowed, and its events
name every new entry: each classmate's scratch folder, runtime folder and socket as it appears.
``fanotify`` (unprivileged since Linux 5.13, for inode marks) does the same. A grading kernel
has no use for either, so this filter makes their system calls fail with ``EPERM``.

Why a hand-written filter rather than a library: the one binding of libseccomp kept up to date
is built with libseccomp itself (not on every machine; pip cannot bring it), and ``pyseccomp``
(ctypes over ``libseccomp.so.2``) has not been released since 2021. The filter needed here is
eleven BPF instructions, written as ``sandbox`` writes Landlock: ``prctl`` through ctypes.

The filter checks the architecture first: a system call made through another ABI (32-bit
``int 0x80`` on x86-64, or x32 numbers) is refused whatever it is, so the numbers below cannot
be reached under other names. Every other call is allowed.
"""

from __future__ import annotations

import ctypes
import errno
import os

_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|..., BPF_RET|K
_NR, _ARCH = 0, 4  # offsets in struct seccomp_data
_ALLOW = 0x7FFF0000
_REFUSE = 0x00050000 | errno.EPERM  # SECCOMP_RET_ERRNO
_X32_BIT = 0x40000000

# machine -> (AUDIT_ARCH_*, the watching calls' numbers, whether x32 numbers must be refused)
WATCH_CALLS = {
    # inotify_init, inotify_add_watch, inotify_init1, fanotify_init, fanotify_mark
    "x86_64": (0xC000003E, (253, 254, 294, 300, 301), True),
    # (no inotify_init) inotify_init1, inotify_add_watch, fanotify_init, fanotify_mark
    "aarch64": (0xC00000B7, (26, 27, 262, 263), False),
}


class _Instruction(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter as ``(code, jt, jf, k)`` instructions; the last one refuses."""
    arch, numbers, x32 = WATCH_CALLS[machine]
    body: list[tuple[int, str | None, str | None, int]] = [
        (_LD_W_ABS, None, None, _ARCH),
        (_JEQ_K, None, "refuse", arch),
        (_LD_W_ABS, None, None, _NR),
    ]
    if x32:
        body.append((_JGE_K, "refuse", None, _X32_BIT))
    body += [(_JEQ_K, "refuse", None, number) for number in numbers]
    body += [(_RET_K, None, None, _ALLOW), (_RET_K, None, None, _REFUSE)]
    refuse = len(body) - 1

    def offset(at: int, target: str | None) -> int:
        return refuse - at - 1 if target == "refuse" else 0

    return [(code, offset(at, jt), offset(at, jf), k) for at, (code, jt, jf, k) in enumerate(body)]


def block_fs_watch() -> bool:
    """Install the filter on this process and everything it starts; True if it holds. Like
    Landlock, call it before the process starts a thread."""
    machine = os.uname().machine
    if os.uname().sysname != "Linux" or machine not in WATCH_CALLS:
        return False
    instructions = program(machine)
    table = (_Instruction * len(instructions))(*[_Instruction(*i) for i in instructions])
    prog = _Program(len(instructions), table)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0):
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0
