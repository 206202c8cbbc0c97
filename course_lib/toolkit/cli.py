"""``course toolkit``: show whose each part is, and write ``my_toolkit/`` for ``pip install``."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "toolkit",
        help="show which parts of your toolkit are yours and write my_toolkit/ for pip",
        description="List the toolkit's parts (yours or the course's, and why), then write the "
        "package my_toolkit/ from the exercises whose checks passed.",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from course_lib import toolkit
    from course_lib.toolkit.messages import say

    table = toolkit.parts()
    print(table)
    folder = toolkit.build()
    mine = sum(1 for row in table if row["whose"] == say("whose_mine"))
    print(say("built", folder=folder, count=mine, total=len(table)))
    return 0
