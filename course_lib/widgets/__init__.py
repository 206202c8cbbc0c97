"""Widgets that make the invisible parts of tool calling visible (ipywidgets 8).

- ``SchemaExplorer``: a function's tool definition, live, in any provider's format.
- ``ConversationView``: a conversation (Chat messages, Responses items or Anthropic blocks),
  calls and answers paired by colour.
- ``ToolForm``: a form built from a tool's JSON Schema, calling it through the registry.
- ``ToolChoiceTrace``: the local model's score for each tool on a request, and its choice.

Each widget has a deterministic plain-text form (``text()``, also its ``repr``), which is what
GitHub shows and what nbval compares; the live controls need JupyterLab with ipywidgets.
The widgets are imported when first named, so the text-only modules (``conversation_text``,
``transcript``) load without ipywidgets: the grading side draws with them.
"""

from __future__ import annotations

from course_lib import lazy_names

_MODULES = {
    "ConversationView": "conversation",
    "SchemaExplorer": "schema_explorer",
    "ToolChoiceTrace": "choice_trace",
    "ToolForm": "tool_form",
}
__all__ = sorted(_MODULES)

__getattr__ = lazy_names(__name__, _MODULES)
