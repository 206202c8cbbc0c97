"""Checks for notebook 06_hardening, one module per exercise."""

from course_lib.checks.lesson06 import (  # noqa: F401 (importing registers 06.1 to 06.5)
    anthropic_strict,
    roles,
    safe_calculate,
    to_strict,
    tracing,
)
