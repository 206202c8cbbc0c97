"""Installing the course's packages: with uv when it can be had, else with pip.

uv resolves and installs the same ``pyproject.toml`` ranges as pip, several times faster
(docs/install.md quotes both, measured in the same run by ``benchmarks/bench_first_start.py``).
When ``uv`` is not on the PATH it is installed from PyPI into ``.venv`` itself (it is a registry
package with a prebuilt binary), by the pip wheel that Python bundles for ensurepip, run
straight from the wheel: ``.venv`` is made without pip, and uv installs pip beside the course's
packages (``%pip`` in a notebook needs it). When uv cannot be had, ensurepip puts pip into
``.venv`` and pip does the work. A conda environment gets uv only when the learner has it
already: the course adds nothing to it beyond its packages.

``COURSE_INSTALLER=pip`` (or ``uv``) chooses one explicitly.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from course_launcher import messages

if TYPE_CHECKING:
    from course_launcher.environment import CourseEnv

INSTALLER_VARIABLE = "COURSE_INSTALLER"


class SetupFailed(Exception):
    """Setting up failed; the reason was already told to the learner. Carries the exit code."""

    def __init__(self, code: int = 1) -> None:
        super().__init__(code)
        self.code = code


# What a first install takes on a laptop, told to the learner before it starts.
EXPECTED_SECONDS = {"uv": 15, "pip": 90}


def chosen_installer(environ: Mapping[str, str]) -> str:
    """``"uv"``, ``"pip"`` or ``""`` (take uv if it can be had)."""
    value = environ.get(INSTALLER_VARIABLE, "").strip().lower()
    if value not in ("", "uv", "pip"):
        messages.say("BAD_INSTALLER", value=value)
        raise SetupFailed(2)
    return value


def requirement(root: Path, extras: set[str]) -> str:
    """The editable requirement for the checkout, e.g. ``/course[dev]``."""
    return f"{root}[{','.join(sorted(extras))}]" if extras else str(root)


def installer_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment for the installers.

    pip checks for its own updates on every run: not here. uv trusts only the certificates it
    was built with, unlike pip, which also takes the system's: behind a proxy that inspects TLS
    (common in companies and classrooms) uv would fail where pip works, so it is told to use
    the system's certificates too (``UV_SYSTEM_CERTS``; ``UV_NATIVE_TLS`` for older uv).
    """
    defaults = {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "UV_SYSTEM_CERTS": "1", "UV_NATIVE_TLS": "1"}
    return {**defaults, **environ}


def uv_in(env: CourseEnv) -> Path:
    return env.bin_dir / ("uv.exe" if env.windows else "uv")


def say_no_venv_module(python: str, version: tuple[int, ...]) -> None:
    """Debian's Python without its venv part: the one fix the learner needs."""
    messages.say("NO_VENV_MODULE", python=python, version=".".join(map(str, version[:2])))


# Where the venv's Python finds the pip wheel it bundles for ensurepip (Debian keeps its wheels
# apart, in /usr/share/python-wheels); printed as a path, or nothing when there is none.
FIND_BUNDLED_PIP = """
import glob, os, ensurepip
here = os.path.join(os.path.dirname(ensurepip.__file__), "_bundled")
found = sorted(glob.glob(os.path.join(here, "pip-*.whl")))
found = found or sorted(glob.glob("/usr/share/python-wheels/pip-*.whl"))
print(found[-1] if found else "")
"""


def bundled_pip_wheel(env: CourseEnv) -> str:
    reply = subprocess.run(
        [str(env.python), "-c", FIND_BUNDLED_PIP], capture_output=True, text=True
    )
    return reply.stdout.strip() if reply.returncode == 0 else ""


