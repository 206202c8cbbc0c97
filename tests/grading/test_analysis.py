"""The learner's sources are read in a child process with a memory and a time limit: what it
finds is what reading them here finds, a refusal comes back as one, and a child that runs out
is a clear ``AnalysisFailed`` (that submission's ``invalid`` rows), never the grader's end."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

import nbformat
import pytest
from grading_lesson import SOLUTIONS, submission, write

from course_lib.grading.analysis import (
    FRESH_MAIN,
    TIME_SIGNALS,
    AnalysisFailed,
    analyse,
    analyse_apart,
)
from course_lib.grading.parse import MAX_CELL_SOURCE, InvalidSubmission


def chained(cells: int) -> nbformat.NotebookNode:
    """Every exercise's answer calls the last of a chain of helpers, each in a cell of its own:
    finding which cells make up the answers takes a round per helper (seconds of CPU)."""
    nb = submission(
        {
            "90.1": f"def double(x):\n    return h{cells - 1}(x)",
            "90.2": f"def shout(word):\n    return h{cells - 1}(word)",
            "90.3": f"def type_name(annotation):\n    return h{cells - 1}(annotation)",
        }
    )
    for n in range(cells):
        source = f"def h{n}(x):\n    return h{n - 1}(x)" if n else "def h0(x):\n    return x"
        nb.cells.insert(2 + n, nbformat.v4.new_code_cell(source, id=f"h{n}"))
    return nb


@pytest.fixture(params=["forked", "fresh"])
def road(request, monkeypatch):
    """The child forked by the fork server, or a fresh Python process (``COURSE_GRADE_FORK=0``)."""
    monkeypatch.setenv("COURSE_GRADE_FORK", "1" if request.param == "forked" else "0")
    return request.param


def test_the_child_finds_what_reading_here_finds(tmp_path, lesson, road):
    nb = submission({**SOLUTIONS, "90.1": "import course_lib.reference as r\ndouble = r.to_text"})
    path = write(tmp_path / "90_test.ipynb", nb)
    apart = analyse_apart(path, lesson)
    here = analyse(path.read_bytes(), lesson)
    assert apart == here
    assert apart.read.reasons["90.1"] and "course_lib.reference" in apart.read.reasons["90.1"]
    assert set(apart.prints) == {"90.1", "90.2", "90.3"}


def test_a_refusal_in_the_child_is_the_submissions_refusal(tmp_path, lesson):
    path = write(tmp_path / "90_test.ipynb", submission({"90.1": "#" * (MAX_CELL_SOURCE + 1)}))
    with pytest.raises(InvalidSubmission, match="the grader reads in one cell"):
        analyse_apart(path, lesson)


def test_a_child_out_of_memory_is_a_clear_failure(tmp_path, lesson, road):
    literal = "x = [" + "0," * (MAX_CELL_SOURCE // 2 - 10) + "]"
    path = write(tmp_path / "90_test.ipynb", submission({**SOLUTIONS, "90.1": literal}))
    assert analyse_apart(path, lesson).cells  # read within the usual limit
    with pytest.raises(AnalysisFailed, match="within 1 MB of memory"):
        analyse_apart(path, lesson, memory_mb=1)


@pytest.fixture(scope="module")
def slow_to_read(tmp_path_factory, lesson):
    """A notebook that takes seconds of CPU to read, and how many (measured here: CPU time,
    which a busy machine does not shrink, unlike what it costs on the clock)."""
    path = write(tmp_path_factory.mktemp("slow") / "90_test.ipynb", chained(800))
    start = time.process_time()
    analyse(path.read_bytes(), lesson)
    return path, time.process_time() - start


def test_a_child_out_of_time_is_a_clear_failure(slow_to_read, lesson, road):
    path, cost = slow_to_read
    # A quarter of what reading it costs: however busy the machine, the child's CPU time (or,
    # first, the clock) runs out, and the message names that limit, not the memory's.
    seconds = max(0.1, round(cost / 4, 1))
    assert cost >= 3 * seconds, f"reading it took only {cost:.2f} s of CPU time here"
    with pytest.raises(AnalysisFailed, match=f"within {seconds:g} s;"):
        analyse_apart(path, lesson, seconds=seconds)


# A child whose start cost more CPU time than its limit (a fresh process's imports on a busy
# machine): it still gets its seconds of reading, then the CPU time limit's signal ends it.
LATE_LIMIT = """
import sys, time
from course_lib.grading.analysis import _limit

while time.process_time() < float(sys.argv[1]):
    pass
print(time.process_time(), flush=True)
_limit(1024, float(sys.argv[2]))
while True:
    pass
"""


TICKS = 0.05


def test_the_time_limit_counts_from_the_childs_start_not_before():
    spent, seconds = 1.1, 0.3  # had it counted from the process's start (in whole seconds: 1)
    child = subprocess.Popen(
        [sys.executable, "-c", LATE_LIMIT, str(spent), str(seconds)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    limited_at = float(child.stdout.readline())
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    child.stdout.close()
    assert child.returncode in TIME_SIGNALS, child.returncode
    # (the system counts a process's CPU time in clock ticks: a few of them, at most, short)
    assert usage.ru_utime + usage.ru_stime >= limited_at + seconds - TICKS


def test_what_the_child_sends_back_is_bounded_by_the_code_not_the_file(tmp_path, lesson):
    plain = analyse_apart(
        write(tmp_path / "plain" / "90_test.ipynb", submission(SOLUTIONS)), lesson
    )
    nb = submission(SOLUTIONS)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("m" * 10_000_000, id="notes"))
    nb.cells[3].metadata.update(junk="j" * 5_000_000, tags=["t" * 5_000_000, "mine"])
    nb.metadata["junk"] = "n" * 5_000_000
    path = write(tmp_path / "padded" / "90_test.ipynb", nb)
    padded = analyse_apart(path, lesson)
    assert len(pickle.dumps(padded)) < 2 * len(pickle.dumps(plain))
    assert (padded.sanitized.roles, padded.read, padded.prints) == (
        plain.sanitized.roles,
        plain.read,
        plain.prints,
    )
    assert padded.sanitized.notebook.cells[3].metadata == {"tags": ["mine"]}


def test_a_fresh_child_goes_without_the_iri_grammar():
    """As the fork server's children: jsonschema (which nbformat imports) would build its IRI
    grammar (seconds of CPU on a busy machine) for a check the reading never makes."""
    imports = FRESH_MAIN.split("run_job(sys.argv")[0]
    code = imports + "import nbformat; print(sys.modules.get('rfc3987_syntax', 'absent'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "None"
