"""How long each lesson takes to run, and how long each of its checks takes.

Runs every solution notebook top to bottom in a fresh kernel of this Python (as a learner's
"Run All" would), with nbclient's per-cell timings, and prints per lesson: the wall time of the
whole run (kernel start included), the time spent in cells, and the slowest check cell. Targets
from the course spec: a lesson in well under 30 s, a check in well under 1 s.

    python benchmarks/bench_lessons.py [--rounds 3]

The medians over the rounds are printed; timings are informational, never test assertions.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from course_lib.authoring.execute import run_notebook  # noqa: E402


def cell_seconds(cell) -> float:
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return 0.0
    parse = datetime.datetime.fromisoformat
    return (parse(end.replace("Z", "+00:00")) - parse(start.replace("Z", "+00:00"))).total_seconds()


def measure(path: Path) -> tuple[float, float, float, str]:
    """Wall seconds, seconds inside cells, the slowest check's seconds and its exercise id."""
    nb = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    run_notebook(nb, path.parent, record_timing=True)
    wall = time.perf_counter() - started
    in_cells = sum(cell_seconds(cell) for cell in nb.cells if cell.cell_type == "code")
    checks = [
        (cell_seconds(cell), cell.metadata["course"]["check"])
        for cell in nb.cells
        if cell.cell_type == "code" and "check" in cell.metadata.get("course", {})
    ]
    slowest, exercise = max(checks) if checks else (0.0, "-")
    return wall, in_cells, slowest, exercise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{platform.platform()}, {platform.processor() or platform.machine()}, Python "
        f"{platform.python_version()}, {args.rounds} rounds, medians"
    )
    print("| lesson | run all (s) | in cells (s) | slowest check (s) |")
    print("|---|---:|---:|---:|")
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        rounds = [measure(path) for _ in range(args.rounds)]
        wall = statistics.median(r[0] for r in rounds)
        cells = statistics.median(r[1] for r in rounds)
        slowest = max(rounds, key=lambda r: r[2])
        print(f"| {path.stem} | {wall:.1f} | {cells:.1f} | {slowest[2]:.3f} ({slowest[3]}) |")


if __name__ == "__main__":
    main()
