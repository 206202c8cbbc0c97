"""Checks for notebook 09_capstone, in notebook order: the routing policy (09.1), the permissions
policy (09.2), approval before a destructive tool (09.3), a conversation that remembers (09.4),
the context budget (09.5) and the assembled assistant (09.6, graded by scenarios)."""

from course_lib.i18n import ENGLISH, speaking

# In English whatever the importer speaks: what the modules build at import (their rules' case
# labels) is the same in every process; what a failure says is said when it fails.
with speaking(ENGLISH):
    from course_lib.checks.lesson09 import (  # noqa: F401 (importing registers 09.1-09.6)
        approval,
        assistant,
        budget,
        memory,
        permissions,
        routing,
    )