def has_pip(env: CourseEnv) -> bool:
    command = [str(env.python), "-m", "pip", "--version"]
    return subprocess.call(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0


def ensure_pip(env: CourseEnv) -> bool:
    """Whether ``env`` has pip, after ensurepip put it there if a venv was made without it."""
    if has_pip(env):
        return True
    command = [str(env.python), "-m", "ensurepip", "--default-pip"]
    return subprocess.run(command, capture_output=True).returncode == 0 and has_pip(env)


def pip_command(env: CourseEnv) -> list[str] | None:
    """Running pip: from ``env``, or from the bundled wheel itself when ``env`` has no pip."""
    if has_pip(env):
        return [str(env.python), "-m", "pip"]
    wheel = bundled_pip_wheel(env)
    if wheel:
        return [str(env.python), os.path.join(wheel, "pip")]
    return [str(env.python), "-m", "pip"] if ensure_pip(env) else None


def find_or_get_uv(env: CourseEnv) -> tuple[str | None, str]:
    """The uv to use and, when there is none, why not."""
    on_path = shutil.which("uv")
    if on_path:
        return on_path, ""
    if uv_in(env).exists():
        return str(uv_in(env)), ""
    if env.kind != "venv":
        return None, messages.text("NO_UV_ON_PATH")
    pip = pip_command(env)
    if pip is None:
        return None, messages.text("NO_PIP_FOR_UV")
    code = subprocess.call([*pip, "install", "--quiet", "uv"], env=installer_environ(os.environ))
    if code != 0 or not uv_in(env).exists():
        return None, messages.text("PIP_UV_FAILED", code=code)
    return str(uv_in(env)), ""


def install_course(env: CourseEnv, root: Path, extras: set[str], *, again: bool) -> str:
    """Install the checkout (editable) with ``extras`` into ``env``; the installer's name."""
    choice = chosen_installer(os.environ)
    uv, reason = (None, "") if choice == "pip" else find_or_get_uv(env)
    if uv is None and choice == "uv":
        messages.say("UV_REQUIRED", reason=reason)
        raise SetupFailed(1)
    if uv is None and choice == "":
        messages.say("UV_UNAVAILABLE", reason=reason)
    installer = "uv" if uv else "pip"
    if again:
        messages.say("INSTALLING_AGAIN", installer=installer)
    else:
        messages.say(
            "INSTALLING", prefix=env.prefix, installer=installer,
            seconds=EXPECTED_SECONDS[installer],
        )  # fmt: skip
    target = requirement(root, extras)
    started = time.monotonic()
    compile_all = "dev" in extras
    code = run_installer(env, target, uv, compile_all=compile_all)
    if code != 0 and uv and choice == "":
        messages.say("UV_FAILED", code=code)
        installer, code = "pip", run_installer(env, target, None, compile_all=compile_all)
    if code != 0:
        messages.say("INSTALL_FAILED", code=code)
        raise SetupFailed(code)
    messages.say("INSTALLED", installer=installer, elapsed=time.monotonic() - started)
    return installer


def run_installer(env: CourseEnv, target: str, uv: str | None, *, compile_all: bool) -> int:
    """Install ``target`` (editable) into ``env`` with ``uv``, or with pip when it is None.

    ``compile_all`` (the dev extra, for the test suite): uv also writes every module's bytecode,
    as pip does by default. The suite starts thousands of Python processes (kernels, servers,
    nbval runs); where ``PYTHONDONTWRITEBYTECODE`` is set (common in containers and CI images)
    none of them writes the bytecode it compiles, so each would compile openai, anthropic,
    IPython and the rest again: about 45% of a kernel test's CPU time. A learner's start skips
    it: Python compiles lazily what a lesson imports, and a first start stays short.
    """
    if uv:
        # pip too, into a venv: it was made without one, and %pip in a notebook needs it
        with_pip = ["pip"] if env.kind == "venv" else []
        python = ["--python", str(env.python)]
        compiled = ["--compile-bytecode"] if compile_all else []
        command = [uv, "pip", "install", "--quiet", *python, *compiled, "-e", target, *with_pip]
    elif ensure_pip(env):
        command = [str(env.python), "-m", "pip", "install", "--quiet", "-e", target]
    else:  # said once, here: the uv road only reports that it had no pip to fetch uv with
        say_no_venv_module(str(env.python), tuple(sys.version_info[:3]))
        raise SetupFailed(1)
    return subprocess.call(command, env=installer_environ(os.environ))
