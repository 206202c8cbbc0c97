"""Checks for notebook 05_agent_loop, one module per exercise."""

from course_lib.i18n import ENGLISH, speaking

# In English whatever the importer speaks: what the modules build at import (their rules' case
# labels) is the same in every process; what a failure says is said when it fails.
with speaking(ENGLISH):
    from course_lib.checks.lesson05 import (  # noqa: F401 (importing registers 05.1 to 05.6)
        agent_loop,
        async_tool_calls,
        fixed_loop,
        stream,
        tool_calls,
        tool_choice,
    )
