"""SchemaExplorer: type a function, watch its tool definition appear in any provider's format.

The point it makes: a tool definition is *derived* from the function (its signature, type hints
and docstring), so it changes the moment the function does, and what reflection cannot represent
(an unannotated parameter, ``*args``) is refused on the spot, naming the parameter.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from course_lib.widgets.base import MUTED_COLOUR, PlainTextWidget, error_html, escape, indent
from course_lib.widgets.json_view import Difference, differences, json_html, json_text
from course_lib.widgets.texts import say

# The formats, by their products' names (strict mode's name is a sentence: it is translated).
FORMAT_NAMES = {
    "openai": "OpenAI Chat Completions",
    "responses": "OpenAI Responses",
    "anthropic": "Anthropic Messages",
    "gemini": "Gemini",
    "strict": None,
}
MAX_DIFFERENCES = 8


def format_name(format: str) -> str:
    """What the format menu calls ``format``, in the language spoken now."""
    return FORMAT_NAMES[format] or say("strict_format")


def format_options() -> list[tuple[str, str]]:
    return [(format_name(value), value) for value in FORMAT_NAMES]


DEFAULT_SOURCE = '''from typing import Literal


def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Get the current weather for a city.

    Args:
        city: The city name, for example 北京 or Paris.
        unit: Temperature unit, c for Celsius or f for Fahrenheit.
    """
    return f"21 degrees {unit} in {city}"
