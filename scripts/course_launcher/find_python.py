"""Find a Python new enough for the course, or say exactly how to get one.

The launcher's first stage runs under whatever Python the learner typed: ``python3`` on macOS
may be 3.9, on an old Ubuntu 3.8. When it is older than 3.10 this module looks for a newer
interpreter (``python3.13``, ``python3.12``, ... on the PATH; on Windows also every Python the
``py`` launcher knows) and runs the launcher again with the newest one; when there is none it
prints what to install and how, for the system it runs on, with no traceback.

Because it runs under old interpreters, this module uses nothing newer than Python 3.6.
"""

import os
import shutil
import subprocess
import sys
from collections import namedtuple

from course_launcher import messages

MINIMUM = (3, 10)
# Set in the environment of the launcher started again with the interpreter found here, so a
# wrong guess (an interpreter that claims a version it does not have) cannot loop.
CHOSEN_VARIABLE = "COURSE_LAUNCHER_PYTHON"
# Asks for one interpreter explicitly (a path or a command on the PATH).
OVERRIDE_VARIABLE = "COURSE_PYTHON"
PROBE = "import sys; print('%d.%d.%d' % sys.version_info[:3]); print(sys.executable)"

Found = namedtuple("Found", ["label", "executable", "version"])


def version_text(version: "tuple[int, ...]") -> str:
    return ".".join(str(part) for part in version)


def probe(command: "list[str]") -> "Found | None":
    """The interpreter ``command`` runs, asked for its version; None when it does not run."""
    try:
        reply = subprocess.run(
            command + ["-c", PROBE],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            universal_newlines=True,  # noqa: UP021 (text= needs Python 3.7)
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = reply.stdout.split()
    if reply.returncode != 0 or len(lines) < 2:
        return None
    try:
        version = tuple(int(part) for part in lines[0].split("."))
    except ValueError:
        return None
    return Found(" ".join(command), lines[1], version)


def candidate_commands(environ: "dict[str, str]", platform: str) -> "list[list[str]]":
    """The interpreters worth asking, most specific first."""
    if environ.get(OVERRIDE_VARIABLE):
        return [[environ[OVERRIDE_VARIABLE]]]
    path = environ.get("PATH", "")
    names = [f"python3.{minor}" for minor in range(20, MINIMUM[1] - 1, -1)]
    names += ["python3", "python"]
    commands = [[found] for found in (shutil.which(name, path=path) for name in names) if found]
    if platform == "win32":
        commands += py_launcher_pythons(path)
    return commands


def py_launcher_pythons(path: str) -> "list[list[str]]":
    """Every interpreter the Windows ``py`` launcher lists (``py --list-paths``)."""
    launcher = shutil.which("py", path=path)
    if not launcher:
        return []
    try:
        listing = subprocess.run(
            [launcher, "--list-paths"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            universal_newlines=True,  # noqa: UP021 (text= needs Python 3.7)
            timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [[path] for path in paths_in_py_listing(listing)]


def paths_in_py_listing(listing: str) -> "list[str]":
    """The interpreters in ``py --list-paths`` output.

    Lines look like ``" -V:3.12 *        C:\\Program Files\\Python312\\python.exe"`` (or, from
    older launchers, ``" -3.12-64 *  C:\\...\\python.exe"``); paths may hold spaces.
    """
    paths = []
    for line in listing.splitlines():
        parts = line.strip().split(None, 1)
        if len(parts) == 2 and parts[0].startswith("-") and parts[1].lower().endswith(".exe"):
            path = parts[1].lstrip("* ").strip()
            paths.append(path)
    return paths


def newest_suitable(commands: "list[list[str]]") -> "Found | None":
    """The newest interpreter of at least ``MINIMUM`` among ``commands``."""
    answers = [probe(command) for command in commands]
    suitable = [found for found in answers if found and found.version[:2] >= MINIMUM]
    return max(suitable, key=lambda found: found.version) if suitable else None


def os_release(path: str = "/etc/os-release") -> "dict[str, str]":
    """The fields of ``/etc/os-release`` (empty where there is none)."""
    fields = {}
    try:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                key, _, value = line.strip().partition("=")
                if key:
                    fields[key] = value.strip().strip("\"'")
    except OSError:
        pass
    return fields


def how_to_get(platform: str, release: "dict[str, str]") -> "list[tuple[str, dict]]":
    """The messages (names and fields) that say how to get Python 3.10+ on this system."""
    system = release.get("PRETTY_NAME") or release.get("ID", "Linux")
    distribution, version = release.get("ID", ""), release.get("VERSION_ID", "")
    if platform == "darwin":
        advice = [("HOW_TO_GET_MACOS", {})]
    elif platform == "win32":
        advice = [("HOW_TO_GET_WINDOWS", {})]
    elif distribution == "ubuntu" and version_tuple(version) >= (22, 4):
        advice = [("HOW_TO_GET_APT", {"system": system, "package": "python3"})]
    elif distribution == "ubuntu" and version:
        advice = [("HOW_TO_GET_DEADSNAKES", {"system": system})]
    elif distribution == "debian" and version_tuple(version) >= (12,):
        advice = [("HOW_TO_GET_APT", {"system": system, "package": "python3"})]
    elif distribution == "debian" and version:
        advice = [("HOW_TO_GET_NO_APT_PACKAGE", {"system": system})]
    else:
        advice = [("HOW_TO_GET_OTHER", {})]
    return advice + [("HOW_TO_GET_CONDA", {})]


def version_tuple(text: str) -> "tuple[int, ...]":
    """``"22.04"`` as ``(22, 4)``; anything unreadable as ``()``."""
    try:
        return tuple(int(part) for part in text.split("."))
    except ValueError:
        return ()


def run_with_newer_python(argv: "list[str]") -> int:
    """Run the launcher again with a newer Python, or explain how to get one; the exit code."""
    script, arguments = os.path.abspath(argv[0]), argv[1:]
    command = arguments[0] if arguments else "start"
    running = Found(sys.executable, sys.executable, tuple(sys.version_info[:3]))
    environ = dict(os.environ)
    commands = [] if environ.get(CHOSEN_VARIABLE) else candidate_commands(environ, sys.platform)
    found = newest_suitable(commands)
    if found is None:
        messages.say("TOO_OLD", python=running.label, version=version_text(running.version))
        if commands:
            messages.say("NONE_NEWER", looked_for=", ".join(" ".join(c) for c in commands))
        else:
            messages.say("NONE_ON_PATH")
        for name, fields in how_to_get(sys.platform, os_release()):
            messages.say(name, command=command, **fields)
        return 1
    messages.say(
        "USING_NEWER",
        python=running.label,
        version=version_text(running.version),
        found=found.executable,
        found_version=version_text(found.version),
    )
    environ[CHOSEN_VARIABLE] = found.executable
    child = [found.executable, script] + arguments
    if os.name == "nt":  # no real exec on Windows: wait for the child and pass its exit code on
        return subprocess.call(child, env=environ)
    sys.stdout.flush()
    os.execve(found.executable, child, environ)
    return 1  # not reached
