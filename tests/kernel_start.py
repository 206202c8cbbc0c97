"""A kernel that died before its first reply because another process took one of its ports.

jupyter_client picks a kernel's five TCP ports by binding to port 0 and closing the sockets; until
the kernel binds them, another process starting a kernel at the same moment may be handed one of
them (measured here: 0.16% of pairs of simultaneous picks share a port), and the kernel that
binds second dies before it replies to ``kernel_info``. The suite starts two nbval runs at once
(a lesson's editions side by side), so such a run is started again, once: it ran no cell and
says nothing of the notebook. A notebook whose kernel cannot start fails the second run too.
(The grader's kernels use unix sockets in a private folder, and retry a failed start: see
course_lib/grading/kernel.py.)
"""

from __future__ import annotations

# jupyter_client's error when the kernel died before the first cell ran (nbval reports it as
# the error of every cell, starting at the first).
DIED_BEFORE_REPLYING = "RuntimeError: Kernel died before"
# nbval's summary line then; pytest cuts the line to the terminal's width (80 columns when piped).
DIED_AT_START = "::Cell 0 - RuntimeError: Kernel died before"


def lost_its_kernel_at_start(output: str) -> bool:
    """Whether nbval's ``output`` is that of a run whose kernel died before any cell ran."""
    return DIED_AT_START in output


def first_cell_lost_its_kernel(first_cell_error: str) -> bool:
    """Whether what nbval reported of a notebook's first cell (its JUnit failure or error, as
    tests/test_notebooks.py reads it) says the kernel died before the cell ran."""
    return DIED_BEFORE_REPLYING in first_cell_error


def kernel_died_at_start(error: BaseException) -> bool:
    """Whether ``error``, raised by a notebook run in this process (nbclient, as
    ``course_lib.authoring.execute.run_notebook`` runs it), says its kernel died before the
    first cell ran."""
    return isinstance(error, RuntimeError) and str(error).startswith(
        DIED_BEFORE_REPLYING.removeprefix("RuntimeError: ")
    )
