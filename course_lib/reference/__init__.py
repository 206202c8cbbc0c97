"""The reference implementation of what the course builds, one idea per module.

- ``type_map``: one annotation to JSON Schema (``type_schema``), with ``unions``,
  ``annotated_metadata``, ``model_schemas`` and ``schema_defs`` beside it.
- ``docstrings``: descriptions from Google, NumPy and reST docstrings.
- ``fields``: what one parameter or class field is (required, default, JSON name).
- ``parameters``: a function's parameters as one schema, reflected once (``inspect_function``).
- ``strict``: OpenAI strict mode as a transformation (``to_strict``), reading foreign schemas
  with ``schema_refs`` and checking ``strict_limits``.
- ``nulls``: a null that means "use the default", at every depth of the arguments.
- ``formats``: one tool in the OpenAI, Responses, Anthropic and Gemini formats.
- ``registry``: register tools once, serve their schemas, dispatch calls without raising.
- ``validation``: arguments against a parameters schema, one readable line per problem.
- ``results``: whatever a tool returned, as the text the model reads (``to_text``).
"""

from .formats import convert_tool, function_to_tool
from .parameters import FunctionSpec, inspect_function, parameters_schema
from .registry import RegisteredTool, ToolRegistry
from .results import to_text
from .strict import to_strict
from .type_map import type_schema
from .validation import validate_arguments

__all__ = [
    "FunctionSpec",
    "RegisteredTool",
    "ToolRegistry",
    "convert_tool",
    "function_to_tool",
    "inspect_function",
    "parameters_schema",
    "to_text",
    "to_strict",
    "type_schema",
    "validate_arguments",
]
