"""The reference implementation of what the course builds, one idea per module.

- ``type_schema``: one annotation to JSON Schema.
- ``docstrings``: descriptions from Google, NumPy and reST docstrings.
- ``parameters``: a function's parameters as one schema, reflected once (``inspect_function``).
"""

from .parameters import FunctionSpec, inspect_function, parameters_schema
from .type_schema import type_schema

__all__ = [
    "FunctionSpec",
    "inspect_function",
    "parameters_schema",
    "type_schema",
]
