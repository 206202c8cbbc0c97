"""Notebooks run in real kernels for the toolkit's tests, with the toolkit's folders given."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from course_lib.authoring.execute import CURRENT_PYTHON, CurrentPythonSpecs

ROOT = Path(__file__).resolve().parents[2]


def toolkit_env(home: Path, notebooks: Path) -> dict[str, str]:
    return {
        **os.environ,
        "COURSE_TOOLKIT_HOME": str(home),
        "COURSE_TOOLKIT_NOTEBOOKS": str(notebooks),
    }


def run(nb: nbformat.NotebookNode, folder: Path, env: dict[str, str]) -> nbformat.NotebookNode:
    """Run every cell of ``nb`` in a fresh kernel started in ``folder``; errors are stored."""
    client = NotebookClient(
        nb,
        timeout=120,
        km=KernelManager(kernel_name=CURRENT_PYTHON, kernel_spec_manager=CurrentPythonSpecs()),
        resources={"metadata": {"path": str(folder)}},
        allow_errors=True,
    )
    client.execute(env=env)
    return nb


def run_sources(sources: list[str], folder: Path, env: dict[str, str]) -> list[str]:
    """Run ``sources`` as the cells of a new notebook; each cell's printed text (and errors)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    run(nb, folder, env)
    return [cell_text(cell) for cell in nb.cells]


def cell_text(cell: nbformat.NotebookNode) -> str:
    texts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            texts.append(output.text)
        elif output.output_type == "error":
            texts.append(f"{output.ename}: {output.evalue}\n")
        elif "text/plain" in output.get("data", {}):
            texts.append(output.data["text/plain"] + "\n")
    return "".join(texts)


def check_errors(nb: nbformat.NotebookNode) -> dict[str, str]:
    """Exercise id -> the error its check cell raised ("" when it passed)."""
    found = {}
    for cell in nb.cells:
        exercise = cell.metadata.get("course", {}).get("check")
        if exercise:
            errors = [o for o in cell.outputs if o.output_type == "error"]
            found[exercise] = errors[0].ename if errors else ""
    return found
