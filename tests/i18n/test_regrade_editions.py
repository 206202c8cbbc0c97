"""Issue 28: each edition's regrade is byte-identical. The same lesson 00 answers, handed in
from the English and from the Chinese edition (a solved one and a wrong one each), graded twice
by ``course grade`` in two processes: every file (grades, report, feedback pages in their
edition's language) is the same to the byte."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
LESSON = "00_welcome.ipynb"


def hand_in(root: Path) -> Path:
    for edition, sub in (("en", ""), ("zh", "zh-CN")):
        for kind in ("solved", "wrong"):
            nb = nbformat.read(ROOT / "solutions" / sub / LESSON, as_version=4)
            if kind == "wrong":
                (cell,) = [cell for cell in nb.cells if cell.get("id") == "w00-ex1"]
                cell.source = cell.source.replace('f"Hello, {name}!"', '"Hello, Ada!"')
            (root / "class" / f"{edition}-{kind}").mkdir(parents=True)
            nbformat.write(nb, root / "class" / f"{edition}-{kind}" / LESSON)
    return root / "class"


def grade(submissions: Path, out: Path) -> dict[str, bytes]:
    run = subprocess.run(
        [sys.executable, "-m", "course_lib", "grade", str(submissions), "--out", str(out),
         "--accept-isolation-gap"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={k: v for k, v in os.environ.items() if k != "COURSE_LANG"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_each_editions_regrade_writes_byte_identical_files(tmp_path):
    submissions = hand_in(tmp_path)
    first, second = grade(submissions, tmp_path / "one"), grade(submissions, tmp_path / "two")
    assert sorted(first) == sorted(second)
    assert {"grades.csv", "grades.json", "feedback/zh-wrong.md", "feedback/en-wrong.md"} <= set(
        first
    )
    assert "用例：" in first["feedback/zh-wrong.md"].decode()
    assert "Case:" in first["feedback/en-wrong.md"].decode()
    assert [name for name in first if first[name] != second[name]] == []
