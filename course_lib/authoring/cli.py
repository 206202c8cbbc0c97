"""``course build [--check]``, ``course execute PATH...`` and ``course new-exercise NN.K``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from course_lib.authoring.build import NOTEBOOKS, SOLUTIONS, build_all, shown, stale_notebooks
from course_lib.authoring.execute import execute_notebook
from course_lib.authoring.scaffold import NewExercise, ScaffoldError, new_exercise
from course_lib.authoring.steps import AuthoringError


def register(subparsers: argparse._SubParsersAction) -> None:
    build = subparsers.add_parser(
        "build", help="write notebooks/ (student versions) from solutions/"
    )
    build.add_argument(
        "--check", action="store_true", help="write nothing; fail if notebooks/ is out of sync"
    )
    build.add_argument("--solutions", type=Path, default=SOLUTIONS, help=argparse.SUPPRESS)
    build.add_argument("--notebooks", type=Path, default=NOTEBOOKS, help=argparse.SUPPRESS)
    build.set_defaults(handler=run_build)

    execute = subparsers.add_parser(
        "execute", help="re-run solution notebooks in place to store fresh outputs"
    )
    execute.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    execute.set_defaults(handler=run_execute)

    new = subparsers.add_parser(
        "new-exercise",
        help="add an exercise: its solution cells, check module and test module, as stubs",
    )
    new.add_argument("exercise_id", metavar="NN.K", help="the new exercise's id, such as 03.7")
    new.add_argument("--target", required=True, help="the name the learner writes (a function)")
    new.add_argument("--points", type=int, default=1, help="its points (default 1)")
    new.add_argument("--root", type=Path, default=SOLUTIONS.parent, help=argparse.SUPPRESS)
    new.set_defaults(handler=run_new_exercise)


def run_build(args: argparse.Namespace) -> int:
    try:
        if args.check:
            problems = stale_notebooks(args.solutions, args.notebooks)
            for line in problems:
                print(line, file=sys.stderr)
            if problems:
                print("Run `python -m course_lib build` to regenerate notebooks/.", file=sys.stderr)
                return 1
            print("notebooks/ is in sync with solutions/.")
            return 0
        written = build_all(args.solutions, args.notebooks)
    except AuthoringError as exc:
        print(f"authoring error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {shown(path, args.solutions, args.notebooks)}")
    if not written:
        print("notebooks/ was already up to date.")
    return 0


def run_execute(args: argparse.Namespace) -> int:
    for path in args.paths:
        if not path.exists():
            print(f"no such notebook: {path}", file=sys.stderr)
            return 2
        execute_notebook(path)
        print(f"executed {path}")
    return 0


def run_new_exercise(args: argparse.Namespace) -> int:
    try:
        written = new_exercise(args.root, NewExercise(args.exercise_id, args.target, args.points))
    except ScaffoldError as exc:
        print(f"cannot add exercise {args.exercise_id}: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path.relative_to(args.root)}")
    print(
        "Next: write the contract's rules (each Rule.text is one item of the contract cell, word "
        "for word), the solution, the check and its tests; then `ruff check --fix .` and "
        "`python -m course_lib build`."
    )
    return 0
