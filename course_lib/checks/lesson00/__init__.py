"""Checks for notebook 00_welcome."""

from course_lib.checks.lesson00 import greeting  # noqa: F401 (registers 00.1)
