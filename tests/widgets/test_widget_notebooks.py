"""A notebook showing widgets still passes strict nbval: their stored plain text is stable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat

from course_lib.grading.runner import PYTEST_MAIN

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "widgets" / "notebooks" / "widgets_demo.ipynb"
# pytest for nbval alone, as in tests/test_notebooks.py (no plugins found by chance, no IRI
# grammar in the pytest process; the kernel is untouched).
NBVAL_PYTEST = [sys.executable, "-c", PYTEST_MAIN, "-p", "nbval.plugin"]
NBVAL_ENV = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def test_the_widget_demo_passes_nbval_in_strict_mode():
    command = [
        *NBVAL_PYTEST, "--nbval", "--nbval-current-env",
        "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"),
        "--nbval-cell-timeout", "60", "-p", "no:cacheprovider", "-q", "-o", "addopts=",
        str(DEMO.relative_to(ROOT)),
    ]  # fmt: skip
    run = subprocess.run(
        command, cwd=ROOT, env=NBVAL_ENV, capture_output=True, text=True, timeout=180
    )
    assert run.returncode == 0, f"nbval failed on {DEMO.name}:\n{run.stdout[-4000:]}"


def test_the_demo_stores_each_widgets_text_and_no_widget_state():
    nb = nbformat.read(DEMO, as_version=4)
    assert "widgets" not in nb.metadata, "stored widget state holds random model ids"
    texts = [
        output["data"]["text/plain"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "text/plain" in output.get("data", {})
    ]
    for head in ("SchemaExplorer (", "ToolForm: ", "(stopped: answer", "ToolChoiceTrace\n"):
        assert any(text.startswith(head) for text in texts), f"no stored output starts {head!r}"


def test_the_demo_shows_every_kind_of_widget_so_each_browser_check_runs():
    text = DEMO.read_text(encoding="utf-8")
    for name in ("SchemaExplorer(", "ToolForm(", "ConversationView(", "ToolChoiceTrace("):
        assert name in text, f"{DEMO.name} no longer uses {name[:-1]}"
