"""What keeps a grading kernel apart from the grader and from the other kernels.

The kernel launcher (``kernel_launcher``) puts each kernel in:

- its own **user, network, PID and IPC namespaces** where Linux allows it (as root or not): no
  network at all (a loopback that is down; the grader reaches the kernel over unix sockets in a
  private folder), the kernel is the init of its PID namespace (when it ends, every process it
  started ends, however it detached), a ``/proc`` of its own (only its own processes), and
  mounts of its own where ``/tmp``, ``/run``, ``/dev/shm`` and the scratch root are empty but
  for what the kernel needs (its Python, even when that lies in ``/tmp``; its own folders);
  without namespaces a subreaper (Linux) or the process group (elsewhere) cleans up instead;
- **a host user id of its own** (``kernel_uid``) where the grader runs as root and user
  namespaces exist: not root, and not another kernel's id, so its scratch and runtime folders
  (mode 0700, owned by that id) are out of every other kernel's reach even by path;
- **no filesystem watching** (``syscall_filter``: ``inotify`` and ``fanotify`` refused), which
  would otherwise name every new folder and socket in a folder it cannot list;
- **encrypted channels** (CurveZMQ, the keys in its connection file only): a process that
  reached a socket of its could read nothing of what passes there;
- an **environment** reduced to ``PASSED_ENVIRONMENT`` (nothing of the grader's secrets);
- no **capabilities**, no file descriptors of the grader's (``namespaces`` does the
  process-level part);
- **Landlock** (``sandbox``), an allowlist of what it may read, write and reach (``grants``).

**The isolation record**: the launcher writes what each kernel actually got as JSON into its
private runtime folder (``RECORD_FILE``) before the learner's code runs; the grader copies it
into ``grades.json`` (``totals.<student>.notebooks.<notebook>.isolation``). Stable fields
(``gaps`` turns the missing protections into sentences):

- ``platform``; ``user_namespace``, ``network_namespace``, ``pid_namespace``, ``ipc_namespace``;
- ``private_proc`` (``/proc`` shows only the kernel's processes), ``private_mounts`` (``/tmp``,
  ``/run``, ``/dev/shm`` and the scratch root show only the kernel's own folders);
- ``process_cleanup``: ``pid_namespace``, ``subreaper`` or ``process_group``;
- ``channels``: ``ipc`` or ``tcp``; ``environment``: ``allowlist``; ``no_capabilities``;
- ``landlock_abi`` (0: none), ``landlock_filesystem``, ``landlock_tcp``, ``landlock_signals``,
  ``landlock_abstract_unix``;
- ``checks_hidden``: ``course_lib/checks`` unreadable (without Landlock it stays readable: the
  checks still decide in the grader, but a notebook could read their hidden cases);
- ``own_uid``, ``watch_blocked``, ``channels_encrypted``: the three protections above;
- ``reference_hidden`` (only for a lesson whose own cells do not need ``course_lib.reference``,
  see ``reference_use``): ``course_lib/reference`` unreadable, so the course's answers to the
  lesson's exercises are not there to take.

**A private view** (``private_view``): no other kernel's scratch folder, runtime folder or socket
can be found or reached, because the mounts cover them or because the kernel's own id cannot
enter them. The grader grades only kernels that have one (``refusal``), unless the instructor
accepts the gap (``course grade --accept-isolation-gap``). ``without`` (``MEASURES``) takes single
protections away, for the red-team tests that show what each one stops.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import sysconfig

from course_lib.grading.sandbox import Grants, readable_beneath
from course_lib.i18n import translate

RECORD_FILE = "isolation.json"

# Set by the grader for every kernel (``kernel_environment``), or passed on from its own
# environment: what Python, IPython and ipykernel need, and nothing else.
SET_ENVIRONMENT = (
    "HOME",
    "TMPDIR",
    "TMP",
    "TEMP",
    "JUPYTER_RUNTIME_DIR",
    "PYTHONHASHSEED",
    "PYTHONDONTWRITEBYTECODE",
    "PYDEVD_DISABLE_FILE_VALIDATION",
)
PASSED_ENVIRONMENT = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "PYTHONPATH",
    "PYTHONUTF8",
    "PYTHONIOENCODING",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "SYSTEMROOT",
)
PASSED_PREFIXES = ("LC_",)

# Beneath /etc, what a Python kernel reads: the loader, names, time zones, certificates, types.
ETC_READABLE = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "passwd",
    "group",
    "nsswitch.conf",
    "hosts",
    "host.conf",
    "resolv.conf",
    "gai.conf",
    "ssl",
    "ca-certificates",
    "pki",
    "mime.types",
    "os-release",
    "locale.alias",
    "fonts",
    "matplotlibrc",
)
SYSTEM_READABLE = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/opt/homebrew")
DEVICES_READABLE = ("/dev/zero", "/dev/random", "/dev/urandom")  # /dev/fd is /proc/self/fd
# course_lib's parts a kernel must not read: the checks run in the grader, and the grader's
# own code. The repository's solutions are never readable (they lie outside every grant).
HIDDEN_PARTS = ("checks", "grading")
# Covered by an empty folder in the kernel's mount namespace (its own folders bound back).
HIDDEN_FOLDERS = ("/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm")
# The protections a test may take away (``without``): each one alone defeats the sniffer of
# tests/grading/attacks/test_private_view.py.
MEASURES = ("mounts", "uid", "seccomp", "encryption")
# A kernel's own host user id: KERNEL_UID_BASE + (the grader process's id, times 64, plus a
# count of its working folders): no two kernels running at once share one, and a restarted
# kernel keeps its folder's. Ids from 2^30 up belong to no account on a usual system.
KERNEL_UID_BASE = 1 << 30

GAP_MESSAGES = {
    "network_namespace": "the kernel was not in a network namespace: it could use the network",
    "pid_namespace": (
        "the kernel was not in a PID namespace: a process it started and detached could "
        "outlive it ({process_cleanup} cleanup only)"
    ),
    "private_proc": "the kernel could see other processes in /proc",
    "private_mounts": (
        "the kernel could see /tmp, /run and the other scratch folders (no mount namespace): "
        "it could connect to a unix socket there whose path it knew"
    ),
    "landlock_filesystem": (
        "Landlock was not available: the kernel could read and write every file the grading "
        "user can"
    ),
    "landlock_signals": (
        "Landlock could not scope signals and abstract unix sockets (ABI 6): only namespaces "
        "kept the kernel from signalling other processes"
    ),
    "checks_hidden": (
        "the kernel could read course_lib/checks (no Landlock), so a notebook could read the "
        "hidden cases"
    ),
    "no_capabilities": "the kernel kept capabilities it did not need",
    "own_uid": (
        "the kernel ran as the grader's own user (no user id of its own): file permissions did "
        "not keep it out of another kernel's folders"
    ),
    "watch_blocked": (
        "inotify and fanotify were not blocked (no seccomp): the kernel could watch folders it "
        "could see for the names of new files and sockets"
    ),
    "channels_encrypted": (
        "the kernel's channels were not encrypted: whoever reached its sockets could read "
        "every message"
    ),
    "reference_hidden": (
        "the kernel could read course_lib/reference (no Landlock), which this lesson does not "
        "need: taking the course's answers was detected, not prevented"
    ),
}
# Why a notebook was not graded (``refusal``), and what the instructor can do about it
# (``course grade`` says ``refused``); the ``grading`` catalog translates them.
REFUSAL_TEXTS = {
    "refusal": (
        "this machine could not keep the kernel from finding other kernels' scratch folders and "
        "sockets: {gaps}"
    ),
    "refused": (
        "course grade: nothing written: {count} notebook(s) were not graded, because {reason}. "
        "Grade on Linux with user namespaces (docs/grading.md: How kernels are kept apart), or "
        "pass --accept-isolation-gap to grade anyway, knowing that a submission could then read "
        "what a classmate's kernel runs."
    ),
}


def kernel_environment(source: dict[str, str], *, home: str, runtime: str) -> dict[str, str]:
    """The grading kernel's whole environment: the allowlisted part of ``source``, and a
    ``HOME``, temp folder and Jupyter runtime folder of its own. A fixed hash seed keeps set
    and dict orders (and so messages) the same on every run."""
    env = allowed_environment(source)
    tmp = os.path.join(home, "tmp")
    env.update(
        HOME=home,
        TMPDIR=tmp,
        TMP=tmp,
        TEMP=tmp,
        JUPYTER_RUNTIME_DIR=runtime,
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",
        PYDEVD_DISABLE_FILE_VALIDATION="1",
    )
    return env


def allowed_environment(source: dict[str, str]) -> dict[str, str]:
    allowed = set(PASSED_ENVIRONMENT) | set(SET_ENVIRONMENT)
    return {
        key: value
        for key, value in source.items()
        if key in allowed or key.startswith(PASSED_PREFIXES)
    }


def grants(
    workdir: str, runtime: str, *, tcp_ports: list[int], hide_reference: bool = False
) -> Grants:
    """The grading kernel's allowlist: read the Python installation, the system and the parts
    of ``course_lib`` lessons import; write its own scratch folder; bind sockets in its runtime
    folder; nothing of the grader's, of other submissions, of ``solutions/``; and, for a lesson
    that does not need it, nothing of ``course_lib/reference`` (``hide_reference``)."""
    package = _package()
    parts = (*HIDDEN_PARTS, "reference") if hide_reference else HIDDEN_PARTS
    hidden = [os.path.join(package, part) for part in parts]
    hidden.append(os.path.join(os.path.dirname(package), "solutions"))
    read, list_only = readable_beneath(readable_roots(), hidden)
    return Grants(
        read=tuple(read),
        list_only=tuple(list_only),
        write=(workdir,),
        sockets=(runtime,),
        devices=("/dev/null",),
        tcp_bind=tuple(tcp_ports),
    )


def readable_roots() -> list[str]:
    """Where the kernel may read (before ``course_lib``'s hidden parts are taken out)."""
    python = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    python.update(sysconfig.get_paths().values())
    python.add(os.path.dirname(os.path.realpath(sys.executable)))
    roots = [*sorted(path for path in python if path), *SYSTEM_READABLE]
    roots += [f"/etc/{name}" for name in ETC_READABLE]
    roots += [_package(), "/proc", "/sys/devices/system/cpu", *DEVICES_READABLE]
    return [path for path in roots if os.path.exists(path)]


def folders_to_hide(workdir: str, runtime: str, *, parts: bool = True) -> list[str]:
    """What the kernel's mount namespace covers: the shared temporary and runtime folders, the
    folder holding every submission's scratch folder (the working folder's grandparent), the
    one holding the runtime folder (the system temp folder, where a deep scratch root left no
    room for socket paths), and ``course_lib``'s hidden parts. Landlock keeps their files
    unreadable, but the kernel must list ``course_lib`` itself to import from it, and a right to
    list a folder reaches every folder beneath it: covered, their file names are gone too (the
    kernel imports nothing from them: the launcher's own modules are loaded before the cover).
    ``parts``: whether to cover those parts (only a confined kernel, one Landlock keeps from
    reading them, goes without them; an unconfined one, a test's, may import them)."""
    scratch_root = os.path.dirname(os.path.dirname(os.path.abspath(workdir)))
    runtime_root = os.path.dirname(os.path.abspath(runtime))
    return [*HIDDEN_FOLDERS, scratch_root, runtime_root, *(hidden_parts() if parts else [])]


def hidden_parts() -> list[str]:
    """``course_lib``'s parts a kernel must not read, as folders."""
    return [os.path.join(_package(), part) for part in HIDDEN_PARTS]


def mark_unimportable(folder: str) -> None:
    """Put an empty ``__init__.py`` in a covered part of ``course_lib``: an empty folder would
    import as a namespace package; with it, importing the part fails as before (Landlock lets
    the kernel list the folder, never read the file)."""
    with contextlib.suppress(OSError):
        with open(os.path.join(folder, "__init__.py"), "x", encoding="utf-8"):
            pass


def untraversable(paths: list[str]) -> list[str]:
    """The folders on the way to ``paths`` that a user owning none of them may not pass
    through (no execute bit for others: ``/root`` holding a pyenv Python, say). Covered and
    bound back in the kernel's mount namespace, they let a kernel with an id of its own reach
    what it needs and nothing beside it."""
    found = set()
    for path in paths:
        folder = os.path.dirname(os.path.realpath(path))
        while folder != os.path.dirname(folder):
            try:
                if not os.stat(folder).st_mode & 0o001:
                    found.add(folder)
            except OSError:
                pass
            folder = os.path.dirname(folder)
    return sorted(found)


def readable_by_anyone(paths: list[str]) -> bool:
    """Whether a user owning none of ``paths`` may read each (and enter each folder): only
    then can a kernel with an id of its own run (the folders above them can be covered)."""
    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        wanted = 0o005 if stat.S_ISDIR(mode) else 0o004
        if mode & wanted != wanted:
            return False
    return True


_UIDS: dict[str, int] = {}


def kernel_uid(workdir: str) -> int:
    """The host user id the kernel working in ``workdir`` runs as (see ``KERNEL_UID_BASE``)."""
    key = os.path.realpath(workdir)
    if key not in _UIDS:
        _UIDS[key] = KERNEL_UID_BASE + (os.getpid() % (1 << 22)) * 64 + len(_UIDS) % 64
    return _UIDS[key]


def private_view(record: dict[str, object]) -> bool:
    """Whether the kernel could neither find nor reach another kernel's scratch folder,
    runtime folder or sockets: its mounts covered them, or its own user id kept it out."""
    return bool(record.get("private_mounts")) or bool(record.get("own_uid"))


def refused(record: dict[str, object], accepted: bool) -> bool:
    """Whether a notebook whose kernels had ``record`` was refused (and so not graded)."""
    return bool(record) and not accepted and not private_view(record)


def refusal(record: dict[str, object]) -> str | None:
    """Why a kernel with this record must not grade (``REFUSAL_TEXTS``), or None if it may."""
    if private_view(record):
        return None
    wanted = ("private_mounts", "own_uid")
    found = "; ".join(gaps({key: record.get(key) for key in wanted}))
    return translate(REFUSAL_TEXTS, "refusal", gaps=found)


def _package() -> str:
    import course_lib

    return os.path.dirname(os.path.realpath(course_lib.__file__))


def weakest(first: dict[str, object], second: dict[str, object]) -> dict[str, object]:
    """One record for several kernels (a restarted one): each protection only if all had it."""
    if not first or not second:
        return dict(first or second)
    merged: dict[str, object] = {}
    for key in sorted({*first, *second}):
        a, b = first.get(key), second.get(key)
        if isinstance(a, bool) or isinstance(b, bool):
            merged[key] = bool(a) and bool(b)
        elif isinstance(a, int) and isinstance(b, int):
            merged[key] = min(a, b)
        else:
            merged[key] = a if a == b or b is None else b
    return merged


def gaps(record: dict[str, object]) -> list[str]:
    """The protections a kernel lacked, as sentences (for the notes and the report)."""
    return [
        translate(GAP_MESSAGES, key, **record)
        for key in GAP_MESSAGES
        if key in record and not record[key]
    ]
