"""Checks for notebook 06_hardening, one module per exercise."""

from course_lib.i18n import ENGLISH, speaking

# In English whatever the importer speaks: what the modules build at import (their rules' case
# labels) is the same in every process; what a failure says is said when it fails.
with speaking(ENGLISH):
    from course_lib.checks.lesson06 import (  # noqa: F401 (importing registers 06.1 to 06.5)
        anthropic_strict,
        roles,
        safe_calculate,
        to_strict,
        tracing,
    )
