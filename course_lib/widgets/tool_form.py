"""ToolForm: a form built from a registered tool's JSON Schema, with a Call button.

It shows that a tool's schema is machine-readable by more than a model: the same definition
yields input controls, and pressing Call goes through ``registry.call`` exactly as a model's tool
call would, validation and error results included.
"""

from __future__ import annotations

import json
from typing import Any

import ipywidgets as widgets

from course_lib.widgets.base import MUTED_COLOUR, PlainTextWidget, error_html, escape, indent
from course_lib.widgets.conversation import pretty_json
from course_lib.widgets.form_fields import OMIT, Field, FormError
from course_lib.widgets.texts import say


def _about(schema: dict[str, Any]) -> str:
    description = schema.get("description")
    return f": {description}" if description else ""


def find_function(registry: Any, name: str) -> dict[str, Any]:
    """The ``function`` part of ``name``'s Chat Completions tool, from ``registry.schemas()``.

    Only ``schemas()`` and ``call()`` are used, so a registry written in the lesson works too.
    """
    functions = [tool["function"] for tool in registry.schemas(format="openai")]
    for function in functions:
        if function["name"] == name:
            return function
    known = ", ".join(f["name"] for f in functions) or say("no_tools")
    raise ValueError(say("no_such_tool", name=name, known=known))


def is_error_result(result: str) -> bool:
    """Whether ``registry.call`` answered with an error object ``{"error": ...}``."""
    try:
        value = json.loads(result)
    except (json.JSONDecodeError, TypeError):
        return False
    return isinstance(value, dict) and "error" in value


class ToolForm(PlainTextWidget, widgets.VBox):
    """Controls for each parameter of ``registry``'s tool ``name``, a Call button and the result.

    ``registry`` is anything with ``schemas(format="openai")`` and ``call(name, arguments)``.

    ``fill(city="北京")`` sets controls from Python; ``arguments()`` reads them back; ``call()``
    (or the button) runs ``registry.call(name, arguments)`` and shows what it returned.
    """

    def __init__(self, registry: Any, name: str) -> None:
        function = find_function(registry, name)
        self.registry = registry
        self.name = name
        self.description: str = function.get("description") or ""
        schema = function.get("parameters") or {"type": "object", "properties": {}}
        required = set(schema.get("required", []))
        self.fields: dict[str, Field] = {
            prop: Field.build(prop, prop_schema, prop in required)
            for prop, prop_schema in (schema.get("properties") or {}).items()
        }
        self.result: str | None = None
        self.sent: dict[str, Any] | None = None
        self.form_error: str | None = None
        self.call_button = widgets.Button(
            description=say("call_button"), button_style="primary", icon="play"
        )
        self.call_button.add_class("course-call-button")
        self.call_button.on_click(lambda _button: self.call())
        self.result_view = widgets.HTML()
        self.result_view.add_class("course-result")
        header = widgets.HTML(
            f"<b><code>{escape(name)}</code></b> "
            f'<span style="color:{MUTED_COLOUR}">{escape(self.description)}</span>'
        )
        rows = [
            widgets.HBox(
                [
                    field.widget,
                    widgets.HTML(
                        f'<span style="color:{MUTED_COLOUR}">{escape(field.describe())}'
                        f"{escape(_about(field.schema))}</span>"
                    ),
                ]
            )
            for field in self.fields.values()
        ]
        super().__init__(children=[header, *rows, self.call_button, self.result_view])
        self.add_class("course-widget")
        self.add_class("course-tool-form")
        self._render()

    def fill(self, **values: Any) -> None:
        """Set controls from Python values (``None`` empties a control)."""
        for key, value in values.items():
            if key not in self.fields:
                known = ", ".join(self.fields)
                raise KeyError(say("no_such_parameter", tool=self.name, key=key, known=known))
            self.fields[key].fill(value)

    def arguments(self) -> dict[str, Any]:
        """The arguments the controls hold; raises ``FormError`` for text of the wrong type."""
        values = {name: field.value() for name, field in self.fields.items()}
        return {name: value for name, value in values.items() if value is not OMIT}

    def call(self) -> str | None:
        """Call the tool through the registry with the form's arguments; return the result text."""
        self.form_error = self.result = self.sent = None
        try:
            self.sent = self.arguments()
        except FormError as error:
            self.form_error = str(error)
        else:
            self.result = self.registry.call(self.name, self.sent)
        self._render()
        return self.result

    def _call_line(self) -> str:
        return f"{self.name}({json.dumps(self.sent, ensure_ascii=False)})"

    def _render(self) -> None:
        if self.form_error:
            self.result_view.value = error_html(say("not_called_html", error=self.form_error))
        elif self.result is None:
            press = escape(say("press_call"))
            self.result_view.value = f'<i style="color:{MUTED_COLOUR}">{press}</i>'
        else:
            body = pretty_json(self.result)[0]
            call = f'<div><code class="course-sent">{escape(self._call_line())}</code></div>'
            if is_error_result(self.result):
                self.result_view.value = call + error_html(body)
            else:
                self.result_view.value = (
                    call
                    + f'<pre class="course-result-text" style="margin:2px 0">{escape(body)}</pre>'
                )

    def text(self) -> str:
        if self.description:
            lines = [say("form_title_described", name=self.name, description=self.description)]
        else:
            lines = [say("form_title", name=self.name)]
        for field in self.fields.values():
            lines.append(f"  {field.name} ({field.describe()}): {field.shown()}")
        if self.form_error:
            lines.append(say("not_called_text", error=self.form_error))
        elif self.result is None:
            lines.append(say("result_pending"))
        else:
            lines.append(say("sent_line", call=self._call_line()))
            lines.append(say("error_label" if is_error_result(self.result) else "result_label"))
            lines.append(indent(pretty_json(self.result)[0]))
        return "\n".join(lines)
