"""Which environment the course runs in, and making it ready without surprises.

The course runs in ``.venv/`` inside the course folder, or, when a conda environment other than
``base`` is active, in that environment (``conda env create -f environment.yml`` makes one).

Setting up is done only when needed, so that after the first start the course needs no network:

- no ``.venv``, or one whose Python no longer runs or is too old: make it (again);
- ``start``, ``test`` or ``setup`` run with another Python than the one ``.venv`` was made with
  (another version, or another installation): make it again with the Python the learner used;
- ``pyproject.toml`` changed, or the extras asked for were not installed: install again.

A stamp file in the environment records what was installed. Making ``.venv`` again moves the old
one aside first and puts it back if anything fails (no network, say), so nothing is lost.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from course_launcher import install, messages
from course_launcher.find_python import MINIMUM, version_text
from course_launcher.install import SetupFailed

STAMP = ".course-installed.json"
PROBE = (
    "import json, os, sys; print(json.dumps({'version': list(sys.version_info[:3]), "
    "'base_prefix': os.path.realpath(sys.base_prefix), 'executable': sys.executable}))"
)


@dataclass(frozen=True)
class Interpreter:
    """A Python installation, as far as a virtual environment made from it is concerned."""

    executable: str
    version: tuple[int, ...]
    base_prefix: str

    @classmethod
    def running(cls) -> Interpreter:
        return cls(sys.executable, tuple(sys.version_info[:3]), os.path.realpath(sys.base_prefix))

    def makes_the_same_venv_as(self, other: Interpreter) -> bool:
        """Same installation and minor version: a patch upgrade keeps a venv working."""
        return self.version[:2] == other.version[:2] and self.base_prefix == other.base_prefix


@dataclass(frozen=True)
class CourseEnv:
    """Where the course's packages live: ``kind`` is ``"venv"`` or ``"conda"``."""

    kind: str
    prefix: Path
    name: str
    windows: bool = os.name == "nt"

    @property
    def bin_dir(self) -> Path:
        if not self.windows:
            return self.prefix / "bin"
        return self.prefix / "Scripts" if self.kind == "venv" else self.prefix

    @property
    def python(self) -> Path:
        return self.bin_dir / ("python.exe" if self.windows else "python")

    def path_entries(self) -> list[Path]:
        """The folders to put first on the PATH (a conda environment on Windows has three)."""
        if self.windows and self.kind == "conda":
            return [self.prefix, self.prefix / "Library" / "bin", self.prefix / "Scripts"]
        return [self.bin_dir]


def active_conda(environ: Mapping[str, str]) -> tuple[Path, str] | None:
    """The active conda environment's prefix and name, if one is active."""
    prefix = environ.get("CONDA_PREFIX")
    if not prefix or not (Path(prefix) / "conda-meta").is_dir():
        return None
    return Path(prefix), environ.get("CONDA_DEFAULT_ENV") or Path(prefix).name


def is_conda_base(prefix: Path, name: str) -> bool:
    """conda's own environment: the course does not install into it."""
    return name == "base" or (prefix / "condabin").is_dir()


def select(root: Path, environ: Mapping[str, str]) -> CourseEnv:
    conda = active_conda(environ)
    if conda and is_conda_base(*conda):
        messages.say("CONDA_BASE")
    elif conda:
        return CourseEnv("conda", conda[0], conda[1])
    return CourseEnv("venv", root / ".venv", ".venv")


def probe(python: Path) -> Interpreter | None:
    """The interpreter of an environment, or None when it is missing or does not run."""
    if not python.exists():
        return None
    try:
        reply = subprocess.run(
            [str(python), "-c", PROBE], capture_output=True, text=True, timeout=60
        )
        facts = json.loads(reply.stdout) if reply.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if not facts:
        return None
    return Interpreter(facts["executable"], tuple(facts["version"]), facts["base_prefix"])


# -- the stamp -------------------------------------------------------------------------------


def project_hash(root: Path) -> str:
    return hashlib.sha256((root / "pyproject.toml").read_bytes()).hexdigest()


