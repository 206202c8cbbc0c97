"""JupyterLab for the course: where it opens, what it asks, and what its Terminal runs.

Two files are written into the course's environment, so they hold however JupyterLab is
started from it:

- ``share/jupyter/lab/settings/overrides.json``: no news popup over the notebook and no update
  checks (JupyterLab reads this file as its defaults; a learner's own settings still win);
- ``etc/jupyter/jupyter_server_config.json`` (not on Windows; other settings in it are kept):
  the Terminal runs ``terminal_shell.py``, which starts the learner's shell and then puts the
  course's environment first on the PATH again, after the shell's own start-up files (which
  often put pyenv, conda or Homebrew first) have run.

``start --lang zh-CN`` also writes ``etc/course-editions/zh-CN/labconfig/
default_setting_overrides.json`` (JupyterLab's own menus in Chinese, from the language pack the
course installs) and puts that folder on ``JUPYTER_CONFIG_PATH`` for that JupyterLab only.

The launcher starts JupyterLab on ``notebooks/`` with ``00_welcome.ipynb`` (or, for
``--lang zh-CN``, ``zh-CN/00_welcome.ipynb``) open, the
environment's folder first on the PATH and ``VIRTUAL_ENV`` set, so ``python3`` (``py`` on
Windows) in a notebook cell or in the Terminal is the course's Python.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from course_launcher import messages
from course_launcher.environment import CourseEnv

FIRST_NOTEBOOK = "00_welcome.ipynb"
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}
SELF_CHECK = "{python} -m course_lib check notebooks/{notebook}"
# The editions ``start --lang`` opens: the folder under notebooks/ (course_lib.i18n.EDITIONS;
# the launcher runs before the course's packages exist, so it cannot import them) and
# JupyterLab's locale for its own menus (its language pack is a dependency of the course).
ENGLISH = "en"
EDITION_FOLDERS = {ENGLISH: "", "zh-CN": "zh-CN/"}
LAB_LOCALES = {"zh-CN": "zh_CN"}
TRANSLATION_PLUGIN = "@jupyterlab/translation-extension:plugin"


def split_language(arguments: list[str]) -> tuple[str, list[str]]:
    """(the edition ``--lang X`` / ``--lang=X`` asks for, the other arguments); English when
    none is asked for. An unknown edition raises ``ValueError`` with what was asked."""
    asked, rest = messages.lang_option(arguments)
    lang = ENGLISH if asked is None else asked
    if lang not in EDITION_FOLDERS:
        raise ValueError(lang)
    return lang, rest


def first_notebook(lang: str = ENGLISH) -> str:
    """The first lesson of an edition, as a path under notebooks/."""
    return EDITION_FOLDERS[lang] + FIRST_NOTEBOOK


def self_check_command(env: CourseEnv, lang: str = ENGLISH) -> str:
    """The self-check command as the learner types it on this system, in this environment."""
    if not env.windows:
        python = "python3"
    else:  # ``py`` follows VIRTUAL_ENV, which a conda environment does not set
        python = "py" if env.kind == "venv" else "python"
    return SELF_CHECK.format(python=python, notebook=first_notebook(lang))


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


def language_config_dir(env: CourseEnv, lang: str) -> Path | None:
    """The Jupyter configuration folder that gives JupyterLab the locale of ``lang`` (None for
    English, JupyterLab's default): ``labconfig/default_setting_overrides.json`` in it."""
    if lang not in LAB_LOCALES:
        return None
    return env.prefix / "etc" / "course-editions" / lang


def language_environ(env: CourseEnv, lang: str, environ: Mapping[str, str]) -> dict[str, str]:
    """What JupyterLab's environment needs for its menus to speak ``lang``: the folder of
    ``language_config_dir`` first on ``JUPYTER_CONFIG_PATH``, for this JupyterLab only (the
    environment's overrides.json and the learner's own settings stay as they are)."""
    folder = language_config_dir(env, lang)
    if folder is None:
        return {}
    settings = {TRANSLATION_PLUGIN: {"locale": LAB_LOCALES[lang]}}
    write_json_if_changed(folder / "labconfig" / "default_setting_overrides.json", settings)
    existing = environ.get("JUPYTER_CONFIG_PATH")
    return {"JUPYTER_CONFIG_PATH": os.pathsep.join(filter(None, [str(folder), existing]))}


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


def lab_command(env: CourseEnv, root: Path, arguments: list[str], lang: str = ENGLISH) -> list[str]:
    """JupyterLab on ``notebooks/``, on loopback, opening the first lesson of the edition."""
    command = [
        str(env.python), "-m", "jupyterlab",
        f"--ServerApp.root_dir={root / 'notebooks'}",
        f"--LabApp.default_url=/lab/tree/{first_notebook(lang)}",
        "--ServerApp.ip=127.0.0.1",
    ]  # fmt: skip
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # JupyterLab refuses root without it (containers, CI)
    return command + arguments
