"""How much the grader costs on top of plain nbval, and what a dead kernel costs.

1. Overhead at equal parallelism: N copies of every solution notebook (so every cell runs),
   graded with ``course grade --jobs J`` against plain ``pytest --nbval-lax --nbval-current-env``
   on the same files, split over J pytest processes run side by side (one process when J is 1).
   The grader is also timed with ``COURSE_GRADE_FORK=0`` (a fresh pytest process per
   submission instead of a fork of a warm one), to show what the fork server saves, and with
   ``COURSE_GRADE_ZYGOTE=0`` (each kernel started with ``exec`` instead of forked from the
   kernel zygote, Linux), to show what the zygote saves. Rounds are
   interleaved (the candidates take turns) and the medians compared. Target: at most 1.0x.
2. A dead kernel: one notebook whose first exercise calls ``os._exit``, graded with the default
   30 s cell timeout, against the same notebook without that line, in alternating rounds.
   Target: at most 3 s more. (Plain nbval only notices the death when the cell timeout runs
   out; it is timed once for comparison.)

    python benchmarks/bench_grade.py [--copies 2] [--jobs 1] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
NBVAL = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax",
         "--nbval-current-env"]  # fmt: skip


def timed_together(commands: list[tuple[list[str], Path]], env: dict[str, str] | None = None):
    """Wall time of ``commands`` run side by side."""
    started = time.perf_counter()
    processes = [
        subprocess.Popen(
            command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        for command, cwd in commands
    ]
    for process in processes:
        process.wait()
    return time.perf_counter() - started


def make_class(root: Path, copies: int) -> list[Path]:
    files = []
    for number in range(copies):
        for solution in sorted((ROOT / "solutions").glob("*.ipynb")):
            target = root / f"student{number:02d}" / solution.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(solution, target)
            files.append(target)
    return files


def with_dead_kernel(source: Path, target: Path) -> None:
    nb = nbformat.read(source, as_version=4)
    for cell in nb.cells:
        if "exercise" in cell.metadata.get("course", {}):
            cell.source = "import os\nos._exit(1)\n" + cell.source
            break
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)


def grade_command(submissions: Path, out: Path, jobs: int) -> list[str]:
    return [PYTHON, "-m", "course_lib", "grade", str(submissions), "--out", str(out),
            "--jobs", str(jobs)]  # fmt: skip


def overhead(work: Path, copies: int, jobs: int, rounds: int) -> None:
    files = make_class(work / "class", copies)
    shares = [files[i::jobs] for i in range(jobs)]
    fresh_env = {**os.environ, "COURSE_GRADE_FORK": "0"}
    exec_env = {**os.environ, "COURSE_GRADE_ZYGOTE": "0"}
    candidates = {
        "plain": lambda: timed_together(
            [([*NBVAL, *map(str, share)], work / "class") for share in shares]
        ),
        "grader": lambda: timed_together(
            [(grade_command(work / "class", work / "out", jobs), ROOT)]
        ),
        "fresh": lambda: timed_together(
            [(grade_command(work / "class", work / "out2", jobs), ROOT)], env=fresh_env
        ),
        "exec": lambda: timed_together(
            [(grade_command(work / "class", work / "out3", jobs), ROOT)], env=exec_env
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in candidates}
    for round_number in range(rounds):
        turn = round_number % len(candidates)
        order = list(candidates)[turn:] + list(candidates)[:turn]
        for name in order:
            times[name].append(candidates[name]())
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"{len(files)} submissions ({copies} of each lesson), --jobs {jobs}, {rounds} rounds")
    print(f"plain pytest --nbval-lax ({jobs} process(es)):      {median['plain']:7.1f} s")
    print(f"course grade (fork server):                  {median['grader']:7.1f} s")
    print(f"course grade, COURSE_GRADE_FORK=0:           {median['fresh']:7.1f} s")
    print(f"course grade, COURSE_GRADE_ZYGOTE=0:         {median['exec']:7.1f} s")
    print(f"ratio grader / plain:    {median['grader'] / median['plain']:5.2f}x (target <= 1.0x)")
    print(f"ratio fresh / plain:     {median['fresh'] / median['plain']:5.2f}x")
    print(f"ratio exec / plain:      {median['exec'] / median['plain']:5.2f}x")


def dead_kernel(work: Path, rounds: int) -> None:
    lesson = sorted((ROOT / "solutions").glob("*.ipynb"))[0]
    healthy, dead = work / "healthy" / "s" / lesson.name, work / "dead" / "s" / lesson.name
    healthy.parent.mkdir(parents=True)
    shutil.copy(lesson, healthy)
    with_dead_kernel(lesson, dead)
    lost = []
    for _ in range(rounds):
        base = timed_together([(grade_command(healthy.parent.parent, work / "o1", 1), ROOT)])
        died = timed_together([(grade_command(dead.parent.parent, work / "o2", 1), ROOT)])
        lost.append(died - base)
    nbval_dead = timed_together([([*NBVAL, "--nbval-cell-timeout=30", str(dead)], dead.parent)])
    print(f"\n{lesson.stem}, graded with and without os._exit in its first exercise:")
    print(f"time lost to the dead kernel: {statistics.median(lost):.1f} s (median of {rounds}; "
          "target <= 3 s)")  # fmt: skip
    print(f"plain nbval (30 s cell timeout), same notebook: {nbval_dead:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        overhead(Path(tmp), args.copies, args.jobs, args.rounds)
        dead_kernel(Path(tmp), args.rounds)


if __name__ == "__main__":
    main()
