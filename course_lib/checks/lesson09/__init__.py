"""Checks for notebook 09_capstone: the routing policy (09.2), the permissions policy (09.3) and
the assembled assistant (09.1, graded by scenarios)."""

from course_lib.checks.lesson09 import (  # noqa: F401 (importing registers 09.1-09.3)
    assistant,
    permissions,
    routing,
)
