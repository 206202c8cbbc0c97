"""Checks for notebook 07_other_protocols, one module per exercise."""

from course_lib.i18n import ENGLISH, speaking

# In English whatever the importer speaks: what the modules build at import (their rules' case
# labels) is the same in every process; what a failure says is said when it fails.
with speaking(ENGLISH):
    from course_lib.checks.lesson07 import (  # noqa: F401 (importing registers 07.1 to 07.4)
        anthropic_round_trip,
        chat_to_responses,
        extract,
        responses_round_trip,
    )
