"""The ``course`` command line (also ``python -m course_lib``).

Each area of the library owns its subcommands in a small ``cli`` module with a
``register(subparsers)`` function; this file only puts them together. A command loads only the
module that owns it (``--help`` loads them all): a desktop MCP client that starts ``course
serve-mcp`` should not wait for the grader and nbformat to import.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Each subcommand and the module that registers it, in the order ``--help`` lists them.
COMMANDS = {
    "build": "course_lib.authoring.cli",
    "execute": "course_lib.authoring.cli",
    "check": "course_lib.grading.cli",
    "grade": "course_lib.grading.cli",
    "serve-model": "course_lib.local_model.cli",
    "serve-mcp": "course_lib.mcp_servers.cli",
}
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
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


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments[0] if arguments else None)
    args = parser.parse_args(arguments)
    # Every subcommand sets ``handler`` (a function of the parsed args returning an exit code).
    return int(args.handler(args) or 0)
