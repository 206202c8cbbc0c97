"""The launcher's commands: each makes the course's environment ready, then runs inside it.

- ``start [JUPYTER ARGS...]``: JupyterLab on ``notebooks/``, opening ``00_welcome.ipynb``.
- ``test [PYTEST ARGS...]``: the whole test suite (with the ``dev`` extra), from the course
  folder; pytest collecting no tests counts as a failure.
- ``check``, ``grade``, ``serve-model``, ``build``: the ``course`` command of the same name
  (``python -m course_lib ...``), from the current folder; these reuse any working
  environment rather than make it again for the Python that runs the launcher.
- ``setup [--dev]``: only make the environment ready.

A command runs with the environment's folder first on the PATH and, for ``.venv``,
``VIRTUAL_ENV`` set, as if the environment were activated; on Linux and macOS the launcher
becomes that command (``exec``), so Ctrl-C and exit codes behave as if it had been run directly.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from course_launcher import environment, jupyter, messages
from course_launcher.environment import CourseEnv
from course_launcher.find_python import version_text
from course_launcher.install import SetupFailed

ROOT = Path(__file__).resolve().parents[2]
LIBRARY_COMMANDS = ("check", "grade", "serve-model", "build")
# Set for the ``python -m course_lib ...`` the launcher runs for a learner's command:
# ``python -m course_lib`` in a Python without the course hands over to the launcher unless it
# is set, so the two can never loop.
LAUNCHED_VARIABLE = "COURSE_LAUNCHED"


def main(argv: list[str]) -> int:
    messages.choose_language(argv)  # start --lang zh-CN: the launcher speaks Chinese too
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(messages.text("USAGE"))
        return 0 if argv else 2
    command, arguments = argv[0], argv[1:]
    if command not in ("start", "test", "setup", *LIBRARY_COMMANDS):
        print(messages.text("USAGE"), file=sys.stderr)
        return 2
    try:
        env = environment.select(ROOT, os.environ)
        if command == "setup":
            return setup(env, arguments)
        if command == "start":
            return start(env, arguments)
        if command == "test":
            return test(env, arguments)
        environment.ensure(env, ROOT, dev=False, insist_on_running_python=False)
        library = [str(env.python), "-m", "course_lib", command, *arguments]
        return run(env, library, cwd=None, handed_over=True)
    except SetupFailed as failure:
        return failure.code


def setup(env: CourseEnv, arguments: list[str]) -> int:
    if arguments not in ([], ["--dev"]):
        messages.say("UNKNOWN_OPTION", arguments=" ".join(arguments))
        return 2
    found = environment.ensure(env, ROOT, dev=bool(arguments), insist_on_running_python=True)
    jupyter.write_settings(env)
    messages.say("READY", prefix=env.prefix, version=version_text(found.version))
    return 0


def start(env: CourseEnv, arguments: list[str]) -> int:
    try:
        lang, arguments = jupyter.split_language(arguments)
    except ValueError as exc:
        languages = ", ".join(jupyter.EDITION_FOLDERS)
        messages.say("UNKNOWN_LANGUAGE", languages=languages, value=str(exc))
        return 2
    environment.ensure(env, ROOT, dev=False, insist_on_running_python=True)
    jupyter.write_settings(env)
    banner = messages.text(
        "START_BANNER",
        notebook=jupyter.first_notebook(lang),
        check_command=jupyter.self_check_command(env, lang),
    )
    print(banner, flush=True)
    extra = jupyter.language_environ(env, lang, os.environ)
    return run(env, jupyter.lab_command(env, ROOT, arguments, lang), cwd=ROOT, extra=extra)


def test(env: CourseEnv, arguments: list[str]) -> int:
    environment.ensure(env, ROOT, dev=True, insist_on_running_python=True)
    jupyter.write_settings(env)
    compile_course_library(env)
    code = run(env, [str(env.python), "-m", "pytest", *arguments], cwd=ROOT, wait=True)
    if code == 5:
        messages.say("NO_TESTS")
        return 1
    return code


def compile_course_library(env: CourseEnv) -> None:
    """Write the bytecode of ``course_lib`` before the suite starts its processes.

    The course is installed editable, so the installer compiled none of it; where
    ``PYTHONDONTWRITEBYTECODE`` is set (as in many CI images) every kernel, server and grader the
    suite starts would compile the modules it imports again: measured, 0.2 s of a 1.5 s import's
    CPU in each process, against 0.5 s once. Python never uses bytecode older than its source
    (it checks each file's stamp), and a folder that cannot be written is simply not compiled.
    """
    command = [str(env.python), "-m", "compileall", "-q", str(ROOT / "course_lib")]
    subprocess.call(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def command_environ(
    env: CourseEnv, environ: Mapping[str, str], *, handed_over: bool = False
) -> dict[str, str]:
    """``environ`` as an activated environment would have it.

    ``handed_over``: the command is ``python -m course_lib ...`` run for the learner, which must
    not hand over to the launcher again (``LAUNCHED_VARIABLE``). Not set for JupyterLab and the
    tests, whose own ``python -m course_lib`` may need to hand over (from another Python).
    """
    new = dict(environ)
    entries = [str(path) for path in env.path_entries()]
    new["PATH"] = os.pathsep.join([*entries, environ.get("PATH", "")])
    if env.kind == "venv":
        new["VIRTUAL_ENV"] = str(env.prefix)
    new.pop("PYTHONHOME", None)
    new.pop(LAUNCHED_VARIABLE, None)
    if handed_over:
        new[LAUNCHED_VARIABLE] = "1"
    return new


def run(
    env: CourseEnv, command: list[str], *, cwd: Path | None, wait: bool = False,
    handed_over: bool = False, extra: Mapping[str, str] | None = None,
) -> int:  # fmt: skip
    """Run ``command`` in ``env``: become it (Linux, macOS), or wait for it and pass its code.
    ``extra``: variables this command alone needs."""
    environ = {**command_environ(env, os.environ, handed_over=handed_over), **(extra or {})}
    sys.stdout.flush()
    if os.name != "nt" and not wait:
        if cwd is not None:
            os.chdir(cwd)
        os.execve(command[0], command, environ)
    # The child gets Ctrl-C itself and decides what it means; this process only waits for it.
    # (A handler, not SIG_IGN: an ignored signal would stay ignored in the child.)
    previous = signal.signal(signal.SIGINT, lambda *_: None)
    try:
        return subprocess.call(command, cwd=cwd, env=environ)
    finally:
        signal.signal(signal.SIGINT, previous)
