"""How much the grader costs on top of plain nbval, and what a dead kernel costs.

1. Overhead: N submissions of every lesson (the solution notebooks, so every cell runs), graded
   with ``course grade --jobs J`` against plain ``pytest --nbval-lax --nbval-current-env`` on
   the same files, in the same run. Target: at most 1.5x.
2. A dead kernel: one notebook whose first exercise calls ``os._exit``, graded with the default
   30 s cell timeout, against the same notebook without that line. Target: at most 10 s more.
   (Plain nbval only notices the death when the cell timeout runs out.)

    python benchmarks/bench_grade.py [--copies 20] [--jobs 2]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        files = make_class(work / "class", args.copies)
        plain = timed(
            [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax",
             "--nbval-current-env", *map(str, files)],
            work / "class",
        )  # fmt: skip
        grader = timed(
            [python, "-m", "course_lib", "grade", str(work / "class"), "--out",
             str(work / "out"), "--jobs", str(args.jobs)],
            ROOT,
        )  # fmt: skip
        print(f"{len(files)} submissions ({args.copies} of each of the lessons)")
        print(f"plain pytest --nbval-lax (one process): {plain:7.1f} s")
        print(f"course grade --jobs {args.jobs}:               {grader:7.1f} s")
        print(f"ratio grader / plain:                   {grader / plain:7.2f}x (target <= 1.5x)")

        lesson = sorted((ROOT / "solutions").glob("*.ipynb"))[0]
        healthy, dead = work / "healthy" / "s" / lesson.name, work / "dead" / "s" / lesson.name
        healthy.parent.mkdir(parents=True)
        shutil.copy(lesson, healthy)
        with_dead_kernel(lesson, dead)
        base = timed([python, "-m", "course_lib", "grade", str(healthy.parent.parent), "--out",
                      str(work / "o1")], ROOT)  # fmt: skip
        died = timed([python, "-m", "course_lib", "grade", str(dead.parent.parent), "--out",
                      str(work / "o2")], ROOT)  # fmt: skip
        nbval_dead = timed(
            [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax",
             "--nbval-current-env", "--nbval-cell-timeout=30", str(dead)],
            dead.parent,
        )  # fmt: skip
        print(f"\n{lesson.stem}: graded healthy {base:.1f} s, with os._exit {died:.1f} s")
        print(f"time lost to the dead kernel: {died - base:.1f} s (target <= 10 s)")
        print(f"plain nbval (30 s cell timeout), same notebook: {nbval_dead:.1f} s")


if __name__ == "__main__":
    main()
