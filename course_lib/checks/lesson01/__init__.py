"""Checks for notebook 01_handwritten_schemas, one module per exercise."""

from course_lib.checks.lesson01 import (  # noqa: F401 (importing registers 01.1 to 01.7)
    description,
    formats,
    notes_tool,
    react,
    round_trip,
    tool_message,
    weather_tool,
)
