"""Checks for notebook 02_reflection, one module per exercise."""

from course_lib.i18n import ENGLISH, speaking

# In English whatever the importer speaks: what the modules build at import (their rules' case
# labels) is the same in every process; what a failure says is said when it fails.
with speaking(ENGLISH):
    from course_lib.checks.lesson02 import (  # noqa: F401 (importing registers 02.1-02.5)
        docstring,
        drift,
        function_to_tool,
        json_type,
        parameters_schema,
    )
