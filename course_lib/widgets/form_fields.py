"""One input control per JSON Schema property, and back from the control to a JSON value.

The mapping is the point of the ToolForm lesson: the same schema a model reads is enough for a
program to build a form. Strings become text boxes, numbers number boxes, booleans checkboxes,
``enum`` a dropdown, arrays of simple items a comma-separated text box; whatever has no simple
control (objects, unions, references) becomes a JSON text area.

An empty control means: leave the argument out if it is optional, send ``null`` if it is
required but nullable, and otherwise send the empty value of its type.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from course_lib.widgets.texts import say

OMIT = object()  # the argument is left out of the call
SIMPLE_TYPES = ("string", "integer", "number", "boolean")


class FormError(ValueError):
    """A control holds text that is not a value of its parameter's type."""


def split_nullable(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """``(schema without null, nullable)`` for ``type: [X, "null"]`` and ``anyOf [X, null]``."""
    json_type = schema.get("type")
    if isinstance(json_type, list) and "null" in json_type:
        rest = [t for t in json_type if t != "null"]
        return {**schema, "type": rest[0] if len(rest) == 1 else rest}, True
    branches = schema.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches:
        others = [b for b in branches if b != {"type": "null"}]
        outer = {k: v for k, v in schema.items() if k != "anyOf"}
        if len(others) == 1:
            return {**others[0], **outer}, True
        return {**outer, "anyOf": others}, True
    return schema, False


def field_kind(schema: dict[str, Any]) -> str:
    """Which control fits: enum, boolean, integer, number, string, list, or json."""
    if "enum" in schema and all(
        isinstance(v, (str, int, float, bool)) for v in schema["enum"] if v is not None
    ):
        return "enum"
    json_type = schema.get("type")
    if json_type in SIMPLE_TYPES:
        return json_type
    if json_type == "array" and field_kind(schema.get("items") or {}) in (*SIMPLE_TYPES, "enum"):
        return "list"
    return "json"


@dataclass
class Field:
    """One parameter's control: its schema, whether it is required or nullable, the widget."""

    name: str
    schema: dict[str, Any]
    required: bool
    nullable: bool
    kind: str
    widget: widgets.ValueWidget
    enum_values: tuple[Any, ...] = ()
    # The dropdown's "no value" choice, in the language spoken when the form was built.
    empty_label: str = ""

    @classmethod
    def build(cls, name: str, schema: dict[str, Any], required: bool) -> Field:
        inner, nullable = split_nullable(schema)
        kind = field_kind(inner)
        can_be_empty = nullable or not required
        style = {"description_width": "9em"}
        layout = widgets.Layout(width="auto")
        enum_values: tuple[Any, ...] = ()
        empty_label = say("empty_choice")
        if kind == "enum" or (kind == "boolean" and nullable):
            choices = inner.get("enum", [True, False])
            enum_values = tuple(v for v in choices if v is not None)
            labels = [_label(v) for v in enum_values]
            if can_be_empty:
                labels.insert(0, empty_label)
            widget: widgets.ValueWidget = widgets.Dropdown(options=labels)
            kind = "enum"
        elif kind == "boolean":
            widget = widgets.Checkbox(value=False, indent=False)
        elif kind == "integer" and not nullable:
            widget = widgets.IntText(value=0)
        elif kind == "number" and not nullable:
            widget = widgets.FloatText(value=0.0)
        elif kind == "json":
            widget = widgets.Textarea(placeholder="JSON", layout=widgets.Layout(width="30em"))
        else:
            widget = widgets.Text(placeholder=_placeholder(kind, inner))
        widget.description = name
        widget.style = style
        if kind != "json":
            widget.layout = layout
        field = cls(name, schema, required, nullable, kind, widget, enum_values, empty_label)
        if "default" in schema:
            field.fill(schema["default"])
        elif kind == "enum" and not can_be_empty and enum_values:
            field.fill(enum_values[0])
        return field

    def fill(self, value: Any) -> None:
        """Put a Python/JSON value into the control (``None`` empties it)."""
        w = self.widget
        if self.kind == "enum":
            w.value = self.empty_label if value is None else _label(value)
        elif isinstance(w, widgets.Checkbox):
            w.value = bool(value)
        elif isinstance(w, (widgets.IntText, widgets.FloatText)):
            w.value = 0 if value is None else value
        elif self.kind == "list":
            w.value = "" if value is None else ", ".join(_label(v) for v in value)
        elif self.kind == "json":
            w.value = "" if value is None else json.dumps(value, ensure_ascii=False)
        else:
            w.value = "" if value is None else str(value)

    def value(self) -> Any:
        """The argument value for this control, ``OMIT``, or ``FormError`` for unusable text."""
        w = self.widget
        if isinstance(w, (widgets.Checkbox, widgets.IntText, widgets.FloatText)):
            return w.value
        if self.kind == "enum":
            if w.value == self.empty_label:
                return self._empty()
            return self.enum_values[list(map(_label, self.enum_values)).index(w.value)]
        text = w.value.strip() if self.kind != "string" else w.value
        if text == "":
            return self._empty()
        if self.kind in ("integer", "number"):
            return _number(self.name, text, self.kind)
        if self.kind == "list":
            item_kind = field_kind(self.schema_inner.get("items") or {})
            items = [part.strip() for part in text.split(",") if part.strip()]
            if item_kind in ("integer", "number"):
                return [_number(self.name, item, item_kind) for item in items]
            return items
        if self.kind == "json":
            try:
                return json.loads(text)
            except json.JSONDecodeError as error:
                raise FormError(say("not_json", name=self.name, error=error.msg)) from None
        return text

    @property
    def schema_inner(self) -> dict[str, Any]:
        return split_nullable(self.schema)[0]

    def _empty(self) -> Any:
        if not self.required:
            return OMIT
        if self.nullable:
            return None
        if self.kind == "string":
            return ""
        if self.kind == "list":
            return []
        raise FormError(say("required", name=self.name))

    def describe(self) -> str:
        """Type and requirement, as shown next to the control: ``string, required``."""
        inner = self.schema_inner
        if self.kind == "enum":
            kind = say("kind_enum", values=" | ".join(_label(v) for v in self.enum_values))
        elif self.kind == "list":
            kind = say("kind_list", kind=field_kind(inner.get("items") or {}))
        elif self.kind == "json":
            kind = "JSON"
        else:
            kind = self.kind
        if self.nullable:
            kind = say("kind_nullable", kind=kind)
        return say("described_required" if self.required else "described_optional", kind=kind)

    def shown(self) -> str:
        """The control's current content as text, for the plain-text form."""
        value = self.widget.value
        return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def _label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _placeholder(kind: str, schema: dict[str, Any]) -> str:
    if kind == "list":
        return say("list_placeholder", kind=field_kind(schema.get("items") or {}))
    return kind


def _number(name: str, text: str, kind: str) -> int | float:
    try:
        return int(text) if kind == "integer" else float(text)
    except ValueError:
        key = "not_integer" if kind == "integer" else "not_number"
        raise FormError(say(key, name=name, text=text)) from None
