"""Checks for notebook 01_handwritten_schemas, one module per exercise."""

from course_lib.i18n import ENGLISH, speaking

# In English whatever the importer speaks: what the modules build at import (their rules' case
# labels) is the same in every process; what a failure says is said when it fails.
with speaking(ENGLISH):
    from course_lib.checks.lesson01 import (  # noqa: F401 (importing registers 01.1 to 01.7)
        description,
        formats,
        notes_tool,
        react,
        round_trip,
        tool_message,
        weather_tool,
    )
