"""Checks for notebook 08_mcp, one module per exercise (``kernel_side`` runs in the kernel)."""

from course_lib.checks.lesson08 import (  # noqa: F401 (importing registers 08.1 to 08.4)
    mcp_loop,
    openai_tools,
    serve_registry,
    structured_result,
)
