"""Checks for notebook 08_mcp, one module per exercise (``kernel_side`` runs in the kernel)."""

from course_lib.i18n import ENGLISH, speaking

# In English whatever the importer speaks: what the modules build at import (their rules' case
# labels) is the same in every process; what a failure says is said when it fails.
with speaking(ENGLISH):
    from course_lib.checks.lesson08 import (  # noqa: F401 (importing registers 08.1 to 08.4)
        mcp_loop,
        openai_tools,
        serve_registry,
        structured_result,
    )
