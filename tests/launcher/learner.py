"""A learner's machine, as far as the launcher can tell: a fresh clone, a home folder, a user.

``fresh_clone`` makes a ``git clone`` of this checkout in a temporary folder (with the working
tree's uncommitted changes laid over it, so a developer tests what they are about to commit).
``Learner`` runs commands there the way a learner's terminal would: from ``env -i`` with a
minimal PATH and their own HOME, and, when the tests run as root, as the unprivileged user
``nobody`` (through ``setpriv``).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import lab_server

ROOT = Path(__file__).resolve().parents[2]
MINIMAL_PATH = "/usr/bin:/bin"
UNPRIVILEGED = "nobody"


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def fresh_clone(target: Path) -> Path:
    """``git clone`` this checkout into ``target``, then lay the working tree's changes over it."""
    git("clone", "--quiet", str(ROOT), str(target))
    changed = git("ls-files", "--modified", "--others", "--exclude-standard").split("\n")
    for relative in filter(None, changed):
        source = ROOT / relative
        if source.is_file():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / relative)
    for relative in filter(None, git("ls-files", "--deleted").split("\n")):
        (target / relative).unlink(missing_ok=True)
    return target


def network_namespaces_work() -> bool:
    """Whether this process may make a network namespace (``unshare --net``: root on Linux)
    and bring its loopback up (``ip``)."""
    if shutil.which("ip") is None:
        return False
    try:
        return subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode == 0
    except OSError:
        return False


def world_readable_folder(prefix: str) -> Path:
    """A temporary folder another user can enter (pytest's own are private to their owner)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    return folder


def remove_in_background(folder: Path) -> None:
    """Remove ``folder`` (a fresh clone with its environment: tens of thousands of files) in a
    detached, low-priority process: no test waits for it. ``sh`` starts ``rm`` in the
    background and exits at once, so ``rm`` belongs to no process of the test run."""
    subprocess.run(
        ["sh", "-c", 'nice -n 19 rm -rf -- "$1" >/dev/null 2>&1 </dev/null &', "sh", str(folder)],
        check=True,
    )


@dataclass
class Learner:
    """Runs commands in ``root`` as the learner: ``env -i``, their HOME, maybe as ``nobody``."""

    root: Path
    home: Path
    run_as: list[str] = field(default_factory=list)
    uid: int = field(default_factory=os.getuid)

    @classmethod
    def make(cls, base: Path) -> Learner:
        root = fresh_clone(base / "course")
        home = base / "home"
        home.mkdir()
        if os.getuid() != 0:
            return cls(root, home)
        user = pwd.getpwnam(UNPRIVILEGED)
        for path in (root, home):
            subprocess.run(["chown", "-R", f"{user.pw_uid}:{user.pw_gid}", str(path)], check=True)
        run_as = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
        return cls(root, home, run_as, user.pw_uid)

    def environ(self, path: str = MINIMAL_PATH, **extra: str) -> dict[str, str]:
        return {"HOME": str(self.home), "PATH": path, "LANG": "C.UTF-8", **extra}

    def command(self, argv: list[str], *, path: str = MINIMAL_PATH, **extra: str) -> list[str]:
        """``argv`` as the learner runs it: from ``env -i`` with only the variables named."""
        assignments = [f"{name}={value}" for name, value in self.environ(path, **extra).items()]
        return [*self.run_as, "env", "-i", *assignments, *argv]

    def run(
        self, argv: list[str], *, cwd: Path | None = None, path: str = MINIMAL_PATH,
        timeout: float = 900, **extra: str,
    ) -> subprocess.CompletedProcess:  # fmt: skip
        """Run to the end; stdout and stderr together in ``.stdout``."""
        return subprocess.run(
            self.command(argv, path=path, **extra),
            cwd=cwd or self.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
        )

    def start(self, argv: list[str], log: Path, *, path: str = MINIMAL_PATH, **extra: str):
        """Start a long-running command (its own process group); output to ``log``."""
        with log.open("w") as out:
            return subprocess.Popen(
                self.command(argv, path=path, **extra),
                cwd=self.root,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )


def stop(process: subprocess.Popen) -> None:
    """Stop a process started by ``Learner.start`` and everything it started."""
    lab_server.stop(process, group=True, seconds=30)
