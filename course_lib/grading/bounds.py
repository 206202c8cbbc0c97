"""What one submission may cost the class run, at most: the limits, in one place.

A submission is read, analysed and run by the grader's own processes; whatever it holds, its
cost is bounded by numbers that come from the course (the lesson's own cell count) and the
instructor's options, never from the submission. ``docs/grading.md`` ("Bounds") states them;
a test holds the page and these constants equal.

- **Source**: each code cell at most ``parse.MAX_CELL_SOURCE`` characters and the notebook's
  code at most ``parse.MAX_CODE_SOURCE``, counted in the raw JSON before anything parses it.
- **Analysis** (parsing, sanitizing and reading the learner's sources: ``analysis``): in a
  child process with at most ``ANALYSIS_MEMORY_MB`` of memory beyond what it starts with and
  ``ANALYSIS_SECONDS`` of time.
- **Run**: the cells may spend ``cell_seconds`` in all (the lesson's code cells times the
  cell timeout, on the clock), however many cells the submission has; after that no cell
  starts. The pytest process is killed at ``run_seconds``, which adds the time to start
  kernels and replay cells, and the last cell's timeout.
- **Messages**: no message from a kernel is received if it is larger than
  ``MAX_MESSAGE_BYTES``; every byte of every output message counts toward the output cap, and
  outputs are never kept (the grading compares none); an error keeps ``KEPT_ERROR_CHARS`` of
  its text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from course_lib.grading.own_time import WALL_FACTOR

if TYPE_CHECKING:
    from course_lib.grading.canonical import Lesson

ANALYSIS_MEMORY_MB = 1024
ANALYSIS_SECONDS = 120
# The run: pytest's start and the first kernel's (two attempts at most, ``kernel.READY_SECONDS``
# each), then per cell of the lesson its timeout plus the time to interrupt it, restart a kernel
# it ended and replay the cells before it.
START_SECONDS = 60
CELL_SLACK_SECONDS = 15
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
KEPT_ERROR_CHARS = 20_000


def lesson_code_cells(lesson: Lesson) -> int:
    """The lesson's own code cells (its canonical notebook: the course's, not the learner's)."""
    return sum(cell.cell_type == "code" for cell in lesson.notebook.cells)


def cell_seconds(lesson: Lesson, cell_timeout: float) -> float:
    """The time a submission's cells may spend running, in all."""
    return lesson_code_cells(lesson) * cell_timeout


def run_seconds(lesson: Lesson, cell_timeout: float) -> float:
    """When the submission's pytest process is killed, whatever it is doing: its start, the
    cells' time and, per cell of the lesson, the slack; and the last cell, which may have
    started just before the cells' time ran out and whose timeout (own time, ``own_time``) may
    last ``WALL_FACTOR`` times its seconds on the clock."""
    cells = lesson_code_cells(lesson)
    return START_SECONDS + cells * (cell_timeout + CELL_SLACK_SECONDS) + WALL_FACTOR * cell_timeout
