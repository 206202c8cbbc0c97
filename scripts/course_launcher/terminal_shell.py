"""The shell JupyterLab's Terminal runs for the course: the learner's, with the course first.

JupyterLab's Terminal inherits the server's PATH, where the launcher put the course's
environment first. But a shell reads its start-up files (``~/.bashrc``, ``~/.zshrc``, ...)
before the first prompt, and those often put pyenv, conda's base or Homebrew first, so that
``python3`` would no longer be the course's. This program starts the learner's shell (``$SHELL``,
else ``sh``) so that it reads its usual files and then puts the course's environment first on
the PATH again. The small start-up files that do it are in ``shells/``.

Run by the environment's own Python (``etc/jupyter/jupyter_server_config.json``), so the
environment is the folder that Python is in. Only for Linux and macOS; uses only the standard
library.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

SHELLS = Path(__file__).resolve().parent / "shells"
POSIX_SHELLS = {"sh", "dash", "ash", "ksh", "mksh", "yash"}


def shell_command(shell: str, environ: Mapping[str, str], env_bin: str) -> tuple[list[str], dict]:
    """The command and environment that start ``shell`` with ``env_bin`` first on the PATH."""
    new = {**environ, "COURSE_ENV_BIN": env_bin}
    new["PATH"] = os.pathsep.join([env_bin, environ.get("PATH", "")])
    name = Path(shell).name
    if name == "bash":
        return [shell, "--rcfile", str(SHELLS / "bashrc"), "-i"], new
    if name == "zsh":  # zsh reads its files from $ZDOTDIR: ours, which read the learner's
        new["COURSE_USER_ZDOTDIR"] = environ.get("ZDOTDIR") or environ.get("HOME", "")
        new["COURSE_ZSH_DIR"] = new["ZDOTDIR"] = str(SHELLS / "zsh")
        return [shell, "-i"], new
    if name in POSIX_SHELLS:  # an interactive POSIX shell reads the file named by $ENV
        new["COURSE_USER_ENV"] = environ.get("ENV", "")
        new["ENV"] = str(SHELLS / "shrc")
        return [shell, "-i"], new
    if name == "fish":
        return [shell, "-i", "--init-command", "set -gx PATH $COURSE_ENV_BIN $PATH"], new
    return [shell, "-i"], new


def main() -> None:
    shell = os.environ.get("SHELL") or "sh"
    shell = shell if os.sep in shell else (shutil.which(shell) or "/bin/sh")
    command, environ = shell_command(shell, os.environ, str(Path(sys.executable).parent))
    os.execve(command[0], command, environ)


if __name__ == "__main__":
    main()
