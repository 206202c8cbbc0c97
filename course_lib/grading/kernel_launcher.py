"""Start an IPython kernel inside the grading limits:
``python -m course_lib.grading.kernel_launcher --memory-mb N --writable DIR -- <ipykernel args>``.

The limits (see ``sandbox``) are set in the kernel process itself, before IPython loads, so every
learner cell and every process it starts inherits them. History is switched off: parallel
kernels would all write to one SQLite file.
"""

from __future__ import annotations

import argparse
import sys

from course_lib.grading.sandbox import confine_writes, limit_resources


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="kernel_launcher")
    parser.add_argument("--memory-mb", type=int, required=True)
    parser.add_argument("--writable", action="append", default=[])
    parser.add_argument("kernel_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    limit_resources(args.memory_mb)
    if args.writable:
        confine_writes(args.writable)
    from ipykernel import kernelapp

    rest = [arg for arg in args.kernel_args if arg != "--"]
    sys.argv = [sys.argv[0], *rest, "--HistoryManager.enabled=False"]
    kernelapp.launch_new_instance()


if __name__ == "__main__":
    main(sys.argv[1:])
