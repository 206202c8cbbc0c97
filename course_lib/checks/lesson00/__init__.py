"""Checks for notebook 00_welcome."""

from course_lib.i18n import ENGLISH, speaking

# In English whatever the importer speaks: what the modules build at import (their rules' case
# labels) is the same in every process; what a failure says is said when it fails.
with speaking(ENGLISH):
    from course_lib.checks.lesson00 import greeting  # noqa: F401 (registers 00.1)
