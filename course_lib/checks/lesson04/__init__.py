"""Checks for notebook 04_registry, one module per exercise (importing each registers it)."""

from course_lib.i18n import ENGLISH, speaking

# In English whatever the importer speaks: what the modules build at import (their rules' case
# labels) is the same in every process; what a failure says is said when it fails.
with speaking(ENGLISH):
    from course_lib.checks.lesson04 import (  # noqa: F401
        dispatch,
        registry,
        to_text,
        validate_arguments,
        value_problem,
    )
