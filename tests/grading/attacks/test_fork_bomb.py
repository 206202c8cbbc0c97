"""A fork bomb in a grading kernel: a kernel with a user namespace of its own may run at most
``sandbox.MAX_PROCESSES`` processes and threads (``RLIMIT_NPROC``, which there counts that
namespace's processes alone), so the bomb stops there, the grader and a classmate graded beside
it are untouched, and the rest of the submission is graded as usual.

The bomb is bounded (it stops at ``TRIED`` processes, each ending on its own), so that a
regression costs this machine little: the attack reports whether it got them all.
"""

from __future__ import annotations

from grading_lesson import SOLUTIONS, submission

from attacks.batch import assert_blocked, attack, grade, require
from course_lib.grading.sandbox import MAX_PROCESSES

TRIED = 2 * MAX_PROCESSES
BOMB = f"""
import os, time

def spawn(count):
    children = []
    try:
        for _ in range(count):
            pid = os.fork()
            if pid == 0:
                time.sleep(20)
                os._exit(0)
            children.append(pid)
    finally:
        for pid in children:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    return len(children) == count

ATTEMPTS.append(attempt("{TRIED} processes", lambda: spawn({TRIED})))
ATTEMPTS.append(attempt("8 processes", lambda: spawn(8)))
"""


def test_a_fork_bomb_stops_at_the_process_limit(tmp_path, canonical_dir):
    results = grade(
        tmp_path / "class",
        canonical_dir,
        {"bomb": attack(BOMB), "honest": submission(SOLUTIONS)},
    )
    record = results["bomb"].isolation
    require(record, "user_namespace")
    assert record["max_processes"] == MAX_PROCESSES
    assert_blocked(results["bomb"], [f"{TRIED} processes"], controls=("8 processes",))
    assert results["honest"].points == 6