'''


class SourceError(Exception):
    """The typed source does not give a function we can convert; the message says why."""


def function_from_source(source: str) -> Callable[..., Any]:
    """Run ``source`` in a fresh namespace and return the last function it defines at top level.

    This executes the text as Python, on purpose: it is the learner's own code, typed into their
    own kernel, exactly as if they had run it in a cell. Nothing else is executed.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise SourceError(say("syntax_error", line=error.lineno, error=error.msg)) from None
    names = [
        node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    if not names:
        raise SourceError(say("no_function"))
    namespace: dict[str, Any] = {"__name__": "schema_explorer"}
    try:
        exec(
            compile(tree, "<schema explorer>", "exec"), namespace
        )  # the learner's own code: see docstring
    except Exception as error:  # the learner's code may raise anything; show it, don't crash
        kind = type(error).__name__
        raise SourceError(say("source_raised", kind=kind, error=error)) from None
    return namespace[names[-1]]


class ReferenceMissing(Exception):
    """``course_lib.reference`` cannot be loaded here (a grading kernel that hides it)."""


def reference() -> Any:
    """The reference library, loaded when the explorer first draws it: the grader hides it from
    the kernels of lessons that do not need it (``course_lib.grading.reference_use``), and this
    widget is how the reflection lessons would otherwise load it."""
    try:
        import course_lib.reference as loaded
    except (ImportError, OSError) as error:
        raise ReferenceMissing(say("no_reference")) from error
    return loaded


def tool_for(func: Callable[..., Any], format: str) -> dict[str, Any]:
    """The reference tool for ``func`` in ``format`` ("strict" is Chat Completions, strict)."""
    if format == "strict":
        return reference().function_to_tool(func, strict=True)
    return reference().function_to_tool(func, format=format)


def same_spelling(node: Any) -> Any:
    """``node`` with ``anyOf`` of bare types written as a type list, at every depth.

    ``{"anyOf": [{"type": "integer"}, {"type": "null"}]}`` and ``{"type": ["integer", "null"]}``
    accept exactly the same values; the comparison should not call that a difference.
    """
    if isinstance(node, list):
        return [same_spelling(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: same_spelling(value) for key, value in node.items()}
    branches = out.get("anyOf")
    if (
        isinstance(branches, list)
        and branches
        and "type" not in out
        and all(isinstance(b, dict) and set(b) == {"type"} for b in branches)
    ):
        del out["anyOf"]
        types = [
            t for b in branches for t in (b["type"] if isinstance(b["type"], list) else [b["type"]])
        ]
        out["type"] = types[0] if len(types) == 1 else types
    return out


class SchemaExplorer(PlainTextWidget, widgets.VBox):
    """A function definition in a text area and its tool definition, updated as you type.

    ``compare`` takes your own converter (for example your ``function_to_tool`` or
    ``parameters_schema`` from notebook 02): its output is shown next to the reference and the
    differing JSON paths are highlighted. If your converter returns a parameters schema
    (``{"type": "object", ...}``), it is compared with the reference's parameters schema; if it
    returns a whole tool, with the reference tool in the chosen format.

    The source is executed in a fresh namespace each time it changes (see
    ``function_from_source``): it is your code, running in your kernel.
    """

    def __init__(
        self,
        source: str = DEFAULT_SOURCE,
        format: str = "openai",
        compare: Callable[[Callable[..., Any]], Any] | None = None,
    ) -> None:
        if format not in FORMAT_NAMES:
            known = ", ".join(FORMAT_NAMES)
            raise ValueError(say("unknown_format", format=format, known=known))
        self.compare = compare
        self.tool: dict[str, Any] | None = None
        self.error: str | None = None
        self.learner_output: Any = None
        self.learner_error: str | None = None
        self.reference_compared: Any = None
        self.differences: list[Difference] = []
        self.source_input = widgets.Textarea(
            value=source,
            layout=widgets.Layout(width="100%", height="14em"),
        )
        self.source_input.add_class("course-source")
        self.format_input = widgets.Dropdown(
            options=format_options(), value=format, description=say("format_label")
        )
        self.output = widgets.HTML()
        self.output.add_class("course-schema-output")
        self.learner_view = widgets.HTML()
        self.learner_view.add_class("course-learner-output")
        self.diff_view = widgets.HTML()
        self.diff_view.add_class("course-diff-list")
        # A monospace text area; ipywidgets has no trait for a textarea's font.
        style = widgets.HTML(
            "<style>.course-source textarea{font-family:monospace;font-size:12px}</style>"
        )
        panes = [self.output, self.learner_view] if compare else [self.output]
        for pane in panes:
            pane.layout = widgets.Layout(width="50%" if compare else "100%", overflow="auto")
        super().__init__(
            children=[
                style,
                self.format_input,
                self.source_input,
                widgets.HBox(panes),
                *([self.diff_view] if compare else []),
            ]
        )
        self.add_class("course-widget")
        self.add_class("course-schema-explorer")
        self.source_input.observe(self._refresh, names="value")
        self.format_input.observe(self._refresh, names="value")
        self._refresh()

    # -- state ----------------------------------------------------------------------------

    @property
    def source(self) -> str:
        return self.source_input.value

    @source.setter
    def source(self, value: str) -> None:
        self.source_input.value = value

    @property
    def format(self) -> str:
        return self.format_input.value

    @format.setter
    def format(self, value: str) -> None:
        self.format_input.value = value

    def _refresh(self, _change: Any = None) -> None:
        self.tool = self.error = self.learner_output = self.learner_error = None
        self.reference_compared = None
        self.differences = []
        try:
            func = function_from_source(self.source)
        except SourceError as error:
            self.error = str(error)
        else:
            try:
                self.tool = tool_for(func, self.format)
            except (TypeError, ValueError) as error:
                self.error = f"{type(error).__name__}: {error}"
            except ReferenceMissing as missing:
                self.error = str(missing)
            if self.compare is not None:
                self._compare(func)
        self._render()

    def _compare(self, func: Callable[..., Any]) -> None:
        try:
            output = self.compare(func)  # type: ignore[misc]
            self.learner_output = json.loads(json.dumps(output, ensure_ascii=False))
        except Exception as error:  # the learner's converter may raise anything
            self.learner_error = say("converter_raised", kind=type(error).__name__, error=error)
            return
        if self.tool is None:
            return
        self.reference_compared = self._reference_like(func, self.learner_output)
        self.differences = differences(
            same_spelling(self.reference_compared), same_spelling(self.learner_output)
        )

    def _reference_like(self, func: Callable[..., Any], output: Any) -> Any:
        """The reference output of the same kind as the learner's: parameters or a tool."""
        if isinstance(output, dict) and output.get("type") == "object":
            schema = reference().parameters_schema(func)
            return reference().to_strict(schema) if self.format == "strict" else schema
        return self.tool

    # -- views ----------------------------------------------------------------------------

    def _render(self) -> None:
        missing = {d.path for d in self.differences if d.kind != "extra"}
        extra = {d.path for d in self.differences if d.kind != "missing"}
        title = f"<b>{escape(say('reference_title', format=format_name(self.format)))}</b>"
        if self.error:
            self.output.value = title + error_html(self.error)
        else:
            shown = self.reference_compared if self.reference_compared is not None else self.tool
            self.output.value = title + json_html(shown, missing, css_class="course-reference")
        if self.compare is None:
            return
        title = f"<b>{escape(say('yours_title'))}</b>"
        if self.learner_error:
            self.learner_view.value = title + error_html(self.learner_error)
        elif self.learner_output is not None:
            self.learner_view.value = title + json_html(
                self.learner_output, extra, css_class="course-yours"
            )
        else:
            self.learner_view.value = title
        self.diff_view.value = self._differences_html()

    def _verdict(self) -> str:
        if self.learner_error or self.error or self.learner_output is None:
            if self.error and self.learner_output is not None:
                return say("reference_refuses")
            return ""
        if not self.differences:
            return say("matches")
        count = len(self.differences)
        return say("differences_one") if count == 1 else say("differences_many", count=count)

    def _differences_html(self) -> str:
        verdict = self._verdict()
        if not verdict:
            return ""
        items = "".join(
            f"<li><code>{escape(d)}</code></li>" for d in self.differences[:MAX_DIFFERENCES]
        )
        more = len(self.differences) - MAX_DIFFERENCES
        tail = escape(say("more_differences", more=more)) if more > 0 else ""
        tail = f'<li style="color:{MUTED_COLOUR}">{tail}</li>' if tail else ""
        return f"<div>{escape(verdict)}<ul>{items}{tail}</ul></div>"

    def text(self) -> str:
        lines = [say("explorer_title", format=format_name(self.format))]
        if self.error:
            lines.append(say("explorer_error", error=self.error))
        else:
            shown = self.reference_compared if self.reference_compared is not None else self.tool
            lines.append(json_text(shown))
        if self.compare is not None:
            if self.learner_error:
                lines.append(say("yours_error", error=self.learner_error))
            elif self.learner_output is not None:
                lines.append(say("yours_label"))
                lines.append(indent(json_text(self.learner_output)))
            verdict = self._verdict()
            if verdict:
                lines.append(verdict)
            lines.extend(f"  {d}" for d in self.differences[:MAX_DIFFERENCES])
            if len(self.differences) > MAX_DIFFERENCES:
                more = len(self.differences) - MAX_DIFFERENCES
                lines.append("  " + say("more_differences", more=more))
        return "\n".join(lines)
