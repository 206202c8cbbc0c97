"""Widgets that make the invisible parts of tool calling visible (ipywidgets 8).

- ``SchemaExplorer``: a function's tool definition, live, in any provider's format.
- ``ConversationView``: a conversation (Chat messages, Responses items or Anthropic blocks),
  calls and answers paired by colour.
- ``ToolForm``: a form built from a tool's JSON Schema, calling it through the registry.
- ``ToolChoiceTrace``: the local model's score for each tool on a request, and its choice.

Each widget has a deterministic plain-text form (``text()``, also its ``repr``), which is what
GitHub shows and what nbval compares; the live controls need JupyterLab with ipywidgets.
"""

from course_lib.widgets.choice_trace import ToolChoiceTrace
from course_lib.widgets.conversation import ConversationView
from course_lib.widgets.schema_explorer import SchemaExplorer
from course_lib.widgets.tool_form import ToolForm

__all__ = ["ConversationView", "SchemaExplorer", "ToolChoiceTrace", "ToolForm"]
