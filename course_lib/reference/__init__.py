"""The reference implementation of what the course builds, one idea per module.

- ``type_schema``: one annotation to JSON Schema.
- ``docstrings``: descriptions from Google, NumPy and reST docstrings.
- ``parameters``: a function's parameters as one schema, reflected once (``inspect_function``).
- ``strict``: OpenAI strict mode as a transformation (``to_strict``).
- ``formats``: one tool in the OpenAI, Responses, Anthropic and Gemini formats.
"""

from .formats import convert_tool, function_to_tool
from .parameters import FunctionSpec, inspect_function, parameters_schema
from .strict import to_strict
from .type_schema import type_schema

__all__ = [
    "FunctionSpec",
    "convert_tool",
    "function_to_tool",
    "inspect_function",
    "parameters_schema",
    "to_strict",
    "type_schema",
]
