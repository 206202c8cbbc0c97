"""Checks for notebook 08_mcp, one module per exercise (``kernel_side`` runs in the kernel)."""

from course_lib.checks.lesson08 import serve_registry  # noqa: F401 (registers 08.1)
