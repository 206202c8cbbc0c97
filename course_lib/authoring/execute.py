"""Re-run a solution notebook in place so its stored outputs are fresh (an authoring aid).

The kernel is this Python (``sys.executable``), started in the notebook's folder, exactly as
``pytest --nbval --nbval-current-env`` runs it, so the stored outputs are what nbval compares.
"""

from __future__ import annotations

from pathlib import Path

import ipykernel.kernelspec
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbformat import NotebookNode

from course_lib.authoring.build import read, render, write_text
from course_lib.toolkit.state import untouched_environment

CURRENT_PYTHON = "course-current-python"


class CurrentPythonSpecs(KernelSpecManager):
    """Kernel specs that also know ``CURRENT_PYTHON``: an ipykernel running this interpreter."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        if kernel_name == CURRENT_PYTHON:
            return KernelSpec(
                resource_dir=ipykernel.kernelspec.RESOURCES,
                **ipykernel.kernelspec.get_kernel_dict(),
            )
        return super().get_kernel_spec(kernel_name)


def run_notebook(
    nb: NotebookNode,
    folder: Path,
    *,
    allow_errors: bool = False,
    timeout: int = 120,
    record_timing: bool = False,
) -> NotebookNode:
    """Run every cell of ``nb`` (in place) in a fresh kernel of this Python started in ``folder``.

    With ``allow_errors`` a failing cell stores its error output and the run goes on, which is
    how a student notebook is inspected (its check cells fail by design). ``record_timing``
    stores each cell's timestamps in its metadata (for benchmarks; never in stored notebooks).
    """
    client = NotebookClient(
        nb,
        timeout=timeout,
        km=KernelManager(kernel_name=CURRENT_PYTHON, kernel_spec_manager=CurrentPythonSpecs()),
        resources={"metadata": {"path": str(folder)}},
        record_timing=record_timing,
        allow_errors=allow_errors,
        store_widget_state=False,
        # Every output is in once the last cell has replied: the kernel is ended then, not asked
        # to shut down and waited for (its interpreter's exit took 2.6 s on a loaded machine,
        # ending it 0.1 s). Its process group goes with it, a server a cell left running too.
        shutdown_kernel="immediate",
    )
    # The kernel manager is ours, so nbclient would leave its kernel running (one idle kernel
    # per call until the process ends: ten in a test session): shut it down here.
    with untouched_environment() as env:  # the toolkit as before any check passed
        client.execute(env=env, cleanup_kc=True)
    return nb


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def drop_widget_views(nb: NotebookNode) -> NotebookNode:
    """Keep a widget's plain-text form in stored outputs, not its view (a random model id).

    Widget state is not stored, so the view could not be shown from the file anyway; the text
    form is what GitHub shows and what nbval compares, and it is the same on every run.
    """
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
    return nb


def merge_streams(nb: NotebookNode) -> NotebookNode:
    """Join consecutive ``stream`` outputs of the same name (stdout, stderr) in every cell.

    How printed text is split into messages depends on timing, so without this the stored
    outputs would differ from run to run even though the text is the same.
    """
    for cell in nb.cells:
        merged: list = []
        for output in cell.get("outputs", []):
            previous = merged[-1] if merged else None
            if (
                output.get("output_type") == "stream"
                and previous is not None
                and previous.get("output_type") == "stream"
                and previous.get("name") == output.get("name")
            ):
                previous["text"] += output["text"]
            else:
                merged.append(output)
        if "outputs" in cell:
            cell["outputs"] = merged
    return nb


def execute_notebook(path: Path, *, timeout: int = 120) -> None:
    """Run every cell of ``path`` and write it back with its new outputs.

    A cell that raises stops the run (tag a cell ``raises-exception`` when the error is the point).
    """
    nb = run_notebook(read(path), path.resolve().parent, timeout=timeout)
    write_text(path, render(drop_widget_views(merge_streams(nb))))
