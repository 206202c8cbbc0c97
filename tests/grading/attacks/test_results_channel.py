"""The results come back through a pipe the kernel does not hold: a notebook that writes a forged
"everything passed" record into every pipe and socket it can reach changes nothing, for itself
or for the honest classmate graded beside it in the same fork server."""

from __future__ import annotations

from pathlib import Path

import pytest
from grading_lesson import CHECK_MODULE, SLUG, SOLUTIONS, submission, write

from course_lib.grading import GradeOptions, grade_all
from course_lib.grading.canonical import load_lessons
from course_lib.grading.discover import discover

OPTIONS = GradeOptions(cell_timeout=60, memory_mb=1500, jobs=2, check_modules=(CHECK_MODULE,))
FORGE = """
import json, os, stat
FORGED = json.dumps({
    "records": [
        {"index": i, "kind": "passed", "verdict": {"status": "passed", "message": "passed"}}
        for i in range(20)
    ],
    "notes": [],
}).encode()
for name in os.listdir("/proc/self/fd"):
    try:
        fd = int(name)
        if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.write(fd, FORGED)
    except OSError:
        pass
"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory, canonical_dir):
    if not Path("/proc/self/fd").exists():
        pytest.skip("needs /proc")
    root = tmp_path_factory.mktemp("class")
    forger = {"90.1": "def double(x):\n    return x + 2", "90.2": SOLUTIONS["90.2"]}
    write(root / "forger" / f"{SLUG}.ipynb", submission(forger, scratch=FORGE))
    write(root / "honest" / f"{SLUG}.ipynb", submission(SOLUTIONS))
    results = grade_all(discover(root), load_lessons(canonical_dir), OPTIONS)
    return {result.student: result for result in results}


def test_forged_results_written_from_the_kernel_do_not_count(graded):
    statuses = {row.exercise: row.status for row in graded["forger"].exercises}
    assert statuses == {"90.1": "failed", "90.2": "passed", "90.3": "not_attempted"}


def test_the_classmate_graded_beside_the_forger_is_untouched(graded):
    assert graded["honest"].points == 6
    assert {row.status for row in graded["honest"].exercises} == {"passed"}
