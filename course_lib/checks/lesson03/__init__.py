"""Checks for notebook 03_pitfalls, one module per exercise (one per pitfall family)."""

from course_lib.i18n import ENGLISH, speaking

# In English whatever the importer speaks: what the modules build at import (their rules' case
# labels) is the same in every process; what a failure says is said when it fails.
with speaking(ENGLISH):
    from course_lib.checks.lesson03 import (  # noqa: F401 (importing registers 03.1-03.6)
        annotations,
        containers,
        enums,
        json_type,
        parameters_schema,
        union,
    )
