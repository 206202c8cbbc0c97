"""Checks for notebook 04_registry, one module per exercise (importing each registers it)."""

from course_lib.checks.lesson04 import (  # noqa: F401
    dispatch,
    registry,
    to_text,
    validate_arguments,
    value_problem,
)
