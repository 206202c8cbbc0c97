"""The ``course`` command line (also ``python -m course_lib``).

Each area of the library owns its subcommands in a small ``cli`` module with a
``register(subparsers)`` function; this file only puts them together.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

# Modules that contribute subcommands, in the order ``--help`` lists them.
COMMAND_MODULES = (
    "course_lib.authoring.cli",  # build
    "course_lib.grading.cli",  # check, grade
    "course_lib.local_model.cli",  # serve-model
    "course_lib.mcp_servers.cli",  # serve-mcp
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course",
        description=(
            "Tool Calling from Scratch: build, check, grade, serve the local model and the "
            "course's tools over MCP."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # Every subcommand sets ``handler`` (a function of the parsed args returning an exit code).
    return int(args.handler(args) or 0)
