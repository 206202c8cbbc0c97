"""JupyterLab for the course: where it opens, what it asks, and what its Terminal runs.

Two files are written into the course's environment, so they hold however JupyterLab is
started from it:

- ``share/jupyter/lab/settings/overrides.json``: no news popup over the notebook and no update
  checks (JupyterLab reads this file as its defaults; a learner's own settings still win);
- ``etc/jupyter/jupyter_server_config.json`` (not on Windows; other settings in it are kept):
  the Terminal runs ``terminal_shell.py``, which starts the learner's shell and then puts the
  course's environment first on the PATH again, after the shell's own start-up files (which
  often put pyenv, conda or Homebrew first) have run.

The launcher starts JupyterLab on ``notebooks/`` with ``00_welcome.ipynb`` open, the
environment's folder first on the PATH and ``VIRTUAL_ENV`` set, so ``python3`` (``py`` on
Windows) in a notebook cell or in the Terminal is the course's Python.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from course_launcher.environment import CourseEnv

FIRST_NOTEBOOK = "00_welcome.ipynb"
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}
SELF_CHECK = "{python} -m course_lib check notebooks/00_welcome.ipynb"


def self_check_command(env: CourseEnv) -> str:
    """The self-check command as the learner types it on this system, in this environment."""
    if not env.windows:
        python = "python3"
    else:  # ``py`` follows VIRTUAL_ENV, which a conda environment does not set
        python = "py" if env.kind == "venv" else "python"
    return SELF_CHECK.format(python=python)


def overrides_file(env: CourseEnv) -> Path:
    return env.prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"


def server_config_file(env: CourseEnv) -> Path:
    return env.prefix / "etc" / "jupyter" / "jupyter_server_config.json"


def read_json_object(path: Path) -> dict:
    """The JSON object in ``path``; empty when it is missing or not a JSON object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_json_if_changed(path: Path, data: dict) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def merged_overrides(existing: object) -> dict:
    """``LAB_OVERRIDES`` laid over whatever overrides the environment already has."""
    merged = dict(existing) if isinstance(existing, dict) else {}
    for plugin, values in LAB_OVERRIDES.items():
        current = merged.get(plugin)
        merged[plugin] = {**(current if isinstance(current, dict) else {}), **values}
    return merged


def merged_server_config(existing: dict, env: CourseEnv) -> dict:
    """``existing`` server configuration with the Terminal running ``terminal_shell.py``."""
    shell = [str(env.python), str(Path(__file__).resolve().parent / "terminal_shell.py")]
    server = existing.get("ServerApp")
    server = dict(server) if isinstance(server, dict) else {}
    terminado = server.get("terminado_settings")
    terminado = dict(terminado) if isinstance(terminado, dict) else {}
    server["terminado_settings"] = {**terminado, "shell_command": shell}
    return {**existing, "ServerApp": server}


def write_settings(env: CourseEnv) -> None:
    path = overrides_file(env)
    write_json_if_changed(path, merged_overrides(read_json_object(path)))
    if not env.windows:
        path = server_config_file(env)
        write_json_if_changed(path, merged_server_config(read_json_object(path), env))


def lab_command(env: CourseEnv, root: Path, arguments: list[str]) -> list[str]:
    """JupyterLab on ``notebooks/``, on loopback, opening the first lesson."""
    command = [
        str(env.python), "-m", "jupyterlab",
        f"--ServerApp.root_dir={root / 'notebooks'}",
        f"--LabApp.default_url=/lab/tree/{FIRST_NOTEBOOK}",
        "--ServerApp.ip=127.0.0.1",
    ]  # fmt: skip
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # JupyterLab refuses root without it (containers, CI)
    return command + arguments
