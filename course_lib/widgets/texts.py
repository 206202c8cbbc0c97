"""Every word the widgets show a learner, whole, with named placeholders (``say``).

The ``widgets`` catalog domain (``course_lib/locale/<lang>/widgets.po``) translates this table
and ``conversation.py``'s two; what stays English on purpose: the API's own names (roles,
``tool_use``, ``function_call``), JSON Schema's type names (``string``, ``integer``), the
widgets' class names, and the providers' product names.
"""

from __future__ import annotations

from course_lib.i18n import translate

TEXTS: dict[str, str] = {
    # ConversationView (transcript.py)
    "not_a_message": "A message must be a dict or an SDK message object, got {kind}.",
    # ToolForm
    "no_such_tool": "No tool named {name!r} in this registry; its tools: {known}.",
    "no_tools": "none",
    "no_such_parameter": "{tool} has no parameter {key!r}; it has: {known}.",
    "call_button": "Call",
    "not_called_html": "Not called: {error}",
    "press_call": "Press Call to run the tool.",
    "form_title": "ToolForm: {name}",
    "form_title_described": "ToolForm: {name}: {description}",
    "not_called_text": "not called: {error}",
    "result_pending": "result: (press Call)",
    "sent_line": "call: {call}",
    "result_label": "result:",
    "error_label": "error:",
    # the form's controls (form_fields)
    "empty_choice": "(empty)",
    "not_json": "{name}: not valid JSON ({error})",
    "required": "{name}: required, please fill it in",
    "not_integer": "{name}: {text!r} is not an integer",
    "not_number": "{name}: {text!r} is not a number",
    "kind_enum": "one of {values}",
    "kind_list": "comma-separated list of {kind}",
    "kind_nullable": "{kind} or null",
    "described_required": "{kind}, required",
    "described_optional": "{kind}, optional",
    "list_placeholder": "comma-separated {kind} values",
    # SchemaExplorer
    "strict_format": "OpenAI strict mode",
    "format_label": "Format:",
    "no_reference": (
        "The reference is not readable in this kernel (a grading kernel of a lesson that does not "
        "need it cannot read it), so only your side is shown."
    ),
    "syntax_error": "Syntax error on line {line}: {error}",
    "no_function": "No function here yet: define one with `def name(...):` at top level.",
    "source_raised": "Running the code raised {kind}: {error}",
    "unknown_format": "Unknown format {format!r}; choose one of: {known}.",
    "converter_raised": "Your converter raised {kind}: {error}",
    "reference_title": "Reference ({format})",
    "yours_title": "Yours",
    "reference_refuses": "The reference refuses this function; yours accepted it.",
    "matches": "Yours matches the reference.",
    "differences_one": "1 difference from the reference:",
    "differences_many": "{count} differences from the reference:",
    "more_differences": "… and {more} more",
    "explorer_title": "SchemaExplorer ({format})",
    "explorer_error": "error: {error}",
    "yours_error": "yours: {error}",
    "yours_label": "yours:",
    # the JSON comparison's lines (json_view.Difference)
    "difference_missing": "{path}: missing (expected {expected})",
    "difference_extra": "{path}: not expected (got {got})",
    "difference_changed": "{path}: expected {expected}, got {got}",
    # ToolChoiceTrace
    "request_label": "Request:",
    "mark_called": "✔ called",
    "mark_tie": "tie",
    "no_tools_row": "no tools",
    "threshold": "threshold",
    "column_tool": "tool",
    "column_score": "score",
    "column_chosen": "chosen",
    "column_matched": "matched words",
}


def say(key: str, /, **fields: object) -> str:
    """The text ``key`` in the language spoken now, its placeholders filled."""
    return translate(TEXTS, key, **fields)
