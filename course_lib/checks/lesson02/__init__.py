"""Checks for notebook 02_reflection, one module per exercise."""

from course_lib.checks.lesson02 import (  # noqa: F401 (importing registers 02.1-02.5)
    docstring,
    drift,
    function_to_tool,
    json_type,
    parameters_schema,
)
