"""What every course widget shares: a plain-text face and a few HTML helpers.

A widget shows up twice: as live controls in JupyterLab, and as ``text/plain`` everywhere else
(GitHub's notebook preview, nbval's output comparison, a terminal). ipywidgets' own plain text is
a trait dump cut at 110 characters; ours is the widget's ``text()``, deterministic for the same
inputs, so a stored notebook output stays identical across runs.
"""

from __future__ import annotations

import html
from typing import Any

# Colours for pairing things (a tool call and its answer), assigned by order so the same
# conversation always gets the same colours. No red: red means an error here.
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#9467bd",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#bcbd22",
)
ERROR_COLOUR = "#c62828"
MUTED_COLOUR = "#757575"


def colour(index: int) -> str:
    """The palette colour for the ``index``-th item (cycling when there are more than eight)."""
    return PALETTE[index % len(PALETTE)]


def escape(text: Any) -> str:
    """``text`` safe to put into HTML (the learner's strings may contain ``<`` and ``&``)."""
    return html.escape(str(text), quote=True)


def error_html(message: str) -> str:
    """An inline error: a short message in a red box, never a traceback."""
    return (
        f'<div class="course-error" style="color:{ERROR_COLOUR};border-left:4px solid '
        f'{ERROR_COLOUR};padding:4px 8px;white-space:pre-wrap;font-family:monospace">'
        f"{escape(message)}</div>"
    )


def indent(text: str, prefix: str = "  ") -> str:
    """Every line of ``text`` indented by ``prefix`` (empty lines too, so blocks stay aligned)."""
    return "\n".join(prefix + line for line in text.splitlines()) if text else prefix


class PlainTextWidget:
    """Mixin for course widgets: ``repr()``, pretty printing and ``text/plain`` use ``text()``.

    Put it before the ipywidgets base class: ``class SchemaExplorer(PlainTextWidget, VBox)``.
    """

    def text(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.text()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.text())

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data = super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]
        data["text/plain"] = self.text()
        return data
