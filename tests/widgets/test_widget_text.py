"""Every widget's plain-text face: what nbval compares and what GitHub shows.

ipywidgets' own ``text/plain`` is a trait dump cut at 110 characters, with nothing a reader can
use; ours is the widget's full ``text()``, the same on every run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from course_lib.reference import ToolRegistry
from course_lib.widgets import ConversationView, SchemaExplorer, ToolChoiceTrace, ToolForm

ROOT = Path(__file__).resolve().parents[2]


def registry() -> ToolRegistry:
    reg = ToolRegistry()

    @reg.tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        return city

    return reg


WIDGETS = {
    "SchemaExplorer": lambda: SchemaExplorer(),
    "ConversationView": lambda: ConversationView([{"role": "user", "content": "北京?"}]),
    "ToolForm": lambda: ToolForm(registry(), "get_weather"),
    "ToolChoiceTrace": lambda: ToolChoiceTrace("weather in 北京?", registry()),
}


@pytest.mark.parametrize("name", list(WIDGETS))
def test_the_displayed_plain_text_is_the_whole_text_form(name):
    widget = WIDGETS[name]()
    shell = InteractiveShell.instance()
    data, _metadata = shell.display_formatter.format(widget)
    assert data["text/plain"] == widget.text()
    assert len(widget.text()) > 0
    assert "application/vnd.jupyter.widget-view+json" in data  # still a live widget in Lab


@pytest.mark.parametrize("name", list(WIDGETS))
def test_the_text_form_is_the_same_for_the_same_inputs(name):
    assert WIDGETS[name]().text() == WIDGETS[name]().text()


def test_the_text_form_is_the_same_in_another_process():
    code = (
        "from course_lib.widgets import SchemaExplorer, ToolChoiceTrace\n"
        "print(SchemaExplorer().text())\n"
        "print(ToolChoiceTrace('weather in Paris', []).text())\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    assert runs[0].stdout == runs[1].stdout and "get_weather" in runs[0].stdout


def test_jupyterlabs_widget_extension_is_installed_so_widgets_render_in_the_browser():
    prefix = Path(sys.prefix) / "share" / "jupyter" / "labextensions"
    manager = prefix / "@jupyter-widgets" / "jupyterlab-manager" / "package.json"
    assert manager.exists(), (
        f"{manager} is missing: install jupyterlab_widgets (it comes with ipywidgets 8) "
        "into this environment, or widgets show only as text in JupyterLab"
    )