def read_stamp(env: CourseEnv) -> dict:
    try:
        stamp = json.loads((env.prefix / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


def extras_to_install(env: CourseEnv, root: Path, wanted: set[str]) -> set[str] | None:
    """The extras to install now, or None when what is installed is current.

    Extras installed before for this checkout are kept, so ``start`` after ``test`` does not
    drop the development tools.
    """
    stamp = read_stamp(env)
    same_checkout = stamp.get("root") == str(root)
    installed = set(stamp.get("extras", [])) if same_checkout else set()
    if (
        same_checkout
        and stamp.get("pyproject_sha256") == project_hash(root)
        and wanted <= installed
    ):
        return None
    return wanted | installed


def install_into(env: CourseEnv, root: Path, extras: set[str], *, again: bool) -> None:
    installer = install.install_course(env, root, extras, again=again)
    stamp = {
        "root": str(root),
        "pyproject_sha256": project_hash(root),
        "extras": sorted(extras),
        "installer": installer,
    }
    (env.prefix / STAMP).write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")


def install_if_stale(env: CourseEnv, root: Path, wanted: set[str]) -> None:
    extras = extras_to_install(env, root, wanted)
    if extras is not None:
        install_into(env, root, extras, again=(env.prefix / STAMP).exists())


# -- making an environment ready -----------------------------------------------------------------


def ensure(env: CourseEnv, root: Path, *, dev: bool, insist_on_running_python: bool) -> Interpreter:
    """Make ``env`` ready for the course (with the dev extra if ``dev``); its interpreter.

    ``insist_on_running_python``: ``.venv`` must be made with the Python running this launcher
    (``start``, ``test``, ``setup``); otherwise any working ``.venv`` will do (``check``, ...).
    """
    wanted = {"dev"} if dev else set()
    found = probe(env.python)
    if env.kind == "conda":
        if found is None or found.version[:2] < MINIMUM:
            version = version_text(found.version) if found else "unknown"
            messages.say("CONDA_TOO_OLD", env_name=env.name, version=version)
            raise SetupFailed(1)
        messages.say("USING_CONDA", env_name=env.name, prefix=env.prefix)
        install_if_stale(env, root, wanted)
        return found
    running = Interpreter.running()
    if not env.prefix.exists():
        say_creating(env, running)
        return create_and_install(env, root, wanted, running)
    if found is None:
        messages.say("REBUILDING_BROKEN", prefix=env.prefix)
        return rebuild(env, root, wanted, running)
    if found.version[:2] < MINIMUM:
        messages.say("REBUILDING_TOO_OLD", prefix=env.prefix, version=version_text(found.version))
        return rebuild(env, root, wanted, running)
    if insist_on_running_python and not found.makes_the_same_venv_as(running):
        messages.say(
            "REBUILDING",
            prefix=env.prefix,
            old_version=version_text(found.version),
            old_home=found.base_prefix,
            version=version_text(running.version),
            python=running.executable,
        )
        try:
            return rebuild(env, root, wanted, running)
        except SetupFailed:
            if extras_to_install(env, root, wanted) is not None:
                raise
            messages.say("KEPT_PREVIOUS", prefix=env.prefix, version=version_text(found.version))
            return found
    install_if_stale(env, root, wanted)
    return found


def say_creating(env: CourseEnv, running: Interpreter) -> None:
    messages.say(
        "CREATING", prefix=env.prefix, version=version_text(running.version),
        python=running.executable,
    )  # fmt: skip


def create_and_install(
    env: CourseEnv, root: Path, wanted: set[str], running: Interpreter
) -> Interpreter:
    make_venv(env, running)
    install_into(env, root, wanted, again=False)
    return probe(env.python) or running


def make_venv(env: CourseEnv, running: Interpreter) -> None:
    """``python -m venv`` (it brings pip, which also serves ``%pip`` in the notebooks)."""
    reply = subprocess.run(
        [running.executable, "-m", "venv", str(env.prefix)], capture_output=True, text=True
    )
    if reply.returncode == 0:
        return
    shutil.rmtree(env.prefix, ignore_errors=True)
    output = reply.stdout + reply.stderr
    if "ensurepip" in output:
        version = ".".join(str(part) for part in running.version[:2])
        messages.say("NO_VENV_MODULE", python=running.executable, version=version)
    else:
        print(output, file=sys.stderr)
        messages.say("VENV_FAILED", prefix=env.prefix, code=reply.returncode)
    raise SetupFailed(1)


def rebuild(env: CourseEnv, root: Path, wanted: set[str], running: Interpreter) -> Interpreter:
    """Make ``.venv`` again; on any failure put the old one back where it was."""
    previous = env.prefix.with_name(env.prefix.name + ".previous")
    shutil.rmtree(previous, ignore_errors=True)
    try:
        env.prefix.rename(previous)
    except OSError as error:
        messages.say("MOVE_FAILED", prefix=env.prefix, error=error)
        raise SetupFailed(1) from None
    try:
        found = create_and_install(env, root, wanted, running)
    except (SetupFailed, KeyboardInterrupt):
        shutil.rmtree(env.prefix, ignore_errors=True)
        previous.rename(env.prefix)
        messages.say("RESTORED", prefix=env.prefix)
        raise
    shutil.rmtree(previous, ignore_errors=True)
    return found
