"""The ``course`` command line (also ``python -m course_lib``).

Each area of the library owns its subcommands in a small ``cli`` module with a
``register(subparsers)`` function; this file only puts them together. A command loads only the
module that owns it (``--help`` loads them all): a desktop MCP client that starts ``course
serve-mcp`` should not wait for the grader and nbformat to import.

Two things make the self-check the lessons print, ``python3 -m course_lib check
notebooks/00_welcome.ipynb``, work as written from a fresh terminal, JupyterLab's Terminal and a
notebook cell alike:

- run from the course folder by a Python that does not have the course installed (a fresh
  terminal's ``python3``), this hands over to the launcher ``scripts/course.py``, which runs the
  same command inside the course's environment (making it first if needed);
- a notebook path that does not exist from the current folder is taken from the course folder,
  so the same command works from ``notebooks/`` (where a notebook cell and the Terminal start).

This module is imported before the Python version is known (``python3`` may be 3.9), so it must
stay importable by old interpreters until ``main`` has handed over: no newer syntax at the top.
"""

import argparse
import importlib
import os
import subprocess
import sys
from pathlib import Path

# Each subcommand and the module that registers it, in the order ``--help`` lists them.
COMMANDS = {
    "build": "course_lib.authoring.cli",
    "execute": "course_lib.authoring.cli",
    "new-exercise": "course_lib.authoring.cli",
    "i18n": "course_lib.i18n.cli",
    "check": "course_lib.grading.cli",
    "grade": "course_lib.grading.cli",
    "serve-model": "course_lib.local_model.cli",
    "serve-mcp": "course_lib.mcp_servers.cli",
    "toolkit": "course_lib.toolkit.cli",
}
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))
# The checkout this package is in (for an installed, non-editable copy: not a course folder).
COURSE_ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = COURSE_ROOT / "scripts" / "course.py"
# Set by the launcher for the ``python -m course_lib ...`` it runs, so handing over cannot loop.
LAUNCHED_VARIABLE = "COURSE_LAUNCHED"


def build_parser(command: "str | None" = None) -> argparse.ArgumentParser:
    """The parser of every command, or only of ``command``'s module when it names one."""
    parser = argparse.ArgumentParser(
        prog="course",
        description=(
            "Tool Calling from Scratch: build, check, grade, serve the local model and the "
            "course's tools over MCP."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    modules = (COMMANDS[command],) if command in COMMANDS else COMMAND_MODULES
    for module_name in modules:
        importlib.import_module(module_name).register(subparsers)
    return parser


def installed_here() -> bool:
    """Whether this interpreter has the course installed (rather than merely finding the
    ``course_lib`` folder because the current folder is the course folder)."""
    try:
        from importlib import metadata  # Python 3.8 or newer
    except ImportError:
        return False
    # The course folder itself is left out: an editable install leaves course_lib.egg-info there.
    elsewhere = [entry for entry in sys.path if Path(entry or ".").resolve() != COURSE_ROOT]
    return any(True for _ in metadata.distributions(name="course_lib", path=elsewhere))


def hand_over_to_launcher(argv: "list[str]") -> int:
    """Run ``argv`` through ``scripts/course.py`` (inside the course's environment)."""
    command = [sys.executable, str(LAUNCHER), *argv]
    if os.name == "nt":
        return subprocess.call(command)
    sys.stdout.flush()
    os.execv(sys.executable, command)
    return 1  # not reached


def from_course_root(path: Path) -> Path:
    """``path`` as given when it exists, else from the course folder when it exists there."""
    if path.exists() or path.is_absolute() or not (COURSE_ROOT / path).exists():
        return path
    return COURSE_ROOT / path


def main(argv: "list[str] | None" = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not os.environ.get(LAUNCHED_VARIABLE) and LAUNCHER.exists() and not installed_here():
        return hand_over_to_launcher(arguments)
    if argv is None:  # this process is the command line: nbformat's jsonschema needs no IRIs
        from course_lib.schema_library import hide_grammar_for_good

        hide_grammar_for_good()
    # argparse's own words (usage, options, its errors) in the command's language.
    from course_lib.i18n.arguments import argparse_speaking, command_language

    with argparse_speaking(command_language(arguments)):
        parser = build_parser(arguments[0] if arguments else None)
        args = parser.parse_args(arguments)
    if args.command == "check":
        args.notebooks = [from_course_root(path) for path in args.notebooks]
    # Every subcommand sets ``handler`` (a function of the parsed args returning an exit code).
    return int(args.handler(args) or 0)
